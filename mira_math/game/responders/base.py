"""The responder interface and the one rule every responder obeys: the solver is only ever
shown the fixed decline text or one of the responder's private constraint lines, verbatim."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Protocol, Sequence, runtime_checkable

from mira_math.game.protocol import DECLINE_TEXT


@dataclass(frozen=True)
class ResponderCall:
    """All a responder may see: its private lines, the current request, and the family name
    (the rules responder's notation table is per family); the rules responder also reads the
    instance's question, only to recognise the target in the request's wording (an LLM
    responder is never shown it). Never the history or the answer."""

    constraints: List[str]
    request: str
    family: str
    seed: int
    question: str = ""


@dataclass
class ResponderResult:
    decision: str                          # "offer" or "decline"
    quoted_constraint: Optional[str]       # the private line offered, verbatim; None for a decline
    raw: Optional[str] = None              # raw model output (llm responder)
    parsed: Optional[Dict[str, Any]] = None
    hint: Optional[str] = None             # the model's hint field: logged, never shown
    errors: List[str] = field(default_factory=list)
    meta: Dict[str, Any] = field(default_factory=dict)

    @property
    def shown(self) -> str:
        """Exactly what the solver is shown."""
        return self.quoted_constraint if self.decision == "offer" and self.quoted_constraint else DECLINE_TEXT


def decline(errors: Sequence[str] = (), **extra: Any) -> ResponderResult:
    return ResponderResult("decline", None, errors=list(errors), **extra)


def _squash(text: str) -> str:
    return "".join(text.split())


_LIST_MARKER = re.compile(r"\s*(?:\(?\d{1,3}[.)]|[-*•·])\s+")
_LABEL_END = re.compile(r"[:=]")


def value_part(line: str) -> str:
    """A private line without its label: the text after the first ``:`` or ``=``
    (``congruence 3: x ≡ 1 (mod 3)`` -> ``x ≡ 1 (mod 3)``); empty when there is none."""
    cut = _LABEL_END.search(line)
    return line[cut.end():].strip() if cut else ""


def match_constraint(constraints: Sequence[str], quoted: object) -> Optional[str]:
    """The private line ``quoted`` reproduces up to whitespace, else None.

    Two echoes of the prompt's own layout are accepted too: a leading list marker (``1. ``,
    ``- ``) before an exact line, and a line quoted without its label (``x ≡ 1 (mod 3)`` for
    ``congruence 3: x ≡ 1 (mod 3)``) when that value part is exactly one private line's and
    no other line's value part is the same."""
    if not isinstance(quoted, str) or not quoted.strip():
        return None
    candidates = [quoted]
    marker = _LIST_MARKER.match(quoted)
    if marker:
        candidates.append(quoted[marker.end():])
    keyed: Dict[str, str] = {}
    for line in constraints:
        keyed.setdefault(_squash(line), line)
    for text in candidates:
        if _squash(text) in keyed:
            return keyed[_squash(text)]
    for text in candidates:
        key = _squash(text)
        hits = [line for line in constraints if key and _squash(value_part(line)) == key]
        if len(hits) == 1:
            return hits[0]
    return None


@runtime_checkable
class Responder(Protocol):
    name: str

    def respond(self, turns: Sequence[ResponderCall]) -> List[ResponderResult]: ...

    def describe(self) -> Dict[str, Any]: ...
