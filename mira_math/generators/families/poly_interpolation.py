"""Polynomial interpolation with one of the δ+1 recorded points held back (which one varies)."""

from __future__ import annotations

import random
import re
from fractions import Fraction
from typing import Any, Dict, List, Optional, Sequence

from mira_math.generators.family import Family, Latent, Reject, Rendered
from mira_math.generators.schema import Hint
from mira_math.common.text import frac

_NODE_LO, _NODE_HI = -4, 4     # nodes and the query point (decided here)
_SLOT_RE = re.compile(r"^p\((-?\d+)\)$")


def _degree(level: int) -> int:
    return 2 + min(level, 2)


def _coef_bound(level: int) -> int:
    return 3 + level


def _value(coeffs: Sequence[int], x: int) -> int:
    """p(x) by Horner; coefficients in ascending powers."""
    acc = 0
    for c in reversed(coeffs):
        acc = acc * x + c
    return acc


def _vanishing(roots: Sequence[int]) -> List[int]:
    """Ascending coefficients of ∏ (x - r): monic, integer."""
    poly = [1]
    for r in roots:
        poly = [(poly[i - 1] if i else 0) - r * (poly[i] if i < len(poly) else 0)
                for i in range(len(poly) + 1)]
    return poly


def _interpolate(points: Sequence[Sequence[int]]) -> List[Fraction]:
    """Ascending coefficients of the interpolant through points with distinct x, via Newton's
    divided differences (exact, O(n²): much cheaper than a Vandermonde solve)."""
    xs = [x for x, _ in points]
    dd = [Fraction(y) for _, y in points]
    for level in range(1, len(xs)):
        for i in range(len(xs) - 1, level - 1, -1):
            dd[i] = (dd[i] - dd[i - 1]) / (xs[i] - xs[i - level])
    poly: List[Fraction] = [dd[-1]]
    for i in range(len(xs) - 2, -1, -1):   # poly = poly·(x - xs[i]) + dd[i]
        poly = [(poly[k - 1] if k else Fraction(0)) - xs[i] * (poly[k] if k < len(poly) else 0)
                for k in range(len(poly) + 1)]
        poly[0] += dd[i]
    return poly


def _point(x: int, y: int) -> str:
    return f"p({x}) = {frac(y)}"


class PolyInterpolation(Family):
    name = "poly_interpolation"
    type = "B"
    answer_type = "int"
    slot_fields = ("missing",)

    def generate(self, rng: random.Random, level: int) -> Latent:
        deg, cb = _degree(level), _coef_bound(level)
        xs = rng.sample(range(_NODE_LO, _NODE_HI + 1), deg + 2)
        latent = {
            "level": level,
            "coeffs": [rng.randint(-cb, cb) for _ in range(deg + 1)],
            "nodes": sorted(xs[:-1]),
            "query": xs[-1],
            "missing": rng.randrange(deg + 1),
        }
        problem = self.check(latent)
        if problem:
            raise Reject(problem)
        return latent

    def check(self, latent: Latent) -> Optional[str]:
        # The coefficient range is the sampling distribution, not a validity condition: the
        # solver is told "degree δ, integer coefficients", and the witness may leave the range.
        deg = _degree(latent["level"])
        coeffs, nodes, query = latent["coeffs"], latent["nodes"], latent["query"]
        if len(coeffs) != deg + 1 or not all(type(c) is int for c in coeffs):
            return f"p needs {deg + 1} integer coefficients"
        if coeffs[-1] == 0:
            return f"leading coefficient is zero: p does not have degree {deg}"
        if len(nodes) != deg + 1 or not all(type(x) is int for x in nodes + [query]):
            return f"{deg + 1} integer nodes and an integer query point are needed"
        if nodes != sorted(set(nodes)):
            return "nodes must be distinct and in increasing order"
        if not all(_NODE_LO <= x <= _NODE_HI for x in nodes + [query]):
            return f"nodes and query must lie in [{_NODE_LO}, {_NODE_HI}]"
        if query in nodes:
            return "the query point is one of the nodes"
        if not (type(latent["missing"]) is int and 0 <= latent["missing"] <= deg):
            return "the held-back node index is out of range"
        return None

    def render(self, latent: Latent) -> Rendered:
        deg, coeffs, nodes = _degree(latent["level"]), latent["coeffs"], latent["nodes"]
        held = nodes[latent["missing"]]
        held_line = _point(held, _value(coeffs, held))
        shown = [_point(x, _value(coeffs, x)) for x in nodes if x != held]
        return Rendered(
            context=f"p is a polynomial of degree {deg} with integer coefficients; p(x) denotes "
                    f"its value at x. Its values were recorded at {deg + 1} distinct integer "
                    "nodes.",
            facts=[f"The recorded nodes are x = {', '.join(str(x) for x in nodes)}."] + shown,
            question=f"What is p({latent['query']})? Give it as an integer.",
            domain=f"p is a polynomial of degree exactly {deg} with integer coefficients.",
            responder=[held_line],
            hints=[Hint(f"p({held})", held_line, frac(_value(coeffs, held)))],
        )

    def solve(self, latent: Latent) -> int:
        return _value(latent["coeffs"], latent["query"])

    def known(self, latent: Latent) -> Dict[str, Any]:
        coeffs, nodes = latent["coeffs"], latent["nodes"]
        held = nodes[latent["missing"]]
        return {"level": latent["level"], "nodes": list(nodes), "query": latent["query"],
                "points": [[x, _value(coeffs, x)] for x in nodes if x != held]}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        m = _SLOT_RE.match(hint.slot)
        if not m:
            raise ValueError(f"unknown slot {hint.slot!r}")
        held, nodes = int(m.group(1)), known["nodes"]
        if held not in nodes or any(x == held for x, _ in known["points"]):
            raise ValueError(f"{hint.slot} is not the held-back node")
        points = sorted([list(p) for p in known["points"]] + [[held, int(hint.value)]])
        coeffs = _interpolate(points)  # distinct nodes: exactly one interpolant
        if any(c.denominator != 1 for c in coeffs):
            raise ValueError("the interpolant does not have integer coefficients")
        return {"level": known["level"], "coeffs": [int(c) for c in coeffs], "nodes": list(nodes),
                "query": known["query"], "missing": nodes.index(held)}

    def witness(self, latent: Latent) -> Optional[Latent]:
        # Degree-δ polynomials through the δ shown points form the line p + c·∏(x - x_i), x_i
        # the shown nodes; the product is nonzero at the query, so c != 0 changes p(query).
        nodes = latent["nodes"]
        held = nodes[latent["missing"]]
        bump = _vanishing([x for x in nodes if x != held])
        c = -1 if latent["coeffs"][-1] == -1 else 1   # keep the leading coefficient nonzero
        return {**latent, "coeffs": [a + c * b for a, b in zip(latent["coeffs"], bump)]}


FAMILY = PolyInterpolation()


class PolyTwoFacts(PolyInterpolation):
    """Two of the δ+1 points held back (``missing`` is the pair of node indices). Through the
    δ-1 shown points and one held point the degree-δ polynomials still form the line
    p + c·∏(x - x_i) over those δ nodes, nonzero at the query: one point leaves p(query) open."""

    k = 2

    def generate(self, rng: random.Random, level: int) -> Latent:
        deg, cb = _degree(level), _coef_bound(level)
        xs = rng.sample(range(_NODE_LO, _NODE_HI + 1), deg + 2)
        latent = {"level": level, "coeffs": [rng.randint(-cb, cb) for _ in range(deg + 1)],
                  "nodes": sorted(xs[:-1]), "query": xs[-1],
                  "missing": sorted(rng.sample(range(deg + 1), 2))}
        problem = self.check(latent)
        if problem:
            raise Reject(problem)
        return latent

    def check(self, latent: Latent) -> Optional[str]:
        pair, deg = latent["missing"], _degree(latent["level"])
        if not (isinstance(pair, list) and len(pair) == 2 and pair == sorted(set(pair))
                and all(type(i) is int and 0 <= i <= deg for i in pair)):
            return "the held-back node indices are not two distinct indices in order"
        return super().check({**latent, "missing": pair[0]})

    def render(self, latent: Latent) -> Rendered:
        deg, coeffs, nodes = _degree(latent["level"]), latent["coeffs"], latent["nodes"]
        held = [nodes[i] for i in latent["missing"]]
        lines = [_point(x, _value(coeffs, x)) for x in held]
        return Rendered(
            context=f"p is a polynomial of degree {deg} with integer coefficients; p(x) denotes "
                    f"its value at x. Its values were recorded at {deg + 1} distinct integer "
                    "nodes.",
            facts=[f"The recorded nodes are x = {', '.join(str(x) for x in nodes)}."]
                  + [_point(x, _value(coeffs, x)) for x in nodes if x not in held],
            question=f"What is p({latent['query']})? Give it as an integer.",
            domain=f"p is a polynomial of degree exactly {deg} with integer coefficients.",
            responder=lines,
            hints=[Hint(f"p({x})", line, frac(_value(coeffs, x))) for x, line in zip(held, lines)],
            hint_groups=[[f"p({x})"] for x in held],
        )

    def known(self, latent: Latent) -> Dict[str, Any]:
        coeffs, nodes = latent["coeffs"], latent["nodes"]
        held = [nodes[i] for i in latent["missing"]]
        return {"level": latent["level"], "nodes": list(nodes), "query": latent["query"],
                "points": [[x, _value(coeffs, x)] for x in nodes if x not in held]}

    def complete_many(self, known: Dict[str, Any], hints: Sequence[Hint]) -> Latent:
        nodes, shown = known["nodes"], {x for x, _ in known["points"]}
        points = [list(p) for p in known["points"]]
        for h in hints:
            m = _SLOT_RE.match(h.slot)
            if not m or int(m.group(1)) not in nodes or int(m.group(1)) in shown:
                raise ValueError(f"{h.slot} is not a held-back node")
            points.append([int(m.group(1)), int(h.value)])
        if sorted(x for x, _ in points) != list(nodes):
            raise ValueError("the hints are not the held-back nodes")
        coeffs = _interpolate(sorted(points))
        if any(c.denominator != 1 for c in coeffs):
            raise ValueError("the interpolant does not have integer coefficients")
        held = sorted(nodes.index(x) for x in nodes if x not in shown)
        return {"level": known["level"], "coeffs": [int(c) for c in coeffs], "nodes": list(nodes),
                "query": known["query"], "missing": held}

    def witness_given(self, latent: Latent, given: Optional[Hint]) -> Optional[Latent]:
        nodes = latent["nodes"]
        free = [nodes[i] for i in latent["missing"] if given is None or f"p({nodes[i]})" != given.slot]
        bump = _vanishing([x for x in nodes if x != free[0]])
        c = -1 if latent["coeffs"][-1] == -1 else 1
        return {**latent, "coeffs": [a + c * b for a, b in zip(latent["coeffs"], bump)]}


FAMILY_K2 = PolyTwoFacts()
