"""Coordinate geometry: P is where line 1 meets line 2; the solver has line 1 and Q, not line 2.

The answer |PQ| is an integer. The stated domain (P a lattice point in the box |x|, |y| <= 4+d,
|PQ| an integer, line 2 with small integer coefficients) makes the answers the view leaves open
finite: the integer distances from Q to the lattice points of line 1 in the box. Each such
point admits a valid line 2 (x = x_P' or y = y_P', whichever is not parallel to line 1).
The generator makes line 1 pass through a second lattice point at a different integer
distance from Q, so there are always at least two candidates.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache
from math import gcd, isqrt
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from mira_math.generators.family import Family, Latent, Reject, Rendered
from mira_math.generators.schema import Hint
from mira_math.common.text import parse_linear, linear

# Offsets Q - P with integer length: primitive Pythagorean triples and their multiples
# (hypotenuse <= 30); axis offsets are drawn separately. Signs and the swap are random.
_TRIPLES = ((3, 4), (6, 8), (9, 12), (12, 16), (15, 20), (18, 24), (5, 12), (10, 24),
            (8, 15), (7, 24), (20, 21))
_AXIS_SHARE = 4        # one draw in _AXIS_SHARE is an axis offset


def _box(level: int) -> int:
    return 4 + level


def _coef_bound(level: int) -> int:
    return 3 + level


def _equation(line: List[int]) -> str:
    return f"{linear(line[:2], ['x', 'y'])} = {line[2]}"


def _exact_distance(p: List[int], q: List[int]) -> Optional[int]:
    sq = (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2
    r = isqrt(sq)
    return r if r * r == sq else None


def _lattice_points(line: List[int], box: int) -> List[Tuple[int, int]]:
    """Integer points of a*x + b*y = c with |x|, |y| <= box, in increasing x then y."""
    a, b, c = line
    out: List[Tuple[int, int]] = []
    for x in range(-box, box + 1):
        if b == 0:
            if a * x == c:
                out.extend((x, y) for y in range(-box, box + 1))
        elif (c - a * x) % b == 0 and abs((c - a * x) // b) <= box:
            out.append((x, (c - a * x) // b))
    return out


def _offset(rng: random.Random, box: int) -> List[int]:
    if rng.randrange(_AXIS_SHARE) == 0:
        dx, dy = rng.randint(1, 2 * box), 0
    else:
        dx, dy = rng.choice(_TRIPLES)
    if rng.randrange(2):
        dx, dy = dy, dx
    return [dx * rng.choice((-1, 1)), dy * rng.choice((-1, 1))]


def _parse_line(text: str) -> List[int]:
    return parse_linear(text, ("x", "y"))


class GeometryCoordinates(Family):
    name = "geometry_coordinates"
    type = "A"
    answer_type = "int"

    def generate(self, rng: random.Random, level: int) -> Latent:
        box, bound = _box(level), _coef_bound(level)
        p = [rng.randint(-box, box), rng.randint(-box, box)]
        off = _offset(rng, box)
        q = [p[0] + off[0], p[1] + off[1]]
        dist = _exact_distance(p, q)
        # A second lattice point on line 1, at another integer distance from Q, whose
        # direction from P fits the coefficient bound: the view then leaves >= 2 answers.
        others = []
        for x in range(-box, box + 1):
            for y in range(-box, box + 1):
                dx, dy = x - p[0], y - p[1]
                g = gcd(dx, dy)
                if g and max(abs(dx), abs(dy)) // g <= bound:
                    d2 = _exact_distance([x, y], q)
                    if d2 is not None and d2 != dist:
                        others.append((dx // g, dy // g))
        if not others:
            raise Reject("no second lattice point of line 1 at another integer distance")
        dx, dy = rng.choice(others)
        k = rng.randint(1, bound // max(abs(dx), abs(dy))) * rng.choice((-1, 1))
        a1, b1 = k * dy, -k * dx
        a2, b2 = rng.randint(-bound, bound), rng.randint(-bound, bound)
        if a1 * b2 - a2 * b1 == 0:
            raise Reject("line 2 is parallel to line 1 (or degenerate)")
        return {"level": level, "P": p, "Q": q,
                "line1": [a1, b1, a1 * p[0] + b1 * p[1]],
                "line2": [a2, b2, a2 * p[0] + b2 * p[1]]}

    def check(self, latent: Latent) -> Optional[str]:
        level, p, q = latent["level"], latent["P"], latent["Q"]
        box, bound = _box(level), _coef_bound(level)
        if not all(isinstance(v, int) for v in p + q + latent["line1"] + latent["line2"]):
            return "coordinates and coefficients must be integers"
        if max(abs(p[0]), abs(p[1])) > box:
            return f"P = {p} is outside the box |x|, |y| <= {box}"
        for key in ("line1", "line2"):
            a, b, c = latent[key]
            if (a, b) == (0, 0) or max(abs(a), abs(b)) > bound:
                return f"{key} coefficients ({a}, {b}) are zero or outside [-{bound}, {bound}]"
            if a * p[0] + b * p[1] != c:
                return f"P does not lie on {key}"
        (a1, b1, _), (a2, b2, _) = latent["line1"], latent["line2"]
        if a1 * b2 - a2 * b1 == 0:
            return "the two lines are parallel"
        if p == q:
            return "Q coincides with P"
        if _exact_distance(p, q) is None:
            return "|PQ| is not an integer"
        return None

    def render(self, latent: Latent) -> Rendered:
        level, q = latent["level"], latent["Q"]
        q_line = f"Q = ({q[0]}, {q[1]})"
        line2 = _equation(latent["line2"])
        return Rendered(
            context="In the (x, y)-plane, line 1 and line 2 are two non-parallel lines, each "
                    "written as a·x + b·y = c with integer coefficients; P is their point of "
                    "intersection and Q is a given point.",
            facts=[f"line 1: {_equation(latent['line1'])}", q_line],
            question="What is the distance |PQ|? It is an integer.",
            domain=f"P = (x, y) has integer coordinates with |x| ≤ {_box(level)} and "
                   f"|y| ≤ {_box(level)}; line 2 has integer coefficients a, b with "
                   f"|a|, |b| ≤ {_coef_bound(level)}; |PQ| is a positive integer.",
            responder=[f"line 2: {line2}", q_line],
            hints=[Hint("line 2", f"line 2: {line2}", line2)],
        )

    def solve(self, latent: Latent) -> int:
        dist = _exact_distance(latent["P"], latent["Q"])
        if dist is None:
            raise ValueError("|PQ| is not an integer")
        return dist

    def known(self, latent: Latent) -> Dict[str, Any]:
        return {"level": latent["level"], "line1": latent["line1"], "Q": latent["Q"]}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        (a1, b1, c1), (a2, b2, c2) = known["line1"], _parse_line(hint.value)
        det = a1 * b2 - a2 * b1
        if det == 0:
            raise ValueError("line 2 is parallel to line 1")
        xn, yn = c1 * b2 - c2 * b1, a1 * c2 - a2 * c1
        if xn % det or yn % det:
            raise ValueError("the lines meet at a non-lattice point")
        return {**known, "P": [xn // det, yn // det], "line2": [a2, b2, c2]}

    def candidates(self, known: Dict[str, Any]) -> Optional[Set[int]]:
        out = set()
        for point in _lattice_points(known["line1"], _box(known["level"])):
            dist = _exact_distance(list(point), known["Q"])
            if dist is not None and dist > 0:
                out.add(dist)
        return out


FAMILY = GeometryCoordinates()


def _q_box(level: int) -> int:
    """The stated box of Q in the two-fact variant: P's box widened by the longest offset leg
    (24), so every generated Q lies in it."""
    return _box(level) + 24


def _abs_span(lo: int, hi: int) -> Tuple[int, int]:
    """The least and greatest |t| over the integers t in [lo, hi]."""
    if lo <= 0 <= hi:
        return 0, max(-lo, hi)
    return min(abs(lo), abs(hi)), max(abs(lo), abs(hi))


@lru_cache(maxsize=None)
def _distances_in_spans(dx: Tuple[int, int], dy: Tuple[int, int]) -> FrozenSet[int]:
    """The positive integers r with r² = a² + b² for a in the span dx and b in dy: the distance
    set depends on a point only through these two spans, so instances share it."""
    (a_lo, a_hi), (b_lo, b_hi) = dx, dy
    roots = {r * r: r for r in range(1, isqrt(a_hi * a_hi + b_hi * b_hi) + 1)}
    out: Set[int] = set()
    for a in range(a_lo, a_hi + 1):
        a2 = a * a
        for b in range(b_lo, b_hi + 1):
            r = roots.get(a2 + b * b)
            if r:
                out.add(r)
    return frozenset(out)


def _distances_from(p: Sequence[int], box: int) -> Set[int]:
    """The positive integer distances from ``p`` to the lattice points with |x|, |y| <= box
    (the offsets' absolute values range over two spans; see :func:`_distances_in_spans`)."""
    return set(_distances_in_spans(_abs_span(-box - p[0], box - p[0]),
                                   _abs_span(-box - p[1], box - p[1])))


def _point_value(q: Sequence[int]) -> str:
    return f"({q[0]}, {q[1]})"


class GeometryTwoFacts(GeometryCoordinates):
    """Two facts withheld: line 2 and the point Q; the solver has line 1. The stated domain
    bounds P and Q to lattice boxes, so every answer set is finite and enumerated: with Q, the
    distances from Q to line 1's lattice points (at least two by construction); with line 2,
    the distances from P to the lattice points of Q's box; with neither, their union."""

    k = 2

    def check(self, latent: Latent) -> Optional[str]:
        problem = super().check(latent)
        if problem:
            return problem
        if max(abs(latent["Q"][0]), abs(latent["Q"][1])) > _q_box(latent["level"]):
            return f"Q is outside the box |x|, |y| <= {_q_box(latent['level'])}"
        return None

    def render(self, latent: Latent) -> Rendered:
        level, q = latent["level"], latent["Q"]
        q_line, line2 = f"Q = {_point_value(q)}", _equation(latent["line2"])
        return Rendered(
            context="In the (x, y)-plane, line 1 and line 2 are two non-parallel lines, each "
                    "written as a·x + b·y = c with integer coefficients; P is their point of "
                    "intersection and Q is a point.",
            facts=[f"line 1: {_equation(latent['line1'])}"],
            question="What is the distance |PQ|? It is an integer.",
            domain=f"P = (x, y) has integer coordinates with |x| ≤ {_box(level)} and "
                   f"|y| ≤ {_box(level)}; line 2 has integer coefficients a, b with "
                   f"|a|, |b| ≤ {_coef_bound(level)}; Q has integer coordinates with |x| ≤ "
                   f"{_q_box(level)} and |y| ≤ {_q_box(level)}; |PQ| is a positive integer.",
            responder=[f"line 2: {line2}", q_line],
            hints=[Hint("line 2", f"line 2: {line2}", line2), Hint("Q", q_line, _point_value(q))],
            hint_groups=[["line 2"], ["Q"]],
        )

    def known(self, latent: Latent) -> Dict[str, Any]:
        return {"level": latent["level"], "line1": latent["line1"]}

    @staticmethod
    def _q(hint: Hint) -> List[int]:
        found = re.fullmatch(r"\((-?\d+), (-?\d+)\)", hint.value)
        if hint.slot != "Q" or not found:
            raise ValueError(f"cannot read the point {hint.value!r}")
        return [int(found.group(1)), int(found.group(2))]

    def complete_many(self, known: Dict[str, Any], hints: Sequence[Hint]) -> Latent:
        line2 = next((h for h in hints if h.slot == "line 2"), None)
        point = next((h for h in hints if h.slot == "Q"), None)
        if line2 is None or point is None or len(hints) != 2:
            raise ValueError("needs line 2 and Q")
        return GeometryCoordinates.complete(self, {**known, "Q": self._q(point)}, line2)

    def candidates_given(self, known: Dict[str, Any], given: Sequence[Hint]) -> Optional[Set[int]]:
        level = known["level"]
        for hint in given:
            if hint.slot == "Q":
                return GeometryCoordinates.candidates(self, {**known, "Q": self._q(hint)})
            p = GeometryCoordinates.complete(self, {**known, "Q": [0, 0]}, hint)["P"]
            return _distances_from(p, _q_box(level))
        out: Set[int] = set()
        for p in _lattice_points(known["line1"], _box(level)):
            out |= _distances_from(p, _q_box(level))
        return out

    def candidates(self, known: Dict[str, Any]) -> Optional[Set[int]]:
        return self.candidates_given(known, [])


FAMILY_K2 = GeometryTwoFacts()
