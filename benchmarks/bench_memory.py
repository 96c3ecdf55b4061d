"""Peak memory of the runner for 10^3, 10^4 and 10^5 dialogues (must stay flat: live
episodes are bounded by the window and transcripts stream to disk).

Each size runs in its own process (peak RSS is per process). Instances are the release's,
cycled with fresh ids and generated on the fly, so the figure is the runner's, not the
data's. Solver: reference; responder: rules; transcripts written to a temporary file.

Usage: python benchmarks/bench_memory.py [--sizes 1000 10000 100000] [--window 4096] [--quick]
(``--quick``: 300 dialogues, a window of 64: a smoke run.)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

DRIVER = r"""
import dataclasses, itertools, resource, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, {root!r})
from mira_math.game.episode import Episode
from mira_math.game.responders.rules import RulesResponder
from mira_math.eval.runner import data_files, load_data, run_batched
from mira_math.eval.solvers import ReferenceSolver

n, window = {n}, {window}
release = load_data(data_files("all", None, Path({root!r}) / "mira-math")).instances
import gc; gc.collect()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
def instances():
    for k, inst in zip(range(n), itertools.cycle(release)):
        yield dataclasses.replace(inst, id=f"m-{{k:07d}}")
out = open(tempfile.mktemp(suffix=".jsonl"), "w", encoding="utf-8")
def emit(ep):
    out.write(ep.transcript.to_json_line()); out.flush()
t0 = time.perf_counter()
calls = run_batched(instances(), lambda i: Episode(i, solver="reference", responder="rules", regime="zs"),
                    ReferenceSolver(), RulesResponder(), emit, window=window)
wall = time.perf_counter() - t0
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"{{n}} {{before}} {{after}} {{wall:.2f}} {{calls['solver_calls']}}")
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--window", type=int, default=4096)
    parser.add_argument("--quick", action="store_true", help="300 dialogues, window 64 (smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.window = [300], 64
    print(f"{'dialogues':>10s} {'peak RSS MiB':>13s} {'runner MiB':>11s} {'wall s':>7s} {'dialogues/s':>12s}")
    for n in args.sizes:
        code = DRIVER.format(root=str(ROOT), n=n, window=args.window)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"bench_memory: the {n}-dialogue run failed:\n{proc.stderr[-2000:]}")
        line = proc.stdout.split()
        size, before, after, wall, _ = int(line[0]), int(line[1]), int(line[2]), float(line[3]), line[4]
        print(f"{size:>10d} {after / 1024:>13.1f} {(after - before) / 1024:>11.1f} {wall:>7.2f} "
              f"{size / wall:>12.0f}")
    print("peak RSS: whole process (Python, the loaded release, the runner); runner MiB: growth "
          "of the peak during the run. ru_maxrss is in KiB on Linux.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
