"""Ergodic Markov chain with two entries of one row withheld (docs/benchmark.md §5, decided there).

The solver knows every row but r*, and n-2 entries of row r*. Since it cannot tell which of
the two absent entries the responder would hold, the responder holds both, one per line;
either is canonical, because the row sum gives the other. Entries are positive fractions
whose denominators are at most max(13, n·(2+d)), i.e. 13, 13, 20 (the original specification said n·(2+d) = 6, 12,
20; see docs/decisions.md: at n = 2 the view is one known row, r* and s*, so a limit L gives
4·(number of fractions in (0, 1) with denominator <= L) distinct solver views, 44 at L = 6
and 228 at L = 13); π_{s*} must move with the split of the absent mass.

v1.1: the chain is drawn as a circulation (see :func:`_circulation`) so that every answer's
denominator is at most n·(row limit) <= 80, under the family cap of 200.

Row i of P is stored as integers: numerators ``num[i]`` over the row's lowest common
denominator ``den[i]`` (cheap to serialise, and one latent text per chain).
"""

from __future__ import annotations

import random
from fractions import Fraction
from functools import lru_cache
from math import gcd, lcm
from typing import Any, Dict, List, Optional, Sequence, Tuple

from mira_math.generators.family import Family, Latent, Rendered
from mira_math.generators.linalg import Singular
from mira_math.generators.schema import Hint


def _n_states(level: int) -> int:
    return min(level + 1, 4)


def _max_denominator(level: int) -> int:
    return max(13, _n_states(level) * (2 + level))


def _slot(i: int, j: int) -> str:
    return f"P[{i}][{j}]"


def _row(entries: Sequence[Fraction]) -> Tuple[List[int], int]:
    """Canonical integer form of a row: numerators over the lowest common denominator."""
    den = lcm(*(x.denominator for x in entries))
    return [x.numerator * (den // x.denominator) for x in entries], den


def _circulation(rng: random.Random, n: int, limit: int) -> List[List[int]]:
    """A positive integer matrix K whose row i and column i have the same sum R_i <= limit.

    P[i][j] = K[i][j] / R_i is then a chain whose stationary distribution is R_i / sum(R):
    sum_i (R_i / T) K[i][j] / R_i = (column sum j) / T = R_j / T. Its answers therefore have
    denominators at most n·limit (26, 39, 80), under the cap of 200 by construction, where
    independently drawn rows gave denominators up to 156,744 (v1.0). K starts as all ones and
    gains random directed cycles of length >= 2 while its row sums stay under sums R_i drawn
    first, then self-loops reach them; the chain need not be reversible.
    """
    goal = [rng.randint(n, limit) for _ in range(n)]   # the row sums, drawn first
    k = [[1] * n for _ in range(n)]
    sums = [n] * n
    for _ in range(rng.randint(0, 2 * limit)):
        cycle = rng.sample(range(n), rng.randint(2, n))
        if all(sums[s] < goal[s] for s in cycle):
            for a, s in enumerate(cycle):
                k[s][cycle[(a + 1) % len(cycle)]] += 1
                sums[s] += 1
    for s in range(n):                                 # self-loops reach the drawn sums
        k[s][s] += goal[s] - sums[s]
    return k


def _matrix(latent: Latent) -> List[List[Fraction]]:
    return [[Fraction(k, d) for k in row] for row, d in zip(latent["num"], latent["den"])]


def _det(m: List[List[int]]) -> int:
    """Integer determinant of the principal minors used here (at most 3 x 3)."""
    if len(m) == 1:
        return m[0][0]
    if len(m) == 2:
        return m[0][0] * m[1][1] - m[0][1] * m[1][0]
    return sum((-1) ** j * m[0][j] * _det([row[:j] + row[j + 1:] for row in m[1:]])
               for j in range(len(m)) if m[0][j])


def _show(k: int, d: int) -> str:
    """``k/d`` reduced (entries lie strictly between 0 and 1, so never an integer)."""
    g = gcd(k, d)
    return f"{k // g}/{d // g}"


@lru_cache(maxsize=4096)
def _weights(num: Tuple[Tuple[int, ...], ...], den: Tuple[int, ...]) -> Tuple[int, ...]:
    """Unnormalised stationary weights of P[i][j] = num[i][j] / den[i].

    M = diag(den) - num has zero row sums; by the Markov chain tree theorem π_j is
    proportional to den[j] times the principal minor M_jj. Integers only, and cached:
    validation asks for the same chain several times.
    """
    n = len(den)
    m = [[(den[i] if i == j else 0) - k for j, k in enumerate(row)] for i, row in enumerate(num)]
    weights = tuple(den[j] * _det([row[:j] + row[j + 1:] for i, row in enumerate(m) if i != j])
                    for j in range(n))
    if sum(weights) == 0 or any(w < 0 for w in weights):
        raise Singular("the chain has no unique stationary distribution")
    return weights


def _pi(latent: Latent) -> Fraction:
    weights = _weights(tuple(tuple(row) for row in latent["num"]), tuple(latent["den"]))
    return Fraction(weights[latent["target"]], sum(weights))


def _alternative(a: Fraction, mass: Fraction, limit: int) -> Optional[Fraction]:
    """Another split ``a' + (mass - a') = mass`` into positive fractions with denominators
    at most ``limit``; the first in (denominator, numerator) order, or None."""
    big, small = mass.numerator, mass.denominator
    for q in range(2, limit + 1):
        for num in range(1, q):
            if num * small >= big * q:  # num/q >= mass: no room left for the other entry
                break
            rest = big * q - num * small  # mass - num/q = rest / (small * q)
            if (gcd(num, q) == 1 and (num, q) != (a.numerator, a.denominator)
                    and small * q // gcd(rest, small * q) <= limit):
                return Fraction(num, q)
    return None


def _with_row(latent: Latent, r: int, entries: Sequence[Fraction]) -> Latent:
    nums, den = _row(entries)
    return {**latent, "num": [nums if i == r else list(row) for i, row in enumerate(latent["num"])],
            "den": [den if i == r else d for i, d in enumerate(latent["den"])]}


class MarkovMissingTransition(Family):
    name = "markov_missing_transition"
    type = "B"
    answer_type = "fraction"
    max_answer_denominator = 200
    slot_fields = ("row", "cols")

    def generate(self, rng: random.Random, level: int) -> Latent:
        n = _n_states(level)
        picked = [_row([Fraction(x, sum(row)) for x in row])
                  for row in _circulation(rng, n, _max_denominator(level))]
        return {"level": level, "n": n, "num": [list(nums) for nums, _ in picked],
                "den": [den for _, den in picked], "row": rng.randrange(n),
                "cols": sorted(rng.sample(range(n), 2)), "target": rng.randrange(n)}

    def check(self, latent: Latent) -> Optional[str]:
        level, n, num, den = latent["level"], latent["n"], latent["num"], latent["den"]
        if level not in (1, 2, 3) or n != _n_states(level):
            return f"n = {n} does not match level {level}"
        if len(num) != n or len(den) != n or any(len(row) != n for row in num):
            return "P is not an n x n matrix"
        limit = _max_denominator(level)
        for i, (row, d) in enumerate(zip(num, den)):
            if not all(isinstance(k, int) for k in row + [d]):
                return f"row {i} of P is not stored as integers"
            for j, k in enumerate(row):
                if not 0 < k < d:
                    return f"{_slot(i, j)} = {k}/{d} is not a probability in (0, 1)"
                if d // gcd(k, d) > limit:
                    return f"{_slot(i, j)} has denominator above {limit}"
            if sum(row) != d:
                return f"row {i} of P does not sum to 1"
            if gcd(d, *row) != 1:
                return f"row {i} of P is not over its lowest common denominator"
        r, cols, target = latent["row"], latent["cols"], latent["target"]
        if not (isinstance(r, int) and 0 <= r < n and isinstance(target, int) and 0 <= target < n):
            return "row r* or target s* is not a state"
        if not (len(cols) == 2 and all(isinstance(c, int) and 0 <= c < n for c in cols)
                and cols[0] < cols[1]):
            return "the absent columns are not two distinct states in order"
        alt = self.witness(latent)
        if alt is None:
            return "the absent pair has no other split within the domain"
        try:
            if _pi(latent) == _pi(alt):
                # π_{s*} is a Möbius function of the split: equal at two points means constant.
                return "pi_{s*} does not depend on the absent entries"
        except Singular:
            return "the chain has no unique stationary distribution"
        return None

    def render(self, latent: Latent) -> Rendered:
        n, r, cols, target = latent["n"], latent["row"], latent["cols"], latent["target"]
        num, den = latent["num"], latent["den"]
        states = ", ".join(str(i) for i in range(n))
        lines = [f"{_slot(r, c)} = {_show(num[r][c], den[r])}" for c in cols]
        return Rendered(
            context=f"A discrete-time Markov chain has states {states} and transition matrix P: "
                    f"P[i][j] is the probability of moving from state i to state j in one step, "
                    f"and every row of P sums to 1. pi_i is the stationary probability of state "
                    f"i (the chain is ergodic, so the stationary distribution is unique).",
            facts=[f"{_slot(i, j)} = {_show(num[i][j], den[i])}" for i in range(n)
                   for j in range(n) if not (i == r and j in cols)],
            question=f"What is pi_{target}, the stationary probability of state {target}? "
                     f"Give it as a reduced fraction.",
            domain="Every entry of P is a positive fraction.",
            responder=lines,
            hints=[Hint(_slot(r, c), line, _show(num[r][c], den[r]))
                   for c, line in zip(cols, lines)],
        )

    def solve(self, latent: Latent) -> Fraction:
        return _pi(latent)

    def known(self, latent: Latent) -> Dict[str, Any]:
        r, cols = latent["row"], latent["cols"]
        entries = [[None if (i == r and j in cols) else x for j, x in enumerate(row)]
                   for i, row in enumerate(_matrix(latent))]
        return {"level": latent["level"], "n": latent["n"], "target": latent["target"],
                "P": entries}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        absent = [(i, j) for i, row in enumerate(known["P"]) for j, x in enumerate(row)
                  if x is None]
        if len(absent) != 2 or absent[0][0] != absent[1][0]:
            raise ValueError("the view does not lack exactly two entries of one row")
        r, cols = absent[0][0], [absent[0][1], absent[1][1]]
        slots = [_slot(r, c) for c in cols]
        if hint.slot not in slots:
            raise ValueError(f"hint slot {hint.slot!r} is not one of the absent entries {slots}")
        given = Fraction(hint.value)
        other = 1 - sum(x for x in known["P"][r] if x is not None) - given
        if not (0 < given < 1 and 0 < other < 1):
            raise ValueError("the hint leaves row r* outside (0, 1)")
        mine = slots.index(hint.slot)
        row = list(known["P"][r])
        row[cols[mine]], row[cols[1 - mine]] = given, other
        canon = [_row(rw) for rw in known["P"][:r] + [row] + known["P"][r + 1:]]
        return {"level": known["level"], "n": known["n"], "num": [k for k, _ in canon],
                "den": [d for _, d in canon], "row": r, "cols": cols, "target": known["target"]}

    def witness(self, latent: Latent) -> Optional[Latent]:
        r, (c1, c2) = latent["row"], latent["cols"]
        num, d = latent["num"][r], latent["den"][r]
        mass = Fraction(num[c1] + num[c2], d)
        x = _alternative(Fraction(num[c1], d), mass, _max_denominator(latent["level"]))
        if x is None:
            return None
        entries = [Fraction(k, d) for k in num]
        entries[c1], entries[c2] = x, mass - x
        return _with_row(latent, r, entries)


FAMILY = MarkovMissingTransition()
