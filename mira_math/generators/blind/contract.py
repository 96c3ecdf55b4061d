"""What a family of the blind tier provides: a complete problem as named quantities, the text
around them, and the exact answer of any assignment of those quantities.

Everything the validator proves is computed from :meth:`BlindFamily.answer` on assignments
that differ from the true one in one quantity, so the proofs are generic: a needed fact is
necessary when another value of its stated domain gives a valid problem with another answer
(a second completion); an irrelevant gap is irrelevant when every value of its domain gives
the same answer, shown by enumerating a finite domain or, for an infinite one, by the degree
argument of :class:`Rational` (never by sampling).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Union

from mira_math.generators.family import Reject as FamilyReject
from mira_math.verifiers.exact import AnswerType, Value

Latent = Dict[str, Any]


# Raised inside ``generate`` to resample a degenerate draw: the one-fact families' own, so a
# helper shared with them (a correlation draw, say) rejects a draw here too.
Reject = FamilyReject


@dataclass(frozen=True)
class Setting:
    """The text around the quantities: the setup paragraph, lines that state structure rather
    than a quantity (a network expression, say), the question and the stated domains.

    ``domain`` must be neutral: it states the domain of every quantity of a kind, never singles
    out the one withheld (the same text whichever slots are absent)."""

    context: str
    question: str
    domain: str
    structure: List[str] = field(default_factory=list)   # fact lines before the quantities
    components: List[str] = field(default_factory=list)  # tuple answers: component names


@dataclass(frozen=True)
class Finite:
    """A finite stated domain: every value, as canonical strings, in a fixed order."""

    values: List[str]


@dataclass(frozen=True)
class Rational:
    """An infinite stated domain on which the answer, as a function of this one quantity (all
    others fixed), is a ratio of polynomials of degree at most ``degree`` that is defined at
    every value of the domain (``reason`` says why, in one line). Such a function that takes
    one value c at ``degree + 1`` distinct points of the domain is c everywhere on it: p - c q
    has degree <= ``degree`` and that many roots, so it is the zero polynomial. ``points`` are
    distinct values of the domain to evaluate at (at least ``degree + 1``)."""

    degree: int
    reason: str
    points: List[str]


Domain = Union[Finite, Rational]


class BlindFamily:
    """Base class of a blind-tier family; a subclass sets the class attributes and implements
    the methods. Slots are the names of quantities in the view's notation (``R4``,
    ``A[2][0]``, ``w(3)``): each is stated by one fact line or withheld, and a withheld one is
    one holder line. Values are canonical strings (``"3"``, ``"-2/5"``)."""

    name: ClassVar[str]                    # the family's name (the one-fact family of the same name)
    type: ClassVar[str]                    # "A" or "B"
    answer_type: ClassVar[AnswerType]
    max_needed: ClassVar[int] = 2          # most needed facts one instance may lack (1 or 2)
    max_answer_share: ClassVar[Fraction] = Fraction(1, 4)
    max_answer_denominator: ClassVar[int] = 500

    def level(self, difficulty: int) -> int:
        """The level actually used (a family whose size does not grow says 1)."""
        return difficulty

    # --- to implement -------------------------------------------------------------------
    def generate(self, rng: random.Random, level: int) -> Latent:
        """A complete problem (JSON-able, exact values only); raise :class:`Reject` to resample."""
        raise NotImplementedError

    def setting(self, latent: Latent) -> Setting:
        """The text around the quantity lines (the same whichever are withheld)."""
        raise NotImplementedError

    def slots(self, latent: Latent) -> List[str]:
        """Every quantity the view states or withholds, in the view's order."""
        raise NotImplementedError

    def value(self, latent: Latent, slot: str) -> str:
        """A quantity's true value, canonical."""
        raise NotImplementedError

    def answer(self, latent: Latent, values: Mapping[str, str]) -> Optional[Value]:
        """The exact answer when the quantities take ``values`` (every slot); None when they
        leave the stated domain or the problem's assumptions (not invertible, say)."""
        raise NotImplementedError

    def needable(self, latent: Latent) -> List[str]:
        """Slots that may be withheld as needed facts (each must be necessary)."""
        raise NotImplementedError

    def irrelevant(self, latent: Latent) -> List[str]:
        """Slots that may be withheld as irrelevant gaps (their value never changes the answer)."""
        raise NotImplementedError

    def domain(self, latent: Latent, slot: str) -> Domain:
        """The stated domain of one quantity, for the proofs."""
        raise NotImplementedError

    def alternatives(self, latent: Latent, slot: str) -> List[str]:
        """Values of the stated domain to try, in order, as a needed slot's second completion
        (the first valid one with another answer is kept). A finite domain's own values are
        tried after these."""
        return []

    # --- with defaults ----------------------------------------------------------------
    def check(self, latent: Latent) -> Optional[str]:
        """Why the drawn state is not a valid problem, or None (default: its answer exists)."""
        return None if self.true_answer(latent) is not None else "the answer is undefined"

    def line(self, latent: Latent, slot: str, value: str) -> str:
        """The fact line (and holder line) stating a quantity."""
        return f"{slot} = {value}"

    def values(self, latent: Latent) -> Dict[str, str]:
        return {s: self.value(latent, s) for s in self.slots(latent)}

    def true_answer(self, latent: Latent) -> Optional[Value]:
        return self.answer(latent, self.values(latent))
