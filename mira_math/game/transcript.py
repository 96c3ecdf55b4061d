"""The transcript of one episode: every message, every responder decision, the verdict.

One JSON line per finished instance in ``RUN_DIR/transcripts.jsonl``. Scoring reads these
lines alone (with the dataset), so everything a metric needs is recorded here.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Dict, List, Optional, Tuple

TRANSCRIPT_VERSION = "1"
OMIT_DEFAULT = "omit_default"      # a field's metadata key: not written while it holds its default


@dataclass
class SolverTurn:
    raw: str                           # the model's text, verbatim
    action: str                        # "request", "answer" or "format_error"
    content: str                       # the request or answer text ("" for a format error)
    final_turn: bool                   # this was the answer-only turn
    finish_reason: Optional[str] = None
    meta: Dict[str, Any] = field(default_factory=dict)
    answer_source: Optional[str] = None  # an answer's source: "marker" (ANSWER: line) or "fallback"
    role: str = "solver"
    # why this turn is a format error when it is not a missing action line: "truncated" (cut
    # off by the token limit, finish_reason "length"), "refusal" (the model's refusal, in
    # ``refusal``), "empty" (no text) or "reasoning_only" (reasoning but no visible text)
    format_error: Optional[str] = None
    refusal: Optional[str] = None
    # reasoning models: the thinking (inline <think> blocks and the server's reasoning field),
    # never read for an action; the reasoning tokens the server reported, if it did
    reasoning: Optional[str] = None
    reasoning_tokens: Optional[int] = None
    # where the message was cut because it began speaking for the information holder or the
    # user: {"line": 1-based line, "speaker": that line's start, "dropped": the text removed}
    speaker_cut: Optional[Dict[str, Any]] = None


@dataclass
class ResponderTurn:
    request: str
    decision: str                      # "offer" or "decline"
    quoted_constraint: Optional[str]   # the private line offered (verbatim), else None
    canonical: bool                    # the offered line is a canonical hint
    shown: str                         # exactly what the solver was shown
    raw: Optional[str] = None
    parsed: Optional[Dict[str, Any]] = None
    hint: Optional[str] = None
    errors: List[str] = field(default_factory=list)
    meta: Dict[str, Any] = field(default_factory=dict)
    role: str = "responder"


@dataclass
class Transcript:
    id: str
    family: str
    type: str
    difficulty: int
    budget: int
    solver: str
    responder: str
    regime: str
    condition: str                     # "standard" or "oracle_hint"
    turns: List[Any] = field(default_factory=list)   # SolverTurn / ResponderTurn, in order
    final_answer: Optional[str] = None
    ended_by: Optional[str] = None
    answer_source: Optional[str] = None               # the final answer's: "marker" or "fallback"
    verdict: Optional[Dict[str, Any]] = None          # correct, expected, parsed, reason
    tokens_est: float = 0.0            # words x 1.3 over solver and responder messages
    wall_s: float = 0.0
    error: Optional[Dict[str, Any]] = None            # backend failure after retries
    version: str = TRANSCRIPT_VERSION
    # which of the run's samples of this instance (``--epochs``): written last and only when
    # > 0, so a one-epoch run's lines are the bytes they were before epochs existed
    epoch: int = field(default=0, metadata={OMIT_DEFAULT: True})

    def to_json_line(self) -> str:
        """Strict JSON: a non-finite float (NaN from some model's JSON) is written as null."""
        try:
            return _ENCODER.encode(self) + "\n"
        except ValueError:
            return _ENCODER.encode(_finite(json.loads(_LOOSE.encode(self)))) + "\n"


_LAYOUT: Dict[type, Tuple[Tuple[str, ...], Tuple[Tuple[str, Any], ...]]] = {}


def _layout(cls: type) -> Tuple[Tuple[str, ...], Tuple[Tuple[str, Any], ...]]:
    """A dataclass's field names in order, and the (name, default) of those marked
    :data:`OMIT_DEFAULT` (read once per class)."""
    found = _LAYOUT.get(cls)
    if found is None:
        every = fields(cls)
        found = _LAYOUT[cls] = (tuple(f.name for f in every),
                                tuple((f.name, f.default) for f in every if f.metadata.get(OMIT_DEFAULT)))
    return found


def _fields_of(obj: Any) -> Dict[str, Any]:
    """A dataclass as a shallow dict of its fields, in declaration order: the JSON encoder walks
    the values itself, so nothing is deep-copied (``dataclasses.asdict`` copies every turn).
    Generic over fields, so a field added to a turn is written without touching this; a field
    marked :data:`OMIT_DEFAULT` is left out while it holds its default."""
    if is_dataclass(obj) and not isinstance(obj, type):
        names, optional = _layout(type(obj))
        out = {name: getattr(obj, name) for name in names}
        for name, default in optional:
            if out[name] == default:
                del out[name]
        return out
    raise TypeError(f"cannot write {type(obj).__name__} in a transcript")


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_fields_of, allow_nan=False)
_LOOSE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_fields_of)


def _finite(value: Any) -> Any:
    """``value`` with NaN and the infinities replaced by None (JSON null)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def estimate_tokens(texts: List[str]) -> float:
    """The paper's estimate: words x 1.3."""
    return round(1.3 * sum(len(t.split()) for t in texts), 1)
