"""Ergodic Markov chain with two entries of one row withheld (SPEC §5, decided there).

The solver knows every row but r*, and n-2 entries of row r*. Since it cannot tell which of
the two absent entries the responder would hold, the responder holds both, one per line;
either is canonical, because the row sum gives the other. Entries are positive fractions
whose denominators are at most n·(2+d); π_{s*} must move with the split of the absent mass.
"""

from __future__ import annotations

import random
from fractions import Fraction
from functools import lru_cache
from typing import Any, Dict, List, Optional, Sequence, Tuple

from generators.family import Family, Latent, Rendered
from generators.linalg import Singular, solve as linsolve
from generators.schema import Hint
from generators.text import frac


def _n_states(level: int) -> int:
    return min(level + 1, 4)


def _max_denominator(level: int) -> int:
    return _n_states(level) * (2 + level)


def _slot(i: int, j: int) -> str:
    return f"P[{i}][{j}]"


@lru_cache(maxsize=4096)
def _stationary(p: Tuple[Tuple[Fraction, ...], ...]) -> Tuple[Fraction, ...]:
    """π = πP, Σπ = 1 (cached: validation asks for the same chain several times)."""
    n = len(p)
    a = [[p[j][i] - (1 if i == j else 0) for j in range(n)] for i in range(n - 1)]
    a.append([Fraction(1)] * n)
    return tuple(linsolve(a, [Fraction(0)] * (n - 1) + [Fraction(1)]))


def _pi(p: Sequence[Sequence[Fraction]], target: int) -> Fraction:
    return _stationary(tuple(tuple(row) for row in p))[target]


def _alternative(a: Fraction, mass: Fraction, limit: int) -> Optional[Fraction]:
    """Another split ``a' + (mass - a') = mass`` into positive fractions with denominators
    at most ``limit``; the first in (denominator, numerator) order, or None."""
    for q in range(2, limit + 1):
        for num in range(1, q):
            x = Fraction(num, q)
            if x >= mass:
                break
            if x != a and x.denominator == q and (mass - x).denominator <= limit:
                return x
    return None


def _with_split(latent: Latent, x: Fraction) -> Latent:
    """The latent state with P[r*][c1] = x and P[r*][c2] = (absent mass) - x."""
    r, (c1, c2) = latent["row"], latent["cols"]
    mass = latent["P"][r][c1] + latent["P"][r][c2]
    p = [list(row) for row in latent["P"]]
    p[r][c1], p[r][c2] = x, mass - x
    return {**latent, "P": p}


class MarkovMissingTransition(Family):
    name = "markov_missing_transition"
    type = "B"
    answer_type = "fraction"

    def generate(self, rng: random.Random, level: int) -> Latent:
        n, limit = _n_states(level), _max_denominator(level)
        p: List[List[Fraction]] = []
        for _ in range(n):
            d = rng.randint(n, limit)  # a common row denominator; n positive numerators
            cuts = [0] + sorted(rng.sample(range(1, d), n - 1)) + [d]
            p.append([Fraction(cuts[j + 1] - cuts[j], d) for j in range(n)])
        return {"level": level, "n": n, "P": p, "row": rng.randrange(n),
                "cols": sorted(rng.sample(range(n), 2)), "target": rng.randrange(n)}

    def check(self, latent: Latent) -> Optional[str]:
        level, n, p = latent["level"], latent["n"], latent["P"]
        if level not in (1, 2, 3) or n != _n_states(level):
            return f"n = {n} does not match level {level}"
        if len(p) != n or any(len(row) != n for row in p):
            return "P is not an n x n matrix"
        limit = _max_denominator(level)
        for i, row in enumerate(p):
            for j, x in enumerate(row):
                if not (isinstance(x, (int, Fraction)) and 0 < x < 1):
                    return f"{_slot(i, j)} = {x} is not a probability in (0, 1)"
                if Fraction(x).denominator > limit:
                    return f"{_slot(i, j)} has denominator above {limit}"
            if sum(row) != 1:
                return f"row {i} of P does not sum to 1"
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
            if _pi(p, target) == _pi(alt["P"], target):
                # π_{s*} is a Möbius function of the split: equal at two points means constant.
                return "pi_{s*} does not depend on the absent entries"
        except Singular:
            return "the chain has no unique stationary distribution"
        return None

    def render(self, latent: Latent) -> Rendered:
        n, p, r, target = latent["n"], latent["P"], latent["row"], latent["target"]
        cols = latent["cols"]
        states = ", ".join(str(i) for i in range(n))
        lines = [f"{_slot(r, c)} = {frac(p[r][c])}" for c in cols]
        return Rendered(
            context=f"A discrete-time Markov chain has states {states} and transition matrix P: "
                    f"P[i][j] is the probability of moving from state i to state j in one step, "
                    f"and every row of P sums to 1. pi_i is the stationary probability of state "
                    f"i (the chain is ergodic, so the stationary distribution is unique).",
            facts=[f"{_slot(i, j)} = {frac(p[i][j])}" for i in range(n) for j in range(n)
                   if not (i == r and j in cols)],
            question=f"What is pi_{target}, the stationary probability of state {target}? "
                     f"Give it as a reduced fraction.",
            domain="Every entry of P is a positive fraction.",
            responder=lines,
            hints=[Hint(_slot(r, c), line, frac(p[r][c])) for c, line in zip(cols, lines)],
        )

    def solve(self, latent: Latent) -> Fraction:
        return _pi(latent["P"], latent["target"])

    def known(self, latent: Latent) -> Dict[str, Any]:
        r, cols = latent["row"], latent["cols"]
        entries = [[None if (i == r and j in cols) else x for j, x in enumerate(row)]
                   for i, row in enumerate(latent["P"])]
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
        p = [list(row) for row in known["P"]]
        mine, theirs = (0, 1) if hint.slot == slots[0] else (1, 0)
        p[r][cols[mine]], p[r][cols[theirs]] = given, other
        return {"level": known["level"], "n": known["n"], "P": p, "row": r, "cols": cols,
                "target": known["target"]}

    def witness(self, latent: Latent) -> Optional[Latent]:
        r, (c1, c2) = latent["row"], latent["cols"]
        mass = latent["P"][r][c1] + latent["P"][r][c2]
        x = _alternative(latent["P"][r][c1], mass, _max_denominator(latent["level"]))
        return None if x is None else _with_split(latent, x)


FAMILY = MarkovMissingTransition()
