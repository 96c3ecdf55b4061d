"""Scoring (SPEC §7): every metric from transcripts and the dataset alone, no model calls.

``score(run_dirs)`` loads RUN_DIRs, merges the shard directories of one run, joins every
transcript with its instance (from the dataset files the manifest names) and computes, per
run and per group (overall, type, family, difficulty, difficulty x type), the metrics below.
Arithmetic is exact (``Fraction``); values are rounded only when written, so the files are
byte-stable. ``write_scores`` writes ``scores.json`` and ``scores.csv`` into the run's
(first) directory; ``render_table`` is the terminal summary. Both live in
:mod:`eval.score_output` and are re-exported here, with the formatting helpers other modules
use.

A run is keyed by (solver, responder, regime, condition, protocol). Directories with the same
key are shards of one run: they must share ``run_hash`` and hold disjoint instance ids.
Errored transcripts (a backend failure after retries) are counted apart, in ``errored``, and
excluded from every other metric; ``n`` counts the scored (non-errored) instances.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field, fields
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from eval.score_output import (SUMMARY_HEADER, fixed, json_value, pct, render_table, scores_csv,
                               scores_document, summary_row, write_scores)
from generators.errors import MiraError
from generators.schema import DataError, Instance, read_jsonl

MANIFEST = "manifest.json"
TRANSCRIPTS = "transcripts.jsonl"
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
GROUP_KINDS = ("all", "type", "family", "difficulty", "difficulty_type")
TRACE_CLASSES = ("no_canonical", "canonical_wrong", "correct")

DEFINITIONS: Dict[str, str] = {
    "n": "instances scored (errored transcripts excluded)",
    "errored": "transcripts that ended in a backend error; excluded from every other metric",
    "correct": "instances whose final answer the exact verifier accepts",
    "accuracy": "correct / n",
    "accuracy_ci_low": f"2.5th percentile of accuracy over {BOOTSTRAP_RESAMPLES} bootstrap "
                       f"resamples of the group's instances (random.Random({BOOTSTRAP_SEED}))",
    "accuracy_ci_high": "97.5th percentile of the same bootstrap",
    "chance": "mean of 1/candidate_answers over instances whose view leaves finitely many "
              "answers (a blind guess's expected accuracy)",
    "chance_n": "instances with a finite chance level",
    "hit_rate": "per instance offers/(offers+declines), averaged over instances with >= 1 request",
    "hit_rate_n": "instances with >= 1 request",
    "no_request": "instances with no request",
    "first_request_success": "share of instances whose first request got an offer (no request = failure)",
    "avg_requests": "requests answered by the responder per instance (format errors excluded)",
    "avg_declines": "declined requests per instance",
    "avg_hints": "accepted offers per instance (every offer counts, repeats included)",
    "requests_before_first_offer": "declined requests before the first offer, averaged over "
                                   "instances with >= 1 offer (0: the first request got one)",
    "first_offer_n": "instances with >= 1 offer",
    "avg_tokens": "transcript token estimate (words x 1.3, solver and responder messages) per instance",
    "format_errors": "solver messages with no action, in total",
    "avg_format_errors": "format errors per instance",
    "format_error_instances": "instances with >= 1 format error",
    "responder_errors": "responder turns that logged an error (e.g. unparsable JSON; such a turn "
                        "is a decline unless the raw text recovered an offer)",
    "trace_no_canonical": "share of instances answered wrong with no offer of a canonical hint "
                          "(a hint line of the instance's hint specification)",
    "trace_canonical_wrong": "share of instances that got a canonical hint but answered wrong",
    "trace_correct": "share of instances answered correctly (the three trace shares sum to 1)",
    "noncanonical_offers": "offers of a private line that is not a canonical hint, in total",
    "noncanonical_offer_share": "share of instances with >= 1 noncanonical offer",
    "accuracy_delta_4s_minus_zs": "four-shot minus zero-shot accuracy of the same solver, "
                                  "responder, condition and protocol",
}


class ScoringError(MiraError, RuntimeError):
    """Run directories that cannot be scored (missing files, mismatched shards)."""


# ================================================================== per-instance facts

@dataclass(frozen=True)
class InstanceStats:
    id: str
    family: str
    type: str
    difficulty: int
    errored: bool
    correct: bool
    requests: int                              # requests the responder answered
    offers: int
    first_request_offered: bool
    requests_before_first_offer: Optional[int]  # None: no offer at all
    canonical_offers: int
    noncanonical_offers: int
    format_errors: int
    responder_errors: int
    tokens: Fraction
    chance: Optional[Fraction]                 # 1/candidate_answers when finite

    @property
    def declines(self) -> int:
        return self.requests - self.offers

    @property
    def trace_class(self) -> str:
        if self.correct:
            return "correct"
        return "canonical_wrong" if self.canonical_offers else "no_canonical"


def _exact(value: Any) -> Fraction:
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value or 0)


def instance_stats(transcript: Mapping[str, Any], inst: Instance) -> InstanceStats:
    """The facts one transcript contributes. A canonical offer is an offer whose quoted line is
    one of the instance's hint constraints (the dataset decides, not the logged flag)."""
    turns = transcript.get("turns") or []
    replies = [t for t in turns if t.get("role") == "responder"]
    offered = [t.get("decision") == "offer" for t in replies]
    canonical_lines = {h.constraint for h in inst.hints}
    canonical = sum(1 for t, o in zip(replies, offered) if o and t.get("quoted_constraint") in canonical_lines)
    verdict = transcript.get("verdict") or {}
    return InstanceStats(
        id=inst.id, family=inst.family, type=inst.type, difficulty=inst.difficulty,
        errored=transcript.get("error") is not None,
        correct=bool(verdict.get("correct")),
        requests=len(replies),
        offers=sum(offered),
        first_request_offered=bool(offered) and offered[0],
        requests_before_first_offer=offered.index(True) if any(offered) else None,
        canonical_offers=canonical,
        noncanonical_offers=sum(offered) - canonical,
        format_errors=sum(1 for t in turns if t.get("role") == "solver" and t.get("action") == "format_error"),
        responder_errors=sum(1 for t in replies if t.get("errors")),
        tokens=_exact(transcript.get("tokens_est")),
        chance=Fraction(1, inst.candidate_answers) if inst.candidate_answers else None,
    )


# ================================================================== group metrics (pure)

@dataclass(frozen=True)
class GroupMetrics:
    """One group's metrics; field order is the CSV's metric order. None: undefined (no data)."""

    n: int
    errored: int
    correct: int
    accuracy: Optional[Fraction]
    accuracy_ci_low: Optional[Fraction]
    accuracy_ci_high: Optional[Fraction]
    chance: Optional[Fraction]
    chance_n: int
    hit_rate: Optional[Fraction]
    hit_rate_n: int
    no_request: int
    first_request_success: Optional[Fraction]
    avg_requests: Optional[Fraction]
    avg_declines: Optional[Fraction]
    avg_hints: Optional[Fraction]
    requests_before_first_offer: Optional[Fraction]
    first_offer_n: int
    avg_tokens: Optional[Fraction]
    format_errors: int
    avg_format_errors: Optional[Fraction]
    format_error_instances: int
    responder_errors: int
    trace_no_canonical: Optional[Fraction]
    trace_canonical_wrong: Optional[Fraction]
    trace_correct: Optional[Fraction]
    noncanonical_offers: int
    noncanonical_offer_share: Optional[Fraction]

    def as_dict(self) -> Dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


METRICS: Tuple[str, ...] = tuple(f.name for f in fields(GroupMetrics))


def mean(values: Iterable[Any]) -> Optional[Fraction]:
    items = [Fraction(v) for v in values]
    return sum(items, Fraction(0)) / len(items) if items else None


def share(count: int, total: int) -> Optional[Fraction]:
    return Fraction(count, total) if total else None


def bootstrap_ci(outcomes: Sequence[bool], resamples: int = BOOTSTRAP_RESAMPLES,
                 seed: int = BOOTSTRAP_SEED) -> Optional[Tuple[Fraction, Fraction]]:
    """Percentile 95% interval of the mean of 0/1 ``outcomes``: ``resamples`` draws of
    len(outcomes) with replacement from ``random.Random(seed)``; the bounds are the sorted
    means at positions floor(0.025 R) and floor(0.975 R) - 1 (R = 2000: 50 and 1949)."""
    n = len(outcomes)
    if n == 0:
        return None
    values = [1 if o else 0 for o in outcomes]
    rng = random.Random(seed)
    sums = sorted(sum(rng.choices(values, k=n)) for _ in range(resamples))
    return Fraction(sums[resamples * 25 // 1000], n), Fraction(sums[resamples * 975 // 1000 - 1], n)


def group_metrics(stats: Sequence[InstanceStats]) -> GroupMetrics:
    """All metrics of one group; errored instances are counted and otherwise ignored."""
    ok = [s for s in stats if not s.errored]
    n = len(ok)
    asked = [s for s in ok if s.requests]
    with_offer = [s for s in ok if s.requests_before_first_offer is not None]
    chances = [s.chance for s in ok if s.chance is not None]
    ci = bootstrap_ci([s.correct for s in ok])
    trace = {c: sum(1 for s in ok if s.trace_class == c) for c in TRACE_CLASSES}
    return GroupMetrics(
        n=n, errored=len(stats) - n, correct=trace["correct"],
        accuracy=share(trace["correct"], n),
        accuracy_ci_low=ci[0] if ci else None, accuracy_ci_high=ci[1] if ci else None,
        chance=mean(chances), chance_n=len(chances),
        hit_rate=mean(Fraction(s.offers, s.requests) for s in asked), hit_rate_n=len(asked),
        no_request=n - len(asked),
        first_request_success=share(sum(1 for s in ok if s.first_request_offered), n),
        avg_requests=mean(s.requests for s in ok),
        avg_declines=mean(s.declines for s in ok),
        avg_hints=mean(s.offers for s in ok),
        requests_before_first_offer=mean(s.requests_before_first_offer for s in with_offer),
        first_offer_n=len(with_offer),
        avg_tokens=mean(s.tokens for s in ok),
        format_errors=sum(s.format_errors for s in ok),
        avg_format_errors=mean(s.format_errors for s in ok),
        format_error_instances=sum(1 for s in ok if s.format_errors),
        responder_errors=sum(s.responder_errors for s in ok),
        trace_no_canonical=share(trace["no_canonical"], n),
        trace_canonical_wrong=share(trace["canonical_wrong"], n),
        trace_correct=share(trace["correct"], n),
        noncanonical_offers=sum(s.noncanonical_offers for s in ok),
        noncanonical_offer_share=share(sum(1 for s in ok if s.noncanonical_offers), n),
    )


def group_names(s: InstanceStats) -> List[Tuple[str, str]]:
    return [("all", "all"), ("type", s.type), ("family", s.family), ("difficulty", str(s.difficulty)),
            ("difficulty_type", f"{s.difficulty}/{s.type}")]


@dataclass(frozen=True)
class GroupScore:
    kind: str
    group: str
    metrics: GroupMetrics


def grouped_metrics(stats: Sequence[InstanceStats]) -> List[GroupScore]:
    """Every group of :data:`GROUP_KINDS`, in that order, groups sorted by name."""
    members: Dict[Tuple[str, str], List[InstanceStats]] = {}
    for s in stats:
        for key in group_names(s):
            members.setdefault(key, []).append(s)
    order = {k: i for i, k in enumerate(GROUP_KINDS)}
    keys = sorted(members, key=lambda k: (order[k[0]], k[1]))
    return [GroupScore(kind, name, group_metrics(members[(kind, name)])) for kind, name in keys]


@dataclass(frozen=True)
class Delta:
    kind: str            # "all" or "family"
    group: str
    zero_shot: Fraction
    four_shot: Fraction

    @property
    def delta(self) -> Fraction:
        return self.four_shot - self.zero_shot


def accuracy_deltas(zero_shot: Sequence[GroupScore], four_shot: Sequence[GroupScore]) -> List[Delta]:
    """Four-shot minus zero-shot accuracy, overall and per family present in both runs."""
    zs = {(g.kind, g.group): g.metrics.accuracy for g in zero_shot if g.kind in ("all", "family")}
    out = []
    for g in four_shot:
        key = (g.kind, g.group)
        if key in zs and zs[key] is not None and g.metrics.accuracy is not None:
            out.append(Delta(g.kind, g.group, zs[key], g.metrics.accuracy))
    return out


# ================================================================== loading run directories

@dataclass(frozen=True)
class RunKey:
    solver: str
    responder: str
    regime: str
    condition: str
    protocol: str = "paper"

    @property
    def label(self) -> str:
        parts = [self.solver, self.responder, self.regime]
        if self.condition != "standard":
            parts.append(self.condition)
        if self.protocol != "paper":
            parts.append(self.protocol)
        return " | ".join(parts)


@dataclass
class LoadedRun:
    key: RunKey
    run_hash: str
    dirs: List[Path]                       # shard directories, first as given
    manifests: List[Dict[str, Any]]
    records: List[Tuple[Dict[str, Any], Instance]] = field(default_factory=list)  # dataset order
    expected: int = 0                      # instances the manifests selected

    @property
    def out_dir(self) -> Path:
        return self.dirs[0]


def _read_json(path: Path) -> Dict[str, Any]:
    if not path.is_file():
        raise ScoringError(f"{path}: missing (is {path.parent} a run directory?)")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as err:
        raise ScoringError(f"{path}: not JSON ({err})") from None


def read_transcripts(path: Path) -> List[Dict[str, Any]]:
    if not path.is_file():
        raise ScoringError(f"{path}: missing")
    rows, seen = [], set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            tid = row["id"]
        except (ValueError, KeyError, TypeError) as err:
            raise ScoringError(f"{path}:{number}: not a transcript line ({err})") from None
        if tid in seen:
            raise ScoringError(f"{path}:{number}: instance {tid} recorded twice")
        seen.add(tid)
        rows.append(row)
    return rows


def resolve_data_file(name: str, run_dir: Path) -> Path:
    """A manifest's dataset path: as written, else relative to the run directory or the repo."""
    path = Path(name)
    candidates = [path] if path.is_absolute() else [path, run_dir / path,
                                                    Path(__file__).resolve().parents[1] / path]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise ScoringError(f"{run_dir / MANIFEST}: dataset file {name} is missing "
                       f"(looked in: {', '.join(str(c) for c in candidates)})")


_INSTANCE_CACHE: Dict[Tuple[Path, bytes], List[Instance]] = {}


def _instances(path: Path, digest: bytes) -> List[Instance]:
    """The file's instances, parsed once per (path, content) in a process."""
    key = (path.resolve(), digest)
    if key not in _INSTANCE_CACHE:
        try:
            _INSTANCE_CACHE[key] = list(read_jsonl(path))
        except DataError as err:
            raise ScoringError(str(err)) from None
    return _INSTANCE_CACHE[key]


def _dataset(manifest: Mapping[str, Any], run_dir: Path) -> Dict[str, Tuple[int, Instance]]:
    """id -> (position in the dataset files, instance); checks the manifest's checksum."""
    dataset = manifest.get("dataset") or {}
    names = dataset.get("files") or []
    if not names:
        raise ScoringError(f"{run_dir / MANIFEST}: names no dataset files")
    digest = hashlib.sha256()
    index: Dict[str, Tuple[int, Instance]] = {}
    for name in names:
        path = resolve_data_file(name, run_dir)
        file_digest = hashlib.sha256(path.read_bytes()).digest()
        digest.update(file_digest)
        for inst in _instances(path, file_digest):
            index.setdefault(inst.id, (len(index), inst))
    expected = dataset.get("checksum")
    if expected and digest.hexdigest() != expected:
        raise ScoringError(f"{run_dir / MANIFEST}: the dataset files {', '.join(names)} are not the "
                           "ones this run used (checksum differs)")
    return index


def _key(manifest: Mapping[str, Any], run_dir: Path) -> RunKey:
    config = manifest.get("config") or {}
    try:
        return RunKey(config["solver"], config["responder"], config["regime"],
                      config.get("condition", "standard"), config.get("protocol", "paper"))
    except KeyError as err:
        raise ScoringError(f"{run_dir / MANIFEST}: config has no {err.args[0]!r}") from None


def load_runs(run_dirs: Sequence[Path]) -> List[LoadedRun]:
    """Group directories into runs (same key = shards of one run) and join transcripts with
    instances, in dataset order. Refuses shards whose run_hash differs or whose ids overlap."""
    runs: Dict[RunKey, LoadedRun] = {}
    owner: Dict[RunKey, Dict[str, Path]] = {}        # instance id -> the shard that holds it
    order: Dict[RunKey, Dict[str, int]] = {}
    seen: List[Path] = []
    for run_dir in (Path(p) for p in run_dirs):
        if any(run_dir.resolve() == s.resolve() for s in seen):
            continue                                   # the same directory given twice
        seen.append(run_dir)
        manifest = _read_json(run_dir / MANIFEST)
        key = _key(manifest, run_dir)
        run_hash = manifest.get("run_hash")
        if not run_hash:
            raise ScoringError(f"{run_dir / MANIFEST}: no run_hash")
        run = runs.get(key)
        if run is None:
            run = runs[key] = LoadedRun(key, run_hash, [], [])
            owner[key] = {}
        elif run.run_hash != run_hash:
            raise ScoringError(f"{run_dir} and {run.dirs[0]} are both '{key.label}' but their run_hash "
                               f"differs ({run_hash[:12]} vs {run.run_hash[:12]}): they are not shards "
                               "of one run; score them separately")
        run.dirs.append(run_dir)
        run.manifests.append(manifest)
        run.expected += int((manifest.get("dataset") or {}).get("instances") or 0)
        dataset = _dataset(manifest, run_dir)
        order.setdefault(key, {tid: pos for tid, (pos, _) in dataset.items()})
        for row in read_transcripts(run_dir / TRANSCRIPTS):
            tid = row["id"]
            if tid in owner[key]:
                raise ScoringError(f"instance {tid} appears in two shards of '{key.label}': "
                                   f"{owner[key][tid]} and {run_dir}")
            if tid not in dataset:
                raise ScoringError(f"{run_dir / TRANSCRIPTS}: instance {tid} is in none of the dataset "
                                   f"files {', '.join(manifest['dataset']['files'])}")
            owner[key][tid] = run_dir
            run.records.append((row, dataset[tid][1]))
    for key, run in runs.items():
        run.records.sort(key=lambda r: order[key][r[1].id])
    return list(runs.values())


# ================================================================== scoring runs

@dataclass
class RunScores:
    run: LoadedRun
    groups: List[GroupScore]
    deltas: List[Delta] = field(default_factory=list)
    paired_with: Optional[str] = None      # label of the other regime's run, for the deltas

    @property
    def label(self) -> str:
        return self.run.key.label

    def group(self, kind: str, name: str) -> Optional[GroupMetrics]:
        return next((g.metrics for g in self.groups if g.kind == kind and g.group == name), None)

    @property
    def overall(self) -> GroupMetrics:
        found = self.group("all", "all")
        return found if found is not None else group_metrics([])


def score_run(run: LoadedRun) -> RunScores:
    return RunScores(run, grouped_metrics([instance_stats(t, i) for t, i in run.records]))


def score(run_dirs: Sequence[Path]) -> List[RunScores]:
    """Score every run in ``run_dirs`` (shards merged), with four-shot deltas where both
    regimes of the same solver, responder, condition and protocol are given."""
    scores = [score_run(run) for run in load_runs(run_dirs)]
    by_key = {s.run.key: s for s in scores}
    for s in scores:
        k = s.run.key
        other = by_key.get(RunKey(k.solver, k.responder, "zs" if k.regime == "4s" else "4s",
                                  k.condition, k.protocol))
        if k.regime in ("zs", "4s") and other is not None:
            zs, fs = (other, s) if k.regime == "4s" else (s, other)
            s.deltas, s.paired_with = accuracy_deltas(zs.groups, fs.groups), other.label
    return scores


__all__ = ["DEFINITIONS", "Delta", "GroupMetrics", "GroupScore", "InstanceStats", "LoadedRun",
           "RunKey", "RunScores", "ScoringError", "accuracy_deltas", "bootstrap_ci", "group_metrics",
           "grouped_metrics", "instance_stats", "load_runs", "render_table", "score", "write_scores",
           # from eval.score_output
           "SUMMARY_HEADER", "fixed", "json_value", "pct", "scores_csv", "scores_document",
           "summary_row"]
