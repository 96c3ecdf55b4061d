"""An integer system Ax = b with an extra unknown the target does not depend on.

The last unknown x[n] enters only the last row: every other row's coefficient on it is 0 (stated
in the view), so the first n rows alone fix x[0], ..., x[n-1] and the last row's coefficients
A[n][0], ..., A[n][n] are irrelevant to the target x[t] (t < n): A stays invertible for every
value of A[n][c] with c < n (its determinant is det(top block) · A[n][n]), and A[n][n] ranges
over the nonzero values the stated invertibility allows. Needed facts are coefficients of the
top block; every domain is finite (integers in [-B, B]), so each proof enumerates it.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any, List, Mapping, Optional, Sequence

from mira_math.generators.blind.contract import BlindFamily, Domain, Finite, Latent, Reject, Setting

_B_BOUND = 8
_MAX_DENOMINATOR = 300


def _bound(level: int) -> int:
    return 4 + 3 * (level - 1)


def _solve(a: Sequence[Sequence[Any]], b: Sequence[Any]) -> Optional[List[Fraction]]:
    """The unique solution by exact Gauss-Jordan elimination, or None when A is singular."""
    n = len(a)
    m = [list(map(Fraction, row)) + [Fraction(b[r])] for r, row in enumerate(a)]
    for c in range(n):
        pivot = next((r for r in range(c, n) if m[r][c] != 0), None)
        if pivot is None:
            return None
        m[c], m[pivot] = m[pivot], m[c]
        for r in range(n):
            if r != c and m[r][c] != 0:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[r][n] / m[r][r] for r in range(n)]


class LinearSystemBlind(BlindFamily):
    name = "linear_system_missing_coeff"
    type = "B"
    answer_type = "fraction"

    def generate(self, rng: random.Random, level: int) -> Latent:
        n, bound = level + 1, _bound(level)
        top = [[rng.randint(-bound, bound) for _ in range(n)] + [0] for _ in range(n)]
        last = [rng.randint(-bound, bound) for _ in range(n)] + [rng.choice(
            [v for v in range(-bound, bound + 1) if v != 0])]
        b = [rng.randint(-_B_BOUND, _B_BOUND) for _ in range(n + 1)]
        a = top + [last]
        x = _solve(a, b)
        if x is None:
            raise Reject("singular system")
        target = rng.randrange(n)
        if x[target].denominator > _MAX_DENOMINATOR:
            raise Reject("answer denominator too large")
        return {"level": level, "A": a, "b": b, "target": target}

    def setting(self, latent: Latent) -> Setting:
        size = len(latent["A"])
        bound = _bound(latent["level"])
        t = latent["target"]
        context = (f"A is an invertible {size}×{size} matrix and b a vector of length {size}; indices "
                   f"run from 0 to {size - 1}, A[r][c] is the coefficient in row r, column c, and b[r] "
                   f"the right-hand side of row r. x = (x[0], ..., x[{size - 1}]) is the unique "
                   f"solution of Ax = b, that is, A[r][0]·x[0] + ... + A[r][{size - 1}]·x[{size - 1}] "
                   f"= b[r] for every row r.")
        return Setting(context, f"What is x[{t}]? Give it as a reduced fraction.",
                       f"Every coefficient of A is an integer between -{bound} and {bound}, and A is "
                       "invertible.",
                       structure=[f"b[{r}] = {v}" for r, v in enumerate(latent["b"])])

    def slots(self, latent: Latent) -> List[str]:
        size = len(latent["A"])
        return [f"A[{r}][{c}]" for r in range(size) for c in range(size)]

    def value(self, latent: Latent, slot: str) -> str:
        r, c = _index(slot)
        return str(latent["A"][r][c])

    def answer(self, latent: Latent, values: Mapping[str, str]) -> Optional[Fraction]:
        size, bound = len(latent["A"]), _bound(latent["level"])
        a = [[Fraction(values[f"A[{r}][{c}]"]) for c in range(size)] for r in range(size)]
        if any(v.denominator != 1 or abs(v) > bound for row in a for v in row):
            return None
        x = _solve(a, [Fraction(v) for v in latent["b"]])
        return None if x is None else x[latent["target"]]

    def needable(self, latent: Latent) -> List[str]:
        n = len(latent["A"]) - 1
        return [f"A[{r}][{c}]" for r in range(n) for c in range(n)]

    def irrelevant(self, latent: Latent) -> List[str]:
        n = len(latent["A"]) - 1
        return [f"A[{n}][{c}]" for c in range(n + 1)]

    def domain(self, latent: Latent, slot: str) -> Domain:
        bound = _bound(latent["level"])
        r, c = _index(slot)
        n = len(latent["A"]) - 1
        values = range(-bound, bound + 1)
        if (r, c) == (n, n):       # the only coefficient of x[n]: invertibility needs it nonzero
            return Finite([str(v) for v in values if v != 0])
        return Finite([str(v) for v in values])


def _index(slot: str) -> "tuple[int, int]":
    r, c = slot[2:-1].split("][")
    return int(r), int(c)


FAMILY = LinearSystemBlind()
