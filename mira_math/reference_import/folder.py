"""The release folder of an import: :func:`import_reference` converts a source file in memory
into every file of the folder (data, ``release_info.json``, the check report, README,
checksums), :func:`prepare_folder` makes room for it, and :func:`render_text_summary` is the
table the command prints."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from mira_math.generators import registry
from mira_math.reference_import.check import EXPECTED, REAL, check_instance, summarise
from mira_math.reference_import.converters import without_source
from mira_math.reference_import.instance import IMPORT_VERSION, Converted, convert_record
from mira_math.reference_import.record import FormatError, read_source
from mira_math.generators.layout import SPLIT
from mira_math.generators.release import CHECKSUMS, README, RELEASE_INFO, data_path, manifest

SOURCE_REPOSITORY = "https://github.com/cedar-lau/mira-math"
SOURCE_LICENSE = "code MIT, data CC BY 4.0"
SOURCE_COPYRIGHT = "Copyright (c) 2026 MIRA-Math contributors"
CHECK_REPORT = "import_check.json"

# sha256 of the files the source repository lists in its datasets/CHECKSUMS.txt.
PUBLISHED = {
    "78a021526f9457af6e3776ac470c4ef1202d18fd9a19539e7e289294997b2ad0":
        "datasets/family_types_20_50.jsonl",
    "0f7f24a7a178ea4817867b9648908af1d9fd09c4fd53a5e79416e9fc868d6e0f":
        "datasets/family_types_20_50_few_shot.jsonl",
}


@dataclass
class ImportResult:
    files: Dict[str, bytes]
    converted: List[Converted]
    failures: List[dict]           # records that could not be converted: id, family, line, error
    checks: List[dict]
    summary: Optional[dict]
    source: dict
    without_source: List[str] = field(default_factory=list)   # our families the paper never had

    @property
    def disagreements(self) -> List[dict]:
        return [c for c in self.checks if c["answer"]["status"] == "disagree"]

    @property
    def unchecked(self) -> List[dict]:
        return [c for c in self.checks if c["answer"]["status"] == "error"]

    @property
    def real_findings(self) -> List[Tuple[str, dict]]:
        return [(c["id"], f) for c in self.checks for f in c["findings"] if f["property"] in REAL]


def _readme(info: dict, files: Dict[str, bytes], summary: Optional[dict]) -> str:
    from mira_math.generators.card import render_readme

    src = info["source"]
    counts = info["counts"]
    rows = "\n".join(f"| `{name}` | {registry.type_of(name)} | {counts[name]} |" for name in counts)
    published = f" (the published `{src['published_as']}`)" if src.get("published_as") else ""
    head = (
        f"# MIRA-Math — the reference release, imported\n\n"
        f"This folder holds {info['total']} instances converted from `{src['file']}`{published}, "
        f"sha256 `{src['sha256']}`, released by the paper's authors in {src['repository']} "
        f"under its terms ({src['license']}; {src['copyright']}). The conversion "
        f"(`mira-math import-reference`, {info['generator_version']}) keeps their ids, "
        f"difficulties and constraint text verbatim; it is not regenerable from seeds, so "
        f"`mira-math verify` does not apply: check the bytes with `sha256sum -c "
        f"CHECKSUMS.sha256`.\n\n"
        f"| config / family | type | instances |\n|---|---|---|\n{rows}\n\n"
    )
    card = (
        "## Source and licence\n\n"
        f"The instances (ids, difficulties, constraint text, hints and answers) come from "
        f"{src['repository']} and are redistributed under its terms (the repository is MIT "
        f"licensed, its released data CC BY 4.0), with attribution:\n\n"
        f"> {src['copyright']}. The full licence text is at "
        f"{src['repository']}/blob/main/LICENSE.\n\n"
        "The context, question and domain sentences, the slot identifiers and the latent states "
        "in our families' formats were written by the importer.\n\n"
        "## What was converted\n\n"
        "Each line is one instance of the MIRA-Math schema (see the main dataset card): the "
        "solver's facts are the source's agent A lines, the responder's lines are its agent B "
        "lines, the canonical hint is the B line that states the source's atomic hint, and the "
        "answer is the source's `global_solution` as an exact value. The source's few-shot "
        "examples are not carried over (our four-shot regime uses its own examples).\n\n"
        "## Evaluating\n\n"
        "    mira-math eval --solver MODEL --data THIS_FOLDER --out RUN_DIR\n"
        "    mira-math score RUN_DIR\n\n"
        "The `rules` responder offers a line only when the request names the line's quantity "
        "as our notation reads it. It reads the source's hint line for 16 of the 22 families; "
        "for geometry_coordinates, rankdef_linear_shared, deconvolution and laplace_grid it "
        "cannot read the source's unlabelled lines, and for portfolio_variance_missing_corr and "
        "steady_state_missing_emission the source numbers assets, states and symbols from 0 "
        "where our slots count from 1, so it never offers there: evaluate those families with "
        "an LLM responder (`--responder llm:...`) or the `oracle-hint` condition.\n\n"
        "`docs/reference_import.md` in the MIRA-Math repository lists, per family, how the "
        "source maps to our families and where the two setups differ.\n"
    )
    if summary:
        t = summary["total"]
        card += (
            "\n## Cross-check\n\n"
            f"`{CHECK_REPORT}` holds the import check: our family code recomputed every answer "
            f"from the solver view plus the canonical hint ({t['agree']} agree, "
            f"{t['disagree']} disagree, {t['unchecked']} could not be recomputed), and our "
            f"validators' findings per instance and per family "
            f"({t['instances_with_real_finding']} instances with a finding about the source "
            f"data).\n"
        )
    return render_readme(info, files, card=card, summary=head)


def import_reference(path: Path, check: bool = False,
                     progress: Optional[Callable[[], None]] = None) -> ImportResult:
    """Convert a source file in memory: every file of the output folder, plus the check."""
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    records = read_source(path)
    seed_set = f"reference:{path.stem}"
    converted: List[Converted] = []
    failures: List[dict] = []
    for rec in records:
        try:
            converted.append(convert_record(rec, seed_set))
        except FormatError as err:
            failures.append({"id": rec.id, "family": rec.family, "line": rec.line,
                             "error": str(err)})
        if progress:
            progress()
    order = {name: i for i, name in enumerate(registry.names())}
    ordered = sorted(converted, key=lambda c: order[c.instance.family])   # stable: source order
    files: Dict[str, List[str]] = defaultdict(list)
    for c in ordered:
        files[data_path(c.instance.family)].append(c.instance.to_json_line())
    out: Dict[str, bytes] = {p: "".join(lines).encode("utf-8") for p, lines in files.items()}
    families = [n for n in registry.names() if data_path(n) in out]
    counts = {n: out[data_path(n)].count(b"\n") for n in families}
    source = {"repository": SOURCE_REPOSITORY, "license": SOURCE_LICENSE,
              "copyright": SOURCE_COPYRIGHT, "file": path.name, "sha256": digest,
              "published_as": PUBLISHED.get(digest), "records": len(records)}
    checks = [check_instance(c) for c in ordered] if check else []
    summary = summarise(checks, failures) if check else None
    info = {
        "generator_version": IMPORT_VERSION,
        "seed_set": seed_set,
        "master_seed": 0,              # no seed: the fields keep read_release_info's shape
        "regenerable": False,
        "verify": "sha256sum -c CHECKSUMS.sha256 (an imported folder is not regenerable: "
                  "mira-math verify does not apply)",
        "pretty_name": "MIRA-Math (reference release, imported)",
        "license": "cc-by-4.0",
        "source": source,
        "per_type": {"A": 0, "B": 0},
        "families": families,
        "difficulties": sorted({c.instance.difficulty for c in converted}),
        "counts": counts,
        "total": sum(counts.values()),
        "not_converted": failures,
    }
    out[RELEASE_INFO] = (json.dumps(info, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    if check:
        report = {"source": source, "import_version": IMPORT_VERSION,
                  "properties": {"expected_for_imported_data": EXPECTED,
                                 "findings_about_the_source_data": list(REAL)},
                  **(summary or {}), "not_converted": failures, "instances": checks}
        out[CHECK_REPORT] = (json.dumps(report, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    out[README] = _readme(info, out, summary).encode("utf-8")
    out[CHECKSUMS] = manifest(out)
    return ImportResult(out, ordered, failures, checks, summary, source,
                        without_source(registry.names()))


def prepare_folder(out: Path) -> None:
    """Refuse to mix an import into a folder holding something else; clear a previous import."""
    if not out.exists():
        return
    if not out.is_dir():
        raise FormatError(f"{out} exists and is not a folder")
    entries = [p for p in out.rglob("*") if p.is_file()]
    if not entries:
        return
    info = out / RELEASE_INFO
    try:
        previous = json.loads(info.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        previous = None
    if not isinstance(previous, dict) or previous.get("generator_version") != IMPORT_VERSION:
        raise FormatError(f"{out} is not empty and holds no earlier import; choose another --out")
    for p in entries:
        rel = p.relative_to(out).as_posix()
        if rel in (RELEASE_INFO, README, CHECKSUMS, CHECK_REPORT) or \
                (rel.startswith("data/") and rel.endswith(f"/{SPLIT}.jsonl")):
            p.unlink()


def render_text_summary(result: ImportResult) -> str:
    """The per-family table the command prints (instances per finding property)."""
    if not result.summary:
        return ""
    lines = [f"{'family':32} {'inst':>4} {'agree':>5} {'disag':>5} {'unchk':>5} {'reads':>5}  "
             f"findings about the source data | informational"]
    for name, f in result.summary["families"].items():
        props = f["instances_with_finding"]
        real = ", ".join(f"{p} {n}" for p, n in props.items() if p in REAL) or "-"
        info = ", ".join(f"{p} {n}" for p, n in props.items()
                         if p not in REAL and p != "consistency") or "-"
        lines.append(f"{name:32} {f['instances']:>4} {f['agree']:>5} {f['disagree']:>5} "
                     f"{f['unchecked']:>5} {f['rules_responder_reads_hint']:>5}  {real} | {info}")
    t = result.summary["total"]
    lines.append(f"{'total':32} {t['instances']:>4} {t['agree']:>5} {t['disagree']:>5} "
                 f"{t['unchecked']:>5} {t['rules_responder_reads_hint']:>5}  "
                 f"{t['instances_with_real_finding']} instance(s) with a finding about the source "
                 f"data")
    lines.append("(reads: instances whose hint line the rules responder reads as the hint's slot; "
                 "every instance also fails 'consistency', expected for imported text)")
    return "\n".join(lines) + "\n"
