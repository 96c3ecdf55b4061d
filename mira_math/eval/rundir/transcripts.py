"""The transcripts of a run directory, read: each line streamed and checked field by field
against the manifest (:func:`iter_transcripts`) and summarised into the small exact facts scoring
sums (:func:`instance_stats`); a run's transcripts joined to their full instances
(:func:`load_records`, for the viewer and the audit); and the fingerprints that say whether a
cached ``scores.json`` still matches a run's files."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple

from mira_math.eval.rundir.dataset import InstanceInfo, read_run_dataset, resolve_data_file
from mira_math.eval.rundir.files import (MANIFEST, TRANSCRIPTS, ScoringError, check_field, field_error,
                                         json_lines, preview)
from mira_math.eval.rundir.runs import RunInfo, assign_labels, group_runs
from mira_math.generators.schema import Instance

MAX_TOKENS_EST = 10 ** 12                               # a larger token estimate is corrupt data


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
    blind: bool = False                    # a blind-tier row (facts_needed 0: a control)
    irrelevant_offers: int = 0             # offers of an irrelevant gap's line
    has_irrelevant: bool = False           # the row has an irrelevant gap
    guessed: bool = False                  # answered before every needed fact was acquired

    @property
    def over_asks(self) -> int:
        """Unnecessary requests: every request on a row that needs nothing (a control), else
        each offer of an irrelevant gap's line."""
        return self.requests if self.facts_needed == 0 else self.irrelevant_offers

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
        raise field_error(where, "answer_source", f"expected 'marker' or 'fallback', got {preview(source)}")
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
        check_field(turns, (list,), where, "turns")
    if error is not None and type(error) is not dict:
        check_field(error, (dict, type(None)), where, "error")
    if verdict is not None and type(verdict) is not dict:
        check_field(verdict, (dict, type(None)), where, "verdict")
    verdict = verdict or {}
    correct, parsed, final = verdict.get("correct", False), verdict.get("parsed"), get("final_answer")
    if type(correct) is not bool:
        check_field(correct, (bool,), where, "verdict.correct")
    if parsed is not None and type(parsed) is not str:
        check_field(parsed, (str, type(None)), where, "verdict.parsed")
    if final is not None and type(final) is not str:
        check_field(final, (str, type(None)), where, "final_answer")
    tokens_raw = get("tokens_est", 0)
    if type(tokens_raw) is not float and type(tokens_raw) is not int:
        check_field(tokens_raw, (int, float), where, "tokens_est")
    if not (isinstance(tokens_raw, int) or math.isfinite(tokens_raw)) or not 0 <= tokens_raw <= MAX_TOKENS_EST:
        raise field_error(where, "tokens_est", f"expected a number in [0, {MAX_TOKENS_EST}], "
                                                f"got {preview(tokens_raw)}")
    epoch = get("epoch", 0)
    if type(epoch) is not int:
        check_field(epoch, (int,), where, "epoch")
    if epoch < 0:
        raise field_error(where, "epoch", f"expected a non-negative integer, got {epoch}")
    requests = offers = canonical = format_errors = responder_errors = raw_fallbacks = 0
    prompt = completion = reasoning = usage_turns = reasoning_turns = solver_turns = 0
    first_canonical = first_offered = False
    before_first: Optional[int] = None
    last_answer: Any = None
    hints = info.canonical - info.irrelevant if info.irrelevant else info.canonical   # needed lines
    groups = info.groups
    acquired: set = set()
    new_facts = irrelevant_offers = 0
    irrelevant = info.irrelevant
    guessed = False
    for n, turn in enumerate(turns):                # the hot loop: checks inline, helpers on failure
        if type(turn) is not dict:
            check_field(turn, (dict,), where, f"turns[{n}]")
        role = turn.get("role")
        if role == "solver":
            action = turn.get("action")
            if type(action) is not str:
                check_field(action, (str,), where, f"turns[{n}].action")
            if action == "format_error":
                format_errors += 1
            elif action == "answer":
                last_answer = turn
                guessed = len(acquired) < len(groups)
            solver_turns += 1
            meta = turn.get("meta")
            usage = meta.get("usage") if type(meta) is dict else None
            if type(usage) is dict:                 # the backend's report; a partial one is not counted
                used, made = usage.get("prompt_tokens"), usage.get("completion_tokens")
                if type(used) is int and type(made) is int:
                    if used < 0 or made < 0:
                        raise field_error(where, f"turns[{n}].meta.usage", "negative token count")
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
                raise field_error(where, f"turns[{n}].decision",
                                   f"expected 'offer' or 'decline', got {preview(decision)}")
            line = turn.get("quoted_constraint")
            if line is not None and type(line) is not str:
                check_field(line, (str, type(None)), where, f"turns[{n}].quoted_constraint")
            meta = turn.get("meta")
            if type(meta) is dict and meta.get("fallback") == "raw_text_offer":
                raw_fallbacks += 1
            errors = turn.get("errors")
            if errors:
                check_field(errors, (list,), where, f"turns[{n}].errors")
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
            if is_offer and line in irrelevant:
                irrelevant_offers += 1
            elif is_canonical:
                group = next(g for g, lines in enumerate(groups) if line in lines)
                if group not in acquired:
                    acquired.add(group)
                    new_facts += 1
        else:
            raise field_error(where, f"turns[{n}].role", f"expected 'solver' or 'responder', got "
                                                          f"{preview(role)}")
    tokens_num, tokens_den = _decimal(tokens_raw)
    answered = final is not None
    return InstanceStats(
        info.key, info.family, info.type, info.difficulty, error is not None, correct, requests, offers,
        canonical, first_canonical, first_offered, before_first, format_errors, responder_errors,
        tokens_num, tokens_den, answered, answered and not correct and parsed is None,
        answered and _answer_source(row, last_answer, where) == "fallback",
        info.candidate_answers, epoch, raw_fallbacks, prompt, completion, reasoning, usage_turns,
        reasoning_turns, solver_turns, len(groups), len(acquired), new_facts, info.blind,
        irrelevant_offers, bool(irrelevant), guessed and answered)



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
    for number, row in json_lines(path, digest):
        where = f"{name}:{number}"
        if type(row) is not dict:
            raise ScoringError(f"{where}: not a transcript object")
        get = row.get
        if type(get("id")) is not str:
            check_field(get("id"), (str,), where, "id")
        seed_set = get("seed_set")
        if seed_set is not None and type(seed_set) is not str:
            check_field(seed_set, (str, type(None)), where, "seed_set")
        for field_name, value in expected:
            if get(field_name, value) != value:
                raise field_error(where, field_name, f"{preview(row[field_name])} but {run_dir / MANIFEST} "
                                                      f"says {value!r}: a transcript of another run")
        yield where, row



@dataclass
class RunRecords:
    """A run (declared shards merged, as ``score`` groups them) with each transcript joined to
    the full instance it was run on, in transcript order: what the viewer and the audit read."""

    info: RunInfo
    records: List[Tuple[Dict[str, Any], Instance]]

    @property
    def expected(self) -> int:
        return self.info.expected


def fingerprint_of(info: RunInfo, content: str, version: str) -> str:
    """What a cached scores.json must match to be reused: scoring version, shard layout, content."""
    from_version = "scores-v" + version
    layout = json.dumps([info.run_hash, info.shard_count, sorted(info.shards_present)])
    return hashlib.sha256(f"{from_version}\n{layout}\n{content}".encode("utf-8")).hexdigest()


def content_fingerprint(info: RunInfo, version: str) -> str:
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
    return fingerprint_of(info, digest.hexdigest(), version)


def load_records(run_dir: Path) -> RunRecords:
    """One run directory's transcripts joined with their full instances (for the audit)."""
    from mira_math.generators.schema import DataError, read_jsonl   # full instances: the audit's only

    (info,) = group_runs([run_dir])
    manifest = info.manifests[0]
    dataset = read_run_dataset(manifest, run_dir)
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



__all__ = ["MAX_TOKENS_EST", "InstanceStats", "RunRecords", "content_fingerprint", "fingerprint_of",
           "instance_stats", "iter_transcripts", "load_records"]
