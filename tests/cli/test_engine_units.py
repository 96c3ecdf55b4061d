"""``eval --workers N`` (the local engine: N spawned processes) and what every engine shares:
the units' command lines, the refusals that keep units adding up to the one-process run, the
missing ray extra as one line, and the merged scores equal to the one-process run's."""

from __future__ import annotations

import json
import sys

from mira_math.cli.main import build_parser, main
from mira_math.cli.scaleout import unit_argv

CONFIG = "crt_reconstruction"
IDENTITY = {"shard_count", "shards_present", "shards", "config_hashes", "fingerprint"}


def _scores(path):
    doc = json.loads((path / "scores.json").read_text(encoding="utf-8"))
    doc["run"] = {k: v for k, v in doc["run"].items() if k not in IDENTITY}
    return doc


def _rows(*dirs):
    rows = [json.loads(line) for d in dirs for line in (d / "transcripts.jsonl").read_text().splitlines()]
    for r in rows:
        r.pop("wall_s")
    return sorted(rows, key=lambda r: r["id"])


def test_local_workers_merge_to_the_one_process_scores(tmp_path, capsys):
    one, out = tmp_path / "one", tmp_path / "units"
    assert main(["eval", "--solver", "reference", "--config", CONFIG, "--out", str(one)]) == 0
    assert main(["score", str(one)]) == 0
    assert main(["eval", "--solver", "reference", "--config", CONFIG, "--workers", "2", "--units", "3",
                 "--out", str(out)]) == 0
    assert "3 units merged (complete), 60/60 correct" in capsys.readouterr().out
    assert _scores(out) == _scores(one)
    assert _rows(*(out / f"shard-{i}" for i in range(3))) == _rows(one)
    manifest = json.loads((out / "shard-1" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["config"]["selection"]["shard"] == [1, 3]
    assert manifest["run_hash"] == json.loads((one / "manifest.json").read_text())["run_hash"]
    record = json.loads((out / "engine.json").read_text(encoding="utf-8"))
    assert [(r["unit"], r["exit"], r["attempts"]) for r in record["results"]] == \
        [("shard-0", 0, 1), ("shard-1", 0, 1), ("shard-2", 0, 1)]
    # a second run into the same folder must say --resume; with it, nothing runs again
    assert main(["eval", "--solver", "reference", "--config", CONFIG, "--workers", "2", "--units", "3",
                 "--out", str(out)]) == 1
    assert "--resume" in capsys.readouterr().err
    assert main(["eval", "--solver", "reference", "--config", CONFIG, "--workers", "2", "--units", "3",
                 "--out", str(out), "--resume"]) == 0
    assert _rows(*(out / f"shard-{i}" for i in range(3))) == _rows(one)


def test_unit_command_lines_keep_the_options_and_set_the_shard(tmp_path):
    args = build_parser().parse_args([
        "eval", "--solver", "openai:m@http://h:1/v1", "--config", "type_b", "--regime", "4s",
        "--families", "a", "b", "--epochs", "2", "--temperature", "0.7", "--engine", "ray",
        "--workers", "4", "--units", "8", "--chat-template-kwargs", '{"date_string": "26 Jul 2024"}',
        "--reasoning-history", "keep", "--out", str(tmp_path / "o")])
    argv = unit_argv(args, 5, 8, tmp_path / "o" / "shard-5")
    assert argv[:3] == ["eval", "--solver", "openai:m@http://h:1/v1"]
    assert argv[-5:] == ["--shard", "5/8", "--out", str(tmp_path / "o" / "shard-5"), "--resume"]
    text = " ".join(argv)
    for part in ("--config type_b", "--regime 4s", "--families a b", "--epochs 2", "--temperature 0.7",
                 '--chat-template-kwargs {"date_string": "26 Jul 2024"}', "--reasoning-history keep"):
        assert part in text, part
    for driver in ("--engine", "--workers", "--units", "--unit-retries"):
        assert driver not in argv
    again = build_parser().parse_args(argv)          # what a unit parses is the user's run
    assert (again.config, again.regime, again.families, again.epochs, again.temperature,
            again.chat_template_kwargs, again.shard) == ("type_b", "4s", ["a", "b"], 2, 0.7,
                                                         {"date_string": "26 Jul 2024"}, (5, 8))


def test_refusals_are_one_line_before_anything_runs(tmp_path, capsys, monkeypatch):
    out = tmp_path / "o"
    base = ["eval", "--solver", "reference", "--config", CONFIG, "--out", str(out)]
    for extra, phrase in ((["--workers", "2", "--limit", "5"], "--sample N"),
                          (["--workers", "2", "--shard", "0/2"], "--units M"),
                          (["--units", "3"], "--units needs --workers"),
                          (["--engine", "ray", "--solver", "vllm"], "needs a model")):
        assert main([*base, *extra]) == 2
        err = capsys.readouterr().err
        assert phrase in err and len(err.strip().splitlines()) == 1, err
        assert not out.exists()
    monkeypatch.setitem(sys.modules, "ray", None)       # ray not installed
    assert main([*base, "--engine", "ray", "--workers", "2"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'mira-math[ray]'" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_killed_local_unit_is_resumed_and_only_its_in_flight_episodes_rerun(tmp_path, counts):
    """The local engine's retry: unit 0's process is SIGKILLed mid-run (while it talks to a slow
    loopback stub of ``vllm serve``); the engine starts it again with --resume."""
    import threading

    import pytest

    pytest.importorskip("openai")
    from tests.eval.openai_stub import serve
    from tests.integrations.slow_stub import SlowHandler, SlowState, attempts, kill_unit_0

    state = SlowState()
    with serve(SlowHandler, state) as httpd:
        solver = f"openai:stub@http://127.0.0.1:{httpd.server_address[1]}/v1"
        out = tmp_path / "units"
        seen: dict = {}
        killer = threading.Thread(target=kill_unit_0, args=(out, 5, seen), daemon=True)
        killer.start()
        code = main(["eval", "--solver", solver, "--config", CONFIG, "--concurrency", "2",
                     "--workers", "2", "--out", str(out)])
        killer.join(timeout=5)
    assert code == 0 and seen.get("finished"), "unit 0 was never killed mid-run"
    unit0 = [a["pid"] for a in attempts(out) if a["unit"] == 0]
    assert len(unit0) == 2 and unit0[0] == seen["pid"]
    assert all(state.starts[i] == 1 for i in seen["finished"])        # finished: never again
    redone = {i for i, n in state.starts.items() if n > 1}
    assert not redone & seen["finished"] and sum(state.starts.values()) == counts.per_family[CONFIG] + len(redone)
    rows = _rows(out / "shard-0", out / "shard-1")
    assert len(rows) == counts.per_family[CONFIG] == len({r["id"] for r in rows})
    record = json.loads((out / "engine.json").read_text(encoding="utf-8"))
    assert [(r["exit"], r["attempts"]) for r in record["results"]] == [(0, 2), (0, 1)]
