"""Every benchmark runs: each script of ``benchmarks/`` in its ``--quick`` mode (its real code path
on a small input) as its own process, exit status 0, and the figure it exists to print is there.

An import would not see a benchmark that reads a moved file or looks for a message the CLI no
longer prints (``make bench`` once stopped half way on both). The processes run a few at a time
(one per core, at least two: much of each is a child process starting or a server waiting),
all started by the first test that needs them; figures are not checked, only that they print.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = sorted(p.name for p in (ROOT / "benchmarks").glob("bench_*.py"))
# invocations beyond ``--quick`` for a mode with a code path of its own
EXTRA: Dict[str, List[List[str]]] = {
    "bench_runner.py": [["--quick", "--scale", "300"]],
    "bench_answers.py": [["--quick", "--reader-only"]],
}
# what each prints when it worked: a line the figure of benchmarks/README.md comes from
PRINTS: Dict[str, str] = {
    "bench_answers.py": "read_message MEDIAN",
    "bench_faults.py": "0 tracebacks, 0 secrets written",
    "bench_generation.py": "instances/s",
    "bench_http.py": "CPU ms/call",
    "bench_memory.py": "peak RSS",
    "bench_multi_hint.py": "two-fact / one-fact =",
    "bench_runner.py": "harness",
    "bench_scale.py": "generate / validate / verify",
    "bench_score.py": "x floor",
    "bench_slots.py": "read_request worst case",
    "bench_startup.py": "startup to first model call",
    "bench_verifier.py": "wrong acceptances:      0",
    "bench_view.py": "load average at end",
    "bench_workers.py": "break-even",
}
RUNS: List[Tuple[str, Tuple[str, ...]]] = [
    (name, tuple(args)) for name in BENCHMARKS for args in [["--quick"]] + EXTRA.get(name, [])]
TIMEOUT_S = 600


def _run(name: str, args: Tuple[str, ...]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([sys.executable, str(ROOT / "benchmarks" / name), *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired as err:
        return subprocess.CompletedProcess(err.cmd, -1, str(err.stdout or ""), f"timed out after {TIMEOUT_S} s")


@pytest.fixture(scope="module")
def results(request) -> Dict[Tuple[str, Tuple[str, ...]], subprocess.CompletedProcess]:
    """The runs the selected tests need, started together (a -k selection runs only its own)."""
    wanted = [item.callspec.params["run"] for item in request.session.items
              if item.originalname == "test_quick_mode_runs" and hasattr(item, "callspec")]
    workers = max(2, os.cpu_count() or 2)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {run: pool.submit(_run, *run) for run in dict.fromkeys(wanted)}
        return {run: future.result() for run, future in futures.items()}


def test_every_benchmark_has_an_expected_line():
    assert "bench_scale.py" in BENCHMARKS and "bench_answers.py" in BENCHMARKS
    assert sorted(PRINTS) == BENCHMARKS, "a benchmark without its expected line, or a line for none"


@pytest.mark.parametrize("run", RUNS, ids=[" ".join((name,) + args) for name, args in RUNS])
def test_quick_mode_runs(run, results):
    name, args = run
    proc = results[run]
    tail = (proc.stdout[-1500:] + "\n--- stderr ---\n" + proc.stderr[-2500:])
    assert proc.returncode == 0, f"{name} {' '.join(args)} exited {proc.returncode}:\n{tail}"
    assert "Traceback" not in proc.stderr, tail
    assert PRINTS[name] in proc.stdout, f"{name} {' '.join(args)} did not print {PRINTS[name]!r}:\n{tail}"
