"""Startup time of ``mira-math eval`` to its first model call: process start, imports, data
loading and checksum, manifest, prompt building, up to the moment the solver is first asked.

Usage: python benchmarks/bench_startup.py [--repeat 5] [--config all] [--quick]
(``--quick``: one run: a smoke run.)
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

DRIVER = r"""
import os, sys, time
sys.path.insert(0, {root!r})
import mira_math.eval.solvers as solvers
def first_call(self, calls):
    print(time.time(), len(calls), flush=True)
    os._exit(0)
solvers.ReferenceSolver.generate = first_call
from mira_math.cli.main import main
main(["eval", "--solver", "reference", "--config", {config!r}, "--release", {release!r},
      "--out", {out!r}])
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--config", default="all")
    parser.add_argument("--quick", action="store_true", help="one run (smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.repeat = 1
    times = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            code = DRIVER.format(root=str(ROOT), config=args.config, release=str(ROOT / "mira-math"),
                                 out=str(Path(tmp) / "run"))
            start = time.time()
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            if out.returncode != 0 or len(out.stdout.split()) != 2:
                raise SystemExit(f"bench_startup: eval did not reach its first model call:\n{out.stderr[-2000:]}")
            first, batch = out.stdout.split()
            times.append(float(first) - start)
    print(f"config {args.config}: {batch} episodes in the first call")
    print(f"startup to first model call: median {statistics.median(times):.3f} s, "
          f"min {min(times):.3f} s over {args.repeat} runs")


if __name__ == "__main__":
    main()
