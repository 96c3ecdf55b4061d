"""Birth-death chain with one rate withheld: the solver must find which rate is absent.

States 0..n-1 (n = d+2). ``lambda_i`` is the birth rate i -> i+1 (i = 0..n-2) and ``mu_i``
the death rate i -> i-1 (i = 1..n-1). The latent state stores the rates under exactly these
names, so the context, the facts, the responder line and the hint slot cannot disagree on an
index (the reference implementation's death rates were off by one, docs/benchmark.md §9).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any, Dict, List, Mapping, Optional, Sequence

from mira_math.generators.family import Family, Latent, Rendered
from mira_math.generators.schema import Hint
from mira_math.common.text import frac


def _max_rate(level: int) -> int:
    return 3 + 2 * level


def _rate_names(n: int) -> List[str]:
    """All rate slots in reading order: births first, then deaths, each by index."""
    return [f"lambda_{i}" for i in range(n - 1)] + [f"mu_{i}" for i in range(1, n)]


def _weights(n: int, rates: Mapping[str, int]) -> List[int]:
    """pi_i up to a common factor (detailed balance): lambda_0...lambda_{i-1} · mu_{i+1}...mu_{n-1},
    the product form prod_{k<i} lambda_k / mu_{k+1} cleared of denominators."""
    weights = []
    for i in range(n):
        w = 1
        for k in range(i):
            w *= rates[f"lambda_{k}"]
        for k in range(i + 1, n):
            w *= rates[f"mu_{k}"]
        weights.append(w)
    return weights


def _pi(n: int, rates: Dict[str, int], target: int) -> Fraction:
    """pi_target from the detailed-balance weights."""
    weights = _weights(n, rates)
    return Fraction(weights[target], sum(weights))


def _other_value(value: int, level: int) -> int:
    """A different rate in the same range (the range always holds at least five values)."""
    return value + 1 if value < _max_rate(level) else value - 1


class BirthDeathMissingRate(Family):
    name = "birth_death_missing_rate"
    type = "B"
    answer_type = "fraction"
    slot_fields = ("missing",)

    def generate(self, rng: random.Random, level: int) -> Latent:
        n = level + 2
        names = _rate_names(n)
        rates = {name: rng.randint(1, _max_rate(level)) for name in names}
        return {"level": level, "n": n, "rates": rates,
                "missing": rng.choice(names), "target": rng.randrange(n)}

    def check(self, latent: Latent) -> Optional[str]:
        level, n, rates = latent["level"], latent["n"], latent["rates"]
        if level not in (1, 2, 3) or n != level + 2:
            return f"n = {n} does not match level {level}"
        if sorted(rates) != sorted(_rate_names(n)):
            return "the rates are not exactly lambda_0..lambda_{n-2}, mu_1..mu_{n-1}"
        for name in _rate_names(n):
            v = rates[name]
            if not (isinstance(v, int) and 1 <= v <= _max_rate(level)):
                return f"{name} = {v} is outside [1, {_max_rate(level)}]"
        if latent["missing"] not in rates:
            return f"missing slot {latent['missing']!r} is not a rate"
        if not (isinstance(latent["target"], int) and 0 <= latent["target"] < n):
            return f"target state {latent['target']} is not a state"
        # pi_{s*} is strictly monotone in every single rate; confirm it for the missing one.
        if self.solve(latent) == self.solve(self._with_missing(latent, _other_value(
                rates[latent["missing"]], level))):
            return "pi_{s*} does not depend on the missing rate"
        return None

    def render(self, latent: Latent) -> Rendered:
        n, rates, missing = latent["n"], latent["rates"], latent["missing"]
        target = latent["target"]
        births = ", ".join(f"lambda_{i}" for i in range(n - 1))
        deaths = ", ".join(f"mu_{i}" for i in range(1, n))
        states = ", ".join(str(i) for i in range(n))
        line = f"{missing} = {rates[missing]}"
        return Rendered(
            context=f"A continuous-time birth-death chain has states {states}. Its birth rates "
                    f"are {births}, where lambda_i is the rate of the transition from state i to "
                    f"state i+1; its death rates are {deaths}, where mu_i is the rate of the "
                    f"transition from state i to state i-1. No other transitions occur. pi_i is "
                    f"the stationary probability of state i.",
            facts=[f"{name} = {rates[name]}" for name in _rate_names(n) if name != missing],
            question=f"What is pi_{target}, the stationary probability of state {target}? "
                     f"Give it as a reduced fraction.",
            domain="Every rate is a positive integer.",
            responder=[line],
            hints=[Hint(missing, line, frac(rates[missing]))],
        )

    def solve(self, latent: Latent) -> Fraction:
        return _pi(latent["n"], latent["rates"], latent["target"])

    def known(self, latent: Latent) -> Dict[str, Any]:
        given = {k: v for k, v in latent["rates"].items() if k != latent["missing"]}
        return {"level": latent["level"], "n": latent["n"], "target": latent["target"],
                "rates": given}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        absent = [name for name in _rate_names(known["n"]) if name not in known["rates"]]
        if absent != [hint.slot]:
            raise ValueError(f"hint slot {hint.slot!r} is not the one absent rate {absent}")
        value = Fraction(hint.value)
        if value.denominator != 1 or value <= 0:
            raise ValueError(f"rate {hint.value!r} is not a positive integer")
        return {"level": known["level"], "n": known["n"], "target": known["target"],
                "rates": {**known["rates"], hint.slot: int(value)}, "missing": hint.slot}

    def witness(self, latent: Latent) -> Optional[Latent]:
        # pi_{s*} is strictly monotone in each rate, so any other value changes it.
        return self._with_missing(latent, _other_value(latent["rates"][latent["missing"]],
                                                       latent["level"]))

    @staticmethod
    def _with_missing(latent: Latent, value: int) -> Latent:
        return {**latent, "rates": {**latent["rates"], latent["missing"]: value}}


FAMILY = BirthDeathMissingRate()


class BirthDeathTwoFacts(BirthDeathMissingRate):
    """Two rates withheld (which two varies): ``missing`` is the pair in reading order. The
    check confirms that pi_{s*} moves with each of them while the other is held."""

    k = 2

    def generate(self, rng: random.Random, level: int) -> Latent:
        latent = super().generate(rng, level)
        names = _rate_names(latent["n"])
        pair = sorted(rng.sample(range(len(names)), 2))
        return {**latent, "missing": [names[i] for i in pair]}

    def check(self, latent: Latent) -> Optional[str]:
        pair, n = latent["missing"], latent["n"]
        names = _rate_names(n) if isinstance(n, int) else []
        if not (isinstance(pair, list) and len(pair) == 2 and all(p in names for p in pair)
                and names.index(pair[0]) < names.index(pair[1])):
            return f"the withheld rates {pair} are not two rates in reading order"
        for name in pair:
            problem = super().check({**latent, "missing": name})
            if problem:
                return f"{name}: {problem}"
        return None

    def render(self, latent: Latent) -> Rendered:
        one = super().render({**latent, "missing": latent["missing"][0]})
        rates, pair = latent["rates"], latent["missing"]
        lines = [f"{name} = {rates[name]}" for name in pair]
        return Rendered(
            context=one.context,
            facts=[f"{name} = {rates[name]}" for name in _rate_names(latent["n"]) if name not in pair],
            question=one.question, domain=one.domain, responder=lines,
            hints=[Hint(name, line, frac(rates[name])) for name, line in zip(pair, lines)],
            hint_groups=[[name] for name in pair],
        )

    def known(self, latent: Latent) -> Dict[str, Any]:
        given = {k: v for k, v in latent["rates"].items() if k not in latent["missing"]}
        return {"level": latent["level"], "n": latent["n"], "target": latent["target"],
                "rates": given}

    def complete_many(self, known: Dict[str, Any], hints: Sequence[Hint]) -> Latent:
        absent = [name for name in _rate_names(known["n"]) if name not in known["rates"]]
        if sorted(h.slot for h in hints) != sorted(absent):
            raise ValueError(f"the hints are not the absent rates {absent}")
        rates = dict(known["rates"])
        for h in hints:
            value = Fraction(h.value)
            if value.denominator != 1 or value <= 0:
                raise ValueError(f"rate {h.value!r} is not a positive integer")
            rates[h.slot] = int(value)
        return {"level": known["level"], "n": known["n"], "target": known["target"],
                "rates": rates, "missing": absent}

    def witness_given(self, latent: Latent, given: Optional[Hint]) -> Optional[Latent]:
        free = [name for name in latent["missing"] if given is None or name != given.slot][0]
        value = _other_value(latent["rates"][free], latent["level"])
        return {**latent, "rates": {**latent["rates"], free: value}}


FAMILY_K2 = BirthDeathTwoFacts()
