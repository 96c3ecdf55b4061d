"""The evaluation subcommands of ``mira-math`` (``eval``, ``score``, ``report``, ``audit``);
added by :mod:`mira_cli.main`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generators.release import DEFAULT_RELEASE


def _shard(text: str):
    try:
        index, count = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected I/N such as 0/4, got {text!r}") from None
    if not 0 <= index < count:
        raise argparse.ArgumentTypeError("shard index must be in 0..N-1")
    return index, count


def make_responder(spec: str, solver=None, options=None):
    """``rules``, ``llm:same`` (the solver's own engine) or ``llm:<backend spec>``."""
    from eval.backends.base import GenParams

    if spec == "rules":
        from eval.responders.rules import RulesResponder

        return RulesResponder()
    kind, _, rest = spec.partition(":")
    if kind != "llm" or not rest:
        raise ValueError(f"unknown responder {spec!r}: use rules, llm:same or llm:KIND:MODEL")
    from eval.responders.llm import LLMResponder
    from eval.solvers import make_backend

    if rest == "same":
        backend = getattr(solver, "backend", None)
        if backend is None:
            raise ValueError("llm:same needs a model solver")
    else:
        backend = make_backend(rest, **(options or {}))
    return LLMResponder(backend, GenParams(temperature=0.0, max_tokens=256))


def cmd_eval(args: argparse.Namespace) -> int:
    from eval.backends.base import GenParams
    from eval.runner import RunConfig, data_files, load_data, run
    from eval.solvers import make_solver

    options = {"tensor_parallel_size": args.tensor_parallel_size, "max_model_len": args.max_model_len,
               "gpu_memory_utilization": args.gpu_memory_utilization,
               "concurrency": args.concurrency, "timeout": args.timeout, "max_retries": args.max_retries,
               "max_tokens_param": args.api_max_tokens_param,
               "sampling_params": False if args.no_sampling_params else None}
    options = {k: v for k, v in options.items() if v is not None}
    files = data_files(args.config, args.data, args.release)
    selection = load_data(files, args.families, args.ids, args.limit, args.shard)
    if not selection.instances:
        print("mira-math eval: the selection is empty", file=sys.stderr)
        return 1
    params = GenParams(temperature=args.temperature, max_tokens=args.max_tokens)
    try:
        solver = make_solver(args.solver, params, **options)
        responder = make_responder(args.responder, solver, options)
    except (ValueError, ImportError) as err:
        print(f"mira-math eval: {err}", file=sys.stderr)
        return 2
    config = RunConfig(
        solver=args.solver, responder=args.responder, regime=args.regime,
        condition=args.condition.replace("-", "_"), protocol=args.protocol,
        solver_params=params.as_dict() if args.solver not in ("reference", "noask") else {},
        responder_params={} if args.responder == "rules" else {"temperature": 0.0, "max_tokens": 256},
        selection={"families": args.families, "ids": args.ids, "limit": args.limit,
                   "shard": list(args.shard) if args.shard else None})
    try:
        result = run(args.out, selection, config, solver, responder, argv=sys.argv,
                     resume=args.resume, retry_errors=args.retry_errors, window=args.window,
                     concurrency=args.concurrency or 16)
    except ValueError as err:  # e.g. the split repeats a four-shot example
        print(f"mira-math eval: {err}", file=sys.stderr)
        return 1
    if result.repaired:
        print(f"note: {result.repaired}", file=sys.stderr)
    done = result.ran - result.errors
    print(f"{args.out}: {result.ran} run ({result.skipped} already finished), {result.correct}/{done} "
          f"correct, {result.errors} errors, {result.calls.get('solver_calls', 0)} solver calls, "
          f"{result.wall_s:.2f} s")
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    from eval.scoring import render_table, score, write_scores

    scores = score(args.run_dirs)
    written = write_scores(scores)
    print(render_table(scores), end="")
    print("wrote " + ", ".join(str(p) for p in written))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from eval.report import report

    written = report(args.run_dirs, args.out)
    print(f"wrote {written[0]} and {len(written) - 1} figures in {args.out}")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from eval.audit import AUDIT_JSON, audit, render_audit

    result = audit(args.run_dir)
    print(render_audit(result), end="")
    print(f"wrote {args.run_dir / AUDIT_JSON}")
    return 0


def add_commands(sub) -> None:
    """Add ``eval``, ``score``, ``report`` and ``audit`` to ``mira-math``'s subparsers ``sub``."""
    e = sub.add_parser("eval", help="run a solver against a responder on a split")
    e.add_argument("--solver", required=True, metavar="SPEC",
                   help="reference | noask | vllm:MODEL | openai:MODEL[@URL] | transformers:PATH")
    e.add_argument("--responder", default="rules", metavar="SPEC", help="rules | llm:same | llm:KIND:MODEL")
    e.add_argument("--regime", choices=["zs", "4s"], default="zs", help="zero-shot or four-shot prompt")
    e.add_argument("--condition", choices=["standard", "oracle-hint"], default="standard",
                   help="oracle-hint: the canonical fact is given up front, no responder")
    e.add_argument("--protocol", choices=["paper", "ask-first"], default="paper",
                   help="ask-first: the reference implementation's loop (ask, then answer after the first offer)")
    src = e.add_mutually_exclusive_group()
    src.add_argument("--config", metavar="NAME", help="a dataset config (all, type_a, type_b, a family)")
    src.add_argument("--data", type=Path, metavar="FILE|DIR", help="a JSONL file or a release folder")
    e.add_argument("--release", type=Path, default=DEFAULT_RELEASE, help="release folder for --config")
    e.add_argument("--limit", type=int, help="first N instances after filtering")
    e.add_argument("--families", nargs="+", metavar="NAME")
    e.add_argument("--ids", nargs="+", metavar="ID")
    e.add_argument("--shard", type=_shard, metavar="I/N", help="every N-th instance starting at I")
    e.add_argument("--out", type=Path, required=True, metavar="RUN_DIR")
    e.add_argument("--resume", action="store_true", help="skip finished instances (same config only)")
    e.add_argument("--retry-errors", action="store_true", help="rerun only instances that errored")
    e.add_argument("--temperature", type=float, default=0.0)
    e.add_argument("--max-tokens", type=int, default=1024)
    e.add_argument("--window", type=int, default=4096, help="live episodes at once (batched backends)")
    e.add_argument("--concurrency", type=int, help="requests in flight (API backends; default 16)")
    e.add_argument("--timeout", type=float, help="seconds per API request")
    e.add_argument("--max-retries", type=int, help="API retries per request")
    e.add_argument("--api-max-tokens-param", choices=["max_completion_tokens", "max_tokens"],
                   help="API: the token-limit parameter (older servers take max_tokens)")
    e.add_argument("--no-sampling-params", action="store_true",
                   help="API: send no temperature/top_p (reasoning models reject them)")
    e.add_argument("--tensor-parallel-size", type=int, help="vLLM: GPUs per model")
    e.add_argument("--max-model-len", type=int, help="vLLM: context length")
    e.add_argument("--gpu-memory-utilization", type=float, metavar="SHARE",
                   help="vLLM: each engine's share of GPU memory (default 0.9; two engines on one "
                        "GPU need e.g. 0.45 each, or use --responder llm:same to share one)")
    e.set_defaults(func=cmd_eval)

    sc = sub.add_parser("score", help="every metric of a run's transcripts (shards merged) into scores.json/.csv")
    sc.add_argument("run_dirs", nargs="+", type=Path, metavar="RUN_DIR")
    sc.set_defaults(func=cmd_score)

    rp = sub.add_parser("report", help="a Markdown report with figures of one or more runs")
    rp.add_argument("run_dirs", nargs="+", type=Path, metavar="RUN_DIR")
    rp.add_argument("--out", type=Path, required=True, metavar="DIR")
    rp.set_defaults(func=cmd_report)

    au = sub.add_parser("audit", help="compare a run's responder decisions with the rules responder")
    au.add_argument("run_dir", type=Path, metavar="RUN_DIR")
    au.set_defaults(func=cmd_audit)
