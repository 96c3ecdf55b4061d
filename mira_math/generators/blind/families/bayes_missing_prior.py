"""Bayes' rule with a second test that was not taken: H a hypothesis, E the observed evidence, F
a second test that was not taken, E and F conditionally independent given H and given ¬H. The
question asks P(H|E); P(F|H) and P(F|¬H) are irrelevant gaps: marginalising the untaken F sums
P(F|·) + P(¬F|·) = 1 out of both P(H, E) and P(E), whatever those two values are.

The answer is computed from the full joint model of H, E, F (every slot enters it), F summed
out, so the irrelevance proof is a real check of that model: as a function of P(F|H) (or
P(F|¬H)) alone, P(H|E) = N(q)/D(q) with N, D of degree <= 1 and D > 0 on (0, 1), so two
points with the same value prove it constant. Needed facts are P(H), P(E|H) and P(E|¬H):
P(H|E) is strictly increasing in P(E|H), strictly decreasing in P(E|¬H), and strictly
increasing in P(H) since the draw has P(E|H) != P(E|¬H), so any other value changes it.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Dict, List, Mapping, Optional

from mira_math.common.text import frac
from mira_math.generators.blind.contract import BlindFamily, Domain, Latent, Rational, Reject, Setting

PRIOR, SENS, FPR, F_H, F_NOT_H = "P(H)", "P(E|H)", "P(E|¬H)", "P(F|H)", "P(F|¬H)"
SLOTS = (PRIOR, SENS, FPR, F_H, F_NOT_H)
_TRIES = ("1/2", "1/3", "2/3", "1/4", "3/4")


def _parse(text: str) -> Optional[Fraction]:
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None
    return value if 0 < value < 1 else None


def _posterior(p: Mapping[str, Fraction]) -> Fraction:
    """P(H|E) from the joint of H, E, F, the untaken F summed out."""
    def joint(h: bool, e: bool, f: bool) -> Fraction:
        ph = p[PRIOR] if h else 1 - p[PRIOR]
        pe = p[SENS] if h else p[FPR]
        pf = p[F_H] if h else p[F_NOT_H]
        return ph * (pe if e else 1 - pe) * (pf if f else 1 - pf)

    h_and_e = sum((joint(True, True, f) for f in (True, False)), Fraction(0))
    e = h_and_e + sum((joint(False, True, f) for f in (True, False)), Fraction(0))
    return h_and_e / e


class BayesBlind(BlindFamily):
    name = "bayes_missing_prior"
    type = "A"
    answer_type = "fraction"

    def generate(self, rng: random.Random, level: int) -> Latent:
        top = 4 + 2 * level

        def draw() -> Fraction:
            b = rng.randint(2, top)
            return Fraction(rng.randint(1, b - 1), b)

        values: Dict[str, Fraction] = {slot: draw() for slot in SLOTS}
        if values[SENS] == values[FPR]:
            raise Reject("P(E|H) = P(E|¬H) makes the evidence uninformative")
        return {"level": level, "values": values}

    def setting(self, latent: Latent) -> Setting:
        context = ("H is a hypothesis and ¬H its complement. Two tests bear on it: test E, which "
                   "was taken and came out positive (the evidence E was observed), and test F, "
                   "which was not taken. E and F are conditionally independent given H and given "
                   "¬H. The model is given by P(H), P(E|H), P(E|¬H), P(F|H) and P(F|¬H).")
        return Setting(context, "What is P(H|E)? Give it as a reduced fraction.",
                       "Every probability of the model is strictly between 0 and 1.")

    def slots(self, latent: Latent) -> List[str]:
        return list(SLOTS)

    def value(self, latent: Latent, slot: str) -> str:
        return frac(latent["values"][slot])

    def answer(self, latent: Latent, values: Mapping[str, str]) -> Optional[Fraction]:
        parsed: Dict[str, Fraction] = {}
        for slot in SLOTS:
            v = _parse(values[slot])
            if v is None:
                return None
            parsed[slot] = v
        return _posterior(parsed)

    def needable(self, latent: Latent) -> List[str]:
        return [PRIOR, SENS, FPR]

    def irrelevant(self, latent: Latent) -> List[str]:
        return [F_H, F_NOT_H]

    def domain(self, latent: Latent, slot: str) -> Domain:
        return Rational(1, f"the joint of H, E, F is multilinear in the model's probabilities, so "
                           f"P(H|E) = P(H, E)/P(E) is N/D with N, D of degree <= 1 in {slot}, and "
                           "D = P(E) > 0 for every value in (0, 1)", ["1/4", "1/2", "3/4"])

    def alternatives(self, latent: Latent, slot: str) -> List[str]:
        return [v for v in _TRIES if v != self.value(latent, slot)]


FAMILY = BayesBlind()
