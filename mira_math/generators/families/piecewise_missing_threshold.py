"""Piecewise linear function with the threshold withheld: which branch applies at the query?

f(x) = m1·x + c1 for x < t and m2·x + c2 for x ≥ t. The solver knows both branches and the
query point; the responder holds the query point again (a noncanonical repeat) and t. The
branches differ at the query point, and the query lies below the top of t's stated range,
so both branch values are possible: the chance level is 2.
"""

from __future__ import annotations

import random
from typing import Any, Dict, List, Optional, Sequence, Set

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


def _values_given_t(known: Dict[str, Any], t: int) -> Set[int]:
    """f at every admissible query point (an integer in the stated range) for threshold t."""
    m, c, r = known["m"], known["c"], _range(known["level"])
    return {_value(m[0], c[0], x) if x < t else _value(m[1], c[1], x) for x in range(-r, r + 1)}


class PiecewiseTwoFacts(PiecewiseMissingThreshold):
    """Two facts withheld: the threshold t and the query point; the solver has the two branches
    and is asked for f at the query point. Both are integers in the stated range, so every
    answer set is finite and enumerated: the query alone leaves the two branch values, t alone
    the values at every query point (at least two, checked)."""

    k = 2

    def check(self, latent: Latent) -> Optional[str]:
        problem = super().check(latent)
        if problem:
            return problem
        if len(_values_given_t(latent, latent["t"])) < 2:
            return "t alone fixes f at every query point"
        return None

    def render(self, latent: Latent) -> Rendered:
        m, c, x, t = latent["m"], latent["c"], latent["x"], latent["t"]
        r = _range(latent["level"])
        query, threshold = _query_line(x), _threshold_line(t)
        return Rendered(
            context="f is a piecewise linear function with an integer threshold t: one formula "
                    "applies for x < t, the other for x ≥ t. f is to be evaluated at an integer "
                    "query point.",
            facts=[f"f(x) = {_branch(m[0], c[0])} for x < t",
                   f"f(x) = {_branch(m[1], c[1])} for x ≥ t"],
            question="What is f at the query point?",
            domain=f"t and the query point are integers between {frac(-r)} and {frac(r)} inclusive.",
            responder=[query, threshold],
            hints=[Hint("query point", query, frac(x)), Hint("t", threshold, frac(t))],
            hint_groups=[["query point"], ["t"]],
        )

    def known(self, latent: Latent) -> Dict[str, Any]:
        return {"level": latent["level"], "m": list(latent["m"]), "c": list(latent["c"])}

    def complete_many(self, known: Dict[str, Any], hints: Sequence[Hint]) -> Latent:
        x, t = self.given_value(hints, "query point"), self.given_value(hints, "t")
        if x is None or t is None or len(hints) != 2:
            raise ValueError("needs exactly the query point and t")
        return {**known, "x": int(x), "t": int(t)}

    def candidates_given(self, known: Dict[str, Any], given: Sequence[Hint]) -> Optional[Set[int]]:
        r = _range(known["level"])
        x, t = self.given_value(given, "query point"), self.given_value(given, "t")
        if t is not None:
            return _values_given_t(known, int(t))
        if x is not None:
            return PiecewiseMissingThreshold.candidates(self, {**known, "x": int(x)})
        return set().union(*(_values_given_t(known, tt) for tt in range(-r, r + 1)))

    def candidates(self, known: Dict[str, Any]) -> Optional[Set[int]]:
        return self.candidates_given(known, [])


FAMILY_K2 = PiecewiseTwoFacts()
