"""Two equations of rank 2 in (x, y, z); the responder holds two more, either of which fixes it."""

from __future__ import annotations

import random
from math import gcd
from typing import Any, Dict, List, Optional, Sequence

from mira_math.generators.family import Family, Latent, Reject, Rendered
from mira_math.generators.schema import Hint
from mira_math.common.text import parse_linear, frac, linear

_VARS = ("x", "y", "z")
_SHOWN = ("eq1", "eq2")
_HELD = ("eq3", "eq4")


def _coef_bound(level: int) -> int:
    return 3 + level


def _solution_bound(level: int) -> int:
    return 5 + level


def _rhs(row: Sequence[int], sol: Sequence[int]) -> int:
    return sum(a * v for a, v in zip(row, sol))


def _equation(row: Sequence[int], sol: Sequence[int]) -> str:
    return f"{linear(row, _VARS)} = {frac(_rhs(row, sol))}"


def _cross(u: Sequence[int], v: Sequence[int]) -> List[int]:
    return [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]


def _det(a: Sequence[int], b: Sequence[int], c: Sequence[int]) -> int:
    """3×3 integer determinant as a triple product: exact and cheap."""
    return sum(p * q for p, q in zip(_cross(a, b), c))


def _proportional(u: Sequence[int], v: Sequence[int]) -> bool:
    return _cross(u, v) == [0, 0, 0]


def _shape_problem(latent: Latent) -> Optional[str]:
    """What both parts check first: an integer solution triple, and the held eq3 and eq4."""
    sol = latent["solution"]
    if len(sol) != 3 or not all(type(v) is int for v in sol):
        return "the solution must be an integer triple"
    if sorted(latent["held"]) != list(_HELD):
        return "the responder must hold eq3 and eq4"
    return None


def _parse_line(text: str) -> List[int]:
    return parse_linear(text, _VARS)


class RankdefLinearShared(Family):
    name = "rankdef_linear_shared"
    type = "A"
    answer_type = "tuple"

    def generate(self, rng: random.Random, level: int) -> Latent:
        cb, sb = _coef_bound(level), _solution_bound(level)

        def row() -> List[int]:
            return [rng.choice([-1, 1]) * rng.randint(1, cb) for _ in _VARS]

        latent = {
            "level": level,
            "solution": [rng.randint(-sb, sb) for _ in _VARS],
            **{key: row() for key in _SHOWN},
            "held": {key: row() for key in _HELD},
        }
        problem = self.check(latent)
        if problem:
            raise Reject(problem)
        return latent

    def check(self, latent: Latent) -> Optional[str]:
        # The solution box is the sampling distribution, not a validity condition: the solver
        # is told only "integers", and the witness moves along the solution line out of it.
        cb = _coef_bound(latent["level"])
        problem = _shape_problem(latent)
        if problem:
            return problem
        held = latent["held"]
        rows = [latent[k] for k in _SHOWN] + [held[k] for k in _HELD]
        for key, row in zip(_SHOWN + _HELD, rows):
            if len(row) != 3 or not all(type(a) is int and 1 <= abs(a) <= cb for a in row):
                return f"{key} needs three nonzero integer coefficients in [-{cb}, {cb}]"
        eq1, eq2, eq3, eq4 = rows
        if _proportional(eq1, eq2):
            return "eq1 and eq2 are proportional: rank 1, not 2"
        for key, extra in zip(_HELD, (eq3, eq4)):
            if _det(eq1, eq2, extra) == 0:
                return f"{key} does not make the system full rank"
        if _proportional(eq3, eq4):
            return "eq3 and eq4 are proportional: the responder would hold one equation twice"
        return None

    def render(self, latent: Latent) -> Rendered:
        sol = latent["solution"]
        held = latent["held"]
        lines = {key: f"{key}: {_equation(held[key], sol)}" for key in sorted(held)}
        return Rendered(
            context="The unknown integers x, y, z satisfy a system of four linear equations, "
                    "named eq1, eq2, eq3 and eq4; the system has exactly one solution. You are "
                    "given eq1 and eq2.",
            facts=[f"{key}: {_equation(latent[key], sol)}" for key in _SHOWN],
            question="What is (x, y, z)? Give the three integers in that order.",
            domain="x, y and z are integers.",
            responder=[lines[key] for key in sorted(lines)],
            hints=[Hint(key, lines[key], _equation(held[key], sol)) for key in sorted(held)],
            components=list(_VARS),
        )

    def solve(self, latent: Latent) -> tuple:
        return tuple(latent["solution"])

    def known(self, latent: Latent) -> Dict[str, Any]:
        sol = latent["solution"]
        return {"level": latent["level"],
                **{key: list(latent[key]) + [_rhs(latent[key], sol)] for key in _SHOWN}}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        """The solution and the quoted equation. The responder's other equation is an
        independent fact that neither the view nor this hint fixes, so it stays out."""
        if hint.slot not in _HELD:
            raise ValueError(f"unknown slot {hint.slot!r}")
        extra = _parse_line(hint.value)
        rows = [known[k][:3] for k in _SHOWN] + [extra[:3]]
        rhs = [known[k][3] for k in _SHOWN] + [extra[3]]
        d = _det(*rows)
        if d == 0:
            raise ValueError(f"eq1, eq2 and {hint.slot} do not fix (x, y, z)")
        # Cramer's rule: replace column i by the right-hand sides.
        nums = [_det(*[[r if j == i else row[j] for j in range(3)] for row, r in zip(rows, rhs)])
                for i in range(3)]
        if any(v % d for v in nums):
            raise ValueError("the completed solution is not an integer triple")
        return {"level": known["level"], "solution": [v // d for v in nums],
                **{k: known[k][:3] for k in _SHOWN}, "held": {hint.slot: extra[:3]}}

    def witness(self, latent: Latent) -> Optional[Latent]:
        # eq1 and eq2 fix (x, y, z) only up to the line s + t·(eq1 × eq2); the next integer
        # point on it keeps both right-hand sides and changes the answer.
        d = _cross(latent["eq1"], latent["eq2"])
        g = gcd(gcd(d[0], d[1]), d[2])
        step = [c // g for c in d]
        return {**latent, "solution": [s + c for s, c in zip(latent["solution"], step)]}


FAMILY = RankdefLinearShared()


class RankdefTwoFacts(RankdefLinearShared):
    """Two facts withheld: eq2, and the plane eq3 and eq4 both state (a group of two
    alternatives); the solver has eq1. eq4 is a combination ``a·eq1 + b·eq3`` (a, b in
    {±1, ±2}, coprime), so eq1, eq3 and eq4 together still leave the integer line
    s + t·(eq1 × eq3): the two alternatives of one group are one fact, not two (release 1.2.0
    drew eq4 independently, and eq3 with eq4 fixed the answer). eq1 with eq2
    alone leaves the line s + t·(eq1 × eq2); eq1, eq2 and either of eq3, eq4 are of full rank
    (det(eq1, eq2, eq4) = b·det(eq1, eq2, eq3))."""

    k = 2

    def generate(self, rng: random.Random, level: int) -> Latent:
        """Two short directions first: d (the line eq1, eq3 and eq4 leave) and e (the line eq1
        and eq2 leave), each with components in [-2, 2], so that either line has many integer
        points in the sampling box and a solver holding one group is left to guess among them
        (with long directions the point nearest the origin would nearly always be right). eq1
        is normal to both, eq2 to e, eq3 to d, eq4 = a·eq1 + b·eq3."""
        cb, sb = _coef_bound(level), _solution_bound(level)

        def short() -> List[int]:
            return [rng.randint(-2, 2) for _ in _VARS]

        def normal_to(v: Sequence[int]) -> List[int]:
            for _ in range(400):
                row = [rng.choice([-1, 1]) * rng.randint(1, cb) for _ in _VARS]
                if sum(a * b for a, b in zip(row, v)) == 0:
                    return row
            raise Reject("no row normal to the direction")

        d, e = short(), short()
        n = _cross(d, e)
        g = gcd(gcd(n[0], n[1]), n[2])
        if g == 0:
            raise Reject("the two directions are parallel")
        eq1 = [c // g for c in n]
        solution = [rng.randint(-sb, sb) for _ in _VARS]
        eq2, eq3 = normal_to(e), normal_to(d)
        a, b = (rng.choice([-2, -1, 1, 2]) for _ in range(2))
        if gcd(a, b) != 1:
            raise Reject("eq4 would be a multiple of a combination")
        eq4 = [a * u + b * v for u, v in zip(eq1, eq3)]
        latent = {"level": level, "solution": solution, "eq1": eq1, "eq2": eq2,
                  "held": {"eq3": eq3, "eq4": eq4}}
        problem = self.check(latent)
        if problem:
            raise Reject(problem)
        return latent

    def check(self, latent: Latent) -> Optional[str]:
        cb = _coef_bound(latent["level"])
        problem = _shape_problem(latent)
        if problem:
            return problem
        held = latent["held"]
        eq1, eq2, eq3, eq4 = latent["eq1"], latent["eq2"], held["eq3"], held["eq4"]
        for key, row, bound in (("eq1", eq1, cb), ("eq2", eq2, cb), ("eq3", eq3, cb),
                                ("eq4", eq4, 4 * cb)):
            if len(row) != 3 or not all(type(a) is int and 1 <= abs(a) <= bound for a in row):
                return f"{key} needs three nonzero integer coefficients in [-{bound}, {bound}]"
        if _proportional(eq1, eq2):
            return "eq1 and eq2 are proportional: rank 1, not 2"
        if _det(eq1, eq2, eq3) == 0:
            return "eq3 does not make the system full rank"
        if _det(eq1, eq3, eq4) != 0:
            return "eq4 is not a combination of eq1 and eq3: eq3 and eq4 would be two facts"
        for key in _HELD:
            if _proportional(eq1, held[key]):
                return f"eq1 and {key} are proportional"
        if _proportional(eq3, eq4):
            return "eq3 and eq4 are proportional: the responder would hold one equation twice"
        return None

    def render(self, latent: Latent) -> Rendered:
        sol, held = latent["solution"], latent["held"]
        # a completion from eq2 and one held equation lacks the other: render what there is
        rows = {"eq2": latent["eq2"], **{key: held[key] for key in _HELD if key in held}}
        lines = {key: f"{key}: {_equation(row, sol)}" for key, row in rows.items()}
        return Rendered(
            context="The unknown integers x, y, z satisfy a system of four linear equations, "
                    "named eq1, eq2, eq3 and eq4; the system has exactly one solution. You are "
                    "given eq1.",
            facts=[f"eq1: {_equation(latent['eq1'], sol)}"],
            question="What is (x, y, z)? Give the three integers in that order.",
            domain="x, y and z are integers.",
            responder=[lines[key] for key in lines],
            hints=[Hint(key, lines[key], _equation(rows[key], sol)) for key in lines],
            hint_groups=[["eq2"], [key for key in _HELD if key in held]],
            components=list(_VARS),
        )

    def known(self, latent: Latent) -> Dict[str, Any]:
        return {"level": latent["level"],
                "eq1": list(latent["eq1"]) + [_rhs(latent["eq1"], latent["solution"])]}

    def complete_many(self, known: Dict[str, Any], hints: Sequence[Hint]) -> Latent:
        """The solution from eq1, eq2 and the held equation given; the other held equation is
        an independent fact that stays out (as for one fact)."""
        slots = sorted(h.slot for h in hints)
        if len(slots) != 2 or slots[0] != "eq2" or slots[1] not in _HELD:
            raise ValueError("needs eq2 and one of eq3, eq4")
        eq2 = _parse_line(self.given_value(hints, "eq2") or "")
        extra = next(h for h in hints if h.slot in _HELD)
        full = RankdefLinearShared.complete(self, {"level": known["level"], "eq1": known["eq1"],
                                                   "eq2": eq2}, extra)
        return full

    def witness_given(self, latent: Latent, given: Optional[Hint]) -> Optional[Latent]:
        """The next integer point on the line eq1 and the given equation leave: eq1 × eq2 for
        nothing or eq2, eq1 × eq3 for eq3, eq1 × eq4 for eq4."""
        if given is None or given.slot == "eq2":
            return _step(latent, latent["eq2"])
        return _step(latent, latent["held"][given.slot])

    def witness_given_all(self, latent: Latent, given: Sequence[Hint]) -> Optional[Latent]:
        """eq3 and eq4 together: the line eq1 × eq3, which keeps eq4 too (eq4 = a·eq1 + b·eq3)."""
        if len(given) <= 1:
            return self.witness_given(latent, given[0] if given else None)
        if not {h.slot for h in given} <= set(_HELD):
            raise ValueError(f"{sorted(h.slot for h in given)} touch both groups")
        return _step(latent, latent["held"]["eq3"])


def _step(latent: Latent, other: Sequence[int]) -> Latent:
    """The solution moved one primitive step along eq1 × other (both right-hand sides kept)."""
    d = _cross(latent["eq1"], other)
    g = gcd(gcd(d[0], d[1]), d[2])
    return {**latent, "solution": [s + c // g for s, c in zip(latent["solution"], d)]}


FAMILY_K2 = RankdefTwoFacts()
