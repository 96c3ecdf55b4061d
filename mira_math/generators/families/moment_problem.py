"""Moment problem on {0, 1, 2}: the sum and first moment known, the second moment withheld.

Nonnegative integer weights q0, q1, q2 with q0 + q1 + q2 = D give the probabilities q_i/D.
D is drawn uniformly from [6+2d, 12+2d] (the original specification fixed D = 6+2d; see docs/decisions.md: a fixed
D leaves only 2D-3 distinct solver views (D, m1), 13 at d=1, too few for the release and its
held-out splits; the range gives 133, 161 and 189), and each weight vector summing to D is
equally likely. The solver holds the sum and q1 + 2q2 = m1 (D times the mean); the responder
holds the sum again (a noncanonical repeat) and q1 + 4q2 = m2 (D times the second moment),
which fixes q2 = (m2 - m1)/2. The view alone leaves one free weight, so the answer set is
finite: every q2 with q1 = m1 - 2q2 >= 0 and q0 = D - m1 + q2 >= 0.
"""

from __future__ import annotations

import random
from typing import Any, Dict, List, Optional, Set, Tuple

from mira_math.generators.family import Family, Latent, Rendered
from mira_math.generators.schema import Hint
from mira_math.common.text import frac

_SECOND = "q1 + 4q2"  # the withheld slot, named as the context paragraph names it


def _denominators(level: int) -> Tuple[int, int]:
    """The inclusive range of D at this level: [6 + 2d, 12 + 2d]."""
    return 6 + 2 * level, 12 + 2 * level


def _sum_line(total: int) -> str:
    return f"q0 + q1 + q2 = {total}"


def _first_line(m1: int) -> str:
    return f"q1 + 2q2 = {m1}"


def _second_line(m2: int) -> str:
    return f"{_SECOND} = {m2}"


def _weights_for(total: int, m1: int) -> List[Tuple[int, int, int]]:
    """Every nonnegative integer (q0, q1, q2) with the given sum and q1 + 2q2 = m1."""
    out = []
    for q2 in range(max(0, m1 - total), m1 // 2 + 1):
        q1, q0 = m1 - 2 * q2, total - m1 + q2
        if q0 >= 0 and q1 >= 0:
            out.append((q0, q1, q2))
    return out


class MomentProblem(Family):
    name = "moment_problem"
    type = "A"
    answer_type = "tuple"

    def generate(self, rng: random.Random, level: int) -> Latent:
        total = rng.randint(*_denominators(level))
        # Stars and bars: two distinct cut points among D + 2 positions give every weight
        # vector summing to D with the same probability (and D stays uniform).
        a, b = sorted(rng.sample(range(total + 2), 2))
        return {"level": level, "D": total, "q": [a, b - a - 1, total + 1 - b]}

    def check(self, latent: Latent) -> Optional[str]:
        total, q = latent["D"], latent["q"]
        low, high = _denominators(latent["level"])
        if not (isinstance(total, int) and low <= total <= high):
            return f"D = {total} is not in [6 + 2d, 12 + 2d] = [{low}, {high}]"
        if len(q) != 3 or any(not isinstance(v, int) or v < 0 for v in q):
            return "weights are not three nonnegative integers"
        if sum(q) != total:
            return f"weights sum to {sum(q)}, not D = {total}"
        if len(_weights_for(total, q[1] + 2 * q[2])) < 2:
            return "the sum and first moment already fix the weights"
        return None

    def render(self, latent: Latent) -> Rendered:
        q = latent["q"]
        total, m1, m2 = latent["D"], q[1] + 2 * q[2], q[1] + 4 * q[2]
        return Rendered(
            context="A random variable takes the values 0, 1, 2 with probabilities q0/D, q1/D, "
                    "q2/D, where q0, q1, q2 are integer weights and D is their sum. Then "
                    "q1 + 2q2 is D times the first moment and q1 + 4q2 is D times the second "
                    "moment.",
            facts=[_sum_line(total), _first_line(m1)],
            question="What are the weights (q0, q1, q2)?",
            domain="q0, q1, q2 are nonnegative integers.",
            responder=[_sum_line(total), _second_line(m2)],
            hints=[Hint(_SECOND, _second_line(m2), frac(m2))],
            components=["q0", "q1", "q2"],
        )

    def solve(self, latent: Latent) -> Tuple[int, int, int]:
        q0, q1, q2 = latent["q"]
        return (q0, q1, q2)

    def known(self, latent: Latent) -> Dict[str, Any]:
        q = latent["q"]
        return {"level": latent["level"], "D": latent["D"], "m1": q[1] + 2 * q[2]}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        total, m1, m2 = known["D"], known["m1"], int(hint.value)
        if (m2 - m1) % 2:
            raise ValueError("q1 + 4q2 and q1 + 2q2 differ by an odd number")
        q2 = (m2 - m1) // 2
        q1, q0 = m1 - 2 * q2, total - m1 + q2
        if min(q0, q1, q2) < 0:
            raise ValueError("the moments give a negative weight")
        return {"level": known["level"], "D": total, "q": [q0, q1, q2]}

    def candidates(self, known: Dict[str, Any]) -> Optional[Set[Tuple[int, int, int]]]:
        return set(_weights_for(known["D"], known["m1"]))


FAMILY = MomentProblem()
