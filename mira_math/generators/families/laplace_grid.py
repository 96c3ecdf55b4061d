"""Discrete Laplace equation on an n×n grid with one boundary value withheld.

Every interior cell satisfies the 5-point stencil 4u[i][j] = sum of its four neighbours; the
non-corner boundary cells hold given integers. Corners enter no stencil, so they are not part
of the problem at all (never shown, never missing). The interior operator is an irreducible
M-matrix, so every boundary cell influences every interior cell with a positive weight: the
missing value always moves the target.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction
from math import gcd
from typing import Any, Dict, List, Optional, Sequence, Tuple

from mira_math.generators.family import Family, Latent, Reject, Rendered
from mira_math.generators.linalg import solve
from mira_math.generators.schema import Hint

Cell = Tuple[int, int]
_SLOT_RE = re.compile(r"^u\[(\d+)\]\[(\d+)\]$")
_STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))   # the stencil's neighbour order, as rendered


def _key(cell: Sequence[int]) -> str:
    return f"{cell[0]},{cell[1]}"


def _u(cell: Sequence[int]) -> str:
    return f"u[{cell[0]}][{cell[1]}]"


class _Grid:
    """Precomputed structure of one grid size: cells, neighbours, inverse interior operator."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.interior: List[Cell] = [(i, j) for i in range(1, n - 1) for j in range(1, n - 1)]
        self.boundary: List[Cell] = [
            (i, j) for i in range(n) for j in range(n)
            if (i in (0, n - 1)) != (j in (0, n - 1))]          # edges without corners
        index = {c: k for k, c in enumerate(self.interior)}
        self.index = index
        self.neighbours: Dict[Cell, List[Cell]] = {
            c: [(c[0] + di, c[1] + dj) for di, dj in _STEPS] for c in self.interior}
        self.inside_of: Dict[Cell, Cell] = {}        # boundary cell -> its one interior neighbour
        for c in self.interior:
            for nb in self.neighbours[c]:
                if nb not in index:
                    self.inside_of[nb] = c
        m = len(self.interior)
        op = [[0] * m for _ in range(m)]
        for c, k in index.items():
            op[k][k] = 4
            for nb in self.neighbours[c]:
                if nb in index:
                    op[k][index[nb]] = -1
        cols = [solve(op, [1 if r == k else 0 for r in range(m)]) for k in range(m)]
        self.inverse: List[List[Fraction]] = [[cols[c][r] for c in range(m)] for r in range(m)]
        # The inverse as integers over one common denominator: the hot path stays in ints.
        self.scale = 1
        for row in self.inverse:
            for w in row:
                self.scale = self.scale * w.denominator // gcd(self.scale, w.denominator)
        self.scaled = [[int(w * self.scale) for w in row] for row in self.inverse]
        self.outer: Dict[Cell, List[str]] = {
            c: [_key(nb) for nb in self.neighbours[c] if nb not in index] for c in self.interior}

    def loads(self, boundary: Dict[str, int]) -> List[int]:
        """Right-hand side of each interior equation: the sum of its boundary neighbours."""
        return [sum(boundary[k] for k in self.outer[c]) for c in self.interior]

    def scaled_values(self, boundary: Dict[str, int]) -> List[int]:
        """scale · u on the interior cells, in ``interior`` order."""
        loads = self.loads(boundary)
        return [sum(w * r for w, r in zip(row, loads)) for row in self.scaled]

    def value(self, boundary: Dict[str, int], cell: Sequence[int]) -> Fraction:
        row = self.scaled[self.index[(cell[0], cell[1])]]
        return Fraction(sum(w * r for w, r in zip(row, self.loads(boundary))), self.scale)

    def weight(self, target: Sequence[int], missing: Sequence[int]) -> Fraction:
        """d u[target] / d u[missing]."""
        inner = self.inside_of[(missing[0], missing[1])]
        return self.inverse[self.index[(target[0], target[1])]][self.index[inner]]


_GRIDS = {4: _Grid(4), 5: _Grid(5)}


def _size(level: int) -> int:
    return 4 if level <= 1 else 5


def _bound(level: int) -> int:
    """Decided here: boundary magnitudes 20, 30, 40 for d = 1, 2, 3."""
    return 10 * (level + 1)


class LaplaceGrid(Family):
    name = "laplace_grid"
    type = "B"
    answer_type = "int"
    slot_fields = ("missing",)

    def generate(self, rng: random.Random, level: int) -> Latent:
        g, bound = _GRIDS[_size(level)], _bound(level)
        boundary = {_key(c): rng.randint(-bound, bound) for c in g.boundary}
        # Round the harmonic interior to integers, then move the boundary values the least
        # needed to make those integers exactly harmonic.
        u = {c: (2 * v + g.scale) // (2 * g.scale)                 # nearest integer, halves up
             for c, v in zip(g.interior, g.scaled_values(boundary))}
        for c in g.interior:
            if all(nb in g.index for nb in g.neighbours[c]):     # the 5×5 centre: no boundary
                ring = g.neighbours[c]
                fix = ring[rng.randrange(4)]
                u[fix] -= sum(u[nb] for nb in ring) % 4
                u[c] = sum(u[nb] for nb in ring) // 4
        for c in g.interior:
            outer = g.outer[c]
            if not outer:
                continue
            need = 4 * u[c] - sum(u[nb] for nb in g.neighbours[c] if nb in g.index)
            delta = need - sum(boundary[key] for key in outer)
            size, first = len(outer), rng.randrange(len(outer))
            for k, key in enumerate(outer):                    # spread delta as evenly as possible
                boundary[key] += delta // size + (1 if (k - first) % size < delta % size else 0)
        if any(abs(x) > bound for x in boundary.values()):
            raise Reject("adjusted boundary value out of range")
        return {"level": level, "n": g.n, "boundary": boundary,
                "missing": list(rng.choice(g.boundary)), "target": list(rng.choice(g.interior))}

    def check(self, latent: Latent) -> Optional[str]:
        n = latent["n"]
        if n != _size(latent["level"]):
            return f"grid size {n} does not match level {latent['level']}"
        g = _GRIDS[n]
        boundary = latent["boundary"]
        if sorted(boundary) != sorted(_key(c) for c in g.boundary):
            return "boundary values must be given for exactly the non-corner boundary cells"
        if any(not isinstance(x, int) or isinstance(x, bool) for x in boundary.values()):
            return "a boundary value is not an integer"
        missing, target = tuple(latent["missing"]), tuple(latent["target"])
        if missing not in g.inside_of:
            return "the missing cell is not a non-corner boundary cell"
        if target not in g.index:
            return "the target is not an interior cell"
        if g.value(boundary, target).denominator != 1:
            return "the target value is not an integer"
        if g.weight(target, missing) == 0:
            return "the missing boundary cell does not influence the target"
        return None

    def render(self, latent: Latent) -> Rendered:
        g = _GRIDS[latent["n"]]
        n = g.n
        boundary, missing = latent["boundary"], latent["missing"]
        line = f"{_u(missing)} = {boundary[_key(missing)]}"
        stencils = [f"4{_u(c)} = " + " + ".join(_u(nb) for nb in g.neighbours[c])
                    for c in g.interior]
        given = [f"{_u(c)} = {boundary[_key(c)]}" for c in g.boundary
                 if list(c) != list(missing)]
        return Rendered(
            context=f"u assigns a number to every cell of a {n}×{n} grid; rows and columns are "
                    f"numbered 0 to {n - 1} from the top left, and u[i][j] is the value in row i, "
                    f"column j. The cells with 1 <= i, j <= {n - 2} are interior cells; each obeys "
                    f"the discrete Laplace equation below (its value is the average of its four "
                    f"neighbours). The other cells, except the four corners, are boundary cells "
                    f"with fixed values. The corners enter no equation and play no part.",
            facts=stencils + given,
            question=f"What is {_u(latent['target'])}? Give its exact value (an integer).",
            domain="Every boundary value is an integer.",
            responder=[line],
            hints=[Hint(_u(missing), line, str(boundary[_key(missing)]))],
        )

    def solve(self, latent: Latent) -> int:
        value = _GRIDS[latent["n"]].value(latent["boundary"], latent["target"])
        if value.denominator != 1:
            raise ValueError(f"target value {value} is not an integer")
        return value.numerator

    def known(self, latent: Latent) -> Dict[str, Any]:
        hidden = _key(latent["missing"])
        return {"level": latent["level"], "n": latent["n"],
                "boundary": {k: v for k, v in sorted(latent["boundary"].items()) if k != hidden},
                "missing": list(latent["missing"]), "target": list(latent["target"])}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        found = _SLOT_RE.match(hint.slot)
        if not found or [int(found.group(1)), int(found.group(2))] != list(known["missing"]):
            raise ValueError(f"{hint.slot} is not the boundary value missing from the view")
        boundary = dict(known["boundary"])
        boundary[_key(known["missing"])] = int(hint.value)
        return {"level": known["level"], "n": known["n"],
                "boundary": {k: boundary[k] for k in sorted(boundary)},
                "missing": list(known["missing"]), "target": list(known["target"])}

    def witness(self, latent: Latent) -> Optional[Latent]:
        # The target moves by w·Δ for a change Δ of the missing value (w > 0); Δ = ±den(w)
        # keeps the target an integer and changes it by ±num(w).
        g = _GRIDS[latent["n"]]
        step = g.weight(latent["target"], latent["missing"]).denominator
        hidden = _key(latent["missing"])
        old = latent["boundary"][hidden]
        boundary = dict(latent["boundary"])
        boundary[hidden] = old - step if old > 0 else old + step
        return {**latent, "boundary": boundary}


FAMILY = LaplaceGrid()


class LaplaceTwoFacts(LaplaceGrid):
    """Two boundary values withheld (which two varies): ``missing`` is the pair of cells in
    reading order. Every boundary cell moves every interior cell (positive weights), so with
    either value given the other still moves the target (the one-fact witness, per cell)."""

    k = 2

    def generate(self, rng: random.Random, level: int) -> Latent:
        latent = super().generate(rng, level)
        g = _GRIDS[latent["n"]]
        pair = sorted(rng.sample(range(len(g.boundary)), 2))
        return {**latent, "missing": [list(g.boundary[i]) for i in pair]}

    def check(self, latent: Latent) -> Optional[str]:
        pair = latent["missing"]
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(c, list) for c in pair)
                and pair[0] < pair[1]):
            return "the withheld cells are not two cells in reading order"
        for cell in pair:
            problem = super().check({**latent, "missing": cell})
            if problem:
                return problem
        return None

    def render(self, latent: Latent) -> Rendered:
        one = super().render({**latent, "missing": latent["missing"][0]})
        g, boundary, pair = _GRIDS[latent["n"]], latent["boundary"], latent["missing"]
        lines = [f"{_u(c)} = {boundary[_key(c)]}" for c in pair]
        stencils = [f"4{_u(c)} = " + " + ".join(_u(nb) for nb in g.neighbours[c])
                    for c in g.interior]
        given = [f"{_u(c)} = {boundary[_key(c)]}" for c in g.boundary if list(c) not in pair]
        return Rendered(
            context=one.context, facts=stencils + given, question=one.question, domain=one.domain,
            responder=lines,
            hints=[Hint(_u(c), line, str(boundary[_key(c)])) for c, line in zip(pair, lines)],
            hint_groups=[[_u(c)] for c in pair],
        )

    def known(self, latent: Latent) -> Dict[str, Any]:
        hidden = {_key(c) for c in latent["missing"]}
        return {"level": latent["level"], "n": latent["n"],
                "boundary": {k: v for k, v in sorted(latent["boundary"].items()) if k not in hidden},
                "missing": [list(c) for c in latent["missing"]], "target": list(latent["target"])}

    def complete_many(self, known: Dict[str, Any], hints: Sequence[Hint]) -> Latent:
        boundary = dict(known["boundary"])
        cells = []
        for h in hints:
            found = _SLOT_RE.match(h.slot)
            cell = [int(found.group(1)), int(found.group(2))] if found else None
            if cell is None or cell not in known["missing"]:
                raise ValueError(f"{h.slot} is not a boundary value missing from the view")
            boundary[_key(cell)] = int(h.value)
            cells.append(cell)
        if sorted(cells) != sorted(known["missing"]):
            raise ValueError("the hints are not the missing boundary values")
        return {"level": known["level"], "n": known["n"],
                "boundary": {k: boundary[k] for k in sorted(boundary)},
                "missing": [list(c) for c in known["missing"]], "target": list(known["target"])}

    def witness_given(self, latent: Latent, given: Optional[Hint]) -> Optional[Latent]:
        free = [c for c in latent["missing"] if given is None or _u(c) != given.slot][0]
        alt = LaplaceGrid.witness(self, {**latent, "missing": free})
        return None if alt is None else {**alt, "missing": latent["missing"]}


FAMILY_K2 = LaplaceTwoFacts()
