"""Paired comparison of two runs on the instances both scored (docs/benchmark.md §7).

For accuracy and first-request success, overall, per type and per family: each run's rate
over the shared instances, the difference A - B, its 95% interval and McNemar's exact p-value.
With one epoch per run the outcomes are binary pairs: Newcombe's hybrid score interval and
McNemar's exact test on the discordant pairs. With several epochs each instance contributes
its mean over epochs: the normal interval of the mean paired difference (instances as the
unit) and the exact sign test on the instances whose means differ (McNemar's test when every
instance has one epoch). Errored transcripts are left out; an instance counts when both runs
scored it at least once.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from mira_math.eval import stats
from mira_math.eval.metrics import pct
from mira_math.eval.rundir.files import ScoringError
from mira_math.eval.rundir.runs import RunInfo, assign_labels, group_runs
from mira_math.eval.rundir.transcripts import InstanceStats
from mira_math.eval.scoring import load_run

OUTCOMES: Dict[str, Callable[[InstanceStats], bool]] = {
    "accuracy": lambda s: s.correct,
    "first_request_success": lambda s: s.first_request_canonical,
}


@dataclass(frozen=True)
class PairedRow:
    metric: str
    kind: str                   # all, type, family
    group: str
    n: int                      # shared instances
    rate_a: Fraction
    rate_b: Fraction
    low: Optional[Fraction]     # 95% interval of rate_a - rate_b
    high: Optional[Fraction]
    p_value: Fraction           # McNemar exact (sign test with epochs)
    a_better: int               # instances where A did better, B better
    b_better: int

    @property
    def difference(self) -> Fraction:
        return self.rate_a - self.rate_b


@dataclass
class Comparison:
    label_a: str
    label_b: str
    rows: List[PairedRow]
    only_a: int                 # instances one run scored and the other did not
    only_b: int


Key = Tuple[str, str]


def _per_instance(stats_: Sequence[InstanceStats]) -> Dict[Key, List[InstanceStats]]:
    out: Dict[Key, List[InstanceStats]] = {}
    for s in stats_:
        if not s.errored:
            out.setdefault(s.key, []).append(s)
    return out


def paired_row(metric: str, kind: str, group: str, pairs: Sequence[Tuple[List[InstanceStats], List[InstanceStats]]]
               ) -> PairedRow:
    outcome = OUTCOMES[metric]
    means = [(Fraction(sum(map(outcome, a)), len(a)), Fraction(sum(map(outcome, b)), len(b))) for a, b in pairs]
    n = len(means)
    rate_a = sum((a for a, _ in means), Fraction(0)) / n
    rate_b = sum((b for _, b in means), Fraction(0)) / n
    a_better = sum(1 for a, b in means if a > b)
    b_better = sum(1 for a, b in means if b > a)
    binary = all(len(a) == 1 and len(b) == 1 for a, b in pairs)
    if binary:
        both = sum(1 for a, b in means if a == 1 and b == 1)
        ci = stats.newcombe_paired(both, a_better, b_better, n - both - a_better - b_better)
    else:
        ci = stats.paired_mean_interval([a - b for a, b in means])
    return PairedRow(metric, kind, group, n, rate_a, rate_b, ci[0] if ci else None, ci[1] if ci else None,
                     stats.mcnemar_exact(a_better, b_better), a_better, b_better)


def compare_stats(label_a: str, stats_a: Sequence[InstanceStats], label_b: str,
                  stats_b: Sequence[InstanceStats]) -> Comparison:
    a, b = _per_instance(stats_a), _per_instance(stats_b)
    shared = [k for k in a if k in b]
    groups: Dict[Tuple[str, str], List[Key]] = {}
    for k in shared:
        first = a[k][0]
        for kind, name in (("all", "all"), ("type", first.type), ("family", first.family)):
            groups.setdefault((kind, name), []).append(k)
    order = {"all": 0, "type": 1, "family": 2}
    rows = [paired_row(metric, kind, name, [(a[k], b[k]) for k in keys])
            for metric in OUTCOMES
            for (kind, name), keys in sorted(groups.items(), key=lambda g: (order[g[0][0]], g[0][1]))]
    return Comparison(label_a, label_b, rows, len(set(a) - set(b)), len(set(b) - set(a)))


def compare_runs(info_a: RunInfo, info_b: RunInfo) -> Comparison:
    return compare_stats(info_a.label, load_run(info_a).stats, info_b.label, load_run(info_b).stats)


def compare(run_a: Path, run_b: Path) -> Comparison:
    """``mira-math compare RUN_A RUN_B``: each argument one run directory (or a shard of one)."""
    infos = group_runs([Path(run_a), Path(run_b)])
    if len(infos) != 2:
        raise ScoringError(f"{run_a} and {run_b} are one run (its shards): compare two runs")
    assign_labels(infos)
    return compare_runs(*infos)


def p_text(p: Fraction) -> str:
    return "<0.0001" if p < Fraction(1, 10000) else f"{float(p):.4f}"


def signed(value: Optional[Fraction]) -> str:
    if value is None:
        return "-"
    text = pct(value)
    return text if text.startswith("-") else "+" + text


def table_rows(c: Comparison) -> List[List[str]]:
    return [[r.metric, f"{r.kind}: {r.group}" if r.kind != "all" else "all", str(r.n), pct(r.rate_a),
             pct(r.rate_b), signed(r.difference), f"[{signed(r.low)}, {signed(r.high)}]",
             f"{r.a_better}/{r.b_better}", p_text(r.p_value)] for r in c.rows]


HEADER = ["metric", "group", "shared", "A %", "B %", "A - B (points)", "95% CI", "A better/B better",
          "McNemar p"]


def render(c: Comparison) -> str:
    from mira_math.eval.tables import text_table

    lines = [f"A: {c.label_a}", f"B: {c.label_b}",
             f"shared instances: {c.rows[0].n if c.rows else 0} (only in A: {c.only_a}, only in B: {c.only_b})",
             "", text_table(HEADER, table_rows(c)), "",
             "interval: Newcombe's paired score interval (one epoch each), else the normal interval of "
             "the mean per-instance difference; p: McNemar's exact test (a sign test over instances "
             "with several epochs); no correction for the many groups"]
    return "\n".join(lines) + "\n"


__all__ = ["Comparison", "HEADER", "PairedRow", "compare", "compare_runs", "compare_stats", "render",
           "table_rows"]
