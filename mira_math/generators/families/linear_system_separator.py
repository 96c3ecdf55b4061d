"""Linear system with a separator variable: two equations in (a, b, c) known, c held back.

The 2x2 block on (a, b) is nonsingular, so c fixes a and b. The integer solutions of the two
equations form a line (a, b, c) + t·v, v the primitive integer kernel vector, whose c component
is the block's determinant (nonzero): the witness is one step t = 1 along it.
"""

from __future__ import annotations

import random
from math import gcd
from typing import Any, Dict, List, Optional, Sequence, Tuple

from mira_math.generators.family import Family, Latent, Reject, Rendered
from mira_math.generators.schema import Hint
from mira_math.common.text import parse_linear, linear

_NAMES = ["a", "b", "c"]


def _value_bound(level: int) -> int:
    return 5 + level


def _coef_bound(level: int) -> int:
    return 3 + level


def _kernel(r1: List[int], r2: List[int]) -> List[int]:
    """Primitive integer vector spanning the null space of the two rows (their cross product)."""
    v = [r1[1] * r2[2] - r1[2] * r2[1], r1[2] * r2[0] - r1[0] * r2[2], r1[0] * r2[1] - r1[1] * r2[0]]
    g = gcd(gcd(v[0], v[1]), v[2])
    return [x // g for x in v] if g else v


def _block_det(rows: List[List[int]]) -> int:
    return rows[0][0] * rows[1][1] - rows[0][1] * rows[1][0]


def _dot(row: List[int], x: List[int]) -> int:
    return sum(r * v for r, v in zip(row, x))


def _parse_line(text: str) -> List[int]:
    return parse_linear(text, _NAMES)


class LinearSystemSeparator(Family):
    name = "linear_system_separator"
    type = "A"
    answer_type = "tuple"

    def generate(self, rng: random.Random, level: int) -> Latent:
        vb, cb = _value_bound(level), _coef_bound(level)
        x = [rng.randint(-vb, vb) for _ in range(3)]
        rows = [[rng.randint(-cb, cb) for _ in range(3)] for _ in range(2)]
        if _block_det(rows) == 0:
            raise Reject("the (a, b) block is singular: c would not fix a and b")
        if rows[0][2] == 0 and rows[1][2] == 0:
            raise Reject("c appears in neither equation")
        return {"level": level, "x": x, "rows": rows, "rhs": [_dot(r, x) for r in rows]}

    def check(self, latent: Latent) -> Optional[str]:
        cb = _coef_bound(latent["level"])
        rows, rhs, x = latent["rows"], latent["rhs"], latent["x"]
        if not all(isinstance(v, int) for v in x + rhs + rows[0] + rows[1]):
            return "unknowns, coefficients and right-hand sides must be integers"
        if any(abs(v) > cb for row in rows for v in row):
            return f"a coefficient lies outside [-{cb}, {cb}]"
        if _block_det(rows) == 0:
            return "the 2x2 block on (a, b) is singular"
        if rows[0][2] == 0 and rows[1][2] == 0:
            return "c appears in neither equation"
        if [_dot(r, x) for r in rows] != rhs:
            return "(a, b, c) does not satisfy the equations"
        return None

    def render(self, latent: Latent) -> Rendered:
        c_line = f"c = {latent['x'][2]}"
        return Rendered(
            context="The unknowns a, b and c satisfy a system of linear equations with integer "
                    "coefficients; c is the separator variable: once c is known, the "
                    "equations determine a and b.",
            facts=[f"{linear(r, _NAMES)} = {v}" for r, v in zip(latent["rows"], latent["rhs"])],
            question="What is (a, b, c)?",
            domain="a, b and c are integers.",
            responder=[c_line],
            hints=[Hint("c", c_line, str(latent["x"][2]))],
            components=list(_NAMES),
        )

    def solve(self, latent: Latent) -> Tuple[int, int, int]:
        a, b, c = latent["x"]
        return (a, b, c)

    def known(self, latent: Latent) -> Dict[str, Any]:
        return {"level": latent["level"], "rows": latent["rows"], "rhs": latent["rhs"]}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        rows, rhs, c = known["rows"], known["rhs"], int(hint.value)
        det = _block_det(rows)
        if det == 0:
            raise ValueError("the (a, b) block is singular")
        # Cramer's rule on the (a, b) block with c substituted.
        r0, r1 = rhs[0] - rows[0][2] * c, rhs[1] - rows[1][2] * c
        an, bn = r0 * rows[1][1] - r1 * rows[0][1], rows[0][0] * r1 - rows[1][0] * r0
        if an % det or bn % det:
            raise ValueError("c does not give integer a and b")
        return {**known, "x": [an // det, bn // det, c]}

    def witness(self, latent: Latent) -> Optional[Latent]:
        v = _kernel(*latent["rows"])
        return {**latent, "x": [x + d for x, d in zip(latent["x"], v)]}


FAMILY = LinearSystemSeparator()



class SeparatorTwoFacts(LinearSystemSeparator):
    """Two facts withheld: equation 2 and the value of c; the solver has equation 1. With c
    alone, equation 1 leaves the integer line (a, b) + t·(r12, -r11)/g; with equation 2 alone,
    the one-fact kernel line; both together fix (a, b, c). An equation hint's value is the
    line's text after its label (``-a + 4b = 19``), as every other equation hint's is; release
    1.2.0 stored a coefficient list ``[-1,4,0,19]`` there (the card's known issues)."""

    k = 2

    def render(self, latent: Latent) -> Rendered:
        rows, rhs, x = latent["rows"], latent["rhs"], latent["x"]
        eq = [f"equation {i + 1}: {linear(r, _NAMES)} = {v}" for i, (r, v) in enumerate(zip(rows, rhs))]
        c_line = f"c = {x[2]}"
        return Rendered(
            context="The unknowns a, b and c satisfy two linear equations with integer "
                    "coefficients, equation 1 and equation 2; c is the separator variable: once "
                    "c is known, the two equations determine a and b.",
            facts=[eq[0]],
            question="What is (a, b, c)?",
            domain="a, b and c are integers.",
            responder=[eq[1], c_line],
            hints=[Hint("equation 2", eq[1], eq[1].partition(": ")[2]),
                   Hint("c", c_line, str(x[2]))],
            hint_groups=[["equation 2"], ["c"]],
            components=list(_NAMES),
        )

    def known(self, latent: Latent) -> Dict[str, Any]:
        return {"level": latent["level"], "row": latent["rows"][0], "rhs": latent["rhs"][0]}

    def complete_many(self, known: Dict[str, Any], hints: Sequence[Hint]) -> Latent:
        eq2, c = self.given_value(hints, "equation 2"), self.given_value(hints, "c")
        if eq2 is None or c is None or len(hints) != 2:
            raise ValueError("needs exactly equation 2 and c")
        second = _parse_line(eq2)
        return LinearSystemSeparator.complete(
            self, {"level": known["level"], "rows": [known["row"], second[:3]],
                   "rhs": [known["rhs"], second[3]]}, Hint("c", "", c))

    def witness_given(self, latent: Latent, given: Optional[Hint]) -> Optional[Latent]:
        if given is not None and given.slot == "equation 2":
            return LinearSystemSeparator.witness(self, latent)
        # c held: move (a, b) along equation 1's integer direction; equation 2's right-hand
        # side follows (it is hidden), its coefficients stay.
        r = latent["rows"][0]
        g = gcd(r[0], r[1])
        step = [r[1] // g, -r[0] // g, 0]
        x = [v + d for v, d in zip(latent["x"], step)]
        return {**latent, "x": x, "rhs": [_dot(row, x) for row in latent["rows"]]}


FAMILY_K2 = SeparatorTwoFacts()
