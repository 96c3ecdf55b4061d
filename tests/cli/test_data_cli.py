"""``mira-math generate`` / ``validate`` / ``verify`` end to end, in and out of process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mira_math.cli.main import main
from mira_math.generators.layout import DEFAULT_RELEASE
from mira_math.generators.release import data_path, read_release_info
from mira_math.generators import registry

ROOT = Path(__file__).resolve().parents[2]


def _run_cli(args, hashseed):
    env = {**os.environ, "PYTHONHASHSEED": str(hashseed), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "mira_math.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=True)


def test_type_a_part_has_release_ids_and_is_byte_identical_across_processes(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    _run_cli(["generate", "--types", "A", "--out", str(a)], hashseed=1)
    _run_cli(["generate", "--types", "A", "--out", str(b)], hashseed=4242)
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for rel in files:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    # the release's ids and bytes: a Type A build alone is the committed Type A part
    for name in registry.names("A"):
        assert (a / data_path(name)).read_bytes() == (DEFAULT_RELEASE / data_path(name)).read_bytes(), name
    rows = [json.loads(line) for name in registry.names("A")
            for line in (a / data_path(name)).read_text(encoding="utf-8").splitlines()]
    assert {r["type"] for r in rows} == {"A"} and len(rows) == read_release_info(a)["total"] > 0
    assert main(["validate", str(a)]) == 0
    assert main(["verify", str(a)]) == 0


def test_subset_builds_match_the_full_build(tmp_path):
    full, part = tmp_path / "full", tmp_path / "part"
    assert main(["generate", "--families", "moment_problem", "bayes_missing_prior",
                 "--per-type", "4/0", "--out", str(full)]) == 0
    assert main(["generate", "--families", "moment_problem", "--difficulties", "3",
                 "--per-type", "4/0", "--out", str(part)]) == 0
    full_lines = (full / data_path("moment_problem")).read_text(encoding="utf-8").splitlines()
    part_lines = (part / data_path("moment_problem")).read_text(encoding="utf-8").splitlines()
    assert part_lines == full_lines[8:]
    assert json.loads(part_lines[0])["id"] == f"mom-{6 * 12 + 8:06d}"  # 7th Type A family, d=3


def test_validate_names_the_instance_and_property(tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["generate", "--families", "bayes_missing_prior", "--per-type", "2/0",
                 "--out", str(out)]) == 0
    path = out / data_path("bayes_missing_prior")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    row = json.loads(lines[1])
    row["answer"]["value"] = "1/1000"
    lines[1] = json.dumps(row, ensure_ascii=False) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    capsys.readouterr()
    assert main(["validate", str(path)]) == 1
    assert f"{row['id']}: global_uniqueness" in capsys.readouterr().out
    assert main(["verify", str(out)]) == 1
    assert str(path) in capsys.readouterr().out


def test_validate_reports_bad_lines_with_file_and_line(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "x"}\n', encoding="utf-8")
    assert main(["validate", str(path)]) == 1
    assert f"{path}:1" in capsys.readouterr().err


# ------------------------------------------------------------------ outputs that cannot lie

def _gen(out, *extra):
    return main(["generate", "--families", "crt_reconstruction", "--difficulties", "1",
                 "--per-type", "2/2", "--out", str(out), *extra])


def test_generate_refuses_a_non_empty_folder_unless_overwrite(tmp_path, capsys):
    out = tmp_path / "split"
    assert _gen(out) == 0
    (out / "stale.txt").write_text("old build")
    assert _gen(out) == 1 and "--overwrite" in capsys.readouterr().err
    assert _gen(out, "--overwrite") == 0
    assert not (out / "stale.txt").exists()              # the folder was replaced as a whole
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]   # no temp folders left


def test_generate_out_naming_a_file_is_one_line(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    assert _gen(f) == 1 and "not a folder" in capsys.readouterr().err


def test_generate_past_capacity_is_one_line_and_writes_nothing(tmp_path, capsys, monkeypatch):
    import mira_math.generators.release as release
    from mira_math.generators.build import GenerationError

    def full(*a, **k):
        raise GenerationError("crt_reconstruction d=1: capacity exhausted")

    monkeypatch.setattr(release, "render_release", full)
    code = _gen(tmp_path / "split")
    assert code == 1 and "capacity exhausted; nothing written" in capsys.readouterr().err
    assert not (tmp_path / "split").exists()


def test_validate_reports_a_folder_without_release_info(tmp_path, capsys):
    out = tmp_path / "split"
    assert _gen(out) == 0
    (out / "release_info.json").unlink()   # what a killed generate used to leave
    assert main(["validate", str(out)]) == 1
    assert "release_info.json: missing" in capsys.readouterr().err


def test_a_closed_pipe_is_quiet(monkeypatch, capsys):
    import mira_math.cli.data as data
    def pipe(args):
        raise BrokenPipeError

    monkeypatch.setattr(data, "cmd_validate", pipe)
    assert main(["validate", "x"]) == 141
