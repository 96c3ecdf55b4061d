"""Discrete tomography: a 3×3 binary grid seen through its six line sums; one cell withheld.

The solver knows the three row sums and three column sums; the target cell is ambiguous
under them (its value differs between consistent grids). v1.1: the responder holds every
other cell whose true value alone fixes the target, one per line, each canonical (v1.0 held
one of them, picked at random, and declined requests for the others: the family rewarded
guessing which cell the holder chose).
"""

from __future__ import annotations

import random
import re
from fractions import Fraction
from itertools import product
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from mira_math.generators.family import Family, Latent, Reject, Rendered
from mira_math.generators.schema import Hint

Grid = Tuple[Tuple[int, ...], ...]
Cell = Tuple[int, int]
Sums = Tuple[Tuple[int, ...], Tuple[int, ...]]

_CELLS: List[Cell] = [(i, j) for i in range(3) for j in range(3)]
_SLOT_RE = re.compile(r"^cell \(([0-2]),([0-2])\)$")


def _sums(grid: Sequence[Sequence[int]]) -> Sums:
    rows = tuple(sum(row) for row in grid)
    cols = tuple(sum(grid[i][j] for i in range(3)) for j in range(3))
    return rows, cols


def _all_classes() -> Dict[Sums, List[Grid]]:
    """All 512 grids, grouped by their six sums, each group in a fixed (lexicographic) order."""
    classes: Dict[Sums, List[Grid]] = {}
    for bits in product((0, 1), repeat=9):
        grid = (bits[0:3], bits[3:6], bits[6:9])
        classes.setdefault(_sums(grid), []).append(grid)
    return classes


_CLASSES = _all_classes()


def _consistent(rows: Sequence[int], cols: Sequence[int]) -> List[Grid]:
    return _CLASSES.get((tuple(rows), tuple(cols)), [])


def _ambiguous(grids: Sequence[Grid], cell: Cell) -> bool:
    return len({g[cell[0]][cell[1]] for g in grids}) == 2



def _resolving(grid: Sequence[Sequence[int]], target: Cell) -> List[Cell]:
    """Cells other than the target whose true value leaves one target value, in order."""
    grids = _consistent(*_sums(grid))
    out = []
    for c in _CELLS:
        if c == target:
            continue
        fits = {g[target[0]][target[1]] for g in grids if g[c[0]][c[1]] == grid[c[0]][c[1]]}
        if len(fits) == 1:
            out.append(c)
    return out


def _slot(cell: Sequence[int]) -> str:
    return f"cell ({cell[0]},{cell[1]})"


class DiscreteTomography(Family):
    name = "discrete_tomography"
    type = "B"
    answer_type = "cell"
    scales_with_difficulty = False
    max_answer_share = Fraction(3, 5)   # a binary answer: balanced by drawing it first

    def balanced_answer(self, index: int) -> Optional[str]:
        # In a split, alternate 0 and 1 so every block holds exactly half of each.
        return str(index % 2)

    def generate(self, rng: random.Random, level: int) -> Latent:
        want = rng.randint(0, 1)         # the target value, drawn first so 0 and 1 balance
        grid = tuple(tuple(rng.randint(0, 1) for _ in range(3)) for _ in range(3))
        grids = _consistent(*_sums(grid))
        targets = [c for c in _CELLS if grid[c[0]][c[1]] == want and _ambiguous(grids, c)]
        if not targets:
            raise Reject("no ambiguous cell holds the wanted target value")
        target = rng.choice(targets)
        if not _resolving(grid, target):
            raise Reject("no single cell fixes the target")
        return {"level": level, "grid": [list(r) for r in grid], "target": list(target)}

    def check(self, latent: Latent) -> Optional[str]:
        if latent.get("level") != 1:
            return "discrete_tomography is generated at level 1 only"
        grid = latent["grid"]
        if len(grid) != 3 or any(len(r) != 3 or any(v not in (0, 1) or isinstance(v, bool)
                                                    for v in r) for r in grid):
            return "the grid is not a 3×3 array of 0/1 cells"
        if sorted(latent) != ["grid", "level", "target"]:
            return "the latent state is not exactly grid, level and target"
        target = tuple(latent["target"])
        if target not in _CELLS:
            return "the target cell lies outside the grid"
        grids = _consistent(*_sums(grid))
        if not _ambiguous(grids, target):
            return "the row and column sums already fix the target cell"
        if not _resolving(grid, target):
            return "no single cell's value fixes the target"
        return None

    def render(self, latent: Latent) -> Rendered:
        rows, cols = _sums(latent["grid"])
        ti, tj = latent["target"]
        cells = _resolving(latent["grid"], (ti, tj))
        lines = [f"{_slot(c)} = {latent['grid'][c[0]][c[1]]}" for c in cells]
        return Rendered(
            context="A 3×3 grid has cells that each hold 0 or 1. Rows and columns are numbered "
                    "0, 1, 2 from the top left; cell (i,j) is the cell in row i and column j. "
                    "A row sum is the sum of the three cells of that row, a column sum the sum "
                    "of the three cells of that column.",
            facts=[f"row {i} sum = {rows[i]}" for i in range(3)]
                  + [f"column {j} sum = {cols[j]}" for j in range(3)],
            question=f"What is the value of {_slot((ti, tj))}? Answer 0 or 1.",
            domain="Every cell holds 0 or 1.",
            responder=lines,
            hints=[Hint(_slot(c), line, str(latent["grid"][c[0]][c[1]]))
                   for c, line in zip(cells, lines)],
        )

    def solve(self, latent: Latent) -> int:
        i, j = latent["target"]
        return latent["grid"][i][j]

    def known(self, latent: Latent) -> Dict[str, Any]:
        rows, cols = _sums(latent["grid"])
        return {"level": latent["level"], "rows": list(rows), "cols": list(cols),
                "target": list(latent["target"])}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        m = _SLOT_RE.match(hint.slot)
        if not m or hint.value not in ("0", "1"):
            raise ValueError(f"not a cell hint: {hint.slot} = {hint.value}")
        cell = (int(m.group(1)), int(m.group(2)))
        value = int(hint.value)
        grids = _consistent(known["rows"], known["cols"])
        ti, tj = known["target"]
        fits = [g for g in grids if g[cell[0]][cell[1]] == value]
        if not fits or len({g[ti][tj] for g in fits}) != 1:
            raise ValueError(f"the sums and {hint.slot} = {value} leave the target open")
        # The target is fixed; the rest of the grid may not be. The first fitting grid stands
        # for the completion (its answer is the only one the hint allows).
        return {"level": known["level"], "grid": [list(r) for r in fits[0]],
                "target": list(known["target"])}

    def resolving_slots(self, latent: Latent) -> Optional[List[str]]:
        return [_slot(c) for c in _resolving(latent["grid"], tuple(latent["target"]))]

    def candidates(self, known: Dict[str, Any]) -> Optional[Set[Any]]:
        i, j = known["target"]
        return {g[i][j] for g in _consistent(known["rows"], known["cols"])}


FAMILY = DiscreteTomography()
