"""Writing, reading back and showing scores: ``write_scores`` writes ``scores.json`` and
``scores.csv`` into a run's (first) directory, ``cached_scores`` reads a ``scores.json`` back when
it still matches the run's files (so ``report`` does not score again), ``render_table`` is the
terminal summary. The metrics are computed in :mod:`eval.scoring` (this module imports it, never
the reverse); they are exact fractions, rounded here only when written, so files are byte-stable.
"""

from __future__ import annotations

import csv
import io
import json
import os
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from mira_math.common.atomic import write_atomic
from mira_math.eval.metrics import (DEFINITIONS, METRICS, GroupMetrics, num, pct, table_cells,
                                    table_header)
from mira_math.eval.metrics import _trace_cell as trace_cell
from mira_math.eval.rundir import SCORES_CSV, SCORES_JSON
from mira_math.eval.scoring import (SCORES_VERSION, GroupScore, RunInfo, RunScores, content_fingerprint, fixed,
                                    json_value)

PLACES = 4                        # decimals written for every ratio / mean


def cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, Fraction):
        return fixed(value, PLACES)
    return str(value)


def exact_value(value: Any) -> Any:
    """A metric as JSON without rounding: a fraction as "p/q" text, ints as they are."""
    return str(value) if isinstance(value, Fraction) else value


def _rel(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path.resolve(), base.resolve())).as_posix()


def run_section(r: RunInfo, base: Optional[Path] = None) -> Dict[str, Any]:
    c = r.config
    base = r.out_dir if base is None else base
    return {"label": r.label, "solver": c.get("solver"), "responder": c.get("responder"),
            "regime": r.regime, "condition": r.condition, "protocol": c.get("protocol", "paper"),
            "split": r.split, "decoding": r.decoding, "run_hash": r.run_hash,
            "shard_count": r.shard_count, "shards_present": sorted(r.shards_present),
            "shards": [_rel(d, base) for d in r.dirs], "epochs": c.get("epochs", 1),
            "run_seed": c.get("run_seed"),
            "config_hashes": [m.get("config_hash") for m in r.manifests],
            "dataset_files": (r.manifests[0].get("dataset") or {}).get("files"),
            "dataset_checksum": r.dataset_checksum,
            "transcripts": r.transcripts, "selected": r.expected, "missing": r.missing,
            "status": r.status, "fingerprint": r.fingerprint}


def scores_document(s: RunScores, base: Optional[Path] = None) -> Dict[str, Any]:
    return {
        "scores_version": SCORES_VERSION,
        "run": run_section(s.run, base),
        "notes": ["errored transcripts are counted in 'errored' and excluded from every other metric",
                  f"ratios and means are exact fractions rounded half-to-even to {PLACES} decimals; "
                  "'exact' holds them unrounded",
                  "canonical offers are checked against the instance's hint constraints",
                  "instances are keyed by (seed set, id); with several epochs, transcripts by "
                  "(seed set, id, epoch)",
                  "intervals: 95% Wilson, instances as the unit when a run has several epochs "
                  "(docs/benchmark.md §7.1)"],
        "definitions": DEFINITIONS,
        "groups": [{"kind": g.kind, "group": g.group,
                    "metrics": {m: json_value(v) for m, v in g.metrics.as_dict().items()},
                    "exact": {m: exact_value(v) for m, v in g.metrics.as_dict().items()}}
                   for g in s.groups],
        "deltas": {"paired_with": s.paired_with,
                   "accuracy_delta_4s_minus_zs": [
                       {"kind": d.kind, "group": d.group, "zs": json_value(d.zero_shot),
                        "4s": json_value(d.four_shot), "delta": json_value(d.delta)}
                       for d in s.deltas]},
    }


def scores_csv(s: RunScores) -> str:
    """Long format: run, group_kind, group, metric, value; the run's status rows first."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["run", "group_kind", "group", "metric", "value"])
    writer.writerow([s.label, "run", "all", "status", "complete" if s.run.complete else "INCOMPLETE"])
    writer.writerow([s.label, "run", "all", "missing", s.run.missing])
    for g in s.groups:
        for metric, value in g.metrics.as_dict().items():
            writer.writerow([s.label, g.kind, g.group, metric, cell(value)])
    for d in s.deltas:
        writer.writerow([s.label, d.kind, d.group, "accuracy_delta_4s_minus_zs", cell(d.delta)])
    return buf.getvalue()


def destinations(scores: Sequence[RunScores], out: Optional[Path] = None) -> List[Optional[Path]]:
    """Where each run's files go: ``out`` (one run) or ``out/<its first directory's name>``
    (several; a clash gets a number), else the run's own directory. A run merged from several
    shards is never written into one shard's folder: None (pass ``--out``)."""
    if out is not None:
        if len(scores) == 1:
            return [Path(out)]
        names: Dict[str, int] = {}
        dests: List[Optional[Path]] = []
        for s in scores:
            name = s.run.out_dir.name
            names[name] = names.get(name, 0) + 1
            dests.append(Path(out) / (name if names[name] == 1 else f"{name}-{names[name]}"))
        return dests
    return [s.run.out_dir if len(s.run.dirs) == 1 else None for s in scores]


def write_scores(scores: Sequence[RunScores], out: Optional[Path] = None) -> List[Path]:
    """Each run's files into its destination (:func:`destinations`), each written whole or
    not at all."""
    written = []
    for s, dest in zip(scores, destinations(scores, out)):
        if dest is None:
            continue
        dest.mkdir(parents=True, exist_ok=True)
        write_atomic(dest / SCORES_CSV, scores_csv(s).encode("utf-8"))
        doc = scores_document(s, dest)
        text = json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)
        write_atomic(dest / SCORES_JSON, (text + "\n").encode("utf-8"))
        written += [dest / SCORES_JSON, dest / SCORES_CSV]
    return written


def _metrics_from_exact(exact: Dict[str, Any]) -> GroupMetrics:
    values = {m: (Fraction(v) if isinstance(v, str) else v) for m, v in exact.items()}
    return GroupMetrics(**{m: values.get(m) for m in METRICS})


def cached_scores(info: RunInfo) -> Optional[RunScores]:
    """The run's scores.json when it was written by this scoring version for exactly these files
    (manifests and transcripts, checked by their fingerprint), else None."""
    path = info.out_dir / SCORES_JSON
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        run = doc["run"]
        if doc.get("scores_version") != SCORES_VERSION or run.get("fingerprint") != content_fingerprint(info):
            return None
        if sorted(_rel(d, info.out_dir) for d in info.dirs) != sorted(run["shards"]):
            return None
        groups = [GroupScore(g["kind"], g["group"], _metrics_from_exact(g["exact"])) for g in doc["groups"]]
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None                       # unreadable, hostile or older: score again
    info.transcripts, info.expected = run["transcripts"], run["selected"]
    info.seed_sets = run["split"].split("+") if run["split"] != "-" else []
    info.fingerprint = run["fingerprint"]
    return RunScores(info, groups)


# ------------------------------------------------------------------ the terminal table

def _table(header: List[str], rows: List[List[str]]) -> str:
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    def line(r):
        return "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])


def summary_row(m: GroupMetrics) -> List[str]:
    """A group's cells for every metric row with a column (:data:`eval.metrics.TABLE_ROWS`)."""
    return table_cells(m)


SUMMARY_HEADER = ["run"] + table_header()


def usage_rows(scores: Sequence[RunScores], prices: Any = None) -> List[List[str]]:
    """Per run: reported solver tokens (prompt + completion, reasoning), coverage, cost."""
    from mira_math.eval.results import cost_cell, tokens_cell

    return [[s.label, tokens_cell(s.overall),
             "n/a" if s.overall.reasoning_tokens is None else str(s.overall.reasoning_tokens),
             pct(s.overall.usage_coverage), cost_cell(s, prices)] for s in scores]


USAGE_HEADER = ["run", "tokens used (prompt + completion)", "reasoning", "turns with usage %",
                "cost (run total, prices' currency)"]


DECODING_WIDTH = 40   # the terminal table's decoding cell; scores.json keeps every parameter


def decoding_cell(params: Dict[str, Any]) -> str:
    """Decoding parameters in at most :data:`DECODING_WIDTH` characters: a list (the stop
    sequences) as its length, the rest cut with an ellipsis."""
    text = ", ".join(f"{k}=[{len(v)}]" if isinstance(v, (list, tuple)) else f"{k}={v}"
                     for k, v in sorted(params.items())) or "-"
    return text if len(text) <= DECODING_WIDTH else text[:DECODING_WIDTH - 1] + "\u2026"


def render_table(scores: Sequence[RunScores], prices: Any = None) -> str:
    """Runs (with status), overall metrics, accuracy by type / difficulty / family, deltas,
    reported tokens and cost."""
    runs = [[s.label, s.run.split, decoding_cell(s.run.get("solver_params") or {}), str(s.run.get("epochs", 1)),
             str(s.run.transcripts),
             str(s.run.expected), s.run.status] for s in scores]
    parts = [_table(["run", "split", "decoding", "epochs", "transcripts", "selected", "status"], runs),
             _table(SUMMARY_HEADER, [[s.label] + summary_row(s.overall) for s in scores]),
             "solver tokens as the backends reported them (n/a: none reported; 'tok est' above is "
             "the words x 1.3 estimate), cost from --price-in/--price-out or --prices:\n"
             + _table(USAGE_HEADER, usage_rows(scores, prices))]
    for kind in ("type", "difficulty", "family"):
        names = sorted({g.group for s in scores for g in s.groups if g.kind == kind})
        rows = []
        for name in names:
            row = [name]
            for s in scores:
                m = s.group(kind, name)
                row.append("-" if m is None else f"{pct(m.accuracy)} (chance {pct(m.chance)})")
            rows.append(row)
        parts.append(f"accuracy % by {kind}:\n" + _table([kind] + [s.label for s in scores], rows))
    for s in scores:
        if s.deltas and s.run.regime == "4s":
            rows = [[d.group, pct(d.zero_shot), pct(d.four_shot), pct(d.delta)] for d in s.deltas]
            parts.append(f"four-shot minus zero-shot accuracy (points), {s.label} vs {s.paired_with}:\n"
                         + _table(["group", "zs%", "4s%", "delta"], rows))
    incomplete = [s.label for s in scores if not s.run.complete]
    if incomplete:
        parts.append("INCOMPLETE runs (a shard or transcripts missing; resume them before comparing): "
                     + "; ".join(incomplete))
    parts.append("errored transcripts are excluded from every metric but 'err'; hit% and 1st% count "
                 "canonical offers, offer% and 1st-any% any offer; hit% is over instances with >= 1 "
                 "request (count without in brackets); fallback%: answers without an ANSWER: line")
    return "\n\n".join(parts) + "\n"


__all__ = ["USAGE_HEADER", "destinations", "usage_rows",
           "PLACES", "SCORES_CSV", "SCORES_JSON", "SUMMARY_HEADER", "cached_scores", "cell", "num",
           "render_table", "scores_csv", "scores_document", "summary_row", "trace_cell", "write_scores"]
