"""``mira-math eval --engine ray`` on a local Ray cluster (``ray.init(num_cpus=2)``; Ray removed
``local_mode``, so the units really run in Ray worker processes).

* The merged run scores exactly as the one-process run: ``OUT/scores.json`` equals the
  one-process ``scores.json`` in everything but the fields that name the run's folders and
  shards, and the transcripts are the same but for timing fields.
* A worker killed mid-run (SIGKILL of the Ray worker process carrying unit 0, while it talks to
  a slow loopback stub of ``vllm serve``) is retried by Ray; its retry resumes the shard, so
  every episode finished before the kill ran exactly once, only the ones in flight ran again,
  and the merged scores still equal the one-process run's.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="needs the ray extra (pip install 'mira-math[ray]')")
pytest.importorskip("openai", reason="the killed-worker test talks HTTP")

from mira_math.cli.main import main  # noqa: E402
from tests.eval.openai_stub import serve  # noqa: E402
from tests.integrations.slow_stub import SlowHandler, SlowState, attempts, kill_unit_0  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CONFIG = "crt_reconstruction"
# what names the run's folders, shards and files: the one-process run has none of these
IDENTITY = {"shard_count", "shards_present", "shards", "config_hashes", "fingerprint"}
TIMING = {"wall_s", "latency_s", "batch_latency_s"}


@pytest.fixture(scope="module")
def cluster():
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), saved) if p)  # for the workers
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


def _scores(path: Path) -> dict:
    doc = json.loads((path / "scores.json").read_text(encoding="utf-8"))
    doc["run"] = {k: v for k, v in doc["run"].items() if k not in IDENTITY}
    return doc


def _untimed(value):
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _transcripts(*dirs: Path) -> list:
    rows = [json.loads(line) for d in dirs
            for line in (d / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()]
    return sorted((_untimed(r) for r in rows), key=lambda r: r["id"])


def _differences(a, b, path="") -> list:
    """Where two JSON values differ (key paths), for a readable failure."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in _differences(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"[:200]]


def test_a_ray_run_scores_as_the_one_process_run(tmp_path, cluster):
    one, out = tmp_path / "one", tmp_path / "ray"
    assert main(["eval", "--solver", "reference", "--config", CONFIG, "--out", str(one)]) == 0
    assert main(["score", str(one)]) == 0
    assert main(["eval", "--solver", "reference", "--config", CONFIG, "--engine", "ray",
                 "--workers", "2", "--units", "3", "--out", str(out)]) == 0
    shards = [out / f"shard-{i}" for i in range(3)]
    assert _scores(out) == _scores(one)
    assert _differences(_transcripts(*shards), _transcripts(one)) == []
    record = json.loads((out / "engine.json").read_text(encoding="utf-8"))
    assert [(r["unit"], r["exit"], r["attempts"]) for r in record["results"]] == \
        [(f"shard-{i}", 0, 1) for i in range(3)]
    # the same command again continues the finished run: nothing is run twice
    assert main(["eval", "--solver", "reference", "--config", CONFIG, "--engine", "ray",
                 "--workers", "2", "--units", "3", "--out", str(out), "--resume"]) == 0
    assert _transcripts(*shards) == _transcripts(one)


def test_a_killed_worker_costs_only_its_in_flight_episodes(tmp_path, cluster):
    state = SlowState()
    with serve(SlowHandler, state) as httpd:
        solver = f"openai:stub@http://127.0.0.1:{httpd.server_address[1]}/v1"
        common = ["eval", "--solver", solver, "--config", CONFIG, "--concurrency", "2"]
        one, out = tmp_path / "one", tmp_path / "ray"
        state.delay = 0.0
        assert main([*common, "--out", str(one)]) == 0
        assert main(["score", str(one)]) == 0
        state.delay = 0.1
        state.reset()
        seen: dict = {}
        killer = threading.Thread(target=kill_unit_0, args=(out, 5, seen), daemon=True)
        killer.start()
        code = main([*common, "--engine", "ray", "--workers", "2", "--units", "2", "--out", str(out)])
        killer.join(timeout=5)
    assert code == 0
    assert seen.get("finished"), "unit 0 was never killed mid-run"
    tried = attempts(out)
    unit0 = [a["pid"] for a in tried if a["unit"] == 0]
    assert len(unit0) == 2 and unit0[0] == seen["pid"] != unit0[1]        # Ray ran it again
    assert [a["unit"] for a in tried].count(1) == 1
    total = len(_transcripts(one))
    assert len(seen["finished"]) < 30                                      # killed mid-run
    # every episode finished before the kill ran once; only those in flight ran again
    assert all(state.starts[i] == 1 for i in seen["finished"])
    redone = {i for i, n in state.starts.items() if n > 1}
    assert redone and not redone & seen["finished"] and all(state.starts[i] == 2 for i in redone)
    assert sum(state.starts.values()) == total + len(redone)
    merged = _transcripts(out / "shard-0", out / "shard-1")
    assert [r["id"] for r in merged] == sorted({r["id"] for r in merged})  # no episode twice
    assert _scores(out) == _scores(one)
    assert _differences(merged, _transcripts(one)) == []
    record = json.loads((out / "engine.json").read_text(encoding="utf-8"))
    assert [(r["exit"], r["attempts"]) for r in record["results"]] == [(0, 2), (0, 1)]
