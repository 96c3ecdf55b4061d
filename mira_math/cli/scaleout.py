"""``mira-math eval --engine ray|local --workers N [--units M]``: one evaluation cut into work
units that run elsewhere (Ray tasks, or local processes), then merged as shards are.

The driver reads and checks the selection once (the data files' validation is then cached for
every unit on this machine), refuses what a unit would refuse, and builds one command line per
unit: the same ``eval`` options with ``--shard i/M --out OUT/shard-i --resume``. Each unit runs
the unchanged runner; the engine (:mod:`mira_math.eval.engines`) runs it again where it died.
When every unit has finished, the shards are scored together into ``OUT/scores.json`` (what
``mira-math score OUT/shard-* --out OUT`` writes), and ``OUT/engine.json`` records the units,
their attempts and exit statuses. ``docs/decisions/harness.md`` says why it is built so.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Callable, List, Optional, Sequence

from mira_math.eval.engines import ENGINES, UnitResult, WorkUnit, get_engine

ENGINE_RECORD = "engine.json"
ATTEMPTS_LOG = "attempts.jsonl"
# Options the driver sets per unit (or that only the driver reads): never copied into a unit.
DRIVER_ONLY = {"entry", "eval_parser", "engine", "workers", "units", "ray_address", "cpus_per_unit", "gpus_per_unit",
               "unit_retries", "shard", "out", "resume", "func", "command", "solver"}


def add_engine_options(e: argparse.ArgumentParser) -> None:
    """The engine options of ``eval`` (kept here so the eval command's own list stays short)."""
    e.set_defaults(eval_parser=e)     # unit_argv reads the eval options from it
    e.add_argument("--engine", choices=list(ENGINES), default="local",
                   help="where the run executes: " + "; ".join(f"{k}: {v.summary}"
                                                             for k, v in ENGINES.items()))
    e.add_argument("--workers", type=_positive, metavar="N",
                   help="work units running at once (--engine ray: Ray tasks; local: processes); "
                        "the run is written as OUT/shard-i and merged into OUT/scores.json")
    e.add_argument("--units", type=_positive, metavar="M",
                   help="work units (shards) to cut the run into (default: --workers); more units "
                        "than workers balance long-tailed models")
    e.add_argument("--unit-retries", type=_non_negative, default=3, metavar="N",
                   help="attempts after the first for a unit whose worker died or was interrupted "
                        "(Ray's max_retries); each attempt resumes the unit's shard")
    e.add_argument("--ray-address", metavar="ADDRESS",
                   help="--engine ray: the cluster (auto, ray://HOST:10001); default: a running "
                        "local cluster, else a new one on this machine")
    e.add_argument("--cpus-per-unit", type=float, metavar="N", help="--engine ray: CPUs each unit asks for (1)")
    e.add_argument("--gpus-per-unit", type=float, metavar="N",
                   help="--engine ray: GPUs each unit asks for (a vllm: or transformers: solver: "
                        "its --tensor-parallel-size)")
    # served data parallelism and the chat template: options of the model backends
    e.add_argument("--dp-ranks", type=_positive, metavar="N",
                   help="openai: pin each episode (instance and epoch) to one of N data-parallel "
                        "ranks of the server (vllm serve --data-parallel-size N) with the "
                        "X-data-parallel-rank header, so its turns reuse one engine's prefix cache")
    e.add_argument("--batch-size", type=_positive, metavar="N",
                   help="transformers: the most chats one generate call takes (default 16); on a "
                        "GPU a token budget from free memory (or --gpu-memory-utilization) may make "
                        "calls smaller, and greedy turns use continuous batching where available")
    e.add_argument("--chat-template-kwargs", type=_json_object, metavar="JSON",
                   help="keyword arguments of the chat template, e.g. '{\"date_string\": \"26 Jul "
                        "2024\"}': vllm and transformers use it instead of their pinned default "
                        "(that date); openai sends it in the request body (vllm serve reads it), "
                        "only when given (docs/llama.md)")


def _json_object(text: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r} ({err})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r}")
    return value


def _positive(text: str) -> int:
    from mira_math.cli.data import positive_int

    return positive_int(text)


def _non_negative(text: str) -> int:
    from mira_math.cli.data import non_negative_int

    return non_negative_int(text)


def wants_units(args: argparse.Namespace) -> bool:
    """Whether ``eval`` runs as work units: any engine but local, or local with --workers."""
    return args.engine != "local" or args.workers is not None or args.units is not None


def unit_argv(args: argparse.Namespace, index: int, count: int, out: Path) -> List[str]:
    """The ``eval`` command line of unit ``index``: every option the user gave (as parsed),
    less the driver's, plus the unit's shard, folder and ``--resume``."""
    argv = ["eval", "--solver", args.solver]
    for action in args.eval_parser._actions:
        if not action.option_strings or action.dest in DRIVER_ONLY or action.dest == "help":
            continue
        value = getattr(args, action.dest, None)
        if value is None or value == action.default:
            continue
        flag = max(action.option_strings, key=len)
        if isinstance(action, argparse._StoreTrueAction):
            argv.append(flag)
        elif isinstance(value, dict):
            argv += [flag, json.dumps(value)]
        elif isinstance(value, (list, tuple)):
            argv += [flag, *(str(v) for v in value)]
        else:
            argv += [flag, str(value)]
    return argv + ["--shard", f"{index}/{count}", "--out", str(out), "--resume"]


def execute_unit(entry: Callable[[List[str]], int], unit: WorkUnit) -> int:
    """Run one unit's command line with ``entry`` (``mira_math.cli.main.main``, handed down by
    the parser, so this module imports no command module above it) in this process (a Ray
    worker, a spawned process) and return its exit status; each attempt is recorded first."""
    if unit.attempts_log:
        line = json.dumps({"unit": unit.index, "pid": os.getpid(), "host": socket.gethostname(),
                           "started": round(time.time(), 3)})
        fd = os.open(unit.attempts_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (line + "\n").encode("utf-8"))   # one write: whole lines from any worker
        finally:
            os.close(fd)
    saved = sys.argv
    sys.argv = ["mira-math", *unit.argv]   # what the unit's manifest records as its command
    try:
        return int(entry(list(unit.argv)))
    except SystemExit as stop:             # argparse refused an option
        return stop.code if isinstance(stop.code, int) else 2
    finally:
        sys.argv = saved


def _refusal(args: argparse.Namespace) -> Optional[str]:
    if args.shard:
        return "--shard cuts a run by hand; with --engine/--workers give --units M instead"
    if args.limit is not None:
        return ("--limit takes the first N instances of each shard, so units would not add up to "
                "the run: with --engine/--workers use --sample N (or --ids)")
    if args.units is not None and args.workers is None and args.engine == "local":
        return "--units needs --workers N (or --engine ray)"
    return None


def cmd_eval_units(args: argparse.Namespace, check_solver_spec: Callable[[str], None],
                   epochs_refusal: Callable[[argparse.Namespace, bool], str]) -> int:
    """The driver: check and select once (with ``eval``'s own checks, handed in), run the units
    on the engine, merge their shards."""
    from mira_math.cli.data import restore_release
    from mira_math.eval.selection import data_files, load_data
    from mira_math.eval.solver_kinds import SCRIPTED

    refused = _refusal(args)
    if refused is None and args.solver not in SCRIPTED:
        try:
            check_solver_spec(args.solver)
        except ValueError as err:
            refused = str(err)
    scripted = args.solver in SCRIPTED and not SCRIPTED[args.solver].samples
    refused = refused or epochs_refusal(args, scripted)
    if refused:
        print(f"mira-math eval: {refused}", file=sys.stderr)
        return 2
    out: Path = args.out
    if out.exists() and not out.is_dir():
        print(f"mira-math eval: --out {out}: exists and is not a folder", file=sys.stderr)
        return 1
    if any(out.glob("shard-*")) and not (args.resume or args.retry_errors):
        print(f"mira-math eval: {out} already holds a run's units: pass --resume to continue it, "
              "or choose another --out", file=sys.stderr)
        return 1
    restore_release(args.data if args.data is not None else args.release, "eval")
    files = data_files(args.config, args.data, args.release)
    sample = (args.sample, args.sample_seed) if args.sample else None
    selection = load_data(files, args.families, args.ids, None, None, sample=sample)
    total = len(selection.instances)
    if not total:
        print("mira-math eval: the selection is empty (check --families, --ids and the data files)",
              file=sys.stderr)
        return 1
    count = min(args.units or args.workers or 2, total)
    workers = min(args.workers or count, count)
    try:
        engine = get_engine(args.engine).create(address=args.ray_address, cpus_per_unit=args.cpus_per_unit,
                                                gpus_per_unit=args.gpus_per_unit)
    except ImportError as err:              # MissingExtra: the install command
        print(f"mira-math eval: {err}", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    log = out / ATTEMPTS_LOG
    units = [WorkUnit(i, count, str(out / f"shard-{i}"), tuple(unit_argv(args, i, count, out / f"shard-{i}")),
                      str(log)) for i in range(count)]
    print(f"{out}: {total} instances in {count} units on the {args.engine} engine, {workers} at a time",
          file=sys.stderr)
    started = time.perf_counter()
    execute = functools.partial(execute_unit, args.entry)   # pickled by reference for the workers
    results = engine.run(units, execute, workers, args.unit_retries,
                         lambda text: print(f"mira-math eval: {text}", file=sys.stderr))
    _write_record(out, args, results, time.perf_counter() - started)
    return _merge(out, results)


def _write_record(out: Path, args: argparse.Namespace, results: Sequence[UnitResult], wall_s: float) -> None:
    from mira_math.common.atomic import write_atomic

    record = {"engine": args.engine, "workers": args.workers, "units": len(results),
              "unit_retries": args.unit_retries, "wall_s": round(wall_s, 3),
              "results": [{"unit": r.unit.name, "exit": r.code, "attempts": r.attempts,
                           **({"message": r.message} if r.message else {})} for r in results]}
    write_atomic(out / ENGINE_RECORD, (json.dumps(record, indent=2) + "\n").encode("utf-8"))


def _merge(out: Path, results: Sequence[UnitResult]) -> int:
    """Score the units' shards together into ``out`` once every unit finished; else say which
    did not and how to continue."""
    failed = [r for r in results if not r.finished]
    if failed:
        for r in failed:
            why = r.message or (f"killed by signal {-r.code}" if r.code is not None and r.code < 0
                                else f"exit {r.code}")
            print(f"mira-math eval: {r.unit.name} did not finish after {r.attempts} attempt(s): {why}",
                  file=sys.stderr)
        print(f"mira-math eval: the finished transcripts are kept in {out}: rerun the same command "
              "with --resume", file=sys.stderr)
        codes = [r.code for r in failed if r.code is not None and r.code > 0]
        return codes[0] if codes else 1
    from mira_math.eval.scores_file import write_scores
    from mira_math.eval.scoring import score

    scores = score([Path(r.unit.out) for r in results])
    write_scores(scores, out)
    (run,) = scores
    overall = run.overall
    errors = sum(1 for r in results if r.code == 3)
    print(f"{out}: {len(results)} units merged ({run.run.status}), {overall.correct}/{overall.n} correct, "
          f"{overall.errored} errored; wrote {out / 'scores.json'}")
    if errors:
        print(f"mira-math eval: {errors} unit(s) had instances ending in an error: rerun with "
              "--retry-errors", file=sys.stderr)
        return 3
    return 0 if run.run.complete else 3


__all__ = ["add_engine_options", "cmd_eval_units", "execute_unit", "unit_argv", "wants_units"]
