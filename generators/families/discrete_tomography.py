"""Discrete tomography: a 3×3 binary grid seen through its six line sums; one cell withheld.

The solver knows the three row sums and three column sums; the target cell is ambiguous
under them (its value differs between consistent grids). The responder holds the value of
another cell, chosen so that it leaves exactly one consistent grid.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction
from itertools import product
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from generators.family import Family, Latent, Reject, Rendered
from generators.schema import Hint

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


def _pins(grids: Sequence[Grid], cell: Cell, value: int) -> int:
    """How many consistent grids have ``value`` at ``cell``."""
    return sum(1 for g in grids if g[cell[0]][cell[1]] == value)


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
        hints = [c for c in _CELLS if c != target and _pins(grids, c, grid[c[0]][c[1]]) == 1]
        if not hints:
            raise Reject("no single cell pins down the grid")
        hint = rng.choice(hints)
        return {"level": level, "grid": [list(r) for r in grid], "target": list(target),
                "hint": list(hint)}

    def check(self, latent: Latent) -> Optional[str]:
        if latent.get("level") != 1:
            return "discrete_tomography is generated at level 1 only"
        grid = latent["grid"]
        if len(grid) != 3 or any(len(r) != 3 or any(v not in (0, 1) or isinstance(v, bool)
                                                    for v in r) for r in grid):
            return "the grid is not a 3×3 array of 0/1 cells"
        target, hint = tuple(latent["target"]), tuple(latent["hint"])
        if target not in _CELLS or hint not in _CELLS:
            return "target or hint cell lies outside the grid"
        if target == hint:
            return "the hint cell is the target cell"
        grids = _consistent(*_sums(grid))
        if not _ambiguous(grids, target):  # type: ignore[arg-type]
            return "the row and column sums already fix the target cell"
        if _pins(grids, hint, grid[hint[0]][hint[1]]) != 1:  # type: ignore[arg-type]
            return "the hint cell's value does not leave exactly one consistent grid"
        return None

    def render(self, latent: Latent) -> Rendered:
        rows, cols = _sums(latent["grid"])
        hi, hj = latent["hint"]
        ti, tj = latent["target"]
        line = f"{_slot((hi, hj))} = {latent['grid'][hi][hj]}"
        return Rendered(
            context="A 3×3 grid has cells that each hold 0 or 1. Rows and columns are numbered "
                    "0, 1, 2 from the top left; cell (i,j) is the cell in row i and column j. "
                    "A row sum is the sum of the three cells of that row, a column sum the sum "
                    "of the three cells of that column.",
            facts=[f"row {i} sum = {rows[i]}" for i in range(3)]
                  + [f"column {j} sum = {cols[j]}" for j in range(3)],
            question=f"What is the value of {_slot((ti, tj))}? Answer 0 or 1.",
            domain="Every cell holds 0 or 1.",
            responder=[line],
            hints=[Hint(_slot((hi, hj)), line, str(latent["grid"][hi][hj]))],
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
        fits = [g for g in grids if g[cell[0]][cell[1]] == value]
        if len(fits) != 1:
            raise ValueError(f"{len(fits)} grids fit the sums and {hint.slot} = {value}")
        return {"level": known["level"], "grid": [list(r) for r in fits[0]],
                "target": list(known["target"]), "hint": list(cell)}

    def candidates(self, known: Dict[str, Any]) -> Optional[Set[Any]]:
        i, j = known["target"]
        return {g[i][j] for g in _consistent(known["rows"], known["cols"])}


FAMILY = DiscreteTomography()
