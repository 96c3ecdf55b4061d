"""Harness time per model call: the runner with instant backends over the whole release at
full budget (every episode spends all its requests, then answers), transcripts on.

Usage: python benchmarks/bench_runner.py [--repeat N] [--responder rules|decline] [--scale N]

``--scale N``: the same runner over bench_score's synthetic N-instance --data file: the
first pass (checksums, JSON, schema, duplicate ids, the validator) cold (an empty validation
cache) and warm (the file's bytes stamped by the cold pass), its share of the whole run, and the
harness CPU per model call.
Prints: model calls (requests to solver and responder), backend calls (batched: one per
turn), wall time, and harness time per model call. The backends take no time, so all of
the wall time is harness: prompt building, state machine, parsing, verifying, JSON lines.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mira_math.eval.backends.base import Completion  # noqa: E402
from mira_math.game.responders.base import decline  # noqa: E402
from mira_math.eval.runner import RunConfig, data_files, load_data, run  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


class FullBudgetSolver:
    """Asks for the canonical slot every turn until the final turn, then answers."""

    name, is_async = "full-budget", False

    def generate(self, calls):
        out = []
        for c in calls:
            last = c.conversation[-1]["content"]
            if "no requests left" in last:
                out.append(Completion(text="ANSWER: 0", finish_reason="stop"))
            else:
                out.append(Completion(text=f"REQUEST: What is {c.instance.hints[0].slot}?",
                                      finish_reason="stop"))
        return out

    def describe(self):
        return {"spec": self.name}


class DeclineAll:
    name = "decline"

    def respond(self, turns):
        return [decline() for _ in turns]

    def describe(self):
        return {"spec": self.name}


def scale(size: int) -> None:
    """First-pass share and harness CPU per call of a run over ``size`` synthetic instances."""
    import os

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_score import base_runs, synthetic_run

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["MIRA_MATH_CACHE"] = str(root / "cache")          # cold: nothing stamped yet
        data = synthetic_run(root, base_runs(root), size) / "data.jsonl"
        t0, c0 = time.perf_counter(), time.process_time()
        load_data([data])
        cold, cold_cpu = time.perf_counter() - t0, time.process_time() - c0
        t0, c0 = time.perf_counter(), time.process_time()
        selection = load_data([data])                                 # warm: the same bytes again
        warm, warm_cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"first pass over {size:,} instances: cold {cold:.2f} s wall, {cold_cpu:.2f} s CPU; "
              f"warm {warm:.2f} s wall, {warm_cpu:.2f} s CPU", flush=True)
        t0, c0 = time.perf_counter(), time.process_time()
        result = run(root / "run", selection, RunConfig(solver="full-budget", responder="decline"),
                     FullBudgetSolver(), DeclineAll(), progress=False)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    calls = result.calls["solver_requests"] + result.calls["responder_requests"]
    print(f"instances: {result.ran:,}, model calls: {calls:,} (full budget, decline responder)")
    print(f"first pass cold (validates): {cold:.2f} s wall, {cold_cpu:.2f} s CPU; "
          f"warm (stamped bytes): {warm:.2f} s wall, {warm_cpu:.2f} s CPU")
    print(f"run after the first pass: {wall:.2f} s wall, {cpu:.2f} s CPU")
    print(f"first-pass share of the run: warm {100 * warm / (warm + wall):.1f}%, "
          f"cold {100 * cold / (cold + wall):.1f}% (goal <= 10%)")
    print(f"harness CPU per model call: {1000 * (warm_cpu + cpu) / calls:.4f} ms "
          f"(first pass included; {1000 * cpu / calls:.4f} ms without)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--responder", choices=["rules", "decline"], default="decline")
    parser.add_argument("--scale", type=int, metavar="N", help="the first-pass figures at N synthetic instances")
    args = parser.parse_args()
    if args.scale:
        scale(args.scale)
        return
    selection = load_data(data_files("all", None, ROOT / "mira-math"))
    if args.responder == "rules":
        from mira_math.game.responders.rules import RulesResponder

        responder = RulesResponder()
    else:
        responder = DeclineAll()
    best = None
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            result = run(Path(tmp) / "run", selection, RunConfig(solver="full-budget", responder=responder.name),
                         FullBudgetSolver(), responder, progress=False)
            wall = time.perf_counter() - t0
        best = wall if best is None or wall < best else best
    calls = result.calls
    model_calls = calls["solver_requests"] + calls["responder_requests"]
    print(f"instances: {result.ran}, responder: {args.responder}")
    print(f"model calls (solver + responder requests): {model_calls} "
          f"({calls['solver_requests']} + {calls['responder_requests']})")
    print(f"backend calls (batched, one per turn): {calls['solver_calls']} solver + "
          f"{calls['responder_calls']} responder")
    print(f"wall (best of {args.repeat}): {best:.3f} s")
    print(f"harness time per model call: {1000 * best / model_calls:.4f} ms "
          f"(inspect_ai: ~11 ms; ratio {11 / (1000 * best / model_calls):.0f}x)")


if __name__ == "__main__":
    main()
