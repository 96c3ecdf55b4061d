"""Bayes' rule with the prior withheld: P(E|H) and P(E|¬H) known, P(H) held by the responder.

Each probability is a fraction a/b in (0, 1) with denominator b in [2, 4+2d] (the original specification said
[2, 3+2d]; see docs/decisions.md: at d=1 that range gives only 72 distinct solver views, too
few for the release and its held-out splits, while [2, 6] gives 110).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any, Dict, Optional

from mira_math.generators.family import Family, Latent, Reject, Rendered
from mira_math.generators.schema import Hint
from mira_math.common.text import frac


def _max_denominator(level: int) -> int:
    return 4 + 2 * level


def _posterior(prior: Fraction, sens: Fraction, fpr: Fraction) -> Fraction:
    return prior * sens / (prior * sens + (1 - prior) * fpr)


class BayesMissingPrior(Family):
    name = "bayes_missing_prior"
    type = "A"
    answer_type = "fraction"

    def generate(self, rng: random.Random, level: int) -> Latent:
        def draw() -> Fraction:
            b = rng.randint(2, _max_denominator(level))
            return Fraction(rng.randint(1, b - 1), b)

        prior, sens, fpr = draw(), draw(), draw()
        if sens == fpr:
            raise Reject("P(E|H) = P(E|¬H) makes the evidence uninformative")
        return {"level": level, "prior": prior, "sens": sens, "fpr": fpr}

    def check(self, latent: Latent) -> Optional[str]:
        limit = _max_denominator(latent["level"])
        for key in ("prior", "sens", "fpr"):
            v = latent[key]
            if not (isinstance(v, Fraction) and 0 < v < 1):
                return f"{key} = {v} is not a probability strictly between 0 and 1"
            if v.denominator > limit:
                return f"{key} has denominator above {limit}"
        if latent["sens"] == latent["fpr"]:
            return "P(E|H) = P(E|¬H): the evidence is uninformative"
        return None

    def render(self, latent: Latent) -> Rendered:
        prior_line = f"P(H) = {frac(latent['prior'])}"
        return Rendered(
            context="H is a hypothesis and E an observed piece of evidence; ¬H is the "
                    "complement of H.",
            facts=[f"P(E|H) = {frac(latent['sens'])}", f"P(E|¬H) = {frac(latent['fpr'])}"],
            question="What is P(H|E)? Give it as a reduced fraction.",
            domain="P(H) is a probability strictly between 0 and 1.",
            responder=[prior_line],
            hints=[Hint("P(H)", prior_line, frac(latent["prior"]))],
        )

    def solve(self, latent: Latent) -> Fraction:
        return _posterior(latent["prior"], latent["sens"], latent["fpr"])

    def known(self, latent: Latent) -> Dict[str, Any]:
        return {"level": latent["level"], "sens": latent["sens"], "fpr": latent["fpr"]}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        return {**known, "prior": Fraction(hint.value)}

    def witness(self, latent: Latent) -> Optional[Latent]:
        # P(H|E) is strictly increasing in P(H) when P(E|H) != P(E|¬H): any other prior differs.
        other = Fraction(1, 2) if latent["prior"] != Fraction(1, 2) else Fraction(1, 3)
        return {**latent, "prior": other}


FAMILY = BayesMissingPrior()
