"""What a converter returns (:class:`Conversion`) and the helpers converters of both types
share."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

from mira_math.generators.linalg import Number, rank

if TYPE_CHECKING:  # pragma: no cover
    from mira_math.reference_import.record import Record


@dataclass
class Conversion:
    """What a family converter derives from a record."""

    known: Dict[str, Any]          # our family's `known`, from their solver view + metadata
    slot: str                      # canonical hint slot identifier
    value: str                     # canonical hint value, in our family's form
    context: str
    question: str
    domain: str
    findings: List[Tuple[str, str]] = field(default_factory=list)   # (property, detail)
    finish: Optional[Callable[[dict], dict]] = None   # adds what complete() leaves out
    candidates: Optional[int] = None                  # chance level of THEIR view, if it differs
    candidates_override: bool = False
    expressible: bool = True       # False: our family's latent format cannot hold this state


def as_fraction(c: dict) -> Fraction:
    """The fraction a constraint states as ``num`` and ``denom``."""
    return Fraction(c["num"], c["denom"])


def determined(rows: Sequence[Sequence[Number]], target: Sequence[Number]) -> bool:
    """Whether the linear functional ``target`` is fixed by the (consistent) linear system
    with coefficient rows ``rows``: it lies in their row space."""
    if not rows:
        return not any(target)
    return rank(list(rows)) == rank(list(rows) + [list(target)])


def view_determines(detail: str) -> Tuple[str, str]:
    """The finding that the source's solver view fixes the answer without the hint."""
    return ("local_underdetermination", "source view already determines the answer: " + detail)


# Each converter registers itself under its family's name (the registry stays the only list).
CONVERTERS: Dict[str, Callable[["Record", int], Conversion]] = {}


def converter(family: str) -> Callable:
    def register(fn: Callable[["Record", int], Conversion]) -> Callable[["Record", int], Conversion]:
        CONVERTERS[family] = fn
        return fn
    return register
