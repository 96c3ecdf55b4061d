"""Birth-death chain asked for a ratio pi_a / pi_b: the rates outside the states between a and b
are irrelevant.

States 0..n-1, birth rates lambda_i (i -> i+1) and death rates mu_i (i -> i-1), as in the
one-fact family. Detailed balance gives pi_{k+1} / pi_k = lambda_k / mu_{k+1}, so for i < j
the ratio pi_j / pi_i is the product of lambda_k / mu_{k+1} over i <= k < j and never reads a
rate of a transition outside the states i..j (lambda_k with k < i or k >= j, mu_k with k <= i
or k > j). Every rate's stated domain is finite (integers in [1, top]), so the irrelevance of
such a rate is proved by enumerating it; the answer is recomputed from the full stationary
distribution (every rate read), not from the product. Needed facts are the rates between i and
j: the ratio is strictly monotone in each, so any other value changes it.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Dict, List, Mapping, Optional

from mira_math.generators.blind.contract import BlindFamily, Domain, Finite, Latent, Setting
from mira_math.generators.families.birth_death_missing_rate import _max_rate, _rate_names, _weights


def _between(name: str, lo: int, hi: int) -> bool:
    """Whether a rate is a transition between two of the states lo..hi."""
    kind, index = name.split("_")
    k = int(index)
    return lo <= k < hi if kind == "lambda" else lo < k <= hi


class BirthDeathBlind(BlindFamily):
    name = "birth_death_missing_rate"
    type = "B"
    answer_type = "fraction"

    def generate(self, rng: random.Random, level: int) -> Latent:
        n = level + 3
        span = rng.randint(*{1: (1, 2), 2: (1, 3), 3: (2, 3)}[level])
        lo = rng.randint(0, n - 1 - span)
        hi = lo + span      # span < n - 1: some rate always lies outside lo..hi
        top = _max_rate(level)
        rates = {name: rng.randint(1, top) for name in _rate_names(n)}
        a, b = (hi, lo) if rng.random() < 0.5 else (lo, hi)
        return {"level": level, "n": n, "rates": rates, "num": a, "den": b}

    def setting(self, latent: Latent) -> Setting:
        n, a, b = latent["n"], latent["num"], latent["den"]
        births = ", ".join(f"lambda_{i}" for i in range(n - 1))
        deaths = ", ".join(f"mu_{i}" for i in range(1, n))
        states = ", ".join(str(i) for i in range(n))
        context = (f"A continuous-time birth-death chain has states {states}. Its birth rates are "
                   f"{births}, where lambda_i is the rate of the transition from state i to state "
                   f"i+1; its death rates are {deaths}, where mu_i is the rate of the transition "
                   "from state i to state i-1. No other transitions occur. pi_i is the stationary "
                   "probability of state i.")
        return Setting(context,
                       f"What is pi_{a} / pi_{b}, the ratio of the stationary probabilities of "
                       f"states {a} and {b}? Give it as a reduced fraction.",
                       f"Every rate is an integer between 1 and {_max_rate(latent['level'])}.")

    def slots(self, latent: Latent) -> List[str]:
        return _rate_names(latent["n"])

    def value(self, latent: Latent, slot: str) -> str:
        return str(latent["rates"][slot])

    def answer(self, latent: Latent, values: Mapping[str, str]) -> Optional[Fraction]:
        top = _max_rate(latent["level"])
        rates: Dict[str, int] = {}
        for slot in self.slots(latent):
            v = Fraction(values[slot])
            if v.denominator != 1 or not 1 <= v <= top:
                return None
            rates[slot] = int(v)
        w = _weights(latent["n"], rates)
        return Fraction(w[latent["num"]], w[latent["den"]])

    def _range(self, latent: Latent) -> tuple:
        return min(latent["num"], latent["den"]), max(latent["num"], latent["den"])

    def needable(self, latent: Latent) -> List[str]:
        lo, hi = self._range(latent)
        return [s for s in self.slots(latent) if _between(s, lo, hi)]

    def irrelevant(self, latent: Latent) -> List[str]:
        lo, hi = self._range(latent)
        return [s for s in self.slots(latent) if not _between(s, lo, hi)]

    def domain(self, latent: Latent, slot: str) -> Domain:
        return Finite([str(v) for v in range(1, _max_rate(latent["level"]) + 1)])

    def alternatives(self, latent: Latent, slot: str) -> List[str]:
        v, top = latent["rates"][slot], _max_rate(latent["level"])
        return [str(x) for x in (v + 1, v - 1) if 1 <= x <= top]


FAMILY = BirthDeathBlind()
