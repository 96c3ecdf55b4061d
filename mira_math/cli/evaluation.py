"""The evaluation subcommands of ``mira-math`` (``eval``, ``score``, ``report``, ``audit``);
added by :mod:`mira_math.cli.main`."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from mira_math.eval.backends.registry import BACKENDS, install_hint, kinds
from mira_math.eval.solver_kinds import SCRIPTED
from mira_math.game.messages import RUN_SEED
from mira_math.generators.layout import DEFAULT_RELEASE
from mira_math.eval.redact import redact_argv, redact_text
from mira_math.cli.scaleout import add_engine_options
from mira_math.cli.data import did_you_mean, non_negative_int, positive_int, restore_release, unknown_families

DEFAULT_MAX_TOKENS = 4096
BACKEND_KINDS = kinds()


def _positive_float(text: str) -> float:
    value = _finite_float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def _finite_float(text: str) -> float:
    """A number as argparse reads it, refusing nan and inf (a manifest is strict JSON)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def _temperature(text: str) -> float:
    value = _finite_float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def _sample(text: str) -> int:
    return positive_int(text)


def check_solver_spec(spec: str) -> None:
    """Explain why a solver spec is not one ``make_solver`` knows, suggesting the nearest
    spelling (called when it refused the spec, so tests may register scripted solvers)."""
    kind, sep, rest = spec.partition(":")
    if not sep and spec in BACKEND_KINDS:
        raise ValueError(f"solver {spec!r} needs a model: {spec}:MODEL")
    if not sep:
        if spec not in SCRIPTED:
            hint = did_you_mean(spec, list(SCRIPTED))
            raise ValueError(f"unknown solver {spec!r}{hint}: use {', '.join(SCRIPTED)} or KIND:MODEL "
                             f"with KIND one of {', '.join(BACKEND_KINDS)}")
    elif kind not in BACKEND_KINDS:
        raise ValueError(f"unknown backend kind {kind!r}{did_you_mean(kind, BACKEND_KINDS)} in "
                         f"{spec!r}: use {', '.join(BACKEND_KINDS)}")
    elif not rest:
        raise ValueError(f"solver {spec!r} needs a model: {kind}:MODEL")


def _shard(text: str):
    try:
        index, count = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected I/N such as 0/4, got {text!r}") from None
    if not 0 <= index < count:
        raise argparse.ArgumentTypeError("shard index must be in 0..N-1")
    return index, count


def cmd_eval(args: argparse.Namespace) -> int:
    from mira_math.cli.scaleout import cmd_eval_units, wants_units

    if wants_units(args):     # --engine ray / --workers N: work units, merged (cli/scaleout.py)
        return cmd_eval_units(args, check_solver_spec, epochs_refusal)
    from mira_math.eval.assemble import RunSpec, assemble, epochs_problem, unreadable_families
    from mira_math.eval.backends.base import GenParams
    from mira_math.eval.runner import empty_replies_warning, run
    from mira_math.eval.selection import data_files, load_data

    options = {"tensor_parallel_size": args.tensor_parallel_size, "max_model_len": args.max_model_len,
               "gpu_memory_utilization": args.gpu_memory_utilization,
               "dtype": args.dtype, "enforce_eager": True if args.enforce_eager else None,
               "concurrency": args.concurrency, "timeout": args.timeout, "max_retries": args.max_retries,
               "max_tokens_param": args.api_max_tokens_param, "response_format": args.response_format,
               "sampling_params": False if args.no_sampling_params else None,
               "max_reply_bytes": args.max_reply_bytes, "dp_ranks": args.dp_ranks,
               "chat_template_kwargs": args.chat_template_kwargs, "batch_size": args.batch_size}
    options = {k: v for k, v in options.items() if v is not None}
    unknown = unknown_families(args.families or [])
    if unknown:
        print(f"mira-math eval: {unknown}", file=sys.stderr)
        return 2
    if args.config is not None:
        from mira_math.generators.card import configs

        if args.config not in configs():
            print(f"mira-math eval: unknown config {args.config!r}"
                  f"{did_you_mean(args.config, list(configs()))}: use all, type_a, "
                  f"type_b or a family name", file=sys.stderr)
            return 2
    restore_release(args.data if args.data is not None else args.release, "eval")
    files = data_files(args.config, args.data, args.release)
    sample = (args.sample, args.sample_seed) if args.sample else None
    selection = load_data(files, args.families, args.ids, args.limit, args.shard, sample=sample)
    if not selection.instances:
        filtered = args.families or args.ids or args.shard or args.sample
        where = args.data if args.data is not None else files[0] if len(files) == 1 else args.release
        print("mira-math eval: the selection is empty (check --families, --ids and --shard "
              "against the data files)" if filtered else f"mira-math eval: {where}: holds no instances",
              file=sys.stderr)
        return 1
    if args.responder == "rules" and args.condition == "standard":
        blind = unreadable_families(args.data if args.data is not None and args.data.is_dir() else None,
                                    selection.instances)
        if blind:
            print(f"warning: the rules responder cannot read the reference lines of {len(blind)} "
                  f"famil{'y' if len(blind) == 1 else 'ies'} of this imported dataset "
                  f"({', '.join(blind)}); it will decline there. Use --responder llm:... or "
                  f"--condition oracle-hint for them (docs/reference_import.md).", file=sys.stderr)
    params = GenParams(temperature=args.temperature, max_tokens=args.max_tokens)
    scripted = args.solver in SCRIPTED and not SCRIPTED[args.solver].samples
    refused, warning = epochs_problem(args.solver, args.epochs, args.temperature)
    if refused:
        print(f"mira-math eval: {refused}", file=sys.stderr)
        return 2
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    if scripted and (args.temperature != 0.0 or args.max_tokens != DEFAULT_MAX_TOKENS):
        print(f"warning: --temperature and --max-tokens do not change the scripted solver "
              f"{redact_text(args.solver)!r}: this run is the same run (same run_hash) as one without them",
              file=sys.stderr)
    spec = RunSpec(
        solver=args.solver, responder=args.responder, params=params, backend_options=options,
        regime=args.regime, condition=args.condition.replace("-", "_"), protocol=args.protocol,
        run_seed=args.seed, epochs=args.epochs, reasoning_history=args.reasoning_history,
        selection={"families": args.families, "ids": args.ids, "limit": args.limit,
                   "shard": list(args.shard) if args.shard else None,
                   **({"sample": [args.sample, args.sample_seed]} if args.sample else {})})
    # the engine a construction failure names: the solver's, unless it is scripted (no engine)
    building = args.solver if ":" in args.solver else (args.responder.partition(":")[2] or args.responder)
    try:
        built = assemble(spec, solver_spec=redact_text(args.solver), responder_spec=redact_text(args.responder))
    except ImportError as err:
        kind = args.solver.partition(":")[0]
        hint = install_hint(kind)
        print(f"mira-math eval: {err}" + (f" (install it with: {hint})" if hint and hint not in str(err)
                                          else ""), file=sys.stderr)
        return 2
    except ValueError as err:
        from mira_math.eval.backends.failures import classify

        if classify(err):     # an engine's own ValueError (a bad repo id, a KV cache too small)
            return engine_failure(building, err)
        problem = str(err)
        try:
            check_solver_spec(args.solver)   # a typo'd spec: say what was probably meant
        except ValueError as clearer:
            problem = str(clearer)
        print(f"mira-math eval: {problem}", file=sys.stderr)
        return 2
    except Exception as err:  # the engine did not start (no GPU, gated model, OOM, bad path): one line
        return engine_failure(building, err)
    try:
        result = run(args.out, selection, built.config, built.solver, built.responder, argv=redact_argv(sys.argv),
                     resume=args.resume, retry_errors=args.retry_errors, window=args.window,
                     concurrency=args.concurrency or 16)
    except ValueError as err:  # e.g. the split repeats a four-shot example
        print(f"mira-math eval: {err}", file=sys.stderr)
        return 1
    if result.repaired:
        print(f"note: {result.repaired}", file=sys.stderr)
    done = result.ran - result.errors
    print(f"{args.out}: {result.ran} run ({result.skipped} already finished), {result.correct}/{done} "
          f"correct, {result.errors} errors, "
          f"{result.calls.get('solver_requests', result.calls.get('solver_calls', 0))} solver calls, "
          f"{result.wall_s:.2f} s")
    if result.all_replies_empty:
        print(f"warning: {args.out}: {empty_replies_warning(result.empty_solver_turns, result.reasoning_only_turns)} "
              "(recorded in its manifest)", file=sys.stderr)
    if result.responder_errors:
        every = result.responder_errors == result.responder_turns
        print(f"mira-math eval: {result.responder_errors} of {result.responder_turns} responder "
              f"replies logged an error{' (every one: is the responder working?)' if every else ''}; "
              f"see `mira-math audit {args.out}`", file=sys.stderr)
    if result.errors:
        print(f"mira-math eval: {result.errors} instance(s) ended in an error: rerun with "
              "--retry-errors", file=sys.stderr)
        return 3   # mira_math.cli.main.EXIT_INSTANCE_ERRORS
    if result.responder_errors and result.responder_errors == result.responder_turns:
        return 3   # every responder call failed: a run with errors
    return 0


def engine_failure(spec: str, err: Exception) -> int:
    """A backend that could not be built: one line naming the cause and a fix, exit 2, before
    any run folder exists (eval/backends/failures.py)."""
    import os
    import traceback

    from mira_math.eval.backends.failures import explain

    if os.environ.get("MIRA_DEBUG"):
        traceback.print_exc()
    print(f"mira-math eval: {redact_text(explain(spec, err))}", file=sys.stderr)
    return 2


def epochs_refusal(args: argparse.Namespace, deterministic: bool) -> str:
    """Why ``--epochs K > 1`` is refused for this solver ("" if it is not), for the work-unit
    driver: the harness's rule (:func:`mira_math.eval.assemble.epochs_problem`), its warning
    printed here."""
    from mira_math.eval.assemble import epochs_problem

    refused, warning = epochs_problem(args.solver, args.epochs, args.temperature)
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    return refused


def cmd_score(args: argparse.Namespace) -> int:
    from mira_math.eval.scores_file import write_scores
    from mira_math.eval.tables import choose_columns, name_runs, render_table
    from mira_math.eval.scoring import pair_regimes, score

    if args.out is not None and args.out.exists() and not args.out.is_dir():
        print(f"mira-math score: --out {args.out}: exists and is not a folder", file=sys.stderr)
        return 2
    try:
        columns = choose_columns(args.columns)
    except ValueError as err:
        print(f"mira-math score: {err}", file=sys.stderr)
        return 2
    scores = score(args.run_dirs)
    if args.name:
        name_runs([s.run for s in scores], args.name)
        pair_regimes(scores)
    written = write_scores(scores, args.out)
    print(render_table(scores, prices_from(args), columns), end="")
    from mira_math.eval.hub_results import committed_unrevealed

    for s in scores:   # commit-reveal: results on a split nobody can check yet
        hidden = committed_unrevealed(s.run)
        if hidden:
            print(f"COMMITTED, NOT REVEALED {s.label}: {hidden}")
    flag_non_standard(scores)
    for s in scores:       # warnings eval recorded about a run as a whole (every reply empty, ...)
        flagged = {text for m in s.run.manifests if isinstance(m.get("warnings"), dict)
                   for text in m["warnings"].values() if isinstance(text, str)}
        for text in sorted(flagged):
            print(f"warning: {s.label}: {text}", file=sys.stderr)
    for path in written:           # one a line: the output stays as narrow as its tables
        print(f"wrote {path}")
    merged = [s.label for s in scores if len(s.run.dirs) > 1 and args.out is None]
    if merged:
        print(f"note: merged shards are not written into one shard's folder ({'; '.join(merged)}): "
              "pass --out DIR to keep their scores", file=sys.stderr)
    if args.eval_results is not None:
        from mira_math.eval.hub_results import write_eval_results

        files, skipped = write_eval_results(scores, args.eval_results, args.dataset_id,
                                            args.source_url, args.dataset_revision)
        for line in skipped:
            print(f"no eval result for {line}")
        print(f"wrote {len(files)} eval result file(s) in {args.eval_results / '.eval_results'}")
    return 0 if all(s.run.complete for s in scores) else 3


def flag_non_standard(scores) -> None:
    """A result from a responder other than the standard (rules) one is flagged."""
    from mira_math.eval.responder_standard import flag, is_standard

    for s in scores:
        if not is_standard(s.run.get("responder"), s.run.condition):
            print(flag(s.label, s.run.get("responder")), file=sys.stderr)


def prices_from(args: argparse.Namespace):
    """The ``--price-in/--price-out/--prices`` options as :class:`mira_math.eval.tables.Prices`."""
    from mira_math.eval.tables import Prices

    return Prices.from_options(getattr(args, "price_in", None), getattr(args, "price_out", None),
                               getattr(args, "prices", None))


def cmd_compare(args: argparse.Namespace) -> int:
    from mira_math.eval.compare import compare
    from mira_math.eval.tables import render_comparison

    print(render_comparison(compare(args.run_a, args.run_b)), end="")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from mira_math.eval.report import FIGURES_NEED, report

    if args.out.exists() and not args.out.is_dir():
        print(f"mira-math report: --out {args.out}: exists and is not a folder", file=sys.stderr)
        return 2

    written = report(args.run_dirs, args.out, prices_from(args), args.name)
    figures = [p for p in written[3:]]
    print(f"wrote {written[0]}, {written[1].name}, {written[2].name} and {len(figures)} figures "
          f"in {args.out}")
    if not figures:
        print(f"note: no figures drawn: {FIGURES_NEED}", file=sys.stderr)
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from mira_math.eval.audit import AUDIT_JSON, audit, render_audit

    result = audit(args.run_dir)
    print(render_audit(result), end="")
    print(f"wrote {args.run_dir / AUDIT_JSON}")
    return 0


def cmd_view(args: argparse.Namespace) -> int:
    from mira_math.eval.view import build_view

    result = build_view(args.run_dirs, args.out, page_size=args.page_size, names=args.name)
    print(f"wrote {result.index_html} ({result.transcripts} transcripts of {result.runs} runs, "
          f"{result.instances} instances, {result.pages} data pages): open it in a browser")
    return 0


def add_name_option(parser: argparse.ArgumentParser) -> None:
    """``--name``, the same for ``score``, ``report`` and ``view``: they name runs alike."""
    parser.add_argument("--name", action="append", metavar="NAME",
                        help="display name of the next run, in the order the runs are given (repeat; "
                             "default: a label from solver, responder and regime); score, report and "
                             "view name runs alike")


def add_price_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--price-in", type=_non_negative_float, metavar="PRICE",
                        help="solver prompt price per million tokens (with --price-out: a cost column)")
    parser.add_argument("--price-out", type=_non_negative_float, metavar="PRICE",
                        help="solver completion price per million tokens (reasoning included)")
    parser.add_argument("--prices", type=Path, metavar="FILE",
                        help='a JSON price table {"SOLVER SPEC": {"in": PRICE, "out": PRICE}} per '
                             "million tokens; --price-in/--price-out cover the runs it does not name")


def _non_negative_float(text: str) -> str:
    value = _finite_float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return text


def add_commands(sub) -> None:
    """Add ``eval``, ``score``, ``report`` and ``audit`` to ``mira-math``'s subparsers ``sub``."""
    e = sub.add_parser("eval", help="run a solver against a responder on a split")
    e.add_argument("--solver", required=True, metavar="SPEC",
                   help=" | ".join((*SCRIPTED, *(b.spec for b in BACKENDS.values()))))
    e.add_argument("--responder", default="rules", metavar="SPEC", help="rules | llm:same | llm:KIND:MODEL")
    e.add_argument("--regime", choices=["zs", "4s"], default="zs", help="zero-shot or four-shot prompt")
    e.add_argument("--condition", choices=["standard", "oracle-hint"], default="standard",
                   help="oracle-hint: the canonical fact is given up front, no responder")
    e.add_argument("--protocol", choices=["paper", "ask-first", "blind"], default="paper",
                   help="ask-first: the reference implementation's loop (ask, then answer after the "
                        "first offer); blind: the blind tier (--config blind), whose prompt never says "
                        "whether a fact is missing")
    e.add_argument("--reasoning-history", choices=["drop", "keep"], default="drop",
                   help="what later turns see of a reasoning model's earlier thinking: drop (the "
                        "chat-template convention) or keep (as a <think> block); recorded in the config hash")
    src = e.add_mutually_exclusive_group()
    src.add_argument("--config", metavar="NAME", help="a dataset config (all, type_a, type_b, a family; "
                     "two facts: multi_hint, multi_hint_type_a, multi_hint_type_b, multi_hint_<family>; "
                     "the blind tier: blind, blind_type_a, blind_type_b, blind_<family>)")
    src.add_argument("--data", type=Path, metavar="FILE|DIR", help="a JSONL file or a release folder")
    e.add_argument("--release", type=Path, default=DEFAULT_RELEASE, metavar="DIR",
                   help="release folder for --config (default: the committed mira-math/ release, "
                        "wherever the command runs)")
    e.add_argument("--limit", type=positive_int, metavar="N",
                   help="the first N instances after filtering, in release order (Type A "
                        "families first, so a small N is one family); see --sample")
    e.add_argument("--sample", type=_sample, metavar="N",
                   help="N instances drawn at random (without replacement, kept in release order) "
                        "after --families/--ids and before --shard/--limit")
    e.add_argument("--sample-seed", type=int, default=0, metavar="S",
                   help="seed of --sample: the same N and S give the same instances")
    e.add_argument("--families", nargs="+", metavar="NAME", help="only these families")
    e.add_argument("--ids", nargs="+", metavar="ID", help="only these instance ids")
    e.add_argument("--shard", type=_shard, metavar="I/N", help="every N-th instance starting at I")
    e.add_argument("--out", type=Path, required=True, metavar="RUN_DIR",
                   help="run directory: manifest.json and transcripts.jsonl")
    e.add_argument("--resume", action="store_true", help="skip finished instances (same config only)")
    e.add_argument("--retry-errors", action="store_true", help="rerun only instances that errored")
    e.add_argument("--temperature", type=_temperature, default=0.0, metavar="T", help="solver sampling temperature")
    e.add_argument("--seed", type=int, default=RUN_SEED, metavar="S",
                   help="run seed: every request's seed derives from it (and the epoch); two runs "
                        "with other seeds are independent samples on a server that honours seeds")
    e.add_argument("--epochs", type=positive_int, default=1, metavar="K",
                   help="K independent samples per instance (seeds derived from --seed); score "
                        "reports mean accuracy, pass@k, pass^k and the spread across epochs")
    e.add_argument("--max-tokens", type=positive_int, default=DEFAULT_MAX_TOKENS, metavar="N",
                   help="solver tokens per turn; reasoning models think before the action line "
                        "and a cut-off message counts as a request, so give them 8192 or more")
    e.add_argument("--window", type=positive_int, default=4096, metavar="N",
                   help="live episodes at once (batched backends)")
    e.add_argument("--concurrency", type=positive_int, metavar="N",
                   help="requests in flight (API backends; default: 16)")
    e.add_argument("--timeout", type=_positive_float, metavar="SECONDS",
                   help="API: deadline in seconds for each whole request attempt, headers and body "
                        "(default: the backend's)")
    e.add_argument("--max-reply-bytes", type=positive_int, metavar="N",
                   help="API: the largest reply body read, decoded (default 4 MiB); a larger one is "
                        "that instance's error")
    e.add_argument("--max-retries", type=non_negative_int, metavar="N",
                   help="API retries per request (default: the backend's)")
    e.add_argument("--api-max-tokens-param", choices=["max_completion_tokens", "max_tokens"],
                   help="API: the token-limit parameter (older servers take max_tokens)")
    e.add_argument("--response-format", choices=["auto", "json_schema", "json_object"],
                   help="API responder: structured output as json_schema, or json_object with the "
                        "schema (llama-cpp-python); auto (default off api.openai.com) falls back "
                        "to json_object when the server rejects json_schema")
    e.add_argument("--no-sampling-params", action="store_true",
                   help="API: send no temperature/top_p (reasoning models reject them)")
    e.add_argument("--tensor-parallel-size", type=positive_int, metavar="N", help="vLLM: GPUs per model")
    e.add_argument("--max-model-len", type=positive_int, metavar="N", help="vLLM: context length")
    e.add_argument("--gpu-memory-utilization", type=_positive_float, metavar="SHARE",
                   help="vLLM: each engine's share of GPU memory (default: 0.9; two "
                        "engines on one GPU need e.g. 0.45 each, or --responder llm:same shares one)")
    e.add_argument("--dtype", choices=["auto", "float32", "bfloat16", "float16"],
                   help="vLLM and transformers: the weights' and activations' type (default: the "
                        "engine's; float32 on CPUs without native bfloat16, where it is emulated)")
    e.add_argument("--enforce-eager", action="store_true",
                   help="vLLM: run the model eagerly, no torch.compile (on CPU the compile takes "
                        "minutes at every engine start)")
    add_engine_options(e)
    e.set_defaults(func=cmd_eval)

    sc = sub.add_parser("score", help="every metric of any set of runs (declared shards merged) into each "
                        "run's scores.json/.csv; exit 3 when a run is INCOMPLETE")
    sc.add_argument("run_dirs", nargs="+", type=Path, metavar="RUN_DIR",
                    help="run directories written by eval (declared shards of one run are merged)")
    sc.add_argument("--out", type=Path, metavar="DIR",
                    help="write scores.json/.csv here (one run) or into DIR/<run folder> (several) "
                         "instead of each run's folder; needed to keep the scores of merged shards")
    sc.add_argument("--columns", metavar="all|LIST",
                    help="the overall table's columns: by default those of a paper's main table, fitted "
                         "to 120 columns (the two-fact ones when a run has two-fact rows); all: every "
                         "metric; or metric names of scores.json, comma-separated (accuracy,ask_f1). "
                         "scores.json and scores.csv keep every metric either way")
    add_name_option(sc)
    add_price_options(sc)
    sc.add_argument("--eval-results", type=Path, metavar="DIR",
                    help="also write DIR/.eval_results/*.yaml (the Hub's evaluation results; DIR: a "
                         "model repository) for each complete run over a whole config")
    sc.add_argument("--dataset-id", default="mira-math/mira-math", metavar="OWNER/NAME",
                    help="the benchmark's dataset repository, for --eval-results")
    sc.add_argument("--dataset-revision", metavar="SHA", help="its revision, for --eval-results")
    sc.add_argument("--source-url", metavar="URL", help="where the evaluation can be inspected")
    sc.set_defaults(func=cmd_score)

    rp = sub.add_parser("report", help="a Markdown report with figures of one or more runs")
    rp.add_argument("run_dirs", nargs="+", type=Path, metavar="RUN_DIR",
                    help="run directories written by eval")
    rp.add_argument("--out", type=Path, required=True, metavar="DIR",
                    help="folder for report.md and its figures")
    add_name_option(rp)
    add_price_options(rp)
    rp.set_defaults(func=cmd_report)

    cp = sub.add_parser("compare", help="paired comparison of two runs on their shared instances: "
                        "accuracy and first-request success, A - B with a 95%% interval and "
                        "McNemar's exact p-value, overall, per type and per family")
    cp.add_argument("run_a", type=Path, metavar="RUN_A", help="a run directory written by eval")
    cp.add_argument("run_b", type=Path, metavar="RUN_B", help="another run directory")
    cp.set_defaults(func=cmd_compare)

    au = sub.add_parser("audit", help="compare a run's responder decisions with the rules responder")
    au.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a run directory written by eval")
    au.set_defaults(func=cmd_audit)

    vw = sub.add_parser("view", help="a static HTML transcript viewer of one or more runs (open DIR/index.html)")
    vw.add_argument("run_dirs", nargs="+", type=Path, metavar="RUN_DIR",
                    help="run directories written by eval (declared shards of one run are merged)")
    vw.add_argument("--out", type=Path, required=True, metavar="DIR",
                    help="output folder: index.html and data/")
    vw.add_argument("--page-size", type=positive_int, default=1000, metavar="N",
                    help="at most N transcripts per data file (a file also ends at 1 MiB)")
    add_name_option(vw)
    vw.set_defaults(func=cmd_view)
