"""``mira-math``: the project's one command (argparse subcommands, tqdm progress)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from generators import registry

DEFAULT_RELEASE = Path("mira-math")


def _per_type(text: str) -> Dict[str, int]:
    try:
        a, b = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected A/B counts such as 20/50, got {text!r}") from None
    if a < 0 or b < 0:
        raise argparse.ArgumentTypeError("counts must be non-negative")
    return {"A": a, "B": b}


def _progress(total: int, desc: str):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="inst", disable=None, leave=False)


def cmd_generate(args: argparse.Namespace) -> int:
    from generators.build import layout
    from generators.release import public_split_reference, render_release, write_release
    from generators.seeds import PUBLIC, SeedSet

    families = args.families or registry.names(args.types)
    unknown = [f for f in families if f not in registry.names()]
    if unknown:
        print(f"mira-math generate: unknown family {unknown[0]!r}", file=sys.stderr)
        return 2
    families = [f for f in registry.names() if f in families]  # release order
    public = args.seed_set in (None, PUBLIC.name)
    if not public and args.out is None:
        print("mira-math generate: a held-out seed set needs --out DIR", file=sys.stderr)
        return 2
    seed_set = PUBLIC if public else SeedSet.named(args.seed_set)
    out = args.out or DEFAULT_RELEASE
    disjoint_from = [] if public else [public_split_reference()]
    total = len(layout(args.per_type, families, args.difficulties))
    with _progress(total, "generate") as bar:
        files = render_release(seed_set, args.per_type, families, args.difficulties,
                               progress=lambda: bar.update(1), disjoint_from=disjoint_from)
    write_release(out, files)
    print(f"wrote {total} instances of {len(families)} families to {out} "
          f"(seed set {seed_set.name}" + (", disjoint from the public release)" if disjoint_from else ")"))
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from generators.build import latent_key, view_key
    from generators.schema import DataError, read_jsonl
    from generators.validate import Failure, validate_instance
    from generators.release import RELEASE_INFO, data_path, family_files, read_release_info

    paths: List[Path] = []
    missing: List[str] = []
    try:
        for p in args.files:
            if p.is_dir():
                paths += family_files(p)
                if (p / RELEASE_INFO).is_file():  # a release folder: every family it lists
                    missing += [f"{p / data_path(name)}: missing (a family of {p / RELEASE_INFO})"
                                for name in read_release_info(p)["families"]
                                if not (p / data_path(name)).is_file()]
            elif p.is_file():
                paths.append(p)
            else:
                missing.append(f"{p}: no such file")
    except DataError as err:
        print(f"mira-math validate: {err}", file=sys.stderr)
        return 1
    if missing:
        for problem in missing:
            print(f"mira-math validate: {problem}", file=sys.stderr)
        return 1
    failures: List[str] = []
    seen: Dict[str, str] = {}
    ids: Dict[str, str] = {}
    count = 0
    try:
        for path in paths:
            for number, inst in enumerate(read_jsonl(path), start=1):  # one instance per line
                count += 1
                where = f"{path}:{number}"
                if inst.id in ids:
                    raise DataError(f"duplicate id {inst.id!r} (first in {ids[inst.id]})", str(path),
                                    number, "id")
                ids[inst.id] = where
                try:
                    family = registry.get(inst.family)
                except KeyError as err:
                    failures.append(f"{where}: {Failure(inst.id, 'schema', str(err))}")
                    continue
                failures += [f"{where}: {f}" for f in validate_instance(inst, family)]
                for key, what in ((latent_key(inst), "latent state"), (view_key(inst), "solver view")):
                    if key in seen:
                        same = Failure(inst.id, "duplicate", f"same {what} as {seen[key]}")
                        failures.append(f"{where}: {same}")
                    seen.setdefault(key, inst.id)
    except DataError as err:
        print(f"mira-math validate: {err}", file=sys.stderr)
        return 1
    for f in failures:
        print(f"FAIL {f}")
    print(f"validated {count} instances in {len(paths)} files: "
          f"{len(failures)} failure(s)")
    return 1 if failures or count == 0 else 0


def cmd_verify(args: argparse.Namespace) -> int:
    from generators.release import read_release_info, verify_release
    from generators.schema import DataError

    try:
        info = read_release_info(args.dir)
        with _progress(int(info.get("total", 0)), "verify") as bar:
            report = verify_release(args.dir, progress=lambda: bar.update(1))
    except DataError as err:
        print(f"mira-math verify: {err}", file=sys.stderr)
        return 1
    for p in report.problems:
        print(f"FAIL {p}")
    if report.ok:
        how = ("every record reads cleanly (imported data: not regenerable from seeds)"
               if info.get("regenerable") is False else "regenerate byte for byte")
        print(f"verified {args.dir}: {report.files_checked} files {how} and match "
              f"{args.dir / 'CHECKSUMS.sha256'}")
        return 0
    return 1


def cmd_check_disjoint(args: argparse.Namespace) -> int:
    from generators.build import latent_key, view_key
    from generators.release import family_files
    from generators.schema import DataError, read_jsonl

    def keys(folder: Path) -> Dict[str, str]:
        out: Dict[str, str] = {}
        for path in family_files(folder):
            for inst in read_jsonl(path):
                out.setdefault(latent_key(inst), inst.id)
                out.setdefault(view_key(inst), inst.id)
        return out

    try:
        first, second = keys(args.first), keys(args.second)
    except DataError as err:
        print(f"mira-math check-disjoint: {err}", file=sys.stderr)
        return 1
    if not first or not second:
        print("mira-math check-disjoint: a folder holds no instances", file=sys.stderr)
        return 1
    shared = sorted(set(first) & set(second))
    for key in shared:
        what = "solver view" if "|view|" in key else "latent state"
        print(f"SHARED {what}: {args.first} {first[key]} = {args.second} {second[key]}")
    n1 = sum("|latent|" in k for k in first)
    n2 = sum("|latent|" in k for k in second)
    print(f"{n1} and {n2} instances: {len(shared)} shared latent states or solver views")
    return 1 if shared else 0


def cmd_publish(args: argparse.Namespace) -> int:
    from generators.publish import PublishError, plan, publish

    try:
        the_plan = plan(args.dir, args.repo_id, args.tag, args.private)
    except PublishError as err:
        print(f"mira-math publish: {err}", file=sys.stderr)
        return 1
    print(the_plan.describe())
    if args.dry_run:
        print("dry run: nothing uploaded")
        return 0
    commit = publish(args.dir, the_plan)
    print(f"published {args.repo_id} at commit {commit}" + (f", tag {args.tag}" if args.tag else ""))
    return 0


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
    from eval.runner import RunConfig, RunError, data_files, load_data, run
    from eval.solvers import make_solver
    from generators.schema import DataError

    options = {"tensor_parallel_size": args.tensor_parallel_size, "max_model_len": args.max_model_len,
               "concurrency": args.concurrency, "timeout": args.timeout, "max_retries": args.max_retries,
               "max_tokens_param": args.api_max_tokens_param,
               "sampling_params": False if args.no_sampling_params else None}
    options = {k: v for k, v in options.items() if v is not None}
    try:
        files = data_files(args.config, args.data, args.release)
        selection = load_data(files, args.families, args.ids, args.limit, args.shard)
    except (RunError, DataError) as err:
        print(f"mira-math eval: {err}", file=sys.stderr)
        return 1
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
    except (RunError, ValueError) as err:
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
    from eval.scoring import ScoringError, render_table, score, write_scores

    try:
        scores = score(args.run_dirs)
    except ScoringError as err:
        print(f"mira-math score: {err}", file=sys.stderr)
        return 1
    written = write_scores(scores)
    print(render_table(scores), end="")
    print("wrote " + ", ".join(str(p) for p in written))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from eval.report import report
    from eval.scoring import ScoringError

    try:
        written = report(args.run_dirs, args.out)
    except ScoringError as err:
        print(f"mira-math report: {err}", file=sys.stderr)
        return 1
    print(f"wrote {written[0]} and {len(written) - 1} figures in {args.out}")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from eval.audit import AUDIT_JSON, audit, render_audit
    from eval.scoring import ScoringError

    try:
        result = audit(args.run_dir)
    except ScoringError as err:
        print(f"mira-math audit: {err}", file=sys.stderr)
        return 1
    print(render_audit(result), end="")
    print(f"wrote {args.run_dir / AUDIT_JSON}")
    return 0


def cmd_import_reference(args: argparse.Namespace) -> int:
    """Convert the paper authors' released JSONL into a release folder (see
    docs/reference_import.md); ``--check`` cross-checks every answer and runs the validators."""
    from generators.reference_import import (CHECK_REPORT, FormatError, import_reference,
                                             prepare_folder, render_text_summary)
    from generators.release import write_release

    check = args.check or args.strict
    if not args.file.is_file():
        print(f"mira-math import-reference: {args.file}: no such file", file=sys.stderr)
        return 2
    try:
        prepare_folder(args.out)
        result = import_reference(args.file, check=check)
    except FormatError as err:
        print(f"mira-math import-reference: {err}", file=sys.stderr)
        return 2
    write_release(args.out, result.files)
    converted = len(result.converted)
    print(f"wrote {converted} of {result.source['records']} instances to {args.out} "
          f"(source sha256 {result.source['sha256'][:16]}..."
          + (f", the published {result.source['published_as']})" if result.source["published_as"]
             else ")"))
    for f in result.failures:
        print(f"NOT CONVERTED {f['id']} ({f['family']}, line {f['line']}): {f['error']}")
    if not check:
        return 1 if result.failures else 0
    print(render_text_summary(result), end="")
    for c in result.disagreements:
        print(f"DISAGREE {c['id']}: theirs {c['answer']['theirs']}, ours {c['answer']['ours']}")
    for c in result.unchecked:
        print(f"UNCHECKED {c['id']}: {c['answer'].get('detail', '')}")
    if args.strict:
        for inst_id, f in result.real_findings:
            print(f"FINDING {inst_id}: {f['property']}: {f['detail']}")
    print(f"wrote {args.out / CHECK_REPORT}")
    failed = bool(result.failures or result.disagreements or result.unchecked)
    if args.strict and result.real_findings:
        print(f"--strict: {len(result.real_findings)} finding(s) about the source data",
              file=sys.stderr)
        failed = True
    return 1 if failed else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mira-math", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    g = sub.add_parser("generate", help="build a split (default: the public 20/50 release)")
    g.add_argument("--out", type=Path, default=None,
                   help="output folder (default: mira-math; required for a held-out seed set)")
    g.add_argument("--types", choices=["A", "B", "AB"], default="AB", help="family types to build")
    g.add_argument("--families", nargs="+", metavar="NAME", help="only these families")
    g.add_argument("--difficulties", nargs="+", type=int, choices=[1, 2, 3], default=[1, 2, 3])
    g.add_argument("--per-type", type=_per_type, default={"A": 20, "B": 50}, metavar="A/B",
                   help="instances per difficulty for Type A / Type B families (default 20/50)")
    g.add_argument("--seed-set", default=None, metavar="NAME",
                   help="a held-out seed set (default: the public release's); it shares no "
                        "latent state or solver view with the public release")
    g.set_defaults(func=cmd_generate)

    v = sub.add_parser("validate", help="re-run every validity check on JSONL files or release folders")
    v.add_argument("files", nargs="+", type=Path, metavar="FILE")
    v.set_defaults(func=cmd_validate)

    r = sub.add_parser("verify", help="regenerate a release folder and compare it byte for byte")
    r.add_argument("dir", nargs="?", type=Path, default=DEFAULT_RELEASE)
    r.set_defaults(func=cmd_verify)

    c = sub.add_parser("check-disjoint", help="prove two splits share no latent state or solver view")
    c.add_argument("first", type=Path, metavar="DIR")
    c.add_argument("second", type=Path, metavar="DIR")
    c.set_defaults(func=cmd_check_disjoint)

    p = sub.add_parser("publish", help="upload a verified release folder to the Hugging Face Hub")
    p.add_argument("--repo-id", required=True, metavar="OWNER/NAME")
    p.add_argument("--tag", metavar="vX.Y.Z", help="tag the upload commit")
    p.add_argument("--private", action="store_true", help="create the repo as private")
    p.add_argument("--dry-run", action="store_true", help="list files and the commit; upload nothing")
    p.add_argument("--dir", type=Path, default=DEFAULT_RELEASE, help="release folder (default: mira-math)")
    p.set_defaults(func=cmd_publish)

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

    ir = sub.add_parser("import-reference",
                        help="convert the paper authors' released JSONL into a release folder")
    ir.add_argument("file", type=Path, metavar="FILE",
                    help="their family_types_20_50[_few_shot].jsonl (or lines of it)")
    ir.add_argument("--out", type=Path, required=True, metavar="DIR", help="output folder")
    ir.add_argument("--check", action="store_true",
                    help="recompute every answer with our family code and run our validators; "
                         "disagreements fail the command; findings go to DIR/import_check.json")
    ir.add_argument("--strict", action="store_true",
                    help="with --check (implied): findings about the source data fail it too")
    ir.set_defaults(func=cmd_import_reference)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
