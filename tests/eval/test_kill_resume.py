"""SIGKILL in the middle of ``mira-math eval`` and ``--resume``: the resumed
run has exactly the transcripts and the metrics of an uninterrupted run with the same
deterministic solver (none lost, none duplicated), and no half-written line is accepted: a
torn last line is cut off with a message (a whole line that lacks only its newline is kept),
a torn line in the middle is refused, naming it.

The solver is a test-only spec, ``scripted-slow``: deterministic replies that mix the
reference solver's ask-then-solve with immediate guesses, a declined request and a format
error (so the metrics are not all 1.0), sleeping a few ms per batch in the killed process
only. The subprocess is ``python -m mira_math.cli eval`` in all but name: a ``python -c``
driver that installs the spec (``install`` below) and calls ``mira_math.cli.main.main``.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mira_math.eval.solvers
from mira_math.eval.runner import TRANSCRIPTS
from mira_math.eval.scores_file import scores_csv, scores_document
from mira_math.eval.scoring import score
from mira_math.eval.solvers import ReferenceSolver
from mira_math.cli.main import main
from mira_math.generators.layout import DEFAULT_RELEASE

ROOT = Path(__file__).resolve().parents[2]
SPEC = "scripted-slow"
TOTAL = 300
EVAL = ["eval", "--solver", SPEC, "--responder", "rules", "--config", "all",
        "--release", str(DEFAULT_RELEASE), "--shard", "0/7", "--limit", str(TOTAL)]
KILL_AT = 30              # complete transcript lines before the kill
DEADLINE_S = 30.0         # bound on every wait for the subprocess
VOLATILE = ("wall_s",)    # per-transcript timing; turn meta "latency_s" is dropped too


class ScriptedSolver(ReferenceSolver):
    """Deterministic per (instance, turn): a quarter guess 0 at once, a quarter first ask a
    question the holder declines, a quarter first send a format error, the rest ask-then-solve."""

    name = SPEC

    def __init__(self, delay_s: float = 0.0):
        self.delay_s = delay_s

    def _reply(self, call):
        turn = sum(m["role"] == "assistant" for m in call.conversation)
        kind = hashlib.sha256(call.instance.id.encode()).digest()[0] % 4
        if kind == 0:
            return "ANSWER: 0"
        if kind == 1 and turn == 0:
            return "REQUEST: What is the answer?"
        if kind == 2 and turn == 0:
            return "Let me think about which quantity is missing."
        return super()._reply(call)

    def generate(self, calls):
        if self.delay_s:
            time.sleep(self.delay_s)
        return super().generate(calls)

    def describe(self):
        return {"spec": SPEC}


def install(delay_s: float = 0.0):
    """Make ``scripted-slow`` a solver spec of this process's ``mira-math eval``."""
    original = mira_math.eval.solvers.make_solver

    def make_solver(spec, params=None, backend=None, **options):
        if spec == SPEC:
            return ScriptedSolver(delay_s)
        return original(spec, params, backend, **options)

    mira_math.eval.solvers.make_solver = make_solver
    return original


DRIVER = ("import importlib.util, sys; "
          "spec = importlib.util.spec_from_file_location('kill_resume_driver', sys.argv[1]); "
          "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); "
          "m.install(float(sys.argv[2])); "
          "from mira_math.cli.main import main; sys.exit(main(sys.argv[3:]))")


@pytest.fixture
def scripted(monkeypatch):
    monkeypatch.setattr(mira_math.eval.solvers, "make_solver", mira_math.eval.solvers.make_solver)   # restored after
    install(0.0)


def _normal(path: Path):
    """Transcript lines without their volatile fields, as canonical JSON text."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():               # a blank line holds no transcript (score and resume alike)
            continue
        row = json.loads(line)
        for key in VOLATILE:
            row.pop(key)
        for turn in row["turns"]:
            (turn.get("meta") or {}).pop("latency_s", None)
        out.append(json.dumps(row, sort_keys=True))
    return out


def _metrics(run_dir: Path):
    (s,) = score([run_dir])
    return scores_csv(s), scores_document(s)["groups"]


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory):
    """The uninterrupted run, in process."""
    out = tmp_path_factory.mktemp("clean") / "run"
    original = install(0.0)
    try:
        assert main(EVAL + ["--out", str(out)]) == 0
    finally:
        mira_math.eval.solvers.make_solver = original
    lines = _normal(out / TRANSCRIPTS)
    assert len(lines) == TOTAL
    return out


def test_sigkill_mid_run_then_resume_equals_an_uninterrupted_run(tmp_path, clean_run, scripted, capsys):
    out = tmp_path / "killed"
    path = out / TRANSCRIPTS
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open(tmp_path / "stderr.txt", "wb") as err:
        proc = subprocess.Popen([sys.executable, "-c", DRIVER, __file__, "0.01",
                                 *EVAL, "--out", str(out), "--window", "8"],
                                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err)
        try:
            deadline = time.monotonic() + DEADLINE_S
            while time.monotonic() < deadline and proc.poll() is None:
                if path.is_file() and path.read_bytes().count(b"\n") >= KILL_AT:
                    break
                time.sleep(0.005)
            still_running = proc.poll() is None
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=DEADLINE_S)
        finally:
            if proc.poll() is None:   # pragma: no cover - only when the wait above timed out
                proc.kill()
                proc.wait(timeout=DEADLINE_S)
    assert still_running and proc.returncode == -signal.SIGKILL, \
        (tmp_path / "stderr.txt").read_text(errors="replace")
    at_kill = path.read_bytes()
    complete = at_kill[:at_kill.rfind(b"\n") + 1]
    done = complete.count(b"\n")
    assert KILL_AT <= done < TOTAL, done

    capsys.readouterr()
    assert main(EVAL + ["--out", str(out), "--resume"]) == 0
    printed = capsys.readouterr()
    assert f"{TOTAL - done} run ({done} already finished)" in printed.out
    if len(at_kill) > len(complete):   # the kill tore a line: it was cut off, with a note
        assert "removed a torn last line" in printed.err
    final = path.read_bytes()
    assert final.startswith(complete)          # what was on disk is kept as it was

    resumed, clean = _normal(path), _normal(clean_run / TRANSCRIPTS)
    ids = [json.loads(line)["id"] for line in resumed]
    assert len(ids) == len(set(ids)) == TOTAL                 # none lost, none duplicated
    assert sorted(resumed) == sorted(clean)                   # the same transcripts
    assert _metrics(out) == _metrics(clean_run)               # the same figures
    m = _metrics(out)[1][0]["metrics"]
    assert m["n"] == TOTAL and 0 < float(m["accuracy"]) < 1   # a run with something to measure


def _copy_of_clean(clean_run: Path, out: Path) -> Path:
    out.mkdir(parents=True)
    for name in ("manifest.json", TRANSCRIPTS):
        (out / name).write_bytes((clean_run / name).read_bytes())
    return out / TRANSCRIPTS


def test_torn_last_line_is_repaired_with_a_message(tmp_path, clean_run, scripted, capsys):
    """Half a line: cut off (the episode is run again), never accepted and never duplicated."""
    path = _copy_of_clean(clean_run, tmp_path / "r")
    lines = path.read_bytes().splitlines(keepends=True)
    lost = lines[-1][: len(lines[-1]) // 2]
    path.write_bytes(b"".join(lines[:-1]) + lost)
    capsys.readouterr()
    assert main(["score", str(tmp_path / "r")]) == 1          # score refuses the torn line too
    capsys.readouterr()
    assert main(EVAL + ["--out", str(tmp_path / "r"), "--resume"]) == 0
    printed = capsys.readouterr()
    assert f"note: {path}: removed a torn last line ({len(lost)} bytes)" in printed.err
    assert f"1 run ({TOTAL - 1} already finished)" in printed.out
    assert sorted(_normal(path)) == sorted(_normal(clean_run / TRANSCRIPTS))


def test_score_and_resume_read_the_same_lines(tmp_path, clean_run, scripted, capsys):
    """A whole last line without its newline and a blank line: score reads them as the file's
    transcripts, and resume keeps the same ones (ending the line), running nothing again."""
    path = _copy_of_clean(clean_run, tmp_path / "r")
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:2]) + b"\n" + b"".join(lines[2:-1]) + lines[-1][:-1])
    capsys.readouterr()
    assert _metrics(tmp_path / "r") == _metrics(clean_run)      # score reads all of them
    assert main(EVAL + ["--out", str(tmp_path / "r"), "--resume"]) == 0
    printed = capsys.readouterr()
    assert f"note: {path}: ended the last line, which lacked only its newline" in printed.err
    assert f"0 run ({TOTAL} already finished)" in printed.out
    assert sorted(_normal(path)) == sorted(_normal(clean_run / TRANSCRIPTS))


@pytest.mark.parametrize("flag", ["--resume", "--retry-errors"])
def test_torn_line_in_the_middle_is_refused_naming_the_line(tmp_path, clean_run, scripted, capsys, flag):
    path = _copy_of_clean(clean_run, tmp_path / "r")
    lines = path.read_bytes().splitlines(keepends=True)
    lines[41] = lines[41][:57] + b"\n"
    path.write_bytes(b"".join(lines))
    before = path.read_bytes()
    capsys.readouterr()
    assert main(EVAL + ["--out", str(tmp_path / "r"), flag]) == 1
    err = capsys.readouterr().err
    assert f"mira-math eval: {path}:42: not a transcript line" in err
    assert path.read_bytes() == before                      # refused, nothing touched
    assert main(["score", str(tmp_path / "r")]) == 1         # scoring refuses it too
    assert f"{path}:42: not a transcript line" in capsys.readouterr().err


def test_a_line_recorded_twice_is_refused_naming_the_line(tmp_path, clean_run, scripted, capsys):
    path = _copy_of_clean(clean_run, tmp_path / "r")
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:10] + [lines[3]] + lines[10:]))
    capsys.readouterr()
    assert main(EVAL + ["--out", str(tmp_path / "r"), "--resume"]) == 1
    tid = json.loads(lines[3])["id"]
    assert f"{path}:11: instance {tid} recorded twice" in capsys.readouterr().err
