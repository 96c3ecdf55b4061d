"""A second-order linear recurrence a(n) = r1·a(n-1) + r2·a(n-2) with its two coefficients and
two initial values each stated on its own line (``r1``, ``r2``, ``a(0)``, ``a(1)``).

The irrelevant gap is an initial value the asked term a(N) cannot reach: when r2 = 0 the
recurrence is first order from a(1) on (a(N) = r1^(N-1)·a(1)), so a(0) is irrelevant; when
r1 = 0 it skips a lag (a(n) = r2·a(n-2)), so the terms of N's parity never read the initial
value of the other parity (a(1) for even N, a(0) for odd N). Draws make a zero coefficient
common in every kind, so a stated 0 does not tell the kind. Each gap's irrelevance is proved
by enumerating its stated range.

Any slot whose value changes a(N) within the stated range can be needed: an initial value
with a nonzero coefficient in a(N), and either recurrence coefficient (a(N) is a polynomial
in it); each is checked by enumeration when drawn and proved by a second completion. The zero
coefficient behind a gap is never needed (always stated): the gap is then irrelevant given
the view itself, whatever the needed facts turn out to be.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import List, Mapping, Optional

from mira_math.generators.blind.contract import BlindFamily, Domain, Finite, Latent, Reject, Setting

SLOTS = ("r1", "r2", "a(0)", "a(1)")


def _bound(level: int) -> int:
    return 3 + level


def _term(r1: int, r2: int, a0: int, a1: int, n: int) -> int:
    prev, cur = a0, a1
    if n == 0:
        return a0
    for _ in range(2, n + 1):
        prev, cur = cur, r1 * cur + r2 * prev
    return cur


def _structural_gaps(latent: Latent) -> List[str]:
    """Initial values a(N) cannot reach because of a zero coefficient."""
    v, n = latent["values"], latent["n"]
    if v["r2"] == 0 and v["r1"] != 0:
        return ["a(0)"]
    if v["r1"] == 0 and v["r2"] != 0:
        return ["a(1)"] if n % 2 == 0 else ["a(0)"]
    return []


class RecurrenceBlind(BlindFamily):
    name = "recurrence_missing_init"
    type = "A"
    answer_type = "int"
    # one needed fact at most: with two withheld beside an irrelevant one, the view is one line
    # (the zero coefficient) and a split runs out of distinct views
    max_needed = 1

    def generate(self, rng: random.Random, level: int) -> Latent:
        b = _bound(level)
        nonzero = [x for x in range(-b, b + 1) if x != 0]
        r1, r2 = rng.choice(nonzero), rng.choice(nonzero)
        zero = rng.random()
        if zero < 0.3:
            r2 = 0
        elif zero < 0.6:
            r1 = 0
        n = rng.randint(4, 5 + level)
        latent = {"level": level, "n": n,
                  "values": {"r1": r1, "r2": r2, "a(0)": rng.randint(-b, b), "a(1)": rng.randint(-b, b)}}
        truth = self.answer(latent, self.values(latent))
        if truth is None or truth == 0:
            raise Reject("a zero target term")
        if abs(truth) > 10 ** 4:
            raise Reject("a target term above 10^4 in size")
        if len(self.needable(latent)) < 2:
            raise Reject("fewer than two needable slots")
        return latent

    def setting(self, latent: Latent) -> Setting:
        context = ("The integer sequence a(0), a(1), a(2), ... satisfies the second-order linear "
                   "recurrence a(n) = r1·a(n-1) + r2·a(n-2) for n ≥ 2, with constant integer "
                   "coefficients r1 and r2; the sequence is fixed by r1, r2 and its two initial "
                   "values a(0) and a(1).")
        b = _bound(latent["level"])
        return Setting(context, f"What is a({latent['n']})? Give it as an integer.",
                       f"Each of r1, r2, a(0) and a(1) is an integer between -{b} and {b} inclusive.")

    def slots(self, latent: Latent) -> List[str]:
        return list(SLOTS)

    def value(self, latent: Latent, slot: str) -> str:
        return str(latent["values"][slot])

    def answer(self, latent: Latent, values: Mapping[str, str]) -> Optional[int]:
        b = _bound(latent["level"])
        parsed = []
        for slot in SLOTS:
            v = Fraction(values[slot])
            if v.denominator != 1 or not -b <= v <= b:
                return None
            parsed.append(int(v))
        r1, r2, a0, a1 = parsed
        return _term(r1, r2, a0, a1, latent["n"])

    def _changes(self, latent: Latent, slot: str) -> bool:
        values = self.values(latent)
        truth = self.answer(latent, values)
        dom = self.domain(latent, slot)
        assert isinstance(dom, Finite)
        return any(self.answer(latent, {**values, slot: x}) != truth for x in dom.values)

    def needable(self, latent: Latent) -> List[str]:
        # the zero coefficient that makes an initial value unreachable is never withheld: the
        # gap is irrelevant given the view itself, not only once the needed facts are known
        keep = "r2" if _structural_gaps(latent) and latent["values"]["r2"] == 0 else \
            "r1" if _structural_gaps(latent) else None
        return [s for s in SLOTS if s != keep and self._changes(latent, s)]

    def irrelevant(self, latent: Latent) -> List[str]:
        return [s for s in _structural_gaps(latent) if not self._changes(latent, s)]

    def domain(self, latent: Latent, slot: str) -> Domain:
        b = _bound(latent["level"])
        return Finite([str(x) for x in range(-b, b + 1)])

    def alternatives(self, latent: Latent, slot: str) -> List[str]:
        v = latent["values"][slot]
        return [str(v + 1), str(v - 1)]


FAMILY = RecurrenceBlind()
