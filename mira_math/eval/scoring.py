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
``Fraction``); values are rounded only when written (:mod:`eval.score_output`).

Errored transcripts (a backend failure after retries) are counted apart, in ``errored``, and
excluded from every other metric; ``n`` counts the scored (non-errored) instances.
"""

from __future__ import annotations

import gc
import hashlib
import json
import math
from sys import intern
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Set, Tuple

from mira_math.eval.rundir import MANIFEST, TRANSCRIPTS, RunRecords, declared_shard as _declared_shard
from mira_math.eval.rundir import read_manifest as _read_manifest
from mira_math.eval.metrics import (C as _C, CLUSTER_PAIRS, COLUMNS as _COLUMNS, DEFINITIONS, FACT_SCALE, METRICS,
                                    GroupMetrics, Totals, compute, fixed, pct)
from mira_math.eval.stats import Moments
from mira_math.generators.layout import RESOURCE_ROOT
from mira_math.generators.schema import refuse_lone_surrogates
from mira_math.common.errors import MiraError

GROUP_KINDS = ("all", "type", "family", "difficulty", "difficulty_type")
TRACE_CLASSES = ("no_canonical", "canonical_wrong", "correct")
CI_LEVEL = (Fraction(1, 40), Fraction(39, 40))       # 2.5th and 97.5th percentiles
MAX_TOKENS_EST = 10 ** 12                               # a larger token estimate is corrupt data

class ScoringError(MiraError, RuntimeError):
    """Run directories that cannot be scored (missing files, bad fields, mismatched shards)."""


# ================================================================== exact formatting helpers

def json_value(value: Any) -> Any:
    if isinstance(value, Fraction):
        return float(fixed(value))
    return value


# ================================================================== the dataset, lightly

class _InstanceFields(NamedTuple):
    seed_set: str
    id: str
    family: str
    type: str
    difficulty: int
    candidate_answers: Optional[int]
    canonical: frozenset                    # the hint constraints (canonical lines)
    key: Tuple[str, str]                    # (seed set, id): read several times per transcript
    groups: Tuple[frozenset, ...]           # the canonical lines of each needed fact (k groups)


class InstanceInfo(_InstanceFields):
    """What scoring needs of an instance (the run's checksum vouches for the rest). A named
    tuple, not a frozen dataclass: one is built per dataset line, and a frozen dataclass's
    ``__init__`` (one ``object.__setattr__`` per field) cost more than the line's parse."""

    __slots__ = ()

    def __new__(cls, seed_set: str, id: str, family: str, type: str, difficulty: int,  # noqa: A002
                candidate_answers: Optional[int], canonical: frozenset,
                groups: Optional[Tuple[frozenset, ...]] = None) -> "InstanceInfo":
        return tuple.__new__(cls, (seed_set, id, family, type, difficulty, candidate_answers, canonical,
                                   (seed_set, id), groups or (canonical,)))


def _field_error(where: str, name: str, problem: str) -> ScoringError:
    return ScoringError(f"{where}: field {name!r}: {problem}")


def _check(value: Any, kinds: tuple, where: str, name: str) -> Any:
    """``value`` if it is one of ``kinds`` (bool is never an int here), else a one-line error."""
    if type(value) in kinds:                 # JSON values have exact types: the fast path
        return value
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
    if not ok:
        names = "/".join("null" if k is type(None) else k.__name__ for k in kinds)
        raise _field_error(where, name, f"expected {names}, got {type(value).__name__} "
                                        f"{_preview(value)}")
    return value


def _preview(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _json_lines(path: Path, digest: Optional[Any] = None, what: str = "a transcript line"
                ) -> Iterator[Tuple[int, Any]]:
    """(line number, parsed JSON) for each non-empty line, streamed; one-line errors for bytes
    that are not UTF-8, not JSON, nested too deep or with integers too long to read."""
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if digest is not None:
                digest.update(raw)
            if raw.isspace():                   # a line from a file is never empty: blank lines
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise ScoringError(f"{path}:{number}: not {what} (not UTF-8: byte {err.start})") from None
            try:
                value = json.loads(text)
            except RecursionError:
                raise ScoringError(f"{path}:{number}: not {what} (JSON nested too deeply)") from None
            except ValueError as err:
                raise ScoringError(f"{path}:{number}: not {what} (not JSON: {str(err)[:80]})") from None
            if "\\u" in text:                  # the only way JSON spells a lone surrogate
                refuse_lone_surrogates(text, value, str(path), number)
            yield number, value


def instance_info(row: Any, where: Any) -> InstanceInfo:
    """What scoring needs of one parsed instance line, its types checked (shared with the viewer,
    so both read a dataset line alike). ``where`` is the line's place, or a callable that gives
    it (built only for an error)."""
    if type(row) is not dict:
        if not isinstance(row, dict):
            raise ScoringError(f"{_where(where)}: not an instance object")
    get = row.get
    fields: Tuple[Any, ...] = (get("seed_set"), get("id"), get("family"), get("type"), get("difficulty"),
                               get("candidate_answers"), get("hints"))
    seed_set, tid, family, type_, difficulty, cand, hints = fields
    if not (type(seed_set) is type(tid) is type(family) is type(type_) is str and type(difficulty) is int
            and (cand is None or type(cand) is int) and type(hints) is list):     # the fast path: exact types
        for name, kinds in (("seed_set", (str,)), ("id", (str,)), ("family", (str,)), ("type", (str,)),
                            ("difficulty", (int,)), ("candidate_answers", (int, type(None))), ("hints", (list,))):
            _check(row.get(name), kinds, _where(where), name)
    canonical = []
    for h in hints:
        line = h.get("constraint") if type(h) is dict else None
        if type(line) is not str:
            _check(h.get("constraint") if isinstance(h, dict) else None, (str,), _where(where), "hints.constraint")
        canonical.append(line)
    return InstanceInfo(intern(seed_set), tid, intern(family), intern(type_), difficulty, cand or None,
                        frozenset(canonical),         # one copy of the repeated strings: 180 bytes a line
                        _groups(get("hint_groups"), hints, where) if "hint_groups" in row else None)


def _groups(groups: Any, hints: List[Any], where: Any) -> Tuple[frozenset, ...]:
    """The canonical lines of each hint group of a k >= 2 row (issue 34)."""
    by_slot = {h.get("slot"): h.get("constraint") for h in hints if type(h) is dict}
    if type(groups) is not list or not all(type(g) is list and g and all(s in by_slot for s in g)
                                           for g in groups):
        raise ScoringError(f"{_where(where)}: field 'hint_groups': expected lists of hint slots")
    return tuple(frozenset(by_slot[s] for s in g) for g in groups)


def _where(where: Any) -> str:
    return where() if callable(where) else where


_INFO_CACHE: Dict[Tuple[str, str], List[InstanceInfo]] = {}


def resolve_data_file(name: str, run_dir: Path) -> Path:
    """A manifest's dataset path: as written, else relative to the run directory or the
    resource root (:mod:`mira_math.generators.layout`)."""
    path = Path(name)
    candidates = [path] if path.is_absolute() else [path, run_dir / path,
                                                    RESOURCE_ROOT / path]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise ScoringError(f"{run_dir / MANIFEST}: dataset file {name} is missing "
                       f"(looked in: {', '.join(str(c) for c in candidates)})")


def _file_infos(path: Path) -> Tuple[str, List[InstanceInfo]]:
    """(sha256 hex of the bytes, the file's instances); parsed once per content in a process."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    key = (str(path.resolve()), digest.hexdigest())
    if key not in _INFO_CACHE:
        _INFO_CACHE[key] = _parse_data_file(path, key)
    return key[1], _INFO_CACHE[key]


def _parse_data_file(path: Path, key: Tuple[str, str]) -> List[InstanceInfo]:
    """One pass over a data file: each line's :class:`InstanceInfo` and, for re-verification
    (:mod:`eval.integrity`), its judge (identical judges shared). Nothing else of a row is
    kept, and no ``Instance`` is built: scoring trusts the rest through the checksum."""
    from mira_math.eval.integrity import _JUDGES, judge_of   # what re-verification needs, same parse

    infos: List[InstanceInfo] = []
    judges: Dict[Tuple[str, str], Any] = {}
    shared: Dict[Any, Any] = {}
    name = str(path)
    for number, row in _json_lines(path, what="an instance line"):
        info = instance_info(row, lambda: f"{name}:{number}")   # noqa: B023 - called at once
        if info.key not in judges:          # the first line of a (seed set, id) is the instance, as in the index
            judge = judge_of(row)
            judges[info.key] = None if judge is None else shared.setdefault(judge, judge)
        infos.append(info)
    _JUDGES[key] = judges
    return infos


@dataclass
class Dataset:
    """A run's dataset in order, indexed by (seed set, id) and by id (its first instance; ids
    that name instances of several seed sets are also in ``shared_ids``: one dict entry per
    instance, not one list)."""

    infos: List[InstanceInfo]
    by_key: Dict[Tuple[str, str], InstanceInfo]
    by_id: Dict[str, InstanceInfo]
    files: List[str]
    shared_ids: Set[str] = field(default_factory=set)

    def lookup(self, tid: str, seed_set: Optional[str], where: str) -> InstanceInfo:
        if seed_set is not None:
            info = self.by_key.get((seed_set, tid))
        else:
            if tid in self.shared_ids:
                raise _field_error(where, "seed_set", f"id {tid} names instances of several seed sets "
                                                      "in this run's dataset; the transcript must say which")
            info = self.by_id.get(tid)
        if info is None:
            more = f" and {len(self.files) - 3} more" if len(self.files) > 3 else ""
            raise ScoringError(f"{where}: instance {tid} is in none of the dataset files "
                               f"{', '.join(self.files[:3])}{more}")
        return info


def load_dataset(manifest: Mapping[str, Any], run_dir: Path) -> Dataset:
    """The manifest's dataset files, checked against its checksum."""
    dataset = manifest.get("dataset") or {}
    names = dataset.get("files") or []
    if not names:
        raise ScoringError(f"{run_dir / MANIFEST}: names no dataset files")
    digest = hashlib.sha256()
    infos: List[InstanceInfo] = []
    for name in names:
        hexdigest, file_infos = _file_infos(resolve_data_file(name, run_dir))
        digest.update(bytes.fromhex(hexdigest))
        infos += file_infos
    expected = dataset.get("checksum")
    if expected and digest.hexdigest() != expected:
        raise ScoringError(f"{run_dir / MANIFEST}: the dataset files {', '.join(names)} are not the "
                           "ones this run used (checksum differs)")
    by_key: Dict[Tuple[str, str], InstanceInfo] = {}
    by_id: Dict[str, InstanceInfo] = {}
    shared_ids: Set[str] = set()
    for info in infos:
        key = info.key
        if key not in by_key:
            by_key[key] = info
            if by_id.setdefault(info.id, info) is not info:
                shared_ids.add(info.id)
    return Dataset(list(by_key.values()), by_key, by_id, list(names), shared_ids)


# ================================================================== one transcript

@dataclass(slots=True)
class InstanceStats:
    """The facts one transcript contributes (validated); exact, small."""

    key: Tuple[str, str]                   # (seed set, id)
    family: str
    type: str
    difficulty: int
    errored: bool
    correct: bool
    requests: int                          # requests the responder answered
    offers: int
    canonical_offers: int
    first_request_canonical: bool
    first_request_offered: bool
    requests_before_first_offer: Optional[int]   # None: no offer at all
    format_errors: int
    responder_errors: int
    tokens_num: int                        # the token estimate is tokens_num / tokens_den, exactly
    tokens_den: int
    answered: bool
    unreadable: bool
    fallback: bool
    candidate_answers: Optional[int]
    epoch: int = 0                         # which of the run's samples of this instance
    raw_fallbacks: int = 0                 # responder offers recovered from unparsable output
    prompt_tokens: int = 0                 # solver usage as the backend reported it
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    usage_turns: int = 0                   # solver turns that reported usage
    reasoning_turns: int = 0               # ... that reported reasoning tokens
    solver_turns: int = 0
    facts_needed: int = 1                  # k: the facts (hint groups) the view lacks
    facts_acquired: int = 0                # groups with a canonical offer
    new_fact_offers: int = 0               # canonical offers of a group not yet acquired

    @property
    def sample_key(self) -> Tuple[str, str, int]:
        return (self.key[0], self.key[1], self.epoch)

    @property
    def tokens(self) -> Fraction:
        return Fraction(self.tokens_num, self.tokens_den)

    @property
    def noncanonical_offers(self) -> int:
        return self.offers - self.canonical_offers

    @property
    def trace_class(self) -> str:
        if self.correct:
            return "correct"
        return "canonical_wrong" if self.canonical_offers else "no_canonical"

    @property
    def facts_class(self) -> str:
        """The k-fact trace decomposition: no fact / some facts / all facts but wrong / correct."""
        if self.correct:
            return "correct"
        if not self.facts_acquired:
            return "no_fact"
        return "all_facts_wrong" if self.facts_acquired >= self.facts_needed else "some_facts"


def _answer_source(row: Mapping[str, Any], last_answer: Any, where: str) -> str:
    """Where the final answer came from: the last answer turn's ``answer_source`` (or its meta's),
    else the transcript's; a missing field is "marker" (transcripts before the fallback)."""
    source = None
    if last_answer is not None:
        meta = last_answer.get("meta")
        source = last_answer.get("answer_source", meta.get("answer_source") if isinstance(meta, dict) else None)
    if source is None:
        source = row.get("answer_source")
    if source is None:
        return "marker"
    if source not in ("marker", "fallback"):
        raise _field_error(where, "answer_source", f"expected 'marker' or 'fallback', got {_preview(source)}")
    return source


def _decimal(value: Any) -> Tuple[int, int]:
    """A JSON number as an exact (numerator, power of ten) pair: what its shortest repr says."""
    if type(value) is int:
        return value, 1
    text = repr(value)
    if "e" in text or "E" in text:
        f = Fraction(text)
        return f.numerator, f.denominator
    whole, _, frac = text.partition(".")
    return int(whole + frac), 10 ** len(frac)


def instance_stats(row: Any, info: InstanceInfo, where: str = "transcript") -> InstanceStats:
    """Validate one transcript line and summarise it. A canonical offer is an offer whose quoted
    line is one of the instance's hint constraints (the dataset decides, not the logged flag)."""
    if not isinstance(row, dict):
        raise ScoringError(f"{where}: not a transcript object")
    get = row.get                   # each field: the exact JSON type inline, _check names a bad one
    turns, error, verdict = get("turns", []), get("error"), get("verdict")
    if type(turns) is not list:
        _check(turns, (list,), where, "turns")
    if error is not None and type(error) is not dict:
        _check(error, (dict, type(None)), where, "error")
    if verdict is not None and type(verdict) is not dict:
        _check(verdict, (dict, type(None)), where, "verdict")
    verdict = verdict or {}
    correct, parsed, final = verdict.get("correct", False), verdict.get("parsed"), get("final_answer")
    if type(correct) is not bool:
        _check(correct, (bool,), where, "verdict.correct")
    if parsed is not None and type(parsed) is not str:
        _check(parsed, (str, type(None)), where, "verdict.parsed")
    if final is not None and type(final) is not str:
        _check(final, (str, type(None)), where, "final_answer")
    tokens_raw = get("tokens_est", 0)
    if type(tokens_raw) is not float and type(tokens_raw) is not int:
        _check(tokens_raw, (int, float), where, "tokens_est")
    if not (isinstance(tokens_raw, int) or math.isfinite(tokens_raw)) or not 0 <= tokens_raw <= MAX_TOKENS_EST:
        raise _field_error(where, "tokens_est", f"expected a number in [0, {MAX_TOKENS_EST}], "
                                                f"got {_preview(tokens_raw)}")
    epoch = get("epoch", 0)
    if type(epoch) is not int:
        _check(epoch, (int,), where, "epoch")
    if epoch < 0:
        raise _field_error(where, "epoch", f"expected a non-negative integer, got {epoch}")
    requests = offers = canonical = format_errors = responder_errors = raw_fallbacks = 0
    prompt = completion = reasoning = usage_turns = reasoning_turns = solver_turns = 0
    first_canonical = first_offered = False
    before_first: Optional[int] = None
    last_answer: Any = None
    hints = info.canonical
    groups = info.groups
    acquired: set = set()
    new_facts = 0
    for n, turn in enumerate(turns):                # the hot loop: checks inline, helpers on failure
        if type(turn) is not dict:
            _check(turn, (dict,), where, f"turns[{n}]")
        role = turn.get("role")
        if role == "solver":
            action = turn.get("action")
            if type(action) is not str:
                _check(action, (str,), where, f"turns[{n}].action")
            if action == "format_error":
                format_errors += 1
            elif action == "answer":
                last_answer = turn
            solver_turns += 1
            meta = turn.get("meta")
            usage = meta.get("usage") if type(meta) is dict else None
            if type(usage) is dict:                 # the backend's report; a partial one is not counted
                used, made = usage.get("prompt_tokens"), usage.get("completion_tokens")
                if type(used) is int and type(made) is int:
                    if used < 0 or made < 0:
                        raise _field_error(where, f"turns[{n}].meta.usage", "negative token count")
                    prompt += used
                    completion += made
                    usage_turns += 1
                    thought = usage.get("reasoning_tokens")
                    if type(thought) is int and thought >= 0:
                        reasoning += thought
                        reasoning_turns += 1
        elif role == "responder":
            decision = turn.get("decision")
            if decision != "offer" and decision != "decline":
                raise _field_error(where, f"turns[{n}].decision",
                                   f"expected 'offer' or 'decline', got {_preview(decision)}")
            line = turn.get("quoted_constraint")
            if line is not None and type(line) is not str:
                _check(line, (str, type(None)), where, f"turns[{n}].quoted_constraint")
            meta = turn.get("meta")
            if type(meta) is dict and meta.get("fallback") == "raw_text_offer":
                raw_fallbacks += 1
            errors = turn.get("errors")
            if errors:
                _check(errors, (list,), where, f"turns[{n}].errors")
                responder_errors += 1
            is_offer = decision == "offer"
            is_canonical = is_offer and line in hints
            if requests == 0:
                first_offered, first_canonical = is_offer, is_canonical
            if is_offer and before_first is None:
                before_first = requests - offers
            requests += 1
            offers += is_offer
            canonical += is_canonical
            if is_canonical:
                group = next(g for g, lines in enumerate(groups) if line in lines)
                if group not in acquired:
                    acquired.add(group)
                    new_facts += 1
        else:
            raise _field_error(where, f"turns[{n}].role", f"expected 'solver' or 'responder', got "
                                                          f"{_preview(role)}")
    tokens_num, tokens_den = _decimal(tokens_raw)
    answered = final is not None
    return InstanceStats(
        info.key, info.family, info.type, info.difficulty, error is not None, correct, requests, offers,
        canonical, first_canonical, first_offered, before_first, format_errors, responder_errors,
        tokens_num, tokens_den, answered, answered and not correct and parsed is None,
        answered and _answer_source(row, last_answer, where) == "fallback",
        info.candidate_answers, epoch, raw_fallbacks, prompt, completion, reasoning, usage_turns,
        reasoning_turns, solver_turns, len(groups), len(acquired), new_facts)


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


def stats_row(s: InstanceStats, scales: Scales) -> Tuple[int, ...]:
    """One transcript as the integer columns of :data:`eval.metrics.COLUMNS` (all zero but
    errored if errored)."""
    if s.errored:
        return (1,) + (0,) * (len(_COLUMNS) - 1)
    wrong = not s.correct
    cls = s.trace_class
    return (0, 1, int(s.correct), s.requests, s.offers, s.canonical_offers, int(s.first_request_canonical),
            int(s.first_request_offered), int(s.requests_before_first_offer is not None),
            s.requests_before_first_offer or 0, s.format_errors, int(s.format_errors > 0),
            s.responder_errors, s.raw_fallbacks, s.tokens_num * (scales.tokens // s.tokens_den),
            int(s.answered), int(s.unreadable), int(s.fallback),
            scales.chance // s.candidate_answers if s.candidate_answers else 0,
            int(bool(s.candidate_answers)), int(s.requests > 0),
            s.canonical_offers * (scales.requests // s.requests) if s.requests else 0,
            s.offers * (scales.requests // s.requests) if s.requests else 0,
            int(wrong and cls == "no_canonical"), int(wrong and cls == "canonical_wrong"),
            int(s.unreadable and cls == "no_canonical"), int(s.unreadable and cls == "canonical_wrong"),
            s.noncanonical_offers, int(s.noncanonical_offers > 0), s.prompt_tokens,
            s.completion_tokens, s.reasoning_tokens, s.usage_turns, s.reasoning_turns, s.solver_turns,
            s.facts_needed, s.facts_acquired, int(s.facts_acquired >= s.facts_needed),
            s.facts_acquired * (FACT_SCALE // s.facts_needed), s.new_fact_offers,
            int(s.facts_class == "no_fact"), int(s.facts_class == "some_facts"),
            int(s.facts_class == "all_facts_wrong"))


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
        scored, correct = _C["scored"], _C["correct"]
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
            i, j = _C[succ], _C[trials]
            moments[(succ, trials)] = Moments.of([(inst[i], inst[j]) for inst in per.values()])
        samples: Dict[Tuple[int, int], int] = {}
        for inst in per.values():
            cm = (inst[correct], inst[scored])
            samples[cm] = samples.get(cm, 0) + 1
        return compute(Totals(_column_sums(rows), len(rows), scales.tokens, scales.chance, scales.requests,
                              moments, samples, epochs))


def _column_sums(rows: Sequence[Tuple[int, ...]]) -> List[int]:
    return [sum(col) for col in zip(*rows)] if rows else [0] * len(_COLUMNS)


def _unclustered_metrics(sums: List[int], count: int, scales: Scales) -> GroupMetrics:
    """A group's metrics when every transcript is its own instance: the column sums say it all."""
    n, c = sums[_C["scored"]], sums[_C["correct"]]
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


# ================================================================== runs: identity and labels

def short_spec(spec: str, limit: int = 44) -> str:
    """A model spec short enough for a label: a Hub id or path keeps its last part, an API URL
    only its host's first name and port; anything still long is cut in the middle ("…"). The
    full spec is in the Runs table."""
    prefix = ""
    if spec.startswith("llm:"):
        prefix, spec = "llm:", spec[4:]
    kind, sep, rest = spec.partition(":")
    if not sep:
        return prefix + spec
    model, at, url = rest.partition("@")
    model = model.rstrip("/").rsplit("/", 1)[-1] or model
    if at:
        host = url.split("://", 1)[-1].split("/", 1)[0]
        name, colon, port = host.partition(":")
        if not name.replace(".", "").isdigit():
            name = name.split(".", 1)[0]
        url = name + (colon + port if colon else "")
    text = f"{kind}:{model}" + (f"@{url}" if at else "")
    if len(text) > limit:
        text = text[:limit // 2] + "…" + text[-(limit - limit // 2 - 1):]
    return prefix + text


@dataclass
class RunInfo:
    """A run's identity and bookkeeping (no transcripts): what the tables show."""

    config: Dict[str, Any]
    run_hash: str
    dirs: List[Path]                       # shard directories, first as given
    manifests: List[Dict[str, Any]]
    shard_count: Optional[int] = None      # N of declared shards i/N, None: not sharded
    shards_present: List[int] = field(default_factory=list)
    transcripts: int = 0
    expected: int = 0                      # instances the run selects (missing shards included)
    seed_sets: List[str] = field(default_factory=list)
    fingerprint: str = ""                  # sha256 over the shards' manifests and transcripts
    label: str = ""                        # set by :func:`assign_labels`

    @property
    def out_dir(self) -> Path:
        return self.dirs[0]

    @property
    def missing(self) -> int:
        return max(0, self.expected - self.transcripts)

    @property
    def complete(self) -> bool:
        shards_ok = self.shard_count is None or sorted(self.shards_present) == list(range(self.shard_count))
        return shards_ok and self.missing == 0

    @property
    def status(self) -> str:
        return "complete" if self.complete else f"INCOMPLETE ({self.missing} missing)"

    def get(self, name: str, default: Any = None) -> Any:
        return self.config.get(name, default)

    @property
    def condition(self) -> str:
        return self.get("condition", "standard")

    @property
    def regime(self) -> str:
        return self.get("regime", "")

    @property
    def split(self) -> str:
        return "+".join(self.seed_sets) or "-"

    @property
    def dataset_checksum(self) -> str:
        return (self.manifests[0].get("dataset") or {}).get("checksum") or self.get("dataset_checksum", "")

    @property
    def decoding(self) -> str:
        params = self.get("solver_params") or {}
        return ", ".join(f"{k}={params[k]}" for k in sorted(params)) or "-"

    @property
    def responder_label(self) -> str:
        """The responder a run used: an oracle-hint run uses none."""
        return "oracle hint" if self.condition == "oracle_hint" else short_spec(self.get("responder", "?"))

    def base_label(self) -> str:
        parts = [short_spec(self.get("solver", "?")), self.responder_label, self.regime]
        if self.get("protocol", "paper") != "paper":
            parts.append(self.get("protocol"))
        return " | ".join(parts)

    def pairing_key(self) -> Tuple[Any, ...]:
        """Everything but the regime (and the prompt it implies): runs with equal keys in both
        regimes are compared for the four-shot deltas."""
        ignore = {"regime", "prompt_hash", "selection"}
        return (json.dumps({k: v for k, v in self.config.items() if k not in ignore}, sort_keys=True),
                json.dumps({k: v for k, v in (self.get("selection") or {}).items() if k != "shard"},
                           sort_keys=True), self.dataset_checksum, self.shard_count)


def assign_labels(runs: Sequence[RunInfo]) -> None:
    """Short labels, unique among ``runs``: where two share one, what differs is appended
    (split, decoding, shard count, else the run directory)."""
    base = {id(r): r.base_label() for r in runs}
    for r in runs:
        r.label = base[id(r)]
    clashes: Dict[str, List[RunInfo]] = {}
    for r in runs:
        clashes.setdefault(base[id(r)], []).append(r)
    for label, group in clashes.items():
        if len(group) < 2:
            continue
        extras: Dict[int, List[str]] = {id(r): [] for r in group}
        for _name, value in (("split", lambda r: r.split), ("decoding", lambda r: r.decoding),
                            ("shards", lambda r: f"{r.shard_count or 1} shards")):
            if len({value(r) for r in group}) > 1:
                for r in group:
                    extras[id(r)].append(value(r))
        for r in group:
            if not extras[id(r)] or sum(1 for o in group if extras[id(o)] == extras[id(r)]) > 1:
                extras[id(r)].append(r.out_dir.name)
            r.label = f"{label} [{', '.join(extras[id(r)])}]"


# ================================================================== loading run directories

def run_epochs(config: Mapping[str, Any]) -> int:
    """Samples per instance a run asked for (``--epochs``; 1 when the manifest predates it)."""
    epochs = config.get("epochs", 1)
    return epochs if type(epochs) is int and epochs >= 1 else 1


def selected_count(dataset: Dataset, selection: Mapping[str, Any], shard: Optional[Tuple[int, int]]) -> int:
    """How many instances the selection picks (families, ids, shard, then limit, as eval does)."""
    infos = dataset.infos
    if selection.get("families"):
        wanted = set(selection["families"])
        infos = [i for i in infos if i.family in wanted]
    if selection.get("ids"):
        wanted = set(selection["ids"])
        infos = [i for i in infos if i.id in wanted]
    if shard:
        infos = infos[shard[0]::shard[1]]
    limit = selection.get("limit")
    return len(infos) if limit is None else min(len(infos), max(0, int(limit)))


def group_runs(run_dirs: Sequence[Path]) -> List[RunInfo]:
    """Directories into runs: each directory is a run, declared shards i/N of one run_hash and N
    are merged. Reads manifests only."""
    runs: List[RunInfo] = []
    by_shard_key: Dict[Tuple[str, int], RunInfo] = {}
    seen: List[Path] = []
    for run_dir in (Path(p) for p in run_dirs):
        if any(run_dir.resolve() == s.resolve() for s in seen):
            continue                                   # the same directory given twice
        seen.append(run_dir)
        manifest = _read_manifest(run_dir)
        shard = _declared_shard(manifest, run_dir)
        config = {k: v for k, v in manifest["config"].items()}
        if shard is None:
            runs.append(RunInfo(config, manifest["run_hash"], [run_dir], [manifest]))
            continue
        key = (manifest["run_hash"], shard[1])
        run = by_shard_key.get(key)
        if run is None:
            run = by_shard_key[key] = RunInfo(config, manifest["run_hash"], [], [], shard_count=shard[1])
            runs.append(run)
        if shard[0] in run.shards_present:
            other = run.dirs[run.shards_present.index(shard[0])]
            raise ScoringError(f"{run_dir} and {other} are both shard {shard[0]}/{shard[1]} of one run")
        run.dirs.append(run_dir)
        run.manifests.append(manifest)
        run.shards_present.append(shard[0])
    return runs


def iter_transcripts(run_dir: Path, manifest: Mapping[str, Any], digest: Optional[Any] = None
                     ) -> Iterator[Tuple[str, Dict[str, Any]]]:
    """(where, row) for each transcript line, streamed, with the fields that tie it to the run
    checked against the manifest (a transcript of another run is refused, naming its line)."""
    path = run_dir / TRANSCRIPTS
    if not path.is_file():
        raise ScoringError(f"{path}: missing")
    config = manifest["config"]
    expect = {"solver": config["solver"], "responder": config["responder"], "regime": config["regime"],
              "condition": config.get("condition", "standard")}
    expected = tuple(expect.items())
    name = str(path)
    for number, row in _json_lines(path, digest):
        where = f"{name}:{number}"
        if type(row) is not dict:
            raise ScoringError(f"{where}: not a transcript object")
        get = row.get
        if type(get("id")) is not str:
            _check(get("id"), (str,), where, "id")
        seed_set = get("seed_set")
        if seed_set is not None and type(seed_set) is not str:
            _check(seed_set, (str, type(None)), where, "seed_set")
        for field_name, value in expected:
            if get(field_name, value) != value:
                raise _field_error(where, field_name, f"{_preview(row[field_name])} but {run_dir / MANIFEST} "
                                                      f"says {value!r}: a transcript of another run")
        yield where, row


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
        dataset = load_dataset(manifest, run_dir)
        if not order:
            order = {i.key: n for n, i in enumerate(dataset.infos)}
        shard = _declared_shard(manifest, run_dir)
        count = (manifest.get("dataset") or {}).get("instances")
        expected += (count if type(count) is int else selected_count(
            dataset, manifest["config"].get("selection") or {}, shard)) * run_epochs(manifest["config"])
        fingerprint.update(json.dumps(manifest, sort_keys=True).encode("utf-8"))
        from mira_math.eval.integrity import RunGuard  # scores from answers, not from flags
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
        dataset = load_dataset(first, info.dirs[0])
        for index in sorted(set(range(info.shard_count)) - set(info.shards_present)):
            expected += run_epochs(first["config"]) * selected_count(dataset, first["config"].get("selection") or {},
                                       (index, info.shard_count))
    if not seed_sets:
        dataset = load_dataset(info.manifests[0], info.dirs[0])
        seed_sets = {i.seed_set: None for i in dataset.infos}
    stats.sort(key=lambda s: (order.get(s.key, len(order)), s.epoch))
    info.transcripts, info.expected = len(stats), expected
    info.seed_sets = sorted(seed_sets)
    info.fingerprint = fingerprint_of(info, fingerprint.hexdigest())
    return LoadedRun(info, stats)


def fingerprint_of(info: RunInfo, content: str) -> str:
    """What a cached scores.json must match to be reused: scoring version, shard layout, content."""
    from_version = "scores-v" + SCORES_VERSION
    layout = json.dumps([info.run_hash, info.shard_count, sorted(info.shards_present)])
    return hashlib.sha256(f"{from_version}\n{layout}\n{content}".encode("utf-8")).hexdigest()


def content_fingerprint(info: RunInfo) -> str:
    """The fingerprint of a run's files without scoring them (for reusing scores.json)."""
    digest = hashlib.sha256()
    for run_dir, manifest in zip(info.dirs, info.manifests):
        digest.update(json.dumps(manifest, sort_keys=True).encode("utf-8"))
        path = run_dir / TRANSCRIPTS
        if not path.is_file():
            raise ScoringError(f"{path}: missing")
        with path.open("rb") as fh:
            for line in fh:            # line by line, as load_run hashes them
                digest.update(line)
    return fingerprint_of(info, digest.hexdigest())


def load_records(run_dir: Path) -> RunRecords:
    """One run directory's transcripts joined with their full instances (for the audit)."""
    from mira_math.generators.schema import DataError, read_jsonl

    (info,) = group_runs([run_dir])
    manifest = info.manifests[0]
    dataset = load_dataset(manifest, run_dir)
    full: Dict[Tuple[str, str], Any] = {}
    try:
        for name in dataset.files:
            for inst in read_jsonl(resolve_data_file(name, run_dir)):
                full.setdefault((inst.seed_set, inst.id), inst)
    except DataError as err:
        raise ScoringError(str(err)) from None
    records = []
    for where, row in iter_transcripts(run_dir, manifest):
        info_ = dataset.lookup(row["id"], row.get("seed_set"), where)
        instance_stats(row, info_, where)                      # the same field checks as score
        records.append((row, full[info_.key]))
    assign_labels([info])
    return RunRecords(info, records)


# ================================================================== scoring runs

SCORES_VERSION = "4"   # 2: canonical hit rate / first request, unreadable, format compliance,
                       #    exact bootstrap, run identity by configuration, (seed set, id) joins
                       # 3: metrics as rows (eval.metrics), Wilson intervals (cluster-aware),
                       #    epochs (pass@k, pass^k, spread), reported usage, raw-text fallbacks
                       # 4: k missing facts (issue 34): facts acquired, all-facts rate, partial
                       #    credit, Ask-precision/recall/F1, the four-class k-fact trace


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


__all__ = ["DEFINITIONS", "Dataset", "Delta", "GroupMetrics", "GroupScore", "InstanceInfo",
           "InstanceStats", "LoadedRun", "METRICS", "RunInfo", "RunScores", "SCORES_VERSION",
           "ScoringError", "accuracy_deltas", "assign_labels", "binomial_quantiles", "bootstrap_ci",
           "content_fingerprint", "fixed", "group_metrics", "group_runs", "grouped_metrics",
           "instance_stats", "json_value", "load_dataset", "load_records", "load_run", "pair_regimes",
           "pct", "run_epochs", "score", "score_run", "short_spec"]
