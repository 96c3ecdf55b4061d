"""Rank-1 completion of a larger matrix: the listed entries of M form a spanning tree of its
rows and columns (each listed entry mij joins row i and column j), and an unlisted entry
m_rc is asked.

A rank-1 matrix with no zero entry is m_ij = u_i·v_j, so the listed entries fix u and v up to
a common scale, and m_rc is the alternating product of the listed entries on the tree's path
from row r to column c (m_rc = m_rj · m_ij' ... with every second one divided). A listed
entry off that path is never read by the formula: its value changes other unlisted entries
but not m_rc, so it is an irrelevant gap (any positive integer gives a valid rank-1
completion with the same m_rc). Needed facts are the entries on the path: m_rc is
proportional to each of them or to its inverse, so any other value changes it.

Domain of a listed entry: the positive integers, infinite. As a function of one listed entry
x (the others fixed), m_rc is c·x, c/x or constant with c > 0: a ratio of polynomials of
degree <= 1 defined for every x > 0, so two points prove a gap (:class:`Rational`).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Dict, List, Mapping, Optional, Tuple

from mira_math.generators.blind.contract import BlindFamily, Domain, Latent, Rational, Reject, Setting

_SHAPES = {1: (2, 3), 2: (3, 3), 3: (3, 4)}


def _top(level: int) -> int:
    return 5 + 2 * level


def _name(i: int, j: int) -> str:
    return f"m{i}{j}"


def _tree(rng: random.Random, rows: int, cols: int) -> List[List[int]]:
    """A random spanning tree of the complete bipartite graph rows x cols, as (i, j) entries."""
    nodes = [("r", i) for i in range(rows)] + [("c", j) for j in range(cols)]
    start = rng.choice(nodes)
    inside, outside = [start], [n for n in nodes if n != start]
    entries = []
    while outside:
        new = rng.choice(outside)
        partners = [n for n in inside if n[0] != new[0]]
        if not partners:
            continue
        old = rng.choice(partners)
        row, col = (new[1], old[1]) if new[0] == "r" else (old[1], new[1])
        entries.append([row, col])
        inside.append(new)
        outside.remove(new)
    return sorted(entries)


def _path(entries: List[List[int]], r: int, c: int) -> Optional[List[Tuple[int, int]]]:
    """The listed entries on the tree path from row r to column c, in order (None: no path)."""
    start, goal = ("r", r), ("c", c)
    back: Dict[Tuple[str, int], Optional[Tuple[Tuple[str, int], Tuple[int, int]]]] = {start: None}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for i, j in entries:
            if node == ("r", i):
                nxt = ("c", j)
            elif node == ("c", j):
                nxt = ("r", i)
            else:
                continue
            if nxt not in back:
                back[nxt] = (node, (i, j))
                queue.append(nxt)
    if goal not in back:
        return None
    out = []
    node = goal
    while back[node] is not None:
        prev, entry = back[node]  # type: ignore[misc]
        out.append(entry)
        node = prev
    return list(reversed(out))


def _completion(entries: List[List[int]], values: Mapping[str, Fraction], rows: int,
                cols: int) -> Tuple[List[Fraction], List[Fraction]]:
    """u, v with u_i·v_j equal to every listed entry (u_0 = 1; the tree spans every row and
    column, so each is reached once)."""
    u: List[Optional[Fraction]] = [Fraction(1)] + [None] * (rows - 1)
    v: List[Optional[Fraction]] = [None] * cols
    changed = True
    while changed:
        changed = False
        for i, j in entries:
            m = values[_name(i, j)]
            ui, vj = u[i], v[j]
            if ui is not None and vj is None:
                v[j], changed = m / ui, True
            elif vj is not None and ui is None:
                u[i], changed = m / vj, True
    us, vs = [x for x in u if x is not None], [x for x in v if x is not None]
    if len(us) != rows or len(vs) != cols:
        raise ValueError("the listed entries do not span every row and column")
    return us, vs


class MatrixCompletionBlind(BlindFamily):
    name = "matrix_completion"
    type = "A"
    answer_type = "fraction"

    def generate(self, rng: random.Random, level: int) -> Latent:
        rows, cols = _SHAPES[level]
        entries = _tree(rng, rows, cols)
        listed = {(i, j) for i, j in entries}
        targets = [[i, j] for i in range(rows) for j in range(cols) if (i, j) not in listed]
        r, c = rng.choice(targets)
        path = _path(entries, r, c)
        if path is None or len(path) >= len(entries):
            raise Reject("every listed entry lies on the target's path")
        top = _top(level)
        return {"level": level, "rows": rows, "cols": cols, "entries": entries, "target": [r, c],
                "values": {_name(i, j): rng.randint(1, top) for i, j in entries}}

    def setting(self, latent: Latent) -> Setting:
        rows, cols = latent["rows"], latent["cols"]
        r, c = latent["target"]
        context = (f"M is a {rows}x{cols} matrix with entries mij (row i from 0 to {rows - 1}, "
                   f"column j from 0 to {cols - 1}). M has rank 1 and no zero entry: "
                   "mij = u_i·v_j for vectors u and v with nonzero rational entries. The entries "
                   "of M listed below were recorded; the other entries were not.")
        listed = ", ".join(_name(i, j) for i, j in latent["entries"])
        return Setting(context, f"What is {_name(r, c)}? Give it as a reduced fraction.",
                       "Every recorded entry of M is a positive integer.",
                       structure=[f"Recorded entries: {listed}"])

    def slots(self, latent: Latent) -> List[str]:
        return [_name(i, j) for i, j in latent["entries"]]

    def value(self, latent: Latent, slot: str) -> str:
        return str(latent["values"][slot])

    def answer(self, latent: Latent, values: Mapping[str, str]) -> Optional[Fraction]:
        parsed: Dict[str, Fraction] = {}
        for slot in self.slots(latent):
            x = Fraction(values[slot])
            if x.denominator != 1 or x <= 0:
                return None
            parsed[slot] = x
        u, v = _completion(latent["entries"], parsed, latent["rows"], latent["cols"])
        r, c = latent["target"]
        return u[r] * v[c]

    def _on_path(self, latent: Latent) -> List[str]:
        r, c = latent["target"]
        return [_name(i, j) for i, j in _path(latent["entries"], r, c) or []]

    def needable(self, latent: Latent) -> List[str]:
        path = set(self._on_path(latent))
        return [s for s in self.slots(latent) if s in path]

    def irrelevant(self, latent: Latent) -> List[str]:
        path = set(self._on_path(latent))
        return [s for s in self.slots(latent) if s not in path]

    def domain(self, latent: Latent, slot: str) -> Domain:
        return Rational(1, "m_rc is c·x, c/x or constant in any one recorded entry x (c > 0), "
                           "defined for every x > 0", ["1", "2"])

    def alternatives(self, latent: Latent, slot: str) -> List[str]:
        v = latent["values"][slot]
        return [str(v + 1), str(v - 1)] if v > 1 else [str(v + 1)]


FAMILY = MatrixCompletionBlind()
