"""Writing and showing scores: ``write_scores`` writes ``scores.json`` and ``scores.csv`` into
a run's (first) directory, ``render_table`` is the terminal summary. The metrics themselves are
computed in :mod:`eval.scoring`; they are exact fractions, rounded here (:func:`fixed`) only
when written, so the files are byte-stable.
"""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

if TYPE_CHECKING:
    from eval.scoring import GroupMetrics, RunScores

SCORES_VERSION = "1"
SCORES_JSON = "scores.json"
SCORES_CSV = "scores.csv"
PLACES = 4                        # decimals written for every ratio / mean


def fixed(value: Fraction, places: int = PLACES) -> str:
    """Exact rounding (half to even) to ``places`` decimals, as text."""
    q = round(value * 10 ** places)
    digits = str(abs(q)).rjust(places + 1, "0")
    return ("-" if q < 0 else "") + digits[:-places] + "." + digits[-places:]


def cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, Fraction):
        return fixed(value)
    return str(value)


def json_value(value: Any) -> Any:
    if isinstance(value, Fraction):
        return float(fixed(value))
    return value


def _rel(path: Path, base: Path) -> str:
    import os

    return Path(os.path.relpath(path.resolve(), base.resolve())).as_posix()


def scores_document(s: RunScores) -> Dict[str, Any]:
    from eval.scoring import DEFINITIONS   # here, not above: eval.scoring imports this module

    k, run = s.run.key, s.run
    return {
        "scores_version": SCORES_VERSION,
        "run": {"label": k.label, "solver": k.solver, "responder": k.responder, "regime": k.regime,
                "condition": k.condition, "protocol": k.protocol, "run_hash": run.run_hash,
                "shards": [_rel(d, run.out_dir) for d in run.dirs],
                "config_hashes": [m.get("config_hash") for m in run.manifests],
                "dataset_files": (run.manifests[0].get("dataset") or {}).get("files"),
                "dataset_checksum": (run.manifests[0].get("dataset") or {}).get("checksum"),
                "transcripts": len(run.records), "selected": run.expected,
                "missing": max(0, run.expected - len(run.records))},
        "notes": ["errored transcripts are counted in 'errored' and excluded from every other metric",
                  f"ratios and means are exact fractions rounded half-to-even to {PLACES} decimals",
                  "canonical offers are checked against the instance's hint constraints"],
        "definitions": DEFINITIONS,
        "groups": [{"kind": g.kind, "group": g.group,
                    "metrics": {m: json_value(v) for m, v in g.metrics.as_dict().items()}}
                   for g in s.groups],
        "deltas": {"paired_with": s.paired_with,
                   "accuracy_delta_4s_minus_zs": [
                       {"kind": d.kind, "group": d.group, "zs": json_value(d.zero_shot),
                        "4s": json_value(d.four_shot), "delta": json_value(d.delta)}
                       for d in s.deltas]},
    }


def scores_csv(s: RunScores) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["run", "group_kind", "group", "metric", "value"])
    for g in s.groups:
        for metric, value in g.metrics.as_dict().items():
            writer.writerow([s.label, g.kind, g.group, metric, cell(value)])
    for d in s.deltas:
        writer.writerow([s.label, d.kind, d.group, "accuracy_delta_4s_minus_zs", cell(d.delta)])
    return buf.getvalue()


def write_scores(scores: Sequence[RunScores]) -> List[Path]:
    written = []
    for s in scores:
        out = s.run.out_dir
        (out / SCORES_JSON).write_text(json.dumps(scores_document(s), indent=2, ensure_ascii=False) + "\n",
                                       encoding="utf-8")
        (out / SCORES_CSV).write_text(scores_csv(s), encoding="utf-8")
        written += [out / SCORES_JSON, out / SCORES_CSV]
    return written


def pct(value: Optional[Fraction]) -> str:
    return "-" if value is None else fixed(value * 100, 1)


def num(value: Optional[Fraction], places: int = 2) -> str:
    return "-" if value is None else fixed(value, places)


def _table(header: List[str], rows: List[List[str]]) -> str:
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    line = lambda r: "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])


def summary_row(m: GroupMetrics) -> List[str]:
    ci = f"[{pct(m.accuracy_ci_low)}, {pct(m.accuracy_ci_high)}]" if m.accuracy is not None else ""
    return [str(m.n), str(m.errored), pct(m.accuracy), ci, f"{pct(m.chance)} ({m.chance_n})",
            f"{pct(m.hit_rate)} ({m.no_request})", pct(m.first_request_success), num(m.avg_requests),
            num(m.avg_declines), num(m.avg_hints), num(m.requests_before_first_offer),
            num(m.avg_tokens, 1), str(m.format_errors),
            "/".join(pct(x) for x in (m.trace_no_canonical, m.trace_canonical_wrong, m.trace_correct)),
            str(m.noncanonical_offers)]


SUMMARY_HEADER = ["run", "n", "err", "acc%", "95% CI", "chance% (n)", "hit% (no req)", "1st%", "req",
                  "decl", "hints", "req<offer", "tokens", "fmt", "trace nc/cw/ok %", "noncanon"]


def render_table(scores: Sequence[RunScores]) -> str:
    """Overall metrics per run, then accuracy by type / difficulty / family, and the deltas."""
    parts = [_table(SUMMARY_HEADER, [[s.label] + summary_row(s.overall) for s in scores])]
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
        if s.deltas and s.run.key.regime == "4s":
            rows = [[d.group, pct(d.zero_shot), pct(d.four_shot), pct(d.delta)] for d in s.deltas]
            parts.append(f"four-shot minus zero-shot accuracy (points), {s.label} vs {s.paired_with}:\n"
                         + _table(["group", "zs%", "4s%", "delta"], rows))
    parts.append("errored transcripts are excluded from every metric but 'err'; hit% is over "
                 "instances with >= 1 request (count without in brackets)")
    return "\n\n".join(parts) + "\n"
