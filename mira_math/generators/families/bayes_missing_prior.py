"""Bayes' rule with the prior withheld: P(E|H) and P(E|¬H) known, P(H) held by the responder.

Each probability is a fraction a/b in (0, 1) with denominator b in [2, 4+2d] (the original specification said
[2, 3+2d]; see docs/decisions.md: at d=1 that range gives only 72 distinct solver views, too
few for the release and its held-out splits, while [2, 6] gives 110).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any, Dict, Optional, Sequence

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

    def max_denominator(self, level: int) -> int:
        """The largest denominator a probability may have at this level."""
        return _max_denominator(level)

    def generate(self, rng: random.Random, level: int) -> Latent:
        def draw() -> Fraction:
            b = rng.randint(2, self.max_denominator(level))
            return Fraction(rng.randint(1, b - 1), b)

        prior, sens, fpr = draw(), draw(), draw()
        if sens == fpr:
            raise Reject("P(E|H) = P(E|¬H) makes the evidence uninformative")
        return {"level": level, "prior": prior, "sens": sens, "fpr": fpr}

    def check(self, latent: Latent) -> Optional[str]:
        limit = self.max_denominator(latent["level"])
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


def _k2_max_denominator(level: int) -> int:
    """Wider than the one-fact range: the view is P(E|H) alone, and at 4 + 2d it would allow
    only 11 distinct views at d = 1; 16 + 2d allows 101 (docs/decisions/data.md)."""
    return 16 + 2 * level


class BayesTwoFacts(BayesMissingPrior):
    """Two facts withheld: the prior P(H) and the false-positive rate P(E|¬H); the solver has
    P(E|H). P(H|E) is strictly increasing in P(H) and strictly decreasing in P(E|¬H), so
    either fact alone leaves it open."""

    k = 2

    def max_denominator(self, level: int) -> int:
        return _k2_max_denominator(level)

    def render(self, latent: Latent) -> Rendered:
        prior_line = f"P(H) = {frac(latent['prior'])}"
        fpr_line = f"P(E|¬H) = {frac(latent['fpr'])}"
        return Rendered(
            context="H is a hypothesis and E an observed piece of evidence; ¬H is the "
                    "complement of H.",
            facts=[f"P(E|H) = {frac(latent['sens'])}"],
            question="What is P(H|E)? Give it as a reduced fraction.",
            domain="P(H) and P(E|¬H) are probabilities strictly between 0 and 1, and "
                   "P(E|¬H) differs from P(E|H).",
            responder=[prior_line, fpr_line],
            hints=[Hint("P(H)", prior_line, frac(latent["prior"])),
                   Hint("P(E|¬H)", fpr_line, frac(latent["fpr"]))],
            hint_groups=[["P(H)"], ["P(E|¬H)"]],
        )

    def known(self, latent: Latent) -> Dict[str, Any]:
        return {"level": latent["level"], "sens": latent["sens"]}

    def complete_many(self, known: Dict[str, Any], hints: Sequence[Hint]) -> Latent:
        prior, fpr = self.given_value(hints, "P(H)"), self.given_value(hints, "P(E|¬H)")
        if prior is None or fpr is None or len(hints) != 2:
            raise ValueError("needs exactly P(H) and P(E|¬H)")
        return {**known, "prior": Fraction(prior), "fpr": Fraction(fpr)}

    def witness_given(self, latent: Latent, given: Optional[Hint]) -> Optional[Latent]:
        # Keep the given fact, move the other one: P(H|E) is strictly monotone in each.
        key = "prior" if given is not None and given.slot == "P(E|¬H)" else "fpr"
        for other in (Fraction(1, 2), Fraction(1, 3), Fraction(2, 3), Fraction(1, 4)):
            alt = {**latent, key: other}
            if other != latent[key] and self.check(alt) is None:
                return alt
        return None


FAMILY_K2 = BayesTwoFacts()
