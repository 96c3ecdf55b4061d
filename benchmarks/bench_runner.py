"""Harness time per model call: the runner with instant backends over the whole release at
full budget (every episode spends all its requests, then answers), transcripts on.

Usage: python benchmarks/bench_runner.py [--repeat N] [--responder rules|decline] [--scale N] [--quick]

The reference, inspect_ai's cost per model call, is measured in the same run when inspect_ai is
importable (its model API on ``mockllm/model``, the same number of calls, in flight together,
best of ``--repeat`` after a warm-up); where it is not, the script says so and prints no ratio.
``--quick``: one pass, 300 instances with ``--scale`` (a smoke run of the same code).

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
from typing import Optional, Tuple

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


def inspect_ms_per_call(calls: int, repeat: int) -> Tuple[Optional[float], str]:
    """inspect_ai's time per model call through its model API on ``mockllm/model`` (no network,
    instant replies: harness time only), or (None, why) when it cannot be measured here."""
    try:
        import inspect_ai
        from inspect_ai.model import ChatMessageSystem, ChatMessageUser, ModelOutput, ModelUsage, get_model
    except ImportError:
        return None, "inspect_ai is not installed here: not measured (make bench-http builds .venv-bench with it)"
    import asyncio

    messages = [ChatMessageSystem(content="You are a careful solver."),
                ChatMessageUser(content="Find x. Facts: a line of facts.")]

    def reply(messages: list, tools: object, tool_choice: object, config: object) -> ModelOutput:
        out = ModelOutput.from_content(model="mockllm", content="REQUEST: What is x?")
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)   # no tokenizer download
        return out

    async def drive(n: int) -> None:
        model = get_model("mockllm/model", custom_outputs=reply)
        await asyncio.gather(*(model.generate(messages) for _ in range(n)))

    try:
        asyncio.run(drive(min(100, calls)))       # warm-up: imports, provider set-up
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            asyncio.run(drive(calls))
            best = min(best, time.perf_counter() - t0)
    except Exception as err:  # noqa: BLE001 - reported, not hidden: the figure is then absent
        return None, f"inspect_ai {inspect_ai.__version__} could not be measured: {type(err).__name__}: {err}"
    return 1000 * best / calls, (f"inspect_ai {inspect_ai.__version__}, model API on mockllm/model, "
                                 f"{calls} calls in flight together, best of {repeat}")


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--responder", choices=["rules", "decline"], default="decline")
    parser.add_argument("--scale", type=int, metavar="N", help="the first-pass figures at N synthetic instances")
    parser.add_argument("--inspect-calls", type=int, default=2000,
                        help="model calls given to inspect_ai for the reference figure")
    parser.add_argument("--quick", action="store_true", help="one pass; --scale 300 (smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.repeat, args.inspect_calls = 1, 200
        args.scale = args.scale and 300
    if args.scale:
        scale(args.scale)
        return 0
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
    ours = 1000 * best / model_calls
    print(f"harness time per model call: {ours:.4f} ms")
    theirs, how = inspect_ms_per_call(args.inspect_calls, args.repeat)
    if theirs is None:
        print(f"reference: {how}")
    else:
        print(f"reference: {how}: {theirs:.3f} ms per model call; inspect_ai / mira-math = {theirs / ours:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
