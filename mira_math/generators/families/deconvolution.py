"""Causal deconvolution truncated to n outputs, one output y_k* withheld (k* varies)."""

from __future__ import annotations

import random
from fractions import Fraction
from math import gcd, lcm
from typing import Any, Dict, List, Optional, Sequence, Union

from mira_math.generators.family import Family, Latent, Reject, Rendered
from mira_math.generators.schema import Hint
from mira_math.common.text import frac


def _length(level: int) -> int:
    return 3 + min(level, 2)


def _taps(level: int) -> int:
    return 2 if level <= 1 else 3


def _bound(level: int) -> int:
    return 2 + level


def _outputs(h: Sequence[int], x: Sequence[int]) -> List[int]:
    """y_k = Σ_j h_j·x_{k-j} for k < n, with x_i = 0 for i < 0 (truncated, causal)."""
    return [sum(h[j] * x[k - j] for j in range(len(h)) if k - j >= 0) for k in range(len(x))]


def _deconvolve(h: Sequence[int], y: Sequence[Union[int, Fraction]]) -> List[Fraction]:
    """Forward substitution: the system is lower triangular with h0 on the diagonal."""
    x: List[Fraction] = []
    for k, yk in enumerate(y):
        rest = sum((h[j] * x[k - j] for j in range(1, len(h)) if k - j >= 0), Fraction(0))
        x.append((Fraction(yk) - rest) / h[0])
    return x


def _equation(k: int, taps: int) -> str:
    terms = " + ".join(f"h{j}·x{k - j}" for j in range(taps) if k - j >= 0)
    return f"y{k} = {terms}"


class Deconvolution(Family):
    name = "deconvolution"
    type = "B"
    answer_type = "tuple"
    slot_fields = ("missing",)

    def generate(self, rng: random.Random, level: int) -> Latent:
        n, b = _length(level), _bound(level)
        latent = {
            "level": level,
            "h": [rng.randint(-b, b) for _ in range(_taps(level))],
            "x": [rng.randint(-b, b) for _ in range(n)],
            "missing": rng.randrange(n),
        }
        problem = self.check(latent)
        if problem:
            raise Reject(problem)
        return latent

    def check(self, latent: Latent) -> Optional[str]:
        # The signal's range is the sampling distribution, not a validity condition: the
        # solver is told "integers", and the witness may leave the range.
        level, h, x = latent["level"], latent["h"], latent["x"]
        b = _bound(level)
        if len(h) != _taps(level) or not all(type(v) is int and abs(v) <= b for v in h):
            return f"the kernel needs {_taps(level)} integer taps in [-{b}, {b}]"
        if h[0] == 0:
            return "h0 = 0: the outputs do not determine the signal"
        if h[-1] == 0:
            return f"the last tap is zero: the kernel is shorter than {len(h)} taps"
        if len(x) != _length(level) or not all(type(v) is int for v in x):
            return f"the signal needs {_length(level)} integer entries"
        if not (type(latent["missing"]) is int and 0 <= latent["missing"] < len(x)):
            return "the withheld output index is out of range"
        return None

    def render(self, latent: Latent) -> Rendered:
        h, x, k = latent["h"], latent["x"], latent["missing"]
        n, taps = len(x), len(h)
        y = _outputs(h, x)
        held_line = f"y{k} = {frac(y[k])}"
        signal = ", ".join(f"x{i}" for i in range(n))
        return Rendered(
            context=f"An unknown signal ({signal}) passes through a causal filter with kernel "
                    f"({', '.join(f'h{j}' for j in range(taps))}); only the first {n} outputs "
                    f"y0, ..., y{n - 1} are recorded: "
                    + "; ".join(_equation(i, taps) for i in range(n)) + ".",
            facts=[f"h{j} = {frac(v)}" for j, v in enumerate(h)]
                  + [f"y{i} = {frac(v)}" for i, v in enumerate(y) if i != k],
            question=f"What is the signal ({signal})? Give the {n} integers in that order.",
            domain=f"{signal} are integers.",
            responder=[held_line],
            hints=[Hint(f"y{k}", held_line, frac(y[k]))],
            components=[f"x{i}" for i in range(n)],
        )

    def solve(self, latent: Latent) -> tuple:
        return tuple(latent["x"])

    def known(self, latent: Latent) -> Dict[str, Any]:
        y = _outputs(latent["h"], latent["x"])
        k = latent["missing"]
        return {"level": latent["level"], "h": list(latent["h"]), "n": len(latent["x"]),
                "missing": k, "y": [v for i, v in enumerate(y) if i != k]}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        k = known["missing"]
        if hint.slot != f"y{k}":
            raise ValueError(f"{hint.slot!r} is not the withheld output y{k}")
        y = list(known["y"])
        y.insert(k, int(hint.value))
        x = _deconvolve(known["h"], y)  # h0 != 0: exactly one solution
        if any(v.denominator != 1 for v in x):
            raise ValueError("the completed signal is not an integer vector")
        return {"level": known["level"], "h": list(known["h"]), "x": [int(v) for v in x],
                "missing": k}

    def witness(self, latent: Latent) -> Optional[Latent]:
        # The outputs other than y_k* stay fixed along x + t·e, where h*e is zero except at
        # k*; e scaled to a primitive integer vector keeps the signal integral, and e_k* != 0.
        h, k, n = latent["h"], latent["missing"], len(latent["x"])
        e = _deconvolve(h, [1 if i == k else 0 for i in range(n)])
        scale = lcm(*(v.denominator for v in e))
        ints = [int(v * scale) for v in e]
        g = gcd(*ints)
        return {**latent, "x": [a + c // g for a, c in zip(latent["x"], ints)]}


FAMILY = Deconvolution()


class DeconvolutionTwoFacts(Deconvolution):
    """Two outputs withheld (which two varies): ``missing`` is the pair in order. With one of
    them given, the signal still moves along x + t·e, h*e zero except at the other one."""

    k = 2

    def generate(self, rng: random.Random, level: int) -> Latent:
        n, b = _length(level), _bound(level)
        latent = {"level": level, "h": [rng.randint(-b, b) for _ in range(_taps(level))],
                  "x": [rng.randint(-b, b) for _ in range(n)],
                  "missing": sorted(rng.sample(range(n), 2))}
        problem = self.check(latent)
        if problem:
            raise Reject(problem)
        return latent

    def check(self, latent: Latent) -> Optional[str]:
        pair, n = latent["missing"], len(latent["x"])
        if not (isinstance(pair, list) and len(pair) == 2 and pair == sorted(set(pair))
                and all(type(i) is int and 0 <= i < n for i in pair)):
            return "the withheld outputs are not two distinct indices in order"
        return super().check({**latent, "missing": pair[0]})

    def render(self, latent: Latent) -> Rendered:
        one = super().render({**latent, "missing": latent["missing"][0]})
        y, pair = _outputs(latent["h"], latent["x"]), latent["missing"]
        lines = [f"y{k} = {frac(y[k])}" for k in pair]
        return Rendered(
            context=one.context,
            facts=[f"h{j} = {frac(v)}" for j, v in enumerate(latent["h"])]
                  + [f"y{i} = {frac(v)}" for i, v in enumerate(y) if i not in pair],
            question=one.question, domain=one.domain, responder=lines,
            hints=[Hint(f"y{k}", line, frac(y[k])) for k, line in zip(pair, lines)],
            hint_groups=[[f"y{k}"] for k in pair], components=one.components,
        )

    def known(self, latent: Latent) -> Dict[str, Any]:
        y, pair = _outputs(latent["h"], latent["x"]), latent["missing"]
        return {"level": latent["level"], "h": list(latent["h"]), "n": len(latent["x"]),
                "missing": list(pair), "y": [v for i, v in enumerate(y) if i not in pair]}

    def complete_many(self, known: Dict[str, Any], hints: Sequence[Hint]) -> Latent:
        pair = known["missing"]
        if sorted(h.slot for h in hints) != sorted(f"y{k}" for k in pair):
            raise ValueError(f"the hints are not the withheld outputs {pair}")
        rest = iter(known["y"])
        y = [int(self.given_value(hints, f"y{i}") or 0) if i in pair else next(rest)
             for i in range(known["n"])]
        x = _deconvolve(known["h"], y)
        if any(v.denominator != 1 for v in x):
            raise ValueError("the completed signal is not an integer vector")
        return {"level": known["level"], "h": list(known["h"]), "x": [int(v) for v in x],
                "missing": list(pair)}

    def witness_given(self, latent: Latent, given: Optional[Hint]) -> Optional[Latent]:
        free = [k for k in latent["missing"] if given is None or f"y{k}" != given.slot][0]
        alt = Deconvolution.witness(self, {**latent, "missing": free})
        return None if alt is None else {**alt, "missing": latent["missing"]}


FAMILY_K2 = DeconvolutionTwoFacts()
