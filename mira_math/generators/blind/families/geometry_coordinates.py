"""Coordinate geometry with a point the question does not use: P is where line 1 meets line 2,
Q and R are given points, and the question asks |PQ|; R is an irrelevant gap, since |PQ| is a
function of the two lines and Q alone, whatever R's coordinates are.

The latent state is the two lines ``[a, b, c]`` (a·x + b·y = c), P, Q and R. Needed facts are
Q (another lattice point of the box at another integer distance from P changes |PQ|) and a line
whose partner line has a second lattice point P' at another integer distance from Q: the line
through P' parallel to an axis (whichever is not parallel to the partner) is a second completion.
Every quantity has a finite stated domain (lines with bounded integer coefficients, points of
a lattice box), so R's irrelevance is proved by enumerating all of its box.
"""

from __future__ import annotations

import random
from math import isqrt
from typing import List, Mapping, Optional, Tuple

from mira_math.common.text import linear, parse_linear
from mira_math.generators.blind.contract import BlindFamily, Domain, Finite, Latent, Reject, Setting

LINES, Q, R = ("line 1", "line 2"), "Q", "R"
SLOTS = LINES + (Q, R)
POINT_BOX = 9                       # every given point: |x|, |y| <= 9 (361 lattice points)


def _p_box(level: int) -> int:
    return 3 + level


def _coef_bound(level: int) -> int:
    return 2 + level


def _c_bound(level: int) -> int:
    return 2 * _coef_bound(level) * _p_box(level)


def _equation(line: List[int]) -> str:
    return f"{linear(line[:2], ['x', 'y'])} = {line[2]}"


def _point(p: List[int]) -> str:
    return f"({p[0]}, {p[1]})"


def _parse_point(text: str) -> Optional[List[int]]:
    if not (text.startswith("(") and text.endswith(")")):
        return None
    parts = text[1:-1].split(", ")
    try:
        p = [int(v) for v in parts]
    except ValueError:
        return None
    return p if len(p) == 2 and _point(p) == text else None


def _distance(p: List[int], q: List[int]) -> Optional[int]:
    sq = (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2
    r = isqrt(sq)
    return r if r * r == sq else None


def _meet(l1: List[int], l2: List[int]) -> Optional[List[int]]:
    """The lattice point where two lines meet; None when parallel or not a lattice point."""
    (a1, b1, c1), (a2, b2, c2) = l1, l2
    det = a1 * b2 - a2 * b1
    if det == 0:
        return None
    xn, yn = c1 * b2 - c2 * b1, a1 * c2 - a2 * c1
    if xn % det or yn % det:
        return None
    return [xn // det, yn // det]


def _box_points(box: int) -> List[Tuple[int, int]]:
    return [(x, y) for x in range(-box, box + 1) for y in range(-box, box + 1)]


class GeometryBlind(BlindFamily):
    name = "geometry_coordinates"
    type = "A"
    answer_type = "int"
    # one needed fact at most: the candidate count enumerates the needed slots' product of
    # domains, and a line's domain has thousands of values (two would be millions)
    max_needed = 1

    def generate(self, rng: random.Random, level: int) -> Latent:
        box, bound = _p_box(level), _coef_bound(level)
        p = [rng.randint(-box, box), rng.randint(-box, box)]
        qs = [[x, y] for x, y in _box_points(POINT_BOX)
              if [x, y] != p and _distance(p, [x, y]) is not None]
        q = rng.choice(qs)
        r = [rng.randint(-POINT_BOX, POINT_BOX), rng.randint(-POINT_BOX, POINT_BOX)]
        lines = []
        for _ in range(2):
            a, b = rng.randint(-bound, bound), rng.randint(-bound, bound)
            if (a, b) == (0, 0):
                raise Reject("a line needs a non-zero coefficient")
            lines.append([a, b, a * p[0] + b * p[1]])
        if _meet(lines[0], lines[1]) is None:
            raise Reject("the lines are parallel")
        return {"level": level, "lines": lines, "Q": q, "R": r}

    def setting(self, latent: Latent) -> Setting:
        level = latent["level"]
        context = ("In the (x, y)-plane, line 1 and line 2 are two non-parallel lines, each written "
                   "as a·x + b·y = c with integer coefficients; P is their point of intersection. "
                   "Q and R are two given points.")
        domain = (f"Every line has integer coefficients a, b, c with |a|, |b| ≤ {_coef_bound(level)} "
                  f"(not both 0) and |c| ≤ {_c_bound(level)}; every given point has integer "
                  f"coordinates with |x|, |y| ≤ {POINT_BOX}; the intersection point has integer "
                  f"coordinates with |x|, |y| ≤ {_p_box(level)}.")
        return Setting(context, "What is the distance |PQ|? It is a positive integer.", domain)

    def slots(self, latent: Latent) -> List[str]:
        return list(SLOTS)

    def value(self, latent: Latent, slot: str) -> str:
        if slot in LINES:
            return _equation(latent["lines"][LINES.index(slot)])
        return _point(latent[slot])

    def line(self, latent: Latent, slot: str, value: str) -> str:
        return f"{slot}: {value}" if slot in LINES else f"{slot} = {value}"

    def _read_line(self, level: int, text: str) -> Optional[List[int]]:
        try:
            a, b, c = parse_linear(text, ("x", "y"))
        except ValueError:
            return None
        bound = _coef_bound(level)
        if (a, b) == (0, 0) or max(abs(a), abs(b)) > bound or abs(c) > _c_bound(level):
            return None
        return [a, b, c]

    def answer(self, latent: Latent, values: Mapping[str, str]) -> Optional[int]:
        level = latent["level"]
        lines = [self._read_line(level, values[s]) for s in LINES]
        points = [_parse_point(values[s]) for s in (Q, R)]
        if any(v is None for v in lines) or any(
                v is None or max(abs(v[0]), abs(v[1])) > POINT_BOX for v in points):
            return None
        p = _meet(lines[0], lines[1])  # type: ignore[arg-type]
        if p is None or max(abs(p[0]), abs(p[1])) > _p_box(level):
            return None
        q = points[0]
        dist = _distance(p, q)  # type: ignore[arg-type]
        return dist if dist else None

    def _line_alternatives(self, latent: Latent, slot: str) -> List[str]:
        """Lines through a lattice point P' of the other line at another integer distance from Q."""
        level, q = latent["level"], latent["Q"]
        other = latent["lines"][1 - LINES.index(slot)]
        truth = self.true_answer(latent)
        out = []
        for x, y in _box_points(_p_box(level)):
            if other[0] * x + other[1] * y != other[2]:
                continue
            dist = _distance([x, y], q)
            if dist is None or dist == 0 or dist == truth:
                continue
            new = [1, 0, x] if other[1] != 0 else [0, 1, y]     # not parallel to the other line
            out.append(_equation(new))
        return out

    def needable(self, latent: Latent) -> List[str]:
        return [s for s in LINES if self._line_alternatives(latent, s)] + [Q]

    def irrelevant(self, latent: Latent) -> List[str]:
        return [R]

    def domain(self, latent: Latent, slot: str) -> Domain:
        if slot in LINES:
            level = latent["level"]
            bound, cb = _coef_bound(level), _c_bound(level)
            return Finite([_equation([a, b, c]) for a in range(-bound, bound + 1)
                           for b in range(-bound, bound + 1) if (a, b) != (0, 0)
                           for c in range(-cb, cb + 1)])
        return Finite([_point([x, y]) for x, y in _box_points(POINT_BOX)])

    def alternatives(self, latent: Latent, slot: str) -> List[str]:
        if slot in LINES:
            return self._line_alternatives(latent, slot)
        return []


FAMILY = GeometryBlind()
