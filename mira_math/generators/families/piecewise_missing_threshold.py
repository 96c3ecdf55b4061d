"""Piecewise linear function with the threshold withheld: which branch applies at the query?

f(x) = m1·x + c1 for x < t and m2·x + c2 for x ≥ t. The solver knows both branches and the
query point; the responder holds the query point again (a noncanonical repeat) and t. The
branches differ at the query point, and the query lies below the top of t's stated range,
so both branch values are possible: the chance level is 2.
"""

from __future__ import annotations

import random
from typing import Any, Dict, List, Optional, Set

from mira_math.generators.family import Family, Latent, Reject, Rendered
from mira_math.generators.schema import Hint
from mira_math.common.text import frac, linear


def _slope_max(level: int) -> int:
    return 2 + level


def _range(level: int) -> int:
    """Bound on the query point, the threshold and (decided here) the intercepts."""
    return 5 + 3 * level


def _branch(m: int, c: int) -> str:
    """``-3x + 6``, ``x``, ``-2``: the branch formula in one fixed style."""
    if m == 0:
        return frac(c)
    head = linear([m], ["x"])
    if c == 0:
        return head
    return f"{head} {'-' if c < 0 else '+'} {abs(c)}"


def _value(m: int, c: int, x: int) -> int:
    return m * x + c


def _query_line(x: int) -> str:
    return f"query point: x = {frac(x)}"


def _threshold_line(t: int) -> str:
    return f"t = {frac(t)}"


def _branch_values(known: Dict[str, Any]) -> List[int]:
    """The two branch values at the query point (lower branch first)."""
    x, m, c = known["x"], known["m"], known["c"]
    return [_value(m[0], c[0], x), _value(m[1], c[1], x)]


class PiecewiseMissingThreshold(Family):
    name = "piecewise_missing_threshold"
    type = "A"
    answer_type = "int"

    def generate(self, rng: random.Random, level: int) -> Latent:
        s, r = _slope_max(level), _range(level)
        m = [rng.randint(-s, s), rng.randint(-s, s)]
        c = [rng.randint(-r, r), rng.randint(-r, r)]
        x, t = rng.randint(-r, r - 1), rng.randint(-r, r)
        if _value(m[0], c[0], x) == _value(m[1], c[1], x):
            raise Reject("the branches agree at the query point")
        return {"level": level, "m": m, "c": c, "x": x, "t": t}

    def check(self, latent: Latent) -> Optional[str]:
        s, r = _slope_max(latent["level"]), _range(latent["level"])
        m, c, x, t = latent["m"], latent["c"], latent["x"], latent["t"]
        if any(abs(v) > s for v in m):
            return f"a slope lies outside [-{s}, {s}]"
        if any(abs(v) > r for v in c + [x, t]):
            return f"an intercept, the query or the threshold lies outside [-{r}, {r}]"
        if _value(m[0], c[0], x) == _value(m[1], c[1], x):
            return "the branches agree at the query point: t does not matter"
        if x >= r:
            return "no threshold in range exceeds the query point: the upper branch is forced"
        return None

    def render(self, latent: Latent) -> Rendered:
        m, c, x, t = latent["m"], latent["c"], latent["x"], latent["t"]
        r = _range(latent["level"])
        query = _query_line(x)
        return Rendered(
            context="f is a piecewise linear function with an integer threshold t: one formula "
                    "applies for x < t, the other for x ≥ t.",
            facts=[f"f(x) = {_branch(m[0], c[0])} for x < t",
                   f"f(x) = {_branch(m[1], c[1])} for x ≥ t", query],
            question=f"What is f({frac(x)})?",
            domain=f"t is an integer with {frac(-r)} ≤ t ≤ {frac(r)}.",
            responder=[query, _threshold_line(t)],
            hints=[Hint("t", _threshold_line(t), frac(t))],
        )

    def solve(self, latent: Latent) -> int:
        lower, upper = _branch_values(latent)
        return lower if latent["x"] < latent["t"] else upper

    def known(self, latent: Latent) -> Dict[str, Any]:
        return {"level": latent["level"], "m": list(latent["m"]), "c": list(latent["c"]),
                "x": latent["x"]}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        return {**known, "t": int(hint.value)}

    def candidates(self, known: Dict[str, Any]) -> Optional[Set[int]]:
        # t = -range puts x on the upper branch; t = x + 1 (in range when x < range) on the lower.
        lower, upper = _branch_values(known)
        r = _range(known["level"])
        return {upper, lower} if known["x"] < r else {upper}


FAMILY = PiecewiseMissingThreshold()
