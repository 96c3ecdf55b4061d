"""A killed writer's temporary files are removed by the next write of the file."""

from __future__ import annotations

import os
import subprocess
import sys

from mira_math.common.atomic import write_atomic


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_rerun_removes_temporaries_of_dead_writers_only(tmp_path):
    target = tmp_path / "scores.csv"
    dead = tmp_path / f".scores.csv.tmp-{_dead_pid()}"
    dead.write_text("half a table", encoding="utf-8")
    live = tmp_path / f".scores.csv.tmp-{os.getppid()}"      # a writer still running
    live.write_text("being written", encoding="utf-8")
    other = tmp_path / f".scores.json.tmp-{_dead_pid()}"     # another file's: its own writer cleans it
    other.write_text("x", encoding="utf-8")
    write_atomic(target, b"a,b\n")
    assert target.read_bytes() == b"a,b\n"
    assert not dead.exists() and live.exists() and other.exists()
