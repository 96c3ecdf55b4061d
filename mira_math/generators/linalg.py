"""Exact linear algebra over ``Fraction``: the few operations the families share."""

from __future__ import annotations

from fractions import Fraction
from typing import List, Sequence, Union

Number = Union[int, Fraction]

Matrix = List[List[Fraction]]


class Singular(ValueError):
    """The system has no unique solution."""


def to_fractions(rows: Sequence[Sequence[Number]]) -> Matrix:
    return [[Fraction(x) for x in row] for row in rows]


def rank(rows: Sequence[Sequence[Number]]) -> int:
    """Rank by exact Gaussian elimination."""
    m = to_fractions(rows)
    r = 0
    cols = len(m[0]) if m else 0
    for c in range(cols):
        pivot = next((i for i in range(r, len(m)) if m[i][c] != 0), None)
        if pivot is None:
            continue
        m[r], m[pivot] = m[pivot], m[r]
        for i in range(len(m)):
            if i != r and m[i][c] != 0:
                f = m[i][c] / m[r][c]
                m[i] = [a - f * b for a, b in zip(m[i], m[r])]
        r += 1
        if r == len(m):
            break
    return r


def solve(a: Sequence[Sequence[Number]], b: Sequence[Number]) -> List[Fraction]:
    """The unique solution of the square system ``a x = b``; raises :class:`Singular`."""
    n = len(a)
    if any(len(row) != n for row in a) or len(b) != n:
        raise ValueError("solve needs a square system")
    m = [row + [Fraction(v)] for row, v in zip(to_fractions(a), b)]
    for c in range(n):
        pivot = next((i for i in range(c, n) if m[i][c] != 0), None)
        if pivot is None:
            raise Singular("singular system")
        m[c], m[pivot] = m[pivot], m[c]
        inv = 1 / m[c][c]
        m[c] = [x * inv for x in m[c]]
        for i in range(n):
            if i != c and m[i][c] != 0:
                f = m[i][c]
                m[i] = [x - f * y for x, y in zip(m[i], m[c])]
    return [m[i][n] for i in range(n)]


def det(a: Sequence[Sequence[Number]]) -> Fraction:
    """Determinant by exact elimination."""
    m = to_fractions(a)
    n = len(m)
    result = Fraction(1)
    for c in range(n):
        pivot = next((i for i in range(c, n) if m[i][c] != 0), None)
        if pivot is None:
            return Fraction(0)
        if pivot != c:
            m[c], m[pivot] = m[pivot], m[c]
            result = -result
        result *= m[c][c]
        for i in range(c + 1, n):
            if m[i][c] != 0:
                f = m[i][c] / m[c][c]
                m[i] = [x - f * y for x, y in zip(m[i], m[c])]
    return result


def matmul(a: Sequence[Sequence[Number]], b: Sequence[Sequence[Number]]) -> Matrix:
    fa, fb = to_fractions(a), to_fractions(b)
    return [[sum((fa[i][k] * fb[k][j] for k in range(len(fb))), Fraction(0))
             for j in range(len(fb[0]))] for i in range(len(fa))]


def stationary(p: Sequence[Sequence[Number]]) -> List[Fraction]:
    """The unique stationary distribution π = πP of a row-stochastic matrix.

    Raises :class:`Singular` when it is not unique (the chain is not irreducible).
    """
    n = len(p)
    fp = to_fractions(p)
    # (P^T - I) π = 0 with the last equation replaced by Σπ = 1.
    a = [[fp[j][i] - (1 if i == j else 0) for j in range(n)] for i in range(n)]
    a[-1] = [Fraction(1)] * n
    b = [Fraction(0)] * (n - 1) + [Fraction(1)]
    if rank([row[:] for row in a]) < n:
        raise Singular("stationary distribution is not unique")
    return solve(a, b)
