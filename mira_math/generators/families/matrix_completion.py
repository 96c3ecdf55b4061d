"""Rank-1 2x2 completion: the first row known, m10 withheld, m11 = m01*m10/m00 asked.

M = u·vᵀ with integer factors u_i, v_i in [1, 4+d], and the factor range is stated to the
solver (the original specification said [1, 2+d]; see docs/decisions.md: at d=1 that range gives only 24 distinct
solver views (m00, m01), too few for the release and its held-out splits; [1, 4+d] gives 110,
174 and 295). Given m00 and m01, u1 is still free in [1, 4+d], so m11 = u1·v1 takes at least
4+d values: the answer set is finite and is enumerated exactly (the chance level). The latent
state is the matrix itself, not a factorisation, so two draws of the same matrix are the
same problem for the release's duplicate check.
"""

from __future__ import annotations

import random
from typing import Any, Dict, List, Optional, Set, Tuple

from mira_math.generators.family import Family, Latent, Rendered
from mira_math.generators.schema import Hint
from mira_math.common.text import frac


def _top(level: int) -> int:
    return 4 + level


def _row_factors(m00: int, m01: int, top: int) -> List[Tuple[int, int, int]]:
    """Every (u0, v0, v1) in [1, top]^3 with u0·v0 = m00 and u0·v1 = m01."""
    out = []
    for u0 in range(1, top + 1):
        if m00 % u0 == 0 and m01 % u0 == 0:
            v0, v1 = m00 // u0, m01 // u0
            if v0 <= top and v1 <= top:
                out.append((u0, v0, v1))
    return out


def _factorable(m: List[List[int]], top: int) -> bool:
    """Whether M = u·vᵀ for some u, v with entries in [1, top]."""
    for _, v0, v1 in _row_factors(m[0][0], m[0][1], top):
        if m[1][0] % v0 == 0:
            u1 = m[1][0] // v0
            if 1 <= u1 <= top and u1 * v1 == m[1][1]:
                return True
    return False


def _entry(name: str, value: int) -> str:
    return f"{name} = {frac(value)}"


class MatrixCompletion(Family):
    name = "matrix_completion"
    type = "A"
    answer_type = "int"

    def generate(self, rng: random.Random, level: int) -> Latent:
        top = _top(level)
        # Draw the answer uniformly over its possible values first: products u1·v1 of a
        # small range cluster (at d=1, 4 takes 3/25 of uniform draws, 1 only 1/25).
        products = sorted({i * j for i in range(1, top + 1) for j in range(1, top + 1)})
        target = rng.choice(products)
        pairs = [(i, target // i) for i in range(1, top + 1)
                 if target % i == 0 and target // i <= top]
        u1, v1 = rng.choice(pairs)
        u0, v0 = rng.randint(1, top), rng.randint(1, top)
        return {"level": level, "M": [[u0 * v0, u0 * v1], [u1 * v0, u1 * v1]]}

    def check(self, latent: Latent) -> Optional[str]:
        m = latent["M"]
        if len(m) != 2 or any(len(row) != 2 for row in m):
            return "M is not 2x2"
        if any(not isinstance(x, int) or x < 1 for row in m for x in row):
            return "M has an entry that is not a positive integer"
        if m[0][0] * m[1][1] != m[0][1] * m[1][0]:
            return "M is not of rank 1"
        if not _factorable(m, _top(latent["level"])):
            return f"M has no factorisation u·vᵀ with entries in [1, {_top(latent['level'])}]"
        return None

    def render(self, latent: Latent) -> Rendered:
        m, top = latent["M"], _top(latent["level"])
        hint_line = _entry("m10", m[1][0])
        return Rendered(
            context="M = [[m00, m01], [m10, m11]] is a 2x2 matrix of rank 1: M = u·vᵀ, that is "
                    "m_ij = u_i·v_j, for vectors u = (u0, u1) and v = (v0, v1).",
            facts=[_entry("m00", m[0][0]), _entry("m01", m[0][1])],
            question="What is m11?",
            domain=f"u0, u1, v0, v1 are integers between 1 and {top} inclusive.",
            responder=[hint_line],
            hints=[Hint("m10", hint_line, frac(m[1][0]))],
        )

    def solve(self, latent: Latent) -> int:
        return latent["M"][1][1]

    def known(self, latent: Latent) -> Dict[str, Any]:
        m = latent["M"]
        return {"level": latent["level"], "m00": m[0][0], "m01": m[0][1]}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        m00, m01, m10 = known["m00"], known["m01"], int(hint.value)
        if (m01 * m10) % m00:
            raise ValueError("m01·m10/m00 is not an integer")
        return {"level": known["level"], "M": [[m00, m01], [m10, m01 * m10 // m00]]}

    def candidates(self, known: Dict[str, Any]) -> Optional[Set[int]]:
        top = _top(known["level"])
        return {u1 * v1 for _, _, v1 in _row_factors(known["m00"], known["m01"], top)
                for u1 in range(1, top + 1)}


FAMILY = MatrixCompletion()
