"""A second-order linear recurrence with a(1) withheld: the solver has the rule and a(0)."""

from __future__ import annotations

import random
from typing import Any, Dict, List, Optional, Sequence

from mira_math.generators.family import Family, Latent, Reject, Rendered
from mira_math.generators.schema import Hint
from mira_math.common.text import frac

_SLOT = "a(1)"


def _bound(level: int) -> int:
    """|r2|, |a(0)|, |a(1)| <= 3+d and r1 <= 3+d (docs/benchmark.md §5)."""
    return 3 + level


def _terms(r1: int, r2: int, a0: int, a1: int, n: int) -> List[int]:
    seq = [a0, a1]
    for _ in range(2, n + 1):
        seq.append(r1 * seq[-1] + r2 * seq[-2])
    return seq


def _a1_coefficient(r1: int, r2: int, n: int) -> int:
    """Coefficient of a(1) in a(n): the same recurrence from (0, 1). Zero would make the
    target independent of the withheld fact."""
    return _terms(r1, r2, 0, 1, n)[n]


def _rule(r1: int, r2: int) -> str:
    """Both coefficients written out (r2 = 0 included), so the line states r1 and r2."""
    return f"a(n) = {r1}·a(n-1) {'-' if r2 < 0 else '+'} {abs(r2)}·a(n-2) for n ≥ 2"


class RecurrenceMissingInit(Family):
    name = "recurrence_missing_init"
    type = "A"
    answer_type = "int"

    def generate(self, rng: random.Random, level: int) -> Latent:
        b = _bound(level)
        latent = {
            "level": level, "r1": rng.randint(1, b), "r2": rng.randint(-b, b),
            "a0": rng.randint(-b, b), "a1": rng.randint(-b, b), "n": rng.randint(4, 7 + level),
        }
        problem = self.check(latent)
        if problem:
            raise Reject(problem)
        return latent

    def check(self, latent: Latent) -> Optional[str]:
        level = latent["level"]
        b = _bound(level)
        values = [latent[k] for k in ("r1", "r2", "a0", "a1", "n")]
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return "recurrence data must be integers"
        r1, r2, a0, a1, n = values
        if not 1 <= r1 <= b:
            return f"r1 = {r1} outside [1, {b}]"
        for key, v in (("r2", r2), ("a(0)", a0), ("a(1)", a1)):
            if not -b <= v <= b:
                return f"{key} = {v} outside [-{b}, {b}]"
        if not 4 <= n <= 7 + level:
            return f"target index {n} outside [4, {7 + level}]"
        if a0 == 0 and a1 == 0:
            return "a(0) = a(1) = 0 gives the zero sequence"
        if _a1_coefficient(r1, r2, n) == 0:
            return f"a({n}) does not depend on a(1)"
        return None

    def render(self, latent: Latent) -> Rendered:
        rule = _rule(latent["r1"], latent["r2"])
        a1_line = f"{_SLOT} = {frac(latent['a1'])}"
        return Rendered(
            context="The integer sequence a(0), a(1), a(2), ... satisfies a second-order linear "
                    "recurrence a(n) = r1·a(n-1) + r2·a(n-2) for n ≥ 2, with constant integer "
                    "coefficients r1 and r2; the sequence is fixed by the rule and its two initial "
                    "values a(0) and a(1).",
            facts=[rule, f"a(0) = {frac(latent['a0'])}"],
            question=f"What is a({latent['n']})? Give it as an integer.",
            domain="The initial value a(1) is an integer.",
            responder=[rule, a1_line],
            hints=[Hint(_SLOT, a1_line, frac(latent["a1"]))],
        )

    def solve(self, latent: Latent) -> int:
        n = latent["n"]
        return _terms(latent["r1"], latent["r2"], latent["a0"], latent["a1"], n)[n]

    def known(self, latent: Latent) -> Dict[str, Any]:
        return {k: latent[k] for k in ("level", "r1", "r2", "a0", "n")}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        if hint.slot != _SLOT:
            raise ValueError(f"unknown slot {hint.slot!r}")
        return {**known, "a1": int(hint.value)}

    def witness(self, latent: Latent) -> Optional[Latent]:
        # a(n*) = c·a(1) + (terms in a(0)) with c != 0, so any other valid a(1) differs.
        for step in (1, -1, 2, -2):
            alt = {**latent, "a1": latent["a1"] + step}
            if self.check(alt) is None:
                return alt
        return None


FAMILY = RecurrenceMissingInit()


def _a0_coefficient(r1: int, r2: int, n: int) -> int:
    """Coefficient of a(0) in a(n): the same recurrence from (1, 0)."""
    return _terms(r1, r2, 1, 0, n)[n]


class RecurrenceTwoFacts(RecurrenceMissingInit):
    """Both initial values withheld: the solver has the rule and the target index. a(n*) =
    A·a(0) + B·a(1) with A, B != 0 (checked), so either value alone leaves it open."""

    k = 2

    def check(self, latent: Latent) -> Optional[str]:
        problem = super().check(latent)
        if problem:
            return problem
        if _a0_coefficient(latent["r1"], latent["r2"], latent["n"]) == 0:
            return f"a({latent['n']}) does not depend on a(0)"
        return None

    def render(self, latent: Latent) -> Rendered:
        a0_line, a1_line = f"a(0) = {frac(latent['a0'])}", f"{_SLOT} = {frac(latent['a1'])}"
        return Rendered(
            context="The integer sequence a(0), a(1), a(2), ... satisfies a second-order linear "
                    "recurrence a(n) = r1·a(n-1) + r2·a(n-2) for n ≥ 2, with constant integer "
                    "coefficients r1 and r2; the sequence is fixed by the rule and its two initial "
                    "values a(0) and a(1).",
            facts=[_rule(latent["r1"], latent["r2"])],
            question=f"What is a({latent['n']})? Give it as an integer.",
            domain="The initial values a(0) and a(1) are integers, not both zero.",
            responder=[a0_line, a1_line],
            hints=[Hint("a(0)", a0_line, frac(latent["a0"])), Hint(_SLOT, a1_line, frac(latent["a1"]))],
            hint_groups=[["a(0)"], [_SLOT]],
        )

    def known(self, latent: Latent) -> Dict[str, Any]:
        return {k: latent[k] for k in ("level", "r1", "r2", "n")}

    def complete_many(self, known: Dict[str, Any], hints: Sequence[Hint]) -> Latent:
        a0, a1 = self.given_value(hints, "a(0)"), self.given_value(hints, _SLOT)
        if a0 is None or a1 is None or len(hints) != 2:
            raise ValueError("needs exactly a(0) and a(1)")
        return {**known, "a0": int(a0), "a1": int(a1)}

    def witness_given(self, latent: Latent, given: Optional[Hint]) -> Optional[Latent]:
        key = "a0" if given is not None and given.slot == _SLOT else "a1"
        for step in (1, -1, 2, -2):
            alt = {**latent, key: latent[key] + step}
            if self.check(alt) is None:
                return alt
        return None


FAMILY_K2 = RecurrenceTwoFacts()
