"""The data subcommands of ``mira-math`` (``generate``, ``validate``, ``verify``,
``check-disjoint``, ``stream-capacity``, ``publish``, ``import-reference``); :mod:`mira_math.cli.main` adds them."""

from __future__ import annotations

import argparse
import os
import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from mira_math.generators import registry
from mira_math.generators.layout import DEFAULT_RELEASE, RELEASE_NAME


def non_negative_int(text: str) -> int:
    return _bounded_int(text, 0)


def positive_int(text: str) -> int:
    return _bounded_int(text, 1)


def _bounded_int(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
    return value


def _per_type(text: str) -> Dict[str, int]:
    try:
        a, b = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected A/B counts such as 20/50, got {text!r}") from None
    if a < 0 or b < 0:
        raise argparse.ArgumentTypeError("counts must be non-negative")
    return {"A": a, "B": b}


def did_you_mean(word: str, choices: Sequence[str]) -> str:
    """`` (did you mean 'x'?)`` for a near miss among ``choices``, else empty."""
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def unknown_families(names: Sequence[str]) -> Optional[str]:
    """The error for the first name that is not a family, with a suggestion; None if all are."""
    for name in names:
        if name not in registry.names():
            return f"unknown family {name!r}{did_you_mean(name, registry.names())}"
    return None


def restore_release(folder: Optional[Path], command: str) -> None:
    """Before a command reads or writes a release folder: one left missing by a killed
    ``generate --overwrite`` is restored from its hidden old copy, and the command says so."""
    from mira_math.generators.release import restore_interrupted

    note = restore_interrupted(folder) if folder is not None else None
    if note:
        print(f"note: {note}", file=sys.stderr)


def progress_bar(total: int, desc: str, unit: str = "inst"):
    """A tqdm bar on stderr, shown only on a terminal (``disable=None``), gone when done."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, disable=None, leave=False)


def inside_package(out: Path) -> Optional[str]:
    """Why ``generate`` may not write ``out``: a folder inside the installed package (a wheel's
    bundled release among them) would change what every later command reads; None if it may."""
    from mira_math.generators.layout import PACKAGE_DIR

    target, package = out.resolve(), PACKAGE_DIR.resolve()
    if target == package or package in target.parents:
        return (f"{out}: inside the installed package ({package}); write the release elsewhere "
                "with --out DIR (without --out it goes to ./mira-math)")
    return None


def cmd_generate(args: argparse.Namespace) -> int:
    from mira_math.generators.build import layout
    from mira_math.generators.capacity import capacity_report
    from mira_math.generators.release import (blind_spec, check_out_folder, multi_hint_spec,
                                              public_split_reference, render_release, split_references,
                                              write_release)
    from mira_math.generators.seeds import PUBLIC, SeedSet

    families = args.families or registry.names(args.types)
    unknown = unknown_families(families)
    if unknown:
        print(f"mira-math generate: {unknown}", file=sys.stderr)
        return 2
    families = [f for f in registry.names() if f in families]  # release order
    public = args.seed_set in (None, PUBLIC.name)
    if not public and args.out is None:
        print("mira-math generate: a held-out seed set needs --out DIR", file=sys.stderr)
        return 2
    if args.commit and public:
        print("mira-math generate: --commit needs a held-out --seed-set NAME (the public release "
              "is public)", file=sys.stderr)
        return 2
    if args.commit:   # a random master seed: the name alone must not regenerate a private split
        from mira_math.generators.commitment import random_master_seed

        seed_set = SeedSet(args.seed_set, random_master_seed())
    else:
        seed_set = PUBLIC if public else SeedSet.named(args.seed_set)
    out = args.out if args.out is not None else Path(RELEASE_NAME)
    inside = inside_package(out)
    if inside:
        print(f"mira-math generate: {inside}", file=sys.stderr)
        return 2
    restore_release(out, "generate")
    if args.out is not None or not (out / "release_info.json").is_file():
        check_out_folder(out, args.overwrite)   # ./mira-math: a release folder there is rebuilt
    disjoint_from = [] if public else [public_split_reference()] + split_references(args.disjoint_from)
    total = len(layout(args.per_type, families, args.difficulties))
    for line in capacity_report(families, args.per_type, disjoint_from):
        print(f"mira-math generate: {line}", file=sys.stderr)
    from mira_math.generators.build import GenerationError

    with progress_bar(total, "generate") as bar:
        try:
            multi = (multi_hint_spec(seed_set, args.multi_hint_per_type, committed=args.commit)
                     if any(args.multi_hint_per_type.values()) else None)
            tier = (blind_spec(seed_set, args.blind_per_type, committed=args.commit)
                    if any(args.blind_per_type.values()) else None)
            files = render_release(seed_set, args.per_type, families, args.difficulties,
                                   progress=lambda: bar.update(1), disjoint_from=disjoint_from,
                                   multi_hint=multi, commit_reveal=args.commit, blind=tier)
        except GenerationError as err:   # past a family's capacity: one line, nothing written
            print(f"mira-math generate: {err}; nothing written", file=sys.stderr)
            return 1
    write_release(out, files)
    from mira_math.eval.validated import mark_generated

    mark_generated(files)    # the first eval over these bytes need not validate them again
    if args.commit:
        from mira_math.common.atomic import write_atomic
        from mira_math.generators.commitment import beside, dumps, make_commitment

        made = make_commitment(files)
        write_atomic(beside(out, "secret"), dumps(made["secret"]))
        os.chmod(beside(out, "secret"), 0o600)     # the salt and seeds: the owner's eyes only
        write_atomic(beside(out, "commitment"), dumps(made["commitment"]))
        print(f"wrote {beside(out, 'commitment')} (public now) and {beside(out, 'secret')} "
              f"(private until `mira-math reveal {out}`)")
    print(f"wrote {total} instances of {len(families)} families to {out} "
          f"(seed set {seed_set.name}" + (f", disjoint from {len(disjoint_from)} split(s))"
                                          if disjoint_from else ")"))
    if multi:
        part = json.loads(files["release_info.json"])["multi_hint"]
        print(f"wrote {part['total']} two-fact instances of {len(part['counts'])} families "
              f"(seed set {part['seed_set']})")
    if tier:
        part = json.loads(files["release_info.json"])["blind"]
        print(f"wrote {part['total']} blind-tier instances of {len(part['counts'])} families "
              f"(seed set {part['seed_set']})")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from mira_math.generators.build import problem_key, view_key
    from mira_math.generators.schema import DataError, read_jsonl
    from mira_math.generators.validate import Failure, validate_instance
    from mira_math.generators.release import (RELEASE_INFO, blind_files, data_path, family_files,
                                              multi_hint_files, read_release_info)

    paths: List[Path] = []
    missing: List[str] = []
    for p in args.files:
        restore_release(p, "validate")
        if p.is_dir():
            paths += family_files(p) + multi_hint_files(p) + blind_files(p)
            if not (p / RELEASE_INFO).is_file():   # a killed generate, or not a release
                missing.append(f"{p / RELEASE_INFO}: missing (not a complete release folder)")
            elif not paths:
                missing.append(f"{p}: no data/<family>/test.jsonl files")
            if (p / RELEASE_INFO).is_file():  # a release folder: every family it lists
                missing += [f"{p / data_path(name)}: missing (a family of {p / RELEASE_INFO})"
                            for name in read_release_info(p)["families"]
                            if not (p / data_path(name)).is_file()]
        elif p.is_file():
            paths.append(p)
        else:
            missing.append(f"{p}: no such file")
    if missing:
        for problem in missing:
            print(f"mira-math validate: {problem}", file=sys.stderr)
        return 1
    failures: List[str] = []
    seen: Dict[str, str] = {}
    ids: Dict[tuple, str] = {}  # (seed set, id): held-out splits reuse the public ids
    count = 0
    blind_proofs = BlindProofTally()
    for path in paths:
        before = count
        for number, inst in enumerate(read_jsonl(path), start=1):  # one instance per line
            count += 1
            where = f"{path}:{number}"
            if (inst.seed_set, inst.id) in ids:
                raise DataError(f"duplicate id {inst.id!r} (first in {ids[(inst.seed_set, inst.id)]})",
                                str(path), number, "id")
            ids[(inst.seed_set, inst.id)] = where
            label = f"{inst.seed_set}/{inst.id}"
            if inst.blind:
                failures += [f"{where}: {f}" for f in blind_proofs.add(inst)]
            else:
                try:
                    family = registry.get(inst.family, inst.k)
                except KeyError as err:
                    failures.append(f"{where}: {Failure(inst.id, 'schema', str(err))}")
                    continue
                failures += [f"{where}: {f}" for f in validate_instance(inst, family)]
            for key, what in ((problem_key(inst), "complete problem"),
                              (view_key(inst), "solver facts and question")):
                if key in seen:
                    same = Failure(inst.id, "duplicate", f"same {what} as {seen[key]}")
                    failures.append(f"{where}: {same}")
                seen.setdefault(key, label)
        if count == before:
            print(f"mira-math validate: {path}: holds no instances (an empty file)", file=sys.stderr)
            return 1
    for f in failures:
        print(f"FAIL {f}")
    for line in blind_proofs.lines():
        print(line)
    print(f"validated {count} instances in {len(paths)} files: "
          f"{len(failures)} failure(s)")
    return 1 if failures or count == 0 else 0


class BlindProofTally:
    """The blind tier's proofs as ``validate`` redoes them: failures per row, and per family
    the second completions, irrelevance proofs (enumerations, degree bounds) and the time."""

    def __init__(self) -> None:
        self.per_family: Dict[str, List[float]] = {}

    def add(self, inst: Any) -> List[str]:
        import time

        from mira_math.generators.blind.validate import prove_instance
        from mira_math.generators.validate import Failure

        start = time.perf_counter()
        try:
            family = registry.get_blind(inst.family)
        except KeyError as err:
            return [str(Failure(inst.id, "schema", str(err)))]
        problems, counts = prove_instance(inst, family)
        row = self.per_family.setdefault(inst.family, [0, 0, 0, 0, 0.0])
        row[0] += 1
        row[1] += counts.second_completions
        row[2] += counts.enumerations
        row[3] += counts.degree_proofs
        row[4] += time.perf_counter() - start
        return [str(Failure(inst.id, "blind_proof", p)) for p in problems]

    def lines(self) -> List[str]:
        out = []
        for name, (rows, second, enum, degree, seconds) in self.per_family.items():
            out.append(f"blind {name}: {int(rows)} rows, {int(second)} second completions, "
                       f"{int(enum) + int(degree)} irrelevance proofs ({int(enum)} by enumeration, "
                       f"{int(degree)} by degree), {seconds:.2f} s")
        return out


def cmd_verify(args: argparse.Namespace) -> int:
    from mira_math.generators.release import read_release_info, verify_release

    restore_release(args.dir, "verify")
    if args.commitment is not None:
        return _verify_commitment(args)
    info = read_release_info(args.dir)
    with progress_bar(int(info.get("total", 0)), "verify") as bar:
        report = verify_release(args.dir, progress=lambda: bar.update(1))
    for p in report.problems:
        print(f"FAIL {p}")
    if report.ok:
        how = ("every record reads cleanly (imported data: not regenerable from seeds)"
               if info.get("regenerable") is False else "regenerate byte for byte")
        if info.get("regenerable") is not False:
            from mira_math.eval.validated import mark_verified

            mark_verified(args.dir)   # regenerated, so validated: the first eval need not again
        print(f"verified {args.dir}: {report.files_checked} files {how} and match "
              f"{args.dir / 'CHECKSUMS.sha256'}")
        return 0
    return 1


def _verify_commitment(args: argparse.Namespace) -> int:
    """``verify --commitment FILE DIR``: the revealed split is the one committed to."""
    from mira_math.generators.commitment import beside, check_commitment, read_commitment, read_reveal

    reveal_path = args.reveal or beside(args.dir, "reveal")
    problems = check_commitment(args.dir, read_commitment(args.commitment), read_reveal(reveal_path))
    for p in problems:
        print(f"FAIL {p}")
    if problems:
        return 1
    print(f"verified {args.dir} against {args.commitment}: every committed file matches byte for byte, "
          f"the revealed seeds ({reveal_path}) hash to the commitment and regenerate the split")
    return 0


def cmd_reveal(args: argparse.Namespace) -> int:
    from mira_math.generators.commitment import reveal

    restore_release(args.dir, "reveal")
    out = reveal(args.dir)
    print(f"wrote {out}: publish it with the split; anyone can then run "
          f"`mira-math verify --commitment {args.dir.name}.commitment.json {args.dir}`")
    return 0


def cmd_check_disjoint(args: argparse.Namespace) -> int:
    from mira_math.generators.build import problem_key, view_key
    from mira_math.generators.release import blind_files, family_files, multi_hint_files
    from mira_math.generators.schema import read_jsonl

    def keys(folder: Path) -> Dict[str, str]:
        out: Dict[str, str] = {}
        for path in family_files(folder) + multi_hint_files(folder) + blind_files(folder):
            for inst in read_jsonl(path):
                out.setdefault(problem_key(inst), inst.id)
                out.setdefault(view_key(inst), inst.id)
        return out

    folders = [args.first, args.second] + list(args.more)
    for folder in folders:
        if not Path(folder).exists():
            print(f"mira-math check-disjoint: {folder}: no such folder", file=sys.stderr)
            return 1
        if not Path(folder).is_dir():
            print(f"mira-math check-disjoint: {folder}: not a folder", file=sys.stderr)
            return 1
        restore_release(folder, "check-disjoint")
    tables = [keys(folder) for folder in folders]
    if not all(tables):
        empty = folders[[bool(t) for t in tables].index(False)]
        print(f"mira-math check-disjoint: {empty} holds no instances", file=sys.stderr)
        return 1
    total, shown = 0, 0
    for a in range(len(folders)):           # every pair: declared splits against each other too
        for b in range(a + 1, len(folders)):
            shared = sorted(set(tables[a]) & set(tables[b]),
                            key=lambda k: (tables[a][k], tables[b][k], k))
            total += len(shared)
            for key in shared:
                if shown >= args.max_shown:
                    break
                shown += 1
                what = "solver view" if "|view|" in key else "complete problem"
                print(f"SHARED {what}: {folders[a]} {tables[a][key]} = {folders[b]} {tables[b][key]}")
    if total > shown:
        print(f"... and {total - shown} more (--max-shown N to list more)")
    counts = " and ".join(str(sum("|problem|" in k for k in t)) for t in tables)
    print(f"{counts} instances: {total} shared complete problems or solver views")
    return 1 if total else 0


def cmd_stream_capacity(args: argparse.Namespace) -> int:
    """``stream-capacity``: drain each stream up to ``--horizon`` and print what it gives."""
    from mira_math.integrations.sources import capacity

    unknown = unknown_families(args.families or [])
    if unknown:
        print(f"mira-math stream-capacity: {unknown}", file=sys.stderr)
        return 2
    for source in ("stream", "train") if args.source == "both" else (args.source,):
        for parts in args.parts:
            try:
                found = capacity(source, args.seed_set, args.families, parts, args.held_out,
                                 args.horizon)
            except ValueError as err:
                print(f"mira-math stream-capacity: {err}", file=sys.stderr)
                return 2
            print(found.line())
    return 0


def _parts(text: str) -> tuple:
    try:
        parts = tuple(int(k) for k in text.split("+"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected k values joined by '+', e.g. 1 or 1+2; got {text!r}") from None
    return parts


def cmd_publish(args: argparse.Namespace) -> int:
    from mira_math.generators.publish import check_stage_target, plan, publish, stage

    if args.stage is not None:
        check_stage_target(args.stage)
    restore_release(args.dir, "publish")
    the_plan = plan(args.dir, args.repo_id, args.tag, args.private)
    print(the_plan.describe())
    if args.stage is not None:
        written = stage(args.dir, args.repo_id, args.stage)
        print(f"staged {len(written)} files in {args.stage} (exactly what publishing uploads)")
    if args.dry_run:
        print("dry run: nothing uploaded")
        return 0
    commit = publish(args.dir, the_plan)
    print(f"published {args.repo_id} at commit {commit}" + (f", tag {args.tag}" if args.tag else ""))
    return 0


def cmd_import_reference(args: argparse.Namespace) -> int:
    """Convert the paper authors' released JSONL into a release folder (see
    docs/reference_import.md); ``--check`` cross-checks every answer and runs the validators."""
    from mira_math.reference_import import (CHECK_REPORT, FormatError, import_reference, prepare_folder,
                                  render_text_summary)
    from mira_math.generators.release import write_release

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
    if result.without_source:
        print(f"no paper source (the reference release has no such family, so none is imported): "
              f"{', '.join(result.without_source)}")
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


def add_commands(sub) -> None:
    """Add the data subcommands to ``mira-math``'s subparsers ``sub``."""

    g = sub.add_parser("generate", help="build a split (default: the public 20/50 release)")
    g.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="output folder (default: ./mira-math, which in a checkout's root is the "
                        "committed release; never inside the installed package; required for a "
                        "held-out seed set)")
    g.add_argument("--types", choices=["A", "B", "AB"], default="AB", help="family types to build")
    g.add_argument("--families", nargs="+", metavar="NAME", help="only these families")
    g.add_argument("--difficulties", nargs="+", type=int, choices=[1, 2, 3], default=[1, 2, 3],
                   help="difficulty levels to build")
    g.add_argument("--per-type", type=_per_type, default={"A": 20, "B": 50}, metavar="A/B",
                   help="instances per difficulty for Type A / Type B families (default: 20/50, the "
                        "public release)")
    g.add_argument("--multi-hint-per-type", type=_per_type, default={"A": 10, "B": 10}, metavar="A/B",
                   help="instances per difficulty of the two-fact (k = 2) part for Type A / Type B "
                        "families (default: 10/10; 0/0 leaves the part out)")
    g.add_argument("--blind-per-type", type=_per_type, default={"A": 12, "B": 12}, metavar="A/B",
                   help="instances per difficulty of the blind tier for Type A / Type B families "
                        "(default: 12/12, two of each of its six plans; 0/0 leaves the tier out)")
    g.add_argument("--seed-set", default=None, metavar="NAME",
                   help="a held-out seed set (default: the public release's); it shares no "
                        "complete problem or solver view with the public release")
    g.add_argument("--disjoint-from", nargs="+", type=Path, default=[], metavar="DIR",
                   help="held-out split folders this one must not overlap either (their "
                        "release_info.json is read; the splits are regenerated from seeds)")
    g.add_argument("--overwrite", action="store_true",
                   help="replace a non-empty --out folder (stale files included)")
    g.add_argument("--commit", action="store_true",
                   help="held-out split kept private: a random master seed, and beside --out DIR a "
                        "public DIR.commitment.json and a private DIR.secret.json (`mira-math reveal`)")
    g.set_defaults(func=cmd_generate)

    v = sub.add_parser("validate", help="re-run every validity check on JSONL files or release folders")
    v.add_argument("files", nargs="+", type=Path, metavar="FILE",
                   help="a family's JSONL file or a release folder (every family it lists)")
    v.set_defaults(func=cmd_validate)

    r = sub.add_parser("verify", help="regenerate a release folder and compare it byte for byte")
    r.add_argument("dir", nargs="?", type=Path, default=DEFAULT_RELEASE, metavar="DIR",
                   help="release folder (default: the committed mira-math/ release); an imported "
                        "reference folder is checked against its checksums and read strictly")
    r.add_argument("--commitment", type=Path, default=None, metavar="FILE",
                   help="prove DIR is the split FILE (a DIR.commitment.json) committed to, with the "
                        "revealed seeds (--reveal, default DIR.reveal.json)")
    r.add_argument("--reveal", type=Path, default=None, metavar="FILE",
                   help="the reveal record (default: DIR.reveal.json beside DIR)")
    r.set_defaults(func=cmd_verify)

    rv = sub.add_parser("reveal", help="publish a committed split's seeds: write DIR.reveal.json "
                        "after checking DIR still matches DIR.commitment.json")
    rv.add_argument("dir", type=Path, metavar="DIR", help="a split made with generate --commit")
    rv.set_defaults(func=cmd_reveal)

    c = sub.add_parser("check-disjoint", help="prove splits share no complete problem or solver "
                       "view (every pair of the folders given)")
    c.add_argument("first", type=Path, metavar="DIR", help="a release folder")
    c.add_argument("second", type=Path, metavar="DIR", help="another release folder")
    c.add_argument("more", type=Path, nargs="*", metavar="DIR", help="further splits")
    c.add_argument("--max-shown", type=non_negative_int, default=20, metavar="N",
                   help="list at most N shared keys (sorted by the first folder's ids)")
    c.set_defaults(func=cmd_check_disjoint)

    sc = sub.add_parser("stream-capacity", help="drain the RL streams (held-out `stream`, `train`) "
                        "and print how many instances each gives before its blocks run out")
    sc.add_argument("--source", choices=["stream", "train", "both"], default="both")
    sc.add_argument("--parts", nargs="+", type=_parts, default=[(1,), (2,), (1, 2)], metavar="K[+K]",
                    help="the release parts each stream draws from: 1 (one fact), 2 (two facts) or 1+2")
    sc.add_argument("--families", nargs="+", metavar="NAME", help="only these families")
    sc.add_argument("--seed-set", default=None, metavar="NAME", help="the stream's seed set")
    sc.add_argument("--held-out", nargs="+", default=[], metavar="DIR",
                    help="held-out splits the streams avoid too")
    sc.add_argument("--horizon", type=positive_int, default=2000, metavar="N",
                    help="drain at most N instances per stream (the stream is deterministic)")
    sc.set_defaults(func=cmd_stream_capacity)

    p = sub.add_parser("publish", help="upload a verified release folder to the Hugging Face Hub")
    p.add_argument("--repo-id", required=True, metavar="OWNER/NAME", help="the Hub dataset repo")
    p.add_argument("--tag", metavar="vX.Y.Z", help="tag the upload commit; an existing tag is refused")
    p.add_argument("--private", action="store_true", help="create the repo as private")
    p.add_argument("--dry-run", action="store_true", help="list every file of every commit; upload nothing")
    p.add_argument("--stage", type=Path, default=None, metavar="DIR",
                   help="also write exactly the files that would be uploaded into DIR (new or empty)")
    p.add_argument("--dir", type=Path, default=DEFAULT_RELEASE,
                   help="release folder (default: the committed mira-math/ release)")
    p.set_defaults(func=cmd_publish)

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
