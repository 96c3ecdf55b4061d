"""Every metric as one row: its name, how it is computed from a group's totals, its interval,
its definition and how a table shows it. ``score`` computes the rows in order, ``scores.json``
and the CSV write them in that order, and the terminal table and the report show the rows
that have a ``column``. A new metric is a new row here (and, if it needs a new per-transcript
count, a column of :data:`COLUMNS` and its value in :data:`mira_math.eval.scoring.COLUMN_VALUES`).

A group's totals are the sums of integer columns over its transcripts, plus the per-instance
sums (instances are the clusters when a run has several epochs): every value is exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from mira_math.eval import stats

# the integer columns summed per group (one row per transcript); fractions are scaled to a
# common denominator first (see mira_math.eval.scoring.Scales)
COLUMNS = ("errored", "scored", "correct", "requests", "offers", "canonical", "first_canonical",
           "first_offer", "with_offer", "before_first", "format_errors", "format_instances",
           "responder_errors", "raw_fallbacks", "tokens", "answered", "unreadable", "fallback",
           "chance", "chance_n", "asked", "hits", "offer_hits", "no_canonical", "canonical_wrong",
           "nc_unreadable", "cw_unreadable", "noncanonical", "noncanonical_instances",
           "prompt_tokens", "completion_tokens", "reasoning_tokens", "usage_turns",
           "reasoning_turns", "solver_turns",
           # k facts missing: k, groups acquired, all acquired, acquired/k scaled by
           # FACT_SCALE, requests that acquired a new group, and the k-fact trace classes
           "facts_needed", "facts", "all_facts", "fact_credit", "new_fact_offers",
           "trace_no_fact", "trace_some_facts", "trace_all_facts_wrong",
           # the blind tier: rows needing a fact, rows of the tier, controls, rows with an
           # irrelevant gap, the ask decision, unnecessary requests, guesses, minimal answers
           "needing", "blind", "controls", "with_irrelevant", "decision_right", "over_asks",
           "over_ask_instances", "control_asks", "irrelevant_asked", "guesses", "minimal_correct")
COLUMN_INDEX = {name: i for i, name in enumerate(COLUMNS)}   # a column's place in a row
FACT_SCALE = 60     # acquired/k is an integer over 60 for every k up to 6 (lcm of 1..6)


# ------------------------------------------------------------------ exact formatting

def fixed(value: Fraction, places: int = 4) -> str:
    """Exact rounding (half to even) to ``places`` decimals, as text."""
    q = round(Fraction(value) * 10 ** places)
    if places == 0:
        return str(q)
    digits = str(abs(q)).rjust(places + 1, "0")
    return ("-" if q < 0 else "") + digits[:-places] + "." + digits[-places:]


def pct(value: Optional[Fraction]) -> str:
    return "-" if value is None else fixed(value * 100, 1)


def num(value: Optional[Fraction], places: int = 2) -> str:
    return "-" if value is None else fixed(value, places)


# ------------------------------------------------------------------ a group's totals

CLUSTER_PAIRS: List[Tuple[str, str]] = []     # (successes, trials) of every proportion row


@dataclass
class Totals:
    """A group's column sums (``count`` transcripts, errored included), the denominators that
    made fractions integers, each proportion's per-instance moments (instances are the
    clusters), how many instances had each (correct, scored) count, and per-epoch (scored,
    correct) counts."""

    sums: Sequence[int]
    count: int
    scale_tokens: int
    scale_chance: int
    scale_requests: int
    moments: Dict[Tuple[str, str], stats.Moments]
    samples: Dict[Tuple[int, int], int]               # (correct, scored) -> instances
    epochs: Dict[int, Tuple[int, int]]

    def __getitem__(self, name: str) -> int:
        return self.sums[COLUMN_INDEX[name]]

    @property
    def n(self) -> int:
        return self["scored"]

    def interval(self, successes: str, trials: str) -> Optional[stats.Interval]:
        """The 95% Wilson interval of sum(successes)/sum(trials), instances as the unit."""
        mo = self.moments.get((successes, trials))
        if mo is None:                                # no per-instance data: one sample each
            return stats.wilson(self[successes], self[trials])
        return stats.cluster_wilson(mo)

    @property
    def samples_per_instance(self) -> List[Tuple[Tuple[int, int], int]]:
        """((correct, scored samples), instances) for instances with a scored sample."""
        return [(cm, k) for cm, k in sorted(self.samples.items()) if cm[1]]


def share(count: int, total: int) -> Optional[Fraction]:
    return Fraction(count, total) if total else None


GroupValue = Any        # int, Fraction or None


# ------------------------------------------------------------------ the rows

@dataclass(frozen=True)
class Metric:
    """One metric: ``compute`` from a group's totals, ``definition`` for scores.json and the
    report, ``interval`` the names of its bound rows, and ``column``/``cell`` how a table shows
    it (no column: files only)."""

    name: str
    compute: Callable[[Totals], GroupValue]
    definition: str
    interval: Optional[Tuple[str, str]] = None
    column: Optional[str] = None
    cell: Optional[Callable[["GroupMetrics"], str]] = None


class GroupMetrics:
    """One group's metric values by name (in :data:`METRICS` order); ``m.accuracy`` reads a
    value. None: undefined for this group (no data)."""

    __slots__ = ("values",)

    def __init__(self, **values: GroupValue):
        self.values = values

    def __getattr__(self, name: str) -> GroupValue:
        try:
            return self.values[name] if name in ROWS else object.__getattribute__(self, name)
        except KeyError:
            return None               # a row added after these values were written

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GroupMetrics) and self.as_dict() == other.as_dict()

    def as_dict(self) -> Dict[str, GroupValue]:
        return {name: self.values.get(name) for name in METRICS}


def _interval_cell(m: GroupMetrics, name: str) -> str:
    row = ROWS[name]
    value = getattr(m, name)
    if value is None or row.interval is None:
        return pct(value)
    low, high = (getattr(m, b) for b in row.interval)
    return f"{pct(value)} [{pct(low)}, {pct(high)}]"


def proportion(name: str, successes: str, trials: str, definition: str,
               column: Optional[str] = None, cell: Optional[Callable[[GroupMetrics], str]] = None
               ) -> List[Metric]:
    """A proportion and its 95% Wilson interval, cluster-aware (instances are the unit)."""
    def bound(i: int) -> Callable[[Totals], GroupValue]:
        def compute(t: Totals) -> GroupValue:
            ci = t.interval(successes, trials)
            return None if ci is None else ci[i]
        return compute
    CLUSTER_PAIRS.append((successes, trials))
    low, high = f"{name}_ci_low", f"{name}_ci_high"
    return [Metric(name, lambda t: share(t[successes], t[trials]), definition, (low, high), column,
                   cell or (lambda m: _interval_cell(m, name))),
            Metric(low, bound(0), f"2.5% bound of the 95% Wilson interval of {name} (instances "
                                  "are the unit: with several epochs, Wilson at the effective "
                                  "sample size of the clustered variance; docs/benchmark.md §7)"),
            Metric(high, bound(1), f"97.5% bound of the same interval of {name}")]


def _k(t: Totals) -> Optional[int]:
    """The k of pass@k and pass^k: the fewest scored samples of any instance, when >= 2."""
    sizes = [m for (_, m), _ in t.samples_per_instance]
    k = min(sizes) if sizes else 0
    return k if k >= 2 else None


def _pass(estimator: Callable[[int, int, int], Fraction]) -> Callable[[Totals], GroupValue]:
    def compute(t: Totals) -> GroupValue:
        k = _k(t)
        per = t.samples_per_instance
        if k is None:
            return None
        total = sum(count for _, count in per)
        return sum((count * estimator(m, c, k) for (c, m), count in per), Fraction(0)) / total
    return compute


def _epoch_accuracies(t: Totals) -> List[Fraction]:
    return [Fraction(c, n) for _, (n, c) in sorted(t.epochs.items()) if n]


def _epoch_sd(t: Totals) -> GroupValue:
    accs = _epoch_accuracies(t)
    if len(accs) < 2:
        return None
    mean = sum(accs, Fraction(0)) / len(accs)
    return stats.sqrt(sum(((a - mean) ** 2 for a in accs), Fraction(0)) / (len(accs) - 1))


def _tokens(name: str) -> Callable[[Totals], GroupValue]:
    turns = "reasoning_turns" if name == "reasoning_tokens" else "usage_turns"
    return lambda t: t[name] if t[turns] else None


def _avg_used(t: Totals) -> GroupValue:
    if not t["usage_turns"] or not t.n:
        return None
    return Fraction(t["prompt_tokens"] + t["completion_tokens"], t.n)


def _trace_cell(m: GroupMetrics) -> str:
    return (f"{pct(m.trace_no_canonical)} ({m.trace_no_canonical_unreadable})/"
            f"{pct(m.trace_canonical_wrong)} ({m.trace_canonical_wrong_unreadable})/{pct(m.trace_correct)}")


def _pass_cell(name: str) -> Callable[[GroupMetrics], str]:
    return lambda m: "-" if getattr(m, name) is None else f"{pct(getattr(m, name))} (k={m.pass_k})"


def _tokens_cell(m: GroupMetrics) -> str:
    return "n/a" if m.avg_tokens_used is None else num(m.avg_tokens_used, 1)


def _frac(num_: int, den: int) -> Optional[Fraction]:
    return Fraction(num_, den) if den else None


def _credit(t: Totals) -> GroupValue:
    return _frac(t["fact_credit"], t["needing"] * FACT_SCALE)   # rows that need a fact


def _precision(t: Totals) -> GroupValue:
    return _frac(t["new_fact_offers"], t["requests"])


def _ask_f1(t: Totals) -> GroupValue:
    p, r = _precision(t), _credit(t)
    if p is None or r is None:
        return None
    return 2 * p * r / (p + r) if p + r else Fraction(0)


def _facts_trace_cell(m: "GroupMetrics") -> str:
    return "/".join(pct(getattr(m, name)) for name in
                    ("trace_no_fact", "trace_some_facts", "trace_all_facts_wrong", "trace_correct"))


METRIC_ROWS: List[Metric] = [
    Metric("n", lambda t: t.n, "transcripts scored (errored ones excluded); with several epochs, "
           "one per instance and epoch", column="n", cell=lambda m: str(m.n)),
    Metric("instances", lambda t: sum(count for _, count in t.samples_per_instance),
           "instances with at least one scored transcript (the unit of every interval)"),
    Metric("epochs", lambda t: max((m for (_, m), _ in t.samples_per_instance), default=0),
           "the most scored transcripts (epochs) of any instance"),
    Metric("errored", lambda t: t["errored"], "transcripts that ended in a backend error; excluded "
           "from every other metric", column="err", cell=lambda m: str(m.errored)),
    Metric("correct", lambda t: t["correct"], "transcripts whose final answer the exact verifier "
           "accepts"),
    *proportion("accuracy", "correct", "scored", "correct / n: with several epochs, the mean "
                "accuracy over epochs", column="acc% [95% CI]"),
    Metric("pass_k", _k, "k of pass@k and pass^k: the fewest scored epochs of any instance "
           "(shown when >= 2)"),
    Metric("pass_at_k", _pass(stats.pass_at_k), "mean over instances of the unbiased pass@k "
           "estimator 1 - C(n-c, k)/C(n, k) (n epochs, c correct): at least one of k samples "
           "correct", column="pass@k", cell=_pass_cell("pass_at_k")),
    Metric("pass_hat_k", _pass(stats.pass_hat_k), "mean over instances of pass^k = C(c, k)/C(n, k): "
           "all k samples correct (consistency)", column="pass^k", cell=_pass_cell("pass_hat_k")),
    Metric("epoch_accuracy_min", lambda t: min(_epoch_accuracies(t)) if len(_epoch_accuracies(t)) > 1
           else None, "the lowest accuracy of one epoch"),
    Metric("epoch_accuracy_max", lambda t: max(_epoch_accuracies(t)) if len(_epoch_accuracies(t)) > 1
           else None, "the highest accuracy of one epoch"),
    Metric("epoch_accuracy_sd", _epoch_sd, "standard deviation of the per-epoch accuracies (n-1 "
           "denominator; the spread across epochs)", column="epoch sd",
           cell=lambda m: "-" if m.epoch_accuracy_sd is None else pct(m.epoch_accuracy_sd)),
    Metric("chance", lambda t: _frac(t["chance"], t["chance_n"] * t.scale_chance),
           "mean of 1/candidate_answers over instances whose view leaves finitely many answers (a "
           "blind guess's expected accuracy)", column="chance% (n)",
           cell=lambda m: f"{pct(m.chance)} ({m.chance_n})"),
    Metric("chance_n", lambda t: t["chance_n"], "transcripts with a finite chance level"),
    Metric("chance_all", lambda t: _frac(t["chance"], t.n * t.scale_chance),
           "a blind guess's expected accuracy over the whole group (an instance without a finite "
           "answer set counts 0): the chance line of the figures"),
    Metric("hit_rate", lambda t: _frac(t["hits"], t["asked"] * t.scale_requests),
           "per instance canonical offers/(offers+declines), averaged over instances with >= 1 "
           "request (an offer of a fact the solver already holds is not a hit)",
           column="hit% (no req)", cell=lambda m: f"{pct(m.hit_rate)} ({m.no_request})"),
    Metric("offer_rate", lambda t: _frac(t["offer_hits"], t["asked"] * t.scale_requests),
           "the paper's literal hit rate: per instance offers of any line/(offers+declines), "
           "averaged over instances with >= 1 request", column="offer%",
           cell=lambda m: pct(m.offer_rate)),
    Metric("hit_rate_n", lambda t: t["asked"], "instances with >= 1 request"),
    Metric("no_request", lambda t: t.n - t["asked"], "instances with no request"),
    *proportion("first_request_success", "first_canonical", "scored",
                "share of instances whose first request got a canonical offer (no request = "
                "failure)", column="1st% [95% CI]"),
    Metric("first_request_offer", lambda t: share(t["first_offer"], t.n), "the paper's literal "
           "version: share of instances whose first request got any offer (no request = failure)",
           column="1st-any%", cell=lambda m: pct(m.first_request_offer)),
    Metric("avg_requests", lambda t: share(t["requests"], t.n), "requests answered by the responder "
           "per instance (format errors excluded)", column="req", cell=lambda m: num(m.avg_requests)),
    Metric("avg_declines", lambda t: share(t["requests"] - t["offers"], t.n),
           "declined requests per instance", column="decl", cell=lambda m: num(m.avg_declines)),
    Metric("avg_hints", lambda t: share(t["offers"], t.n), "accepted offers per instance (every "
           "offer counts, repeats included)", column="hints", cell=lambda m: num(m.avg_hints)),
    Metric("requests_before_first_offer", lambda t: share(t["before_first"], t["with_offer"]),
           "declined requests before the first offer, averaged over instances with >= 1 offer "
           "(0: the first request got one)", column="req<offer",
           cell=lambda m: num(m.requests_before_first_offer)),
    Metric("first_offer_n", lambda t: t["with_offer"], "instances with >= 1 offer"),
    Metric("avg_tokens", lambda t: _frac(t["tokens"], t.n * t.scale_tokens),
           "the paper's token ESTIMATE (words x 1.3 over solver and responder messages) per "
           "instance; the backends' own counts are avg_tokens_used", column="tok est",
           cell=lambda m: num(m.avg_tokens, 1)),
    Metric("avg_tokens_used", _avg_used, "solver prompt + completion tokens per instance as the "
           "backend reported them (turn meta usage); n/a when no turn reported usage",
           column="tok used", cell=_tokens_cell),
    Metric("prompt_tokens", _tokens("prompt_tokens"), "solver prompt tokens in total (reported "
           "usage; None when no turn reported it)"),
    Metric("completion_tokens", _tokens("completion_tokens"), "solver completion tokens in total "
           "(reasoning included where the backend counts it there)"),
    Metric("reasoning_tokens", _tokens("reasoning_tokens"), "solver reasoning tokens in total, where "
           "the backend reports them (completion_tokens_details)"),
    Metric("usage_coverage", lambda t: share(t["usage_turns"], t["solver_turns"]),
           "share of solver turns whose usage the backend reported"),
    Metric("answered", lambda t: t["answered"], "instances with a final answer (whatever the "
           "verifier made of it)"),
    *proportion("unreadable", "unreadable", "scored", "share of instances whose final answer the "
                "verifier could not read (an answer was given, no value was parsed)",
                column="unread% (n)", cell=lambda m: f"{pct(m.unreadable)} ({m.unreadable_n})"),
    Metric("unreadable_n", lambda t: t["unreadable"], "instances whose final answer the verifier "
           "could not read"),
    Metric("fallback_answers", lambda t: t["fallback"], "final answers taken by the fallback "
           "extraction (no ANSWER: line; a final \\boxed{} or 'final answer' phrase)"),
    Metric("fallback_share", lambda t: share(t["fallback"], t["answered"]),
           "fallback_answers / answered: the format non-compliance of the answers",
           column="fallback% (n)", cell=lambda m: f"{pct(m.fallback_share)} ({m.fallback_answers})"),
    Metric("format_errors", lambda t: t["format_errors"], "solver messages with no action, in total",
           column="fmt", cell=lambda m: str(m.format_errors)),
    Metric("avg_format_errors", lambda t: share(t["format_errors"], t.n), "format errors per instance"),
    Metric("format_error_instances", lambda t: t["format_instances"], "instances with >= 1 format error"),
    Metric("responder_errors", lambda t: t["responder_errors"], "responder turns that logged an "
           "error (e.g. unparsable JSON; such a turn is a decline unless the raw text recovered "
           "an offer)", column="resp err", cell=lambda m: str(m.responder_errors)),
    Metric("raw_text_fallbacks", lambda t: t["raw_fallbacks"], "responder turns whose offer was "
           "recovered from unparsable output by the raw-text fallback",
           column="raw fb", cell=lambda m: str(m.raw_text_fallbacks)),
    Metric("trace_no_canonical", lambda t: share(t["no_canonical"], t.n), "share of instances "
           "answered wrong with no offer of a canonical hint (a hint line of the instance's hint "
           "specification)", column="trace nc (unread)/cw (unread)/ok %", cell=_trace_cell),
    Metric("trace_no_canonical_unreadable", lambda t: t["nc_unreadable"],
           "of those, instances whose answer was unreadable"),
    Metric("trace_canonical_wrong", lambda t: share(t["canonical_wrong"], t.n),
           "share of instances that got a canonical hint but answered wrong"),
    Metric("trace_canonical_wrong_unreadable", lambda t: t["cw_unreadable"],
           "of those, instances whose answer was unreadable"),
    Metric("trace_correct", lambda t: share(t["correct"], t.n), "share of instances answered "
           "correctly (the three trace shares sum to 1)"),
    Metric("noncanonical_offers", lambda t: t["noncanonical"], "offers of a private line that is "
           "not a canonical hint, in total", column="noncanon", cell=lambda m: str(m.noncanonical_offers)),
    Metric("noncanonical_offer_share", lambda t: share(t["noncanonical_instances"], t.n),
           "share of instances with >= 1 noncanonical offer"),
    # k facts missing; for one-fact instances (k = 1) they restate the hint metrics
    Metric("facts_needed", lambda t: share(t["facts_needed"], t.n), "facts (hint groups) the view "
           "lacks per instance, k on average: 1 for v1.1, 2 for multi_hint"),
    Metric("avg_facts", lambda t: share(t["facts"], t.n), "facts acquired per instance: hint "
           "groups with at least one canonical offer (a group is acquired by any of its hints)",
           column="facts", cell=lambda m: num(m.avg_facts)),
    *proportion("all_facts_rate", "all_facts", "scored", "share of instances that acquired every "
                "needed fact (every hint group; a blind-tier control needs none)",
                column="all-facts% [95% CI]"),
    Metric("partial_credit", _credit, "mean over instances that need a fact of facts acquired / k",
           column="credit", cell=lambda m: num(m.partial_credit)),
    Metric("ask_recall", _credit, "the recall of Ask-F1: facts acquired / k, averaged over "
           "instances (equal to partial_credit)"),
    Metric("ask_precision", _precision, "the precision of Ask-F1: requests that acquired a fact "
           "not yet acquired (a canonical offer of a new group) / requests answered by the "
           "responder, pooled over the group's requests; a repeated fact is not precise",
           column="ask-P", cell=lambda m: pct(m.ask_precision)),
    Metric("ask_f1", _ask_f1, "Ask-F1: the harmonic mean of ask_precision and ask_recall",
           column="ask-F1", cell=lambda m: pct(m.ask_f1)),
    Metric("trace_no_fact", lambda t: share(t["trace_no_fact"], t.n), "k-fact trace: share of "
           "instances answered wrong with no fact acquired", column="trace none/some/all-wrong/ok %",
           cell=_facts_trace_cell),
    Metric("trace_some_facts", lambda t: share(t["trace_some_facts"], t.n), "k-fact trace: share "
           "answered wrong with some but not all facts acquired (0 when k = 1)"),
    Metric("trace_all_facts_wrong", lambda t: share(t["trace_all_facts_wrong"], t.n), "k-fact "
           "trace: share answered wrong with every fact acquired (the four shares with "
           "trace_correct sum to 1)"),
    # the blind tier (docs/decisions/data-blind-tier.md): None for a group without its rows
    Metric("blind_n", lambda t: t["blind"], "blind-tier transcripts scored"),
    *proportion("minimal_accuracy", "minimal_correct", "blind", "blind tier: share answered "
                "correctly with no unnecessary request (the tier's headline)",
                column="minimal% [95% CI]"),
    *proportion("ask_decision_accuracy", "decision_right", "blind", "blind tier: share whose "
                "decision to ask was right: at least one request iff the row needs a fact",
                column="ask-dec% [95% CI]"),
    Metric("over_ask_rate", lambda t: share(t["over_ask_instances"], t["blind"]), "blind tier: "
           "share of rows with an unnecessary request (any request on a control, an offer of an "
           "irrelevant gap's line elsewhere)", column="over-ask%", cell=lambda m: pct(m.over_ask_rate)),
    Metric("avg_over_asks", lambda t: share(t["over_asks"], t["blind"]), "blind tier: unnecessary "
           "requests per row"),
    Metric("control_ask_rate", lambda t: share(t["control_asks"], t["controls"]), "blind tier: "
           "share of controls (rows the view determines) with at least one request",
           column="ctrl-ask%", cell=lambda m: pct(m.control_ask_rate)),
    Metric("irrelevant_ask_rate", lambda t: share(t["irrelevant_asked"], t["with_irrelevant"]),
           "blind tier: share of rows with an irrelevant gap whose gap the solver asked for and got",
           column="irr-ask%", cell=lambda m: pct(m.irrelevant_ask_rate)),
    Metric("guess_rate", lambda t: share(t["guesses"], t["needing"]) if t["blind"] else None,
           "blind tier: share of rows needing a fact that were answered before every needed fact "
           "was acquired", column="guess%", cell=lambda m: pct(m.guess_rate)),
    Metric("controls_n", lambda t: t["controls"], "blind-tier controls scored"),
    Metric("with_irrelevant_n", lambda t: t["with_irrelevant"], "blind-tier rows with an irrelevant gap"),
]

ROWS: Dict[str, Metric] = {m.name: m for m in METRIC_ROWS}
METRICS: Tuple[str, ...] = tuple(ROWS)
TABLE_ROWS: List[Metric] = [m for m in METRIC_ROWS if m.column]
DEFINITIONS: Dict[str, str] = {m.name: m.definition for m in METRIC_ROWS}
DEFINITIONS["accuracy_delta_4s_minus_zs"] = ("four-shot minus zero-shot accuracy of the same "
                                             "configuration (solver, responder, condition, "
                                             "protocol, decoding, split)")


def compute(t: Totals) -> GroupMetrics:
    """Every row's value for one group's totals."""
    return GroupMetrics(**{m.name: m.compute(t) for m in METRIC_ROWS})


# ------------------------------------------------------------------ terminal columns

@dataclass(frozen=True)
class Column:
    """A column of ``score``'s terminal table: the metric row it shows (by name), its header,
    its cell and when a default table shows it: ``None`` always, ``"epochs"`` when a run has
    several epochs, ``"facts"`` when a run has instances with two or more missing facts (or
    blind-tier rows), ``"blind"`` when it has blind-tier rows,
    ``"nonzero"`` when a run has a nonzero value (a count of problems), ``"usage"`` when a
    backend reported token usage. ``keep``: kept longest when the table must shed columns to
    fit (higher is kept longer)."""

    metric: str
    header: str
    cell: Callable[[GroupMetrics], str]
    when: Optional[str] = None
    keep: int = 0


def _brief_pct(name: str) -> Callable[[GroupMetrics], str]:
    return lambda m: pct(getattr(m, name))


# The table a paper's main results table needs, in this order: accuracy with its interval, the
# consistency of several epochs, request quality, the k-fact metrics, cost in tokens, and the
# counts of problems. Every other row is one ``--columns all`` (or a name list) away.
MAIN_COLUMNS: Tuple[Column, ...] = (
    Column("n", "n", lambda m: str(m.n), keep=9),
    Column("errored", "err", lambda m: str(m.errored), "nonzero", keep=8),
    Column("accuracy", "acc% [95% CI]", lambda m: _interval_cell(m, "accuracy"), keep=10),
    Column("pass_at_k", "pass@k", _brief_pct("pass_at_k"), "epochs", keep=6),
    Column("pass_hat_k", "pass^k", _brief_pct("pass_hat_k"), "epochs", keep=5),
    Column("epoch_accuracy_sd", "epoch sd", _brief_pct("epoch_accuracy_sd"), "epochs", keep=2),
    Column("first_request_success", "1st%", _brief_pct("first_request_success"), keep=7),
    Column("hit_rate", "hit%", _brief_pct("hit_rate"), keep=6),
    Column("avg_requests", "req", lambda m: num(m.avg_requests), keep=4),
    Column("all_facts_rate", "all-facts%", _brief_pct("all_facts_rate"), "facts", keep=7),
    Column("partial_credit", "credit", lambda m: num(m.partial_credit), "facts", keep=6),
    Column("ask_f1", "ask-F1", _brief_pct("ask_f1"), "facts", keep=5),
    Column("minimal_accuracy", "minimal%", _brief_pct("minimal_accuracy"), "blind", keep=9),
    Column("ask_decision_accuracy", "ask-dec%", _brief_pct("ask_decision_accuracy"), "blind", keep=8),
    Column("over_ask_rate", "over-ask%", _brief_pct("over_ask_rate"), "blind", keep=7),
    Column("guess_rate", "guess%", _brief_pct("guess_rate"), "blind", keep=6),
    Column("avg_tokens", "tok est", lambda m: num(m.avg_tokens, 1), keep=3),
    Column("avg_tokens_used", "tok used", _tokens_cell, "usage", keep=3),
    Column("responder_errors", "resp err", lambda m: str(m.responder_errors), "nonzero", keep=8),
)

# every metric row with a column, as ``--columns all`` shows them (the Markdown report's order)
ALL_COLUMNS: Tuple[Column, ...] = tuple(
    Column(m.name, m.column, m.cell or (lambda g, n=m.name: str(getattr(g, n))))  # type: ignore[misc]
    for m in METRIC_ROWS if m.column)


def column_for(name: str) -> Column:
    """The column that shows metric row ``name``: its ``--columns all`` column, else its value
    as written (every row can be asked for by name). KeyError: no such row."""
    for c in ALL_COLUMNS:
        if c.metric == name:
            return c
    row = ROWS[name]
    return Column(row.name, row.name, lambda g: _plain(getattr(g, row.name)))


def _plain(value: GroupValue) -> str:
    if value is None:
        return "-"
    return fixed(value, 4) if isinstance(value, Fraction) else str(value)


def wanted(column: Column, groups: Sequence[GroupMetrics]) -> bool:
    """Whether a default table shows ``column`` for these groups (see :class:`Column`)."""
    if column.when is None:
        return True
    if column.when == "epochs":
        return any((g.epochs or 1) > 1 for g in groups)
    if column.when == "facts":
        return any(g.facts_needed is not None and g.facts_needed > 1 for g in groups) or \
            any(g.blind_n for g in groups)
    if column.when == "blind":
        return any(g.blind_n for g in groups)
    if column.when == "usage":
        return any(g.avg_tokens_used is not None for g in groups)
    if column.when == "nonzero":
        return any(getattr(g, column.metric) for g in groups)
    raise ValueError(f"unknown condition {column.when!r} of column {column.header!r}")


def table_header() -> List[str]:
    return [m.column for m in TABLE_ROWS]  # type: ignore[misc]


def table_cells(m: GroupMetrics) -> List[str]:
    return [row.cell(m) if row.cell else str(getattr(m, row.name)) for row in TABLE_ROWS]


def cost(m: GroupMetrics, price_in: Optional[Fraction], price_out: Optional[Fraction]) -> Optional[Fraction]:
    """Cost in the price's currency from reported usage and prices per million tokens; None
    when a price or the usage is missing."""
    if price_in is None or price_out is None or m.prompt_tokens is None:
        return None
    return (m.prompt_tokens * price_in + (m.completion_tokens or 0) * price_out) / 1_000_000


def summed(values: Iterable[Sequence[int]], width: int) -> List[int]:
    out = [0] * width
    for row in values:
        for i, v in enumerate(row):
            out[i] += v
    return out


__all__ = ["ALL_COLUMNS", "COLUMNS", "COLUMN_INDEX", "Column", "MAIN_COLUMNS", "column_for", "wanted",
           "DEFINITIONS", "FACT_SCALE", "GroupMetrics", "METRICS", "METRIC_ROWS",
           "Metric", "ROWS",
           "TABLE_ROWS", "Totals", "compute", "cost", "fixed", "num", "pct", "proportion", "share",
           "summed", "table_cells", "table_header"]
