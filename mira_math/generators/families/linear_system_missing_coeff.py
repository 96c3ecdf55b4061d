"""A nonsingular integer system Ax = b with one coefficient A[i*][j*] withheld; answer x[k*].

By Cramer's rule x[k](a) = N_k(a) / D(a) with D and N_k affine in a = A[i*][j*], so x[k] is a
Möbius function of a: it either never changes or takes each value at most once. It changes
exactly when x[j*] != 0 and (A⁻¹)[k][i*] != 0 (Sherman-Morrison); the target k* is one where
it does, so any other admissible coefficient gives another answer.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction
from math import gcd
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from mira_math.generators.family import Family, Latent, Reject, Rendered
from mira_math.generators.schema import Hint
from mira_math.common.text import frac

_B_BOUND = 8
_MAX_DENOMINATOR = 300
_SLOT_RE = re.compile(r"^A\[(\d+)\]\[(\d+)\]$")


def _bound(level: int) -> int:
    return 4 + 3 * (level - 1)


def _size(level: int) -> int:
    return level + 1


def _with_entry(a: Sequence[Sequence[Any]], i: int, j: int, x: Any) -> List[List[Any]]:
    out = [list(r) for r in a]
    out[i][j] = x
    return out


def _det(m: Sequence[Sequence[int]]) -> int:
    """Integer determinant by fraction-free (Bareiss) elimination: exact and cheap."""
    a = [list(r) for r in m]
    n, sign, prev = len(a), 1, 1
    for c in range(n - 1):
        if a[c][c] == 0:
            swap = next((r for r in range(c + 1, n) if a[r][c] != 0), None)
            if swap is None:
                return 0
            a[c], a[swap] = a[swap], a[c]
            sign = -sign
        for r in range(c + 1, n):
            for k in range(c + 1, n):
                a[r][k] = (a[r][k] * a[c][c] - a[r][c] * a[c][k]) // prev
        prev = a[c][c]
    return sign * a[n - 1][n - 1]


def _replaced(a: Sequence[Sequence[int]], k: int, b: Sequence[int]) -> List[List[int]]:
    """A with column k replaced by b (Cramer's numerator matrix)."""
    return [[b[r] if c == k else a[r][c] for c in range(len(a))] for r in range(len(a))]


Mobius = Tuple[int, int, int, int]


def _mobius(a: Sequence[Sequence[int]], b: Sequence[int], i: int, j: int, k: int) -> Mobius:
    """(n0, n1, d0, d1) with x[k](t) = (n0 + n1·t) / (d0 + d1·t) for A[i][j] = t (Cramer:
    both determinants are affine in one entry)."""
    a0, a1 = _with_entry(a, i, j, 0), _with_entry(a, i, j, 1)
    d0, n0 = _det(a0), _det(_replaced(a0, k, b))
    return n0, _det(_replaced(a1, k, b)) - n0, d0, _det(a1) - d0


def _x_at(coef: Mobius, t: int) -> Optional[Fraction]:
    n0, n1, d0, d1 = coef
    den = d0 + d1 * t
    return None if den == 0 else Fraction(n0 + n1 * t, den)


def _minor(a: Sequence[Sequence[int]], i: int, k: int) -> int:
    """Determinant of A without row i and column k (± the cofactor, ± det(A)·(A⁻¹)[k][i])."""
    return _det([[x for c, x in enumerate(row) if c != k] for r, row in enumerate(a) if r != i])


def _depends(a: Sequence[Sequence[int]], b: Sequence[int], i: int, j: int, k: int) -> bool:
    """Whether x[k] changes with A[i][j]: by Sherman-Morrison exactly when x[j] != 0 and
    (A⁻¹)[k][i] != 0 (A invertible)."""
    return _det(_replaced(a, j, b)) != 0 and _minor(a, i, k) != 0


def _slot(i: int, j: int) -> str:
    return f"A[{i}][{j}]"


class LinearSystemMissingCoeff(Family):
    name = "linear_system_missing_coeff"
    type = "B"
    answer_type = "fraction"
    slot_fields = ("missing",)

    def generate(self, rng: random.Random, level: int) -> Latent:
        n, bound = _size(level), _bound(level)
        a = [[rng.randint(-bound, bound) for _ in range(n)] for _ in range(n)]
        b = [rng.randint(-_B_BOUND, _B_BOUND) for _ in range(n)]
        d = _det(a)
        if d == 0:
            raise Reject("singular system")
        i, j = rng.randrange(n), rng.randrange(n)
        x = [Fraction(_det(_replaced(a, k, b)), d) for k in range(n)]   # Cramer
        if x[j] == 0:
            raise Reject("x[j*] = 0: no component of x depends on the missing coefficient")
        targets = [k for k in range(n) if x[k].denominator <= _MAX_DENOMINATOR
                   and _minor(a, i, k) != 0]
        if not targets:
            raise Reject(f"no dependent x[k] with a denominator up to {_MAX_DENOMINATOR}")
        k = rng.choice(targets)
        return {"level": level, "A": a, "b": b, "missing": [i, j], "target": k}

    def check(self, latent: Latent) -> Optional[str]:
        level = latent["level"]
        n, bound = _size(level), _bound(level)
        a, b = latent["A"], latent["b"]
        if len(a) != n or any(len(r) != n for r in a) or len(b) != n:
            return f"A must be {n}×{n} and b of length {n} at level {level}"
        if any(not isinstance(x, int) or abs(x) > bound for r in a for x in r):
            return f"a coefficient of A is not an integer in [-{bound}, {bound}]"
        if any(not isinstance(x, int) or abs(x) > _B_BOUND for x in b):
            return f"an entry of b is not an integer in [-{_B_BOUND}, {_B_BOUND}]"
        if _det(a) == 0:
            return "A is singular"
        i, j = latent["missing"]
        k = latent["target"]
        if not (0 <= i < n and 0 <= j < n and 0 <= k < n):
            return "missing coefficient or target index out of range"
        if not _depends(a, b, i, j, k):
            return "x[k*] does not depend on the missing coefficient"
        if self.solve(latent).denominator > _MAX_DENOMINATOR:
            return f"x[k*] has a denominator above {_MAX_DENOMINATOR}"
        return None

    def render(self, latent: Latent) -> Rendered:
        a, b = latent["A"], latent["b"]
        n = len(a)
        bound = _bound(latent["level"])
        i, j = latent["missing"]
        line = f"{_slot(i, j)} = {a[i][j]}"
        return Rendered(
            context=f"A is an invertible {n}×{n} matrix and b a vector of length {n}; indices run "
                    f"from 0 to {n - 1}, A[r][c] is the coefficient in row r, column c, and b[r] "
                    f"the right-hand side of row r. x = (x[0], ..., x[{n - 1}]) is the unique "
                    f"solution of Ax = b, that is, A[r][0]·x[0] + ... + A[r][{n - 1}]·x[{n - 1}] "
                    f"= b[r] for every row r.",
            facts=[f"{_slot(r, c)} = {a[r][c]}" for r in range(n) for c in range(n)
                   if (r, c) != (i, j)]
                  + [f"b[{r}] = {b[r]}" for r in range(n)],
            question=f"What is x[{latent['target']}]? Give it as a reduced fraction.",
            domain=f"Every coefficient of A is an integer between -{bound} and {bound}, "
                   f"and A is invertible.",
            responder=[line],
            hints=[Hint(_slot(i, j), line, frac(a[i][j]))],
        )

    def solve(self, latent: Latent) -> Fraction:
        a, k = latent["A"], latent["target"]
        return Fraction(_det(_replaced(a, k, latent["b"])), _det(a))  # Cramer; A is invertible

    def known(self, latent: Latent) -> Dict[str, Any]:
        i, j = latent["missing"]
        shown = _with_entry(latent["A"], i, j, None)
        return {"level": latent["level"], "A": shown,
                "b": list(latent["b"]), "missing": [i, j], "target": latent["target"]}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        found = _SLOT_RE.match(hint.slot)
        if not found or [int(found.group(1)), int(found.group(2))] != list(known["missing"]):
            raise ValueError(f"{hint.slot} is not the coefficient missing from the view")
        i, j = known["missing"]
        return {"level": known["level"], "A": _with_entry(known["A"], i, j, int(hint.value)),
                "b": list(known["b"]), "missing": [i, j], "target": known["target"]}

    def candidates(self, known: Dict[str, Any]) -> Optional[Set[Fraction]]:
        """x[k*] for every coefficient the stated domain allows (an integer in the bound that
        keeps A invertible): the blind-guess floor, 8-9 / 14-15 / 20-21 values at d = 1/2/3."""
        bound = _bound(known["level"])
        i, j = known["missing"]
        coef = _mobius(_with_entry(known["A"], i, j, 0), known["b"], i, j, known["target"])
        values = (_x_at(coef, y) for y in range(-bound, bound + 1))
        return {v for v in values if v is not None}

    def witness(self, latent: Latent) -> Optional[Latent]:
        # x[k*] is a nonconstant Möbius function of the coefficient: injective, so every other
        # admissible value (A invertible, small denominator) gives another answer.
        bound = _bound(latent["level"])
        i, j = latent["missing"]
        x = latent["A"][i][j]
        coef = _mobius(latent["A"], latent["b"], i, j, latent["target"])
        answer = _x_at(coef, x)
        for y in sorted(range(-bound, bound + 1), key=lambda y: (abs(y - x), y)):
            value = _x_at(coef, y)
            if y != x and value is not None and value != answer \
                    and value.denominator <= _MAX_DENOMINATOR:
                return {**latent, "A": _with_entry(latent["A"], i, j, y)}
        return None


FAMILY = LinearSystemMissingCoeff()


class MissingCoeffTwoFacts(LinearSystemMissingCoeff):
    """Two coefficients withheld (which two varies): ``missing`` is the pair of entries in
    reading order. The stated domain bounds them, so the answers the view leaves (and the view
    plus either coefficient) form a finite set, enumerated exactly; x[k*] depends on each entry
    with the other at its value (checked), so each set has at least two answers."""

    k = 2

    def generate(self, rng: random.Random, level: int) -> Latent:
        latent = super().generate(rng, level)
        n = _size(level)
        first = latent["missing"]
        others = [[r, c] for r in range(n) for c in range(n) if [r, c] != first]
        pair = sorted([first, rng.choice(others)])
        latent = {**latent, "missing": pair}
        problem = self.check(latent)
        if problem:
            raise Reject(problem)
        return latent

    def check(self, latent: Latent) -> Optional[str]:
        pair = latent["missing"]
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, list) for p in pair)
                and pair[0] < pair[1]):
            return "the withheld coefficients are not two entries in reading order"
        for entry in pair:
            problem = super().check({**latent, "missing": entry})
            if problem:
                return f"{_slot(*entry)}: {problem}"
        return None

    def render(self, latent: Latent) -> Rendered:
        one = super().render({**latent, "missing": latent["missing"][0]})
        a, b, pair = latent["A"], latent["b"], latent["missing"]
        n = len(a)
        lines = [f"{_slot(i, j)} = {a[i][j]}" for i, j in pair]
        return Rendered(
            context=one.context,
            facts=[f"{_slot(r, c)} = {a[r][c]}" for r in range(n) for c in range(n)
                   if [r, c] not in pair] + [f"b[{r}] = {b[r]}" for r in range(n)],
            question=one.question, domain=one.domain, responder=lines,
            hints=[Hint(_slot(i, j), line, frac(a[i][j])) for (i, j), line in zip(pair, lines)],
            hint_groups=[[_slot(i, j)] for i, j in pair],
        )

    def known(self, latent: Latent) -> Dict[str, Any]:
        shown = [list(r) for r in latent["A"]]
        for i, j in latent["missing"]:
            shown[i][j] = None
        return {"level": latent["level"], "A": shown, "b": list(latent["b"]),
                "missing": [list(p) for p in latent["missing"]], "target": latent["target"]}

    def _fill(self, known: Dict[str, Any], hints: Sequence[Hint]) -> List[List[Any]]:
        a = [list(r) for r in known["A"]]
        for h in hints:
            found = _SLOT_RE.match(h.slot)
            entry = [int(found.group(1)), int(found.group(2))] if found else None
            if entry is None or entry not in known["missing"]:
                raise ValueError(f"{h.slot} is not a coefficient missing from the view")
            a[entry[0]][entry[1]] = int(h.value)
        return a

    def complete_many(self, known: Dict[str, Any], hints: Sequence[Hint]) -> Latent:
        a = self._fill(known, hints)
        if any(x is None for r in a for x in r):
            raise ValueError("the hints are not both missing coefficients")
        return {"level": known["level"], "A": a, "b": list(known["b"]),
                "missing": [list(p) for p in known["missing"]], "target": known["target"]}

    def candidates_given(self, known: Dict[str, Any], given: Sequence[Hint]) -> Optional[Set[Fraction]]:
        """x[k*] for every admissible value of each coefficient not given (an integer in the
        stated bound, A invertible). Both determinants of Cramer's rule are affine in each
        entry, so they are read from the corners of the free entries' unit cube (2^free
        determinants) and evaluated exactly on the whole grid: the same set as one elimination
        per grid point, 441 of them at d = 3."""
        a = self._fill(known, given)
        free = [(i, j) for i, j in known["missing"] if a[i][j] is None]
        bound, k, b = _bound(known["level"]), known["target"], known["b"]
        den = _affine_coefficients(a, free, _det)
        num = _affine_coefficients(a, free, lambda m: _det(_replaced(m, k, b)))
        values = range(-bound, bound + 1)
        reduced: Set[Tuple[int, int]] = set()
        if len(free) == 2:      # the view alone: the grid's inner loop kept to two products
            for t in values:
                d0, d1 = den[0] + den[1] * t, den[2] + den[3] * t
                n0, n1 = num[0] + num[1] * t, num[2] + num[3] * t
                for u in values:
                    d = d0 + d1 * u
                    if d:
                        _add_reduced(reduced, n0 + n1 * u, d)
        else:
            for choice in _grid(values, len(free)):
                d = _evaluate(den, choice)
                if d:
                    _add_reduced(reduced, _evaluate(num, choice), d)
        return {Fraction(n, d) for n, d in reduced}

    def candidates(self, known: Dict[str, Any]) -> Optional[Set[Fraction]]:
        return self.candidates_given(known, [])


def _affine_coefficients(a: Sequence[Sequence[Any]], free: Sequence[Tuple[int, int]],
                         det: Callable[[List[List[Any]]], int]) -> List[int]:
    """The coefficients c[S] of det(A with the free entries set to t) = sum over subsets S of
    the free entries of c[S]·prod(t[s] for s in S), S as a bit mask: ``det`` is affine in each
    entry, so c is the Möbius inversion of its values at the 0/1 corners."""
    corner: List[int] = []
    for mask in range(1 << len(free)):
        m = [list(r) for r in a]
        for bit, (i, j) in enumerate(free):
            m[i][j] = (mask >> bit) & 1
        corner.append(det(m))
    coef = list(corner)
    for bit in range(len(free)):
        for mask in range(1 << len(free)):
            if mask >> bit & 1:
                coef[mask] -= coef[mask ^ (1 << bit)]
    return coef


def _add_reduced(out: Set[Tuple[int, int]], n: int, d: int) -> None:
    """Add n/d (d != 0) in lowest terms with a positive denominator."""
    g = gcd(n, d) if d > 0 else -gcd(n, d)
    out.add((n // g, d // g))


def _evaluate(coef: Sequence[int], t: Sequence[int]) -> int:
    """sum over masks S of coef[S]·prod(t[s] for s in S)."""
    total = 0
    for mask, c in enumerate(coef):
        if c:
            for bit, value in enumerate(t):
                if mask >> bit & 1:
                    c *= value
            total += c
    return total


def _grid(values: Sequence[int], dims: int) -> List[Tuple[int, ...]]:
    out: List[Tuple[int, ...]] = [()]
    for _ in range(dims):
        out = [t + (v,) for t in out for v in values]
    return out


FAMILY_K2 = MissingCoeffTwoFacts()
