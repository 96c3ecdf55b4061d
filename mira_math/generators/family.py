"""The family interface: what every one of the 22 generator modules provides.

A family turns a ``random.Random`` and a difficulty into a *latent state* (a JSON-able dict
of ints, Fractions, strings and lists) and knows how to render it into the two views, solve
it exactly, and prove that the solver's view alone does not fix the answer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import AbstractSet, Any, ClassVar, Dict, List, Optional, Sequence, Tuple

from mira_math.generators.schema import Hint
from mira_math.verifiers.exact import AnswerType, Value

Latent = Dict[str, Any]


class Reject(Exception):
    """Raised inside ``generate`` (or returned by ``check``) to resample a degenerate draw."""


@dataclass(frozen=True)
class Rendered:
    """Both views of a latent state, in the one notation the family uses throughout."""

    context: str                 # setup paragraph shown to the solver (notation, rules)
    facts: List[str]             # the solver's fact lines
    question: str                # the target question
    domain: str                  # the stated domain of the unknowns
    responder: List[str]         # the responder's private constraint lines
    hints: List[Hint]            # canonical hints (each constraint is one responder line)
    components: List[str] = field(default_factory=list)  # names of tuple components
    # k >= 2: the hint slots of each withheld fact (a group is acquired by any one of its
    # hints); None for a one-fact instance
    hint_groups: Optional[List[List[str]]] = None


class Family:
    """Base class; subclasses set the class attributes and implement the methods."""

    name: ClassVar[str]
    type: ClassVar[str]                   # "A" or "B"
    answer_type: ClassVar[AnswerType]
    scales_with_difficulty: ClassVar[bool] = True
    # Largest share one answer value may hold at any difficulty (docs/benchmark.md §4). Families whose
    # answers have only two possible values (tomography) state their own bound.
    max_answer_share: ClassVar[Fraction] = Fraction(1, 4)
    # Largest reduced denominator of a fraction answer (and of every tuple component),
    # docs/benchmark.md §4: 500, and 200 for markov_missing_transition.
    max_answer_denominator: ClassVar[int] = 500
    # Latent fields that only choose which slot is hidden (Type B); the complete problem of
    # :meth:`problem` leaves them out, so the same problem with another slot hidden repeats.
    slot_fields: ClassVar[Tuple[str, ...]] = ()
    # How many facts the solver's view lacks: 1 for the v1.1 families; a family opts in to the
    # multi_hint part (docs/decisions/data.md) with a second object, ``FAMILY_K2`` in its
    # module, whose ``k`` is 2 and which implements the k-aware methods at the end.
    k: ClassVar[int] = 1

    def problem(self, latent: Latent) -> Latent:
        """The complete problem: the latent state with the slot filled in, without the level
        and without the fields that choose the hidden slot (the disjointness key)."""
        return {k: v for k, v in latent.items() if k != "level" and k not in self.slot_fields}

    def resolving_slots(self, latent: Latent) -> Optional[List[str]]:
        """Every slot whose true value alone fixes the answer, for families that can
        enumerate them (tomography); the responder must hold exactly these."""
        return None

    def balanced_answer(self, index: int) -> Optional[str]:
        """The answer the ``index``-th instance of a block must have, for families whose
        answers take two values (tomography): balance is then exact, not a coin flip."""
        return None

    def level(self, difficulty: int) -> int:
        """The level actually used (crt and tomography stay at 1)."""
        return difficulty if self.scales_with_difficulty else 1

    # --- to implement -----------------------------------------------------------------
    def generate(self, rng: random.Random, level: int) -> Latent:
        """Draw a latent state; raise :class:`Reject` to resample."""
        raise NotImplementedError

    def render(self, latent: Latent) -> Rendered:
        """The solver's view, the responder's lines and the canonical hint(s)."""
        raise NotImplementedError

    def solve(self, latent: Latent) -> Value:
        """The exact answer of the complete state."""
        raise NotImplementedError

    def check(self, latent: Latent) -> Optional[str]:
        """Why the state is not a valid instance (domain, uniqueness, non-degeneracy), or None."""
        raise NotImplementedError

    def known(self, latent: Latent) -> Dict[str, Any]:
        """What the solver's fact lines state, as data (the facts are a rendering of it)."""
        raise NotImplementedError

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        """Rebuild the complete state from the solver's knowledge plus one canonical hint.

        Reads only ``known`` and ``hint`` (slot and value); raises ``ValueError`` if they do
        not pin down a unique state. Hint sufficiency is checked through this method.
        """
        raise NotImplementedError

    def witness(self, latent: Latent) -> Optional[Latent]:
        """Another valid state with the same solver view and a different answer.

        Families with a finite answer set may instead implement :meth:`candidates`.
        """
        return None

    def candidates(self, known: Dict[str, Any]) -> Optional[AbstractSet[Value]]:
        """All answers the solver's view leaves possible over its stated domain, if finite."""
        return None

    # --- k-aware proofs (multi_hint): the defaults are the one-fact methods above ----------
    def complete_many(self, known: Dict[str, Any], hints: Sequence[Hint]) -> Latent:
        """Rebuild the complete state from the solver's knowledge plus one hint of each group
        (``k`` hints); ``ValueError`` when they do not pin down a unique state."""
        if self.k == 1 and len(hints) == 1:
            return self.complete(known, hints[0])
        raise NotImplementedError(f"{self.name}: no completion from {len(hints)} hints")

    def witness_given(self, latent: Latent, given: Optional[Hint]) -> Optional[Latent]:
        """Another valid state with the same solver view that also agrees with the fact
        ``given`` (None: the view alone), and has a different answer."""
        if given is None:
            return self.witness(latent)
        raise NotImplementedError(f"{self.name} withholds one fact: nothing is given beside the view")

    def witness_given_all(self, latent: Latent, given: Sequence[Hint]) -> Optional[Latent]:
        """As :meth:`witness_given`, agreeing with every fact of ``given`` (several hints of
        one group, say): the proof that hints from fewer than ``k`` groups leave the answer
        open. A family whose groups hold one hint each never needs more than one."""
        if len(given) <= 1:
            return self.witness_given(latent, given[0] if given else None)
        raise NotImplementedError(f"{self.name}: no second completion agreeing with "
                                  f"{len(given)} hints")

    def candidates_given(self, known: Dict[str, Any], given: Sequence[Hint]
                         ) -> Optional[AbstractSet[Value]]:
        """All answers the view plus the facts ``given`` leave possible, if finite (a family
        with a finite answer set and k >= 2 overrides it; None: the set is infinite)."""
        return self.candidates(known) if not given else None

    def given_value(self, given: Sequence[Hint], slot: str) -> Optional[str]:
        """The value ``given`` states for ``slot``, or None."""
        return next((h.value for h in given if h.slot == slot), None)
