"""The scores files of a run: ``write_scores`` writes ``scores.json`` (every group's metrics,
rounded and exact, with the definitions) and ``scores.csv`` into a run's (first) directory;
``cached_scores`` reads a ``scores.json`` back when it still matches the run's files and the
metric rows (so ``report`` does not score again). Metrics are computed in
:mod:`mira_math.eval.scoring` and rounded here only when written, so files are byte-stable.
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
from mira_math.eval.metrics import DEFINITIONS, METRICS, GroupMetrics
from mira_math.eval.rundir.files import SCORES_CSV, SCORES_JSON
from mira_math.eval.rundir.runs import RunInfo
from mira_math.eval.rundir.transcripts import content_fingerprint
from mira_math.eval.scoring import SCORES_VERSION, GroupScore, RunScores, json_value
from mira_math.eval.tables import PLACES, cell


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


def same_metric_rows(doc: Dict[str, Any]) -> bool:
    """Whether a scores.json was written with today's metric rows: the same definitions (every
    row's name and text, in order) and every group holding exactly those metrics. A new, removed
    or redefined row makes the cache stale without a ``SCORES_VERSION`` bump (which stays for
    a row whose computation changes under the same name and definition)."""
    definitions = doc.get("definitions")
    if not isinstance(definitions, dict) or list(definitions.items()) != list(DEFINITIONS.items()):
        return False
    return all(list(g["exact"]) == list(METRICS) for g in doc["groups"])


def cached_scores(info: RunInfo) -> Optional[RunScores]:
    """The run's scores.json when it was written by this scoring version, with today's metric
    rows (:func:`same_metric_rows`), for exactly these files (manifests and transcripts, checked
    by their fingerprint), else None."""
    path = info.out_dir / SCORES_JSON
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        run = doc["run"]
        if doc.get("scores_version") != SCORES_VERSION or not same_metric_rows(doc):
            return None
        if run.get("fingerprint") != content_fingerprint(info, SCORES_VERSION):
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


__all__ = ["SCORES_CSV", "SCORES_JSON", "cached_scores", "destinations", "exact_value", "run_section",
           "same_metric_rows", "scores_csv", "scores_document", "write_scores"]
