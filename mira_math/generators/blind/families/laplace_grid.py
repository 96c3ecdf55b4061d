"""Discrete Laplace equation on an n×n grid whose boundary includes the four corners: the
irrelevant gap is a corner value.

Every interior cell satisfies the 5-point stencil 4u[i][j] = sum of its four neighbours (the
stencil lines are in the view); every other cell, corners included, is a boundary cell with a
fixed integer value (a structure line lists them all, in reading order). A corner is the
neighbour of no interior cell, so it enters no stencil: the interior values, the target among
them, are the same for every value of a corner. The target is affine in each boundary value,
u[t] = sum over boundary cells c of w(t, c)·u[c], so the irrelevance is proved by the degree
argument (degree 1, two points).

Needed facts are the non-corner boundary values: the interior operator is an irreducible
M-matrix, so every non-corner boundary cell moves every interior cell with a positive weight
w(t, c) > 0, and any other integer value gives another answer. Unlike the one-fact family
(which rounds the interior to integers), the boundary values are drawn freely and the answer
is a reduced fraction (denominators divide 24 on the 4×4 grid, 224 on the 5×5), so the stated
domain (every boundary value an integer) is the whole assumption: the answer is defined for
every value of it.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Dict, List, Mapping, Optional, Tuple

from mira_math.generators.blind.contract import BlindFamily, Domain, Latent, Rational, Setting
from mira_math.generators.families.laplace_grid import _GRIDS, _key, _u

Cell = Tuple[int, int]


def _size(level: int) -> int:
    """The one-fact family's grids: 4×4 at level 1, 5×5 above."""
    return 4 if level <= 1 else 5


def _bound(level: int) -> int:
    """The one-fact family's boundary magnitudes: 20, 30, 40."""
    return 10 * (level + 1)


def _corners(n: int) -> List[Cell]:
    return [(0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1)]


def _boundary(n: int) -> List[Cell]:
    """Every non-interior cell in reading order, corners included."""
    return [(i, j) for i in range(n) for j in range(n) if i in (0, n - 1) or j in (0, n - 1)]


class LaplaceBlind(BlindFamily):
    name = "laplace_grid"
    type = "B"
    answer_type = "fraction"

    def generate(self, rng: random.Random, level: int) -> Latent:
        n, bound = _size(level), _bound(level)
        g = _GRIDS[n]
        boundary = {_key(c): rng.randint(-bound, bound) for c in _boundary(n)}
        return {"level": level, "n": n, "boundary": dict(sorted(boundary.items())),
                "target": list(rng.choice(g.interior))}

    def check(self, latent: Latent) -> Optional[str]:
        n = latent["n"]
        if n != _size(latent["level"]):
            return f"grid size {n} does not match level {latent['level']}"
        if sorted(latent["boundary"]) != sorted(_key(c) for c in _boundary(n)):
            return "boundary values must be given for exactly the boundary cells"
        if tuple(latent["target"]) not in _GRIDS[n].index:
            return "the target is not an interior cell"
        return super().check(latent)

    def setting(self, latent: Latent) -> Setting:
        g = _GRIDS[latent["n"]]
        n = g.n
        stencils = [f"4{_u(c)} = " + " + ".join(_u(nb) for nb in g.neighbours[c])
                    for c in g.interior]
        context = (f"u assigns a number to every cell of a {n}×{n} grid; rows and columns are "
                   f"numbered 0 to {n - 1} from the top left, and u[i][j] is the value in row i, "
                   f"column j. The cells with 1 <= i, j <= {n - 2} are interior cells; each obeys "
                   f"the discrete Laplace equation below (its value is the average of its four "
                   f"neighbours). All other cells are boundary cells with fixed values.")
        cells = "Boundary cells: " + ", ".join(_u(c) for c in _boundary(n))
        return Setting(context, f"What is {_u(latent['target'])}? Give it as a reduced fraction.",
                       "Every boundary value is an integer.", structure=stencils + [cells])

    def slots(self, latent: Latent) -> List[str]:
        return [_u(c) for c in _boundary(latent["n"])]

    def value(self, latent: Latent, slot: str) -> str:
        return str(latent["boundary"][slot[2:-1].replace("][", ",")])

    def answer(self, latent: Latent, values: Mapping[str, str]) -> Optional[Fraction]:
        n = latent["n"]
        boundary: Dict[str, int] = {}
        for c in _boundary(n):
            v = Fraction(values[_u(c)])
            if v.denominator != 1:
                return None
            boundary[_key(c)] = int(v)
        return _GRIDS[n].value(boundary, latent["target"])

    def needable(self, latent: Latent) -> List[str]:
        corners = set(_corners(latent["n"]))
        return [_u(c) for c in _boundary(latent["n"]) if c not in corners]

    def irrelevant(self, latent: Latent) -> List[str]:
        return [_u(c) for c in _corners(latent["n"])]

    def domain(self, latent: Latent, slot: str) -> Domain:
        return Rational(1, "the target is affine in each boundary value (a weight of the "
                           "inverse interior operator), defined for every integer", ["0", "1"])

    def alternatives(self, latent: Latent, slot: str) -> List[str]:
        v = int(self.value(latent, slot))
        return [str(v + 1), str(v - 1)]


FAMILY = LaplaceBlind()
