"""Scoring (docs/benchmark.md §7): every metric from transcripts and the dataset alone, no model calls.

``score(run_dirs)`` takes any set of run directories. Each directory is one run, except that
directories declaring themselves shards of one run (``selection.shard = [i, N]`` in the manifest,
the same ``run_hash`` and the same N) are merged; a run with a missing shard or fewer transcripts
than it selected is marked INCOMPLETE with its missing count. A run's identity is its whole
configuration (``run_hash``: solver, responder, regime, condition, protocol, decoding, prompt and
dataset checksum) plus its shard count; labels are short and made unique only where needed.

Transcripts are streamed line by line and checked field by field (a bad field is a one-line
:class:`ScoringError` naming file, line and field); only a small integer summary per instance is
kept, so memory grows with instances, not transcript text. Instances are joined on
(seed set, id): held-out splits reuse the public ids. Arithmetic is exact (integers and
``Fraction``); values are rounded only when written (:mod:`mira_math.eval.tables`).

Errored transcripts (a backend failure after retries) are counted apart, in ``errored``, and
excluded from every other metric; ``n`` counts the scored (non-errored) instances.
"""

from __future__ import annotations

import gc
import hashlib
import json
import math
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from mira_math.eval.integrity import RunGuard
from mira_math.eval.metrics import (CLUSTER_PAIRS, COLUMNS, DEFINITIONS, FACT_SCALE, METRICS, GroupMetrics,
                                    Totals, COLUMN_INDEX, compute, fixed, pct)
from mira_math.eval.rundir.dataset import InstanceInfo, read_run_dataset
from mira_math.eval.rundir.files import ScoringError, declared_shard
from mira_math.eval.rundir.runs import RunInfo, assign_labels, group_runs, run_epochs, selected_count
from mira_math.eval.rundir.transcripts import InstanceStats, fingerprint_of, instance_stats, iter_transcripts
from mira_math.eval.stats import Moments

GROUP_KINDS = ("all", "type", "family", "difficulty", "difficulty_type")
TRACE_CLASSES = ("no_canonical", "canonical_wrong", "correct")
CI_LEVEL = (Fraction(1, 40), Fraction(39, 40))       # 2.5th and 97.5th percentiles
SCORES_VERSION = "3"   # 2: canonical hit rate / first request, unreadable, format compliance,
                       #    exact bootstrap, run identity by configuration, (seed set, id) joins
                       # 3: metrics as rows (mira_math.eval.metrics), Wilson intervals (cluster-aware),
                       #    epochs (pass@k, pass^k, spread), reported usage, raw-text fallbacks
                       # (a new metric row needs no bump: the cache is also keyed on the rows,
                       # mira_math.eval.tables.cached_scores)


def json_value(value: Any) -> Any:
    if isinstance(value, Fraction):
        return float(fixed(value))
    return value


# ================================================================== group metrics

def binomial_quantiles(k: int, n: int, levels: Sequence[Fraction] = CI_LEVEL) -> List[int]:
    """For each level q, the smallest s with P(S <= s) >= q, S ~ Binomial(n, k/n): floats built
    only from + * / (correctly rounded, so the same on every machine), over a window of the
    mean +- 12 standard deviations (the mass outside is below 1e-30)."""
    if k in (0, n):
        return [k for _ in levels]
    p = k / n
    ratio = p / (1 - p)
    mode = (n + 1) * k // n
    width = int(12 * math.sqrt(n * p * (1 - p))) + 20
    lo, hi = max(0, mode - width), min(n, mode + width)
    weights = [0.0] * (hi - lo + 1)
    weights[mode - lo] = 1.0
    for s in range(mode, hi):                       # w(s+1) = w(s) (n-s)/(s+1) p/(1-p)
        weights[s + 1 - lo] = weights[s - lo] * (n - s) / (s + 1) * ratio
    for s in range(mode, lo, -1):                   # w(s-1) = w(s) s/(n-s+1) (1-p)/p
        weights[s - 1 - lo] = weights[s - lo] * s / (n - s + 1) / ratio
    total = sum(weights)
    out = []
    for q in levels:
        target, acc = float(q) * total, 0.0
        for s, w in enumerate(weights, start=lo):
            acc += w
            if acc >= target:
                out.append(s)
                break
        else:
            out.append(hi)
    return out


def bootstrap_ci(correct: int, n: int) -> Optional[Tuple[Fraction, Fraction]]:
    """The exact percentile bootstrap 95% interval of a proportion correct/n (see DEFINITIONS)."""
    if n == 0:
        return None
    low, high = binomial_quantiles(correct, n)
    return Fraction(low, n), Fraction(high, n)


def _lcm(values) -> int:
    out = 1
    for v in values:
        out = out * v // math.gcd(out, v)
    return out


@dataclass(frozen=True)
class Scales:
    """Common denominators that make every per-instance fraction an integer."""

    tokens: int = 1
    chance: int = 1
    requests: int = 1

    @classmethod
    def of(cls, stats: Sequence[InstanceStats]) -> "Scales":
        return cls(_lcm({s.tokens_den for s in stats}),
                   _lcm({s.candidate_answers for s in stats if s.candidate_answers}),
                   _lcm({s.requests for s in stats if s.requests}))


ColumnValue = Callable[[InstanceStats, Scales], int]


def _per_request(count: Callable[[InstanceStats], int]) -> ColumnValue:
    """A per-request share scaled to the group's common denominator of request counts."""
    return lambda s, sc: count(s) * (sc.requests // s.requests) if s.requests else 0


# Each column of :data:`mira_math.eval.metrics.COLUMNS`, by name, for a scored transcript (an
# errored one is all zero but ``errored``): a new column is a name there and a line here.
COLUMN_VALUES: Dict[str, ColumnValue] = {
    "errored": lambda s, sc: 0,
    "scored": lambda s, sc: 1,
    "correct": lambda s, sc: int(s.correct),
    "requests": lambda s, sc: s.requests,
    "offers": lambda s, sc: s.offers,
    "canonical": lambda s, sc: s.canonical_offers,
    "first_canonical": lambda s, sc: int(s.first_request_canonical),
    "first_offer": lambda s, sc: int(s.first_request_offered),
    "with_offer": lambda s, sc: int(s.requests_before_first_offer is not None),
    "before_first": lambda s, sc: s.requests_before_first_offer or 0,
    "format_errors": lambda s, sc: s.format_errors,
    "format_instances": lambda s, sc: int(s.format_errors > 0),
    "responder_errors": lambda s, sc: s.responder_errors,
    "raw_fallbacks": lambda s, sc: s.raw_fallbacks,
    "tokens": lambda s, sc: s.tokens_num * (sc.tokens // s.tokens_den),
    "answered": lambda s, sc: int(s.answered),
    "unreadable": lambda s, sc: int(s.unreadable),
    "fallback": lambda s, sc: int(s.fallback),
    "chance": lambda s, sc: sc.chance // s.candidate_answers if s.candidate_answers else 0,
    "chance_n": lambda s, sc: int(bool(s.candidate_answers)),
    "asked": lambda s, sc: int(s.requests > 0),
    "hits": _per_request(lambda s: s.canonical_offers),
    "offer_hits": _per_request(lambda s: s.offers),
    "no_canonical": lambda s, sc: int(not s.correct and s.trace_class == "no_canonical"),
    "canonical_wrong": lambda s, sc: int(not s.correct and s.trace_class == "canonical_wrong"),
    "nc_unreadable": lambda s, sc: int(s.unreadable and s.trace_class == "no_canonical"),
    "cw_unreadable": lambda s, sc: int(s.unreadable and s.trace_class == "canonical_wrong"),
    "noncanonical": lambda s, sc: s.noncanonical_offers,
    "noncanonical_instances": lambda s, sc: int(s.noncanonical_offers > 0),
    "prompt_tokens": lambda s, sc: s.prompt_tokens,
    "completion_tokens": lambda s, sc: s.completion_tokens,
    "reasoning_tokens": lambda s, sc: s.reasoning_tokens,
    "usage_turns": lambda s, sc: s.usage_turns,
    "reasoning_turns": lambda s, sc: s.reasoning_turns,
    "solver_turns": lambda s, sc: s.solver_turns,
    # k missing facts
    "facts_needed": lambda s, sc: s.facts_needed,
    "facts": lambda s, sc: s.facts_acquired,
    "all_facts": lambda s, sc: int(s.facts_acquired >= s.facts_needed),
    "fact_credit": lambda s, sc: s.facts_acquired * (FACT_SCALE // s.facts_needed) if s.facts_needed else 0,
    "new_fact_offers": lambda s, sc: s.new_fact_offers,
    "trace_no_fact": lambda s, sc: int(s.facts_class == "no_fact"),
    "trace_some_facts": lambda s, sc: int(s.facts_class == "some_facts"),
    "trace_all_facts_wrong": lambda s, sc: int(s.facts_class == "all_facts_wrong"),
    # the blind tier
    "needing": lambda s, sc: int(s.facts_needed > 0),
    "blind": lambda s, sc: int(s.blind),
    "controls": lambda s, sc: int(s.blind and s.facts_needed == 0),
    "with_irrelevant": lambda s, sc: int(s.has_irrelevant),
    "decision_right": lambda s, sc: int(s.blind and (s.requests > 0) == (s.facts_needed > 0)),
    "over_asks": lambda s, sc: s.over_asks if s.blind else 0,
    "over_ask_instances": lambda s, sc: int(s.blind and s.over_asks > 0),
    "control_asks": lambda s, sc: int(s.blind and s.facts_needed == 0 and s.requests > 0),
    "irrelevant_asked": lambda s, sc: int(s.irrelevant_offers > 0),
    "guesses": lambda s, sc: int(s.blind and s.guessed),
    "minimal_correct": lambda s, sc: int(s.blind and s.correct and s.over_asks == 0),
}
# a KeyError here names a column without a value
_ROW: Tuple[ColumnValue, ...] = tuple(COLUMN_VALUES[name] for name in COLUMNS)
_ERRORED_ROW = tuple(int(name == "errored") for name in COLUMNS)


def stats_row(s: InstanceStats, scales: Scales) -> Tuple[int, ...]:
    """One transcript as the integer columns of :data:`mira_math.eval.metrics.COLUMNS`, each
    from :data:`COLUMN_VALUES` by name (all zero but errored if errored)."""
    if s.errored:
        return _ERRORED_ROW
    return tuple([value(s, scales) for value in _ROW])


class _Group:
    """One group's transcript rows (shared between the groups of a transcript). Without
    epochs the column sums are all that is needed; with epochs (``clustered``) the rows are
    also summed per instance (the cluster): each proportion's moments, the (correct, scored)
    counts for pass@k, and per-epoch (scored, correct)."""

    __slots__ = ("rows", "keys", "epochs", "clustered")

    def __init__(self, clustered: bool) -> None:
        self.rows: List[Tuple[int, ...]] = []
        self.keys: List[Tuple[str, str]] = []
        self.epochs: List[int] = []
        self.clustered = clustered

    def add(self, s: InstanceStats, row: Tuple[int, ...]) -> None:
        self.rows.append(row)
        if self.clustered:
            self.keys.append(s.key)
            self.epochs.append(s.epoch)

    def metrics(self, scales: Scales) -> GroupMetrics:
        rows = self.rows
        if not self.clustered:        # one transcript per instance: the sums say everything
            return _unclustered_metrics(_column_sums(rows), len(rows), scales)
        scored, correct = COLUMN_INDEX["scored"], COLUMN_INDEX["correct"]
        moments: Dict[Tuple[str, str], Moments] = {}
        per: Dict[Tuple[str, str], List[int]] = {}
        epochs: Dict[int, Tuple[int, int]] = {}
        for key, epoch, row in zip(self.keys, self.epochs, rows):
            acc = per.get(key)
            if acc is None:
                per[key] = list(row)
            else:
                for i, v in enumerate(row):
                    if v:
                        acc[i] += v
            if row[scored]:
                done, right = epochs.get(epoch, (0, 0))
                epochs[epoch] = (done + 1, right + row[correct])
        for succ, trials in CLUSTER_PAIRS:
            i, j = COLUMN_INDEX[succ], COLUMN_INDEX[trials]
            moments[(succ, trials)] = Moments.of([(inst[i], inst[j]) for inst in per.values()])
        samples: Dict[Tuple[int, int], int] = {}
        for inst in per.values():
            cm = (inst[correct], inst[scored])
            samples[cm] = samples.get(cm, 0) + 1
        return compute(Totals(_column_sums(rows), len(rows), scales.tokens, scales.chance, scales.requests,
                              moments, samples, epochs))


def _column_sums(rows: Sequence[Tuple[int, ...]]) -> List[int]:
    return [sum(col) for col in zip(*rows)] if rows else [0] * len(COLUMNS)


def _unclustered_metrics(sums: List[int], count: int, scales: Scales) -> GroupMetrics:
    """A group's metrics when every transcript is its own instance: the column sums say it all."""
    n, c = sums[COLUMN_INDEX["scored"]], sums[COLUMN_INDEX["correct"]]
    samples = {cm: k for cm, k in (((1, 1), c), ((0, 1), n - c)) if k}
    epochs = {0: (n, c)} if n else {}
    return compute(Totals(sums, count, scales.tokens, scales.chance, scales.requests, {}, samples, epochs))


def _clustered(stats: Sequence[InstanceStats]) -> bool:
    """Whether any instance has several transcripts (epochs): intervals then take instances
    as the unit."""
    return any(s.epoch for s in stats)


def metrics_from_totals(t: Sequence[int], count: int, scales: Scales) -> GroupMetrics:
    """A group's metrics from its column sums alone (every transcript its own instance)."""
    return compute(Totals(list(t), count, scales.tokens, scales.chance, scales.requests, {}, {}, {}))


def group_metrics(stats: Sequence[InstanceStats]) -> GroupMetrics:
    """All metrics of one group; errored transcripts are counted and otherwise ignored."""
    scales = Scales.of(stats)
    group = _Group(_clustered(stats))
    for s in stats:
        group.add(s, stats_row(s, scales))
    return group.metrics(scales)


def group_names(s: InstanceStats) -> List[Tuple[str, str]]:
    return _cell_groups(s.type, s.family, s.difficulty)


def _cell_groups(type_: str, family: str, difficulty: int) -> List[Tuple[str, str]]:
    return [("all", "all"), ("type", type_), ("family", family), ("difficulty", str(difficulty)),
            ("difficulty_type", f"{difficulty}/{type_}")]


@dataclass(frozen=True)
class GroupScore:
    kind: str
    group: str
    metrics: GroupMetrics


def grouped_metrics(stats: Sequence[InstanceStats]) -> List[GroupScore]:
    """Every group of :data:`GROUP_KINDS`, in that order, groups sorted by name."""
    scales = Scales.of(stats)
    order = {k: i for i, k in enumerate(GROUP_KINDS)}
    members: Dict[Tuple[str, str], _Group] = {}
    clustered = _clustered(stats)
    if not clustered:       # every group is a union of (type, family, difficulty) cells: sum those
        cells: Dict[Tuple[str, str, int], List[Tuple[int, ...]]] = {}
        for s in stats:
            cell = cells.get((s.type, s.family, s.difficulty))
            if cell is None:
                cell = cells[(s.type, s.family, s.difficulty)] = []
            cell.append(stats_row(s, scales))
        totals: Dict[Tuple[str, str], Tuple[List[int], int]] = {}
        for cell_key, rows in cells.items():
            sums = _column_sums(rows)
            for name in _cell_groups(*cell_key):
                found = totals.get(name)
                totals[name] = (sums, len(rows)) if found is None else (
                    [a + b for a, b in zip(found[0], sums)], found[1] + len(rows))
        names = sorted(totals, key=lambda k: (order[k[0]], k[1]))
        return [GroupScore(kind, name, _unclustered_metrics(*totals[(kind, name)], scales))
                for kind, name in names]
    for s in stats:
        row = stats_row(s, scales)
        for key in group_names(s):
            group = members.get(key)
            if group is None:
                group = members[key] = _Group(clustered)
            group.add(s, row)
    keys = sorted(members, key=lambda k: (order[k[0]], k[1]))
    return [GroupScore(kind, name, members[(kind, name)].metrics(scales)) for kind, name in keys]


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


# ================================================================== loading and scoring runs

@dataclass
class LoadedRun:
    """A run and the summaries of its transcripts (dataset order)."""

    info: RunInfo
    stats: List[InstanceStats]


def load_run(info: RunInfo) -> LoadedRun:
    """Stream every shard's transcripts into per-instance summaries. The cyclic garbage
    collector is paused meanwhile: the summaries hold no cycles, and its passes over 10^5
    new objects (more with matplotlib loaded) cost more than the parsing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _load_run(info)
    finally:
        if enabled:
            gc.enable()


def _load_run(info: RunInfo) -> LoadedRun:
    fingerprint = hashlib.sha256()
    stats: List[InstanceStats] = []
    owner: Dict[Tuple[str, str, int], Path] = {}
    order: Dict[Tuple[str, str], int] = {}
    seed_sets: Dict[str, None] = {}
    expected = 0
    for run_dir, manifest in zip(info.dirs, info.manifests):
        dataset = read_run_dataset(manifest, run_dir)
        if not order:
            order = {i.key: n for n, i in enumerate(dataset.infos)}
        shard = declared_shard(manifest, run_dir)
        count = (manifest.get("dataset") or {}).get("instances")
        expected += (count if type(count) is int else selected_count(
            dataset, manifest["config"].get("selection") or {}, shard)) * run_epochs(manifest["config"])
        fingerprint.update(json.dumps(manifest, sort_keys=True).encode("utf-8"))
        guard = RunGuard(run_dir, manifest, dataset, shard)
        for where, row in iter_transcripts(run_dir, manifest, fingerprint):
            inst = dataset.lookup(row["id"], row.get("seed_set"), where)
            summary = instance_stats(row, inst, where)
            sample = summary.sample_key
            if sample in owner:
                kind = "shards" if owner[sample] != run_dir else "lines"
                epoch = f" (epoch {summary.epoch})" if summary.epoch else ""
                raise ScoringError(f"{where}: instance {inst.id}{epoch} appears in two {kind} of one "
                                   f"run: {owner[sample]} and {run_dir}")
            owner[sample] = run_dir
            seed_sets[inst.seed_set] = None
            stats.append(summary)
            guard.check(row, inst.key, where)
    if info.shard_count is not None:           # missing shards: count what they would select
        first = info.manifests[0]
        dataset = read_run_dataset(first, info.dirs[0])
        for index in sorted(set(range(info.shard_count)) - set(info.shards_present)):
            expected += run_epochs(first["config"]) * selected_count(dataset, first["config"].get("selection") or {},
                                       (index, info.shard_count))
    if not seed_sets:
        dataset = read_run_dataset(info.manifests[0], info.dirs[0])
        seed_sets = {i.seed_set: None for i in dataset.infos}
    stats.sort(key=lambda s: (order.get(s.key, len(order)), s.epoch))
    info.transcripts, info.expected = len(stats), expected
    info.seed_sets = sorted(seed_sets)
    info.fingerprint = fingerprint_of(info, fingerprint.hexdigest(), SCORES_VERSION)
    return LoadedRun(info, stats)



@dataclass
class RunScores:
    run: RunInfo
    groups: List[GroupScore]
    deltas: List[Delta] = field(default_factory=list)
    paired_with: Optional[str] = None      # label of the other regime's run, for the deltas

    @property
    def label(self) -> str:
        return self.run.label

    def group(self, kind: str, name: str) -> Optional[GroupMetrics]:
        return next((g.metrics for g in self.groups if g.kind == kind and g.group == name), None)

    @property
    def overall(self) -> GroupMetrics:
        found = self.group("all", "all")
        return found if found is not None else group_metrics([])


def score_run(info: RunInfo) -> RunScores:
    """A run's groups. The cyclic collector stays paused through the group sums too (see
    :func:`load_run`): its passes over the run's summaries cost more than the sums."""
    loaded = load_run(info)
    enabled = gc.isenabled()
    gc.disable()
    try:
        return RunScores(info, grouped_metrics(loaded.stats))
    finally:
        if enabled:
            gc.enable()


def pair_regimes(scores: Sequence[RunScores]) -> None:
    """Four-shot deltas between runs whose configurations differ only in the regime."""
    by_key: Dict[Tuple[Any, ...], Dict[str, List[RunScores]]] = {}
    for s in scores:
        by_key.setdefault(s.run.pairing_key(), {}).setdefault(s.run.regime, []).append(s)
    for regimes in by_key.values():
        zs, fs = regimes.get("zs", []), regimes.get("4s", [])
        if len(zs) == 1 and len(fs) == 1:
            deltas = accuracy_deltas(zs[0].groups, fs[0].groups)
            zs[0].deltas, zs[0].paired_with = deltas, fs[0].label
            fs[0].deltas, fs[0].paired_with = deltas, zs[0].label


def score(run_dirs: Sequence[Path]) -> List[RunScores]:
    """Score any set of runs (declared shards merged), with four-shot deltas between runs that
    differ only in their regime."""
    infos = group_runs(run_dirs)
    scores = [score_run(info) for info in infos]
    assign_labels(infos)
    pair_regimes(scores)
    return scores


__all__ = ["COLUMN_VALUES", "DEFINITIONS", "Delta", "GroupMetrics", "GroupScore", "InstanceInfo",
           "InstanceStats", "LoadedRun", "METRICS", "RunInfo", "RunScores", "SCORES_VERSION", "Scales",
           "ScoringError", "accuracy_deltas", "assign_labels", "binomial_quantiles", "bootstrap_ci", "fixed",
           "group_metrics", "group_names", "group_runs", "grouped_metrics", "instance_stats", "json_value",
           "load_run", "pair_regimes", "pct", "run_epochs", "score", "score_run", "stats_row"]
