"""Portfolio variance with an asset of weight 0: its standard deviation is irrelevant.

sigma_p^2 = sum_ij w(i) w(j) sigma(i) sigma(j) rho(i,j) never reads sigma(m) when w(m) = 0
(every term holding it has the factor w(m)), and no sigma enters the positive semidefiniteness
of the correlation matrix, so every value of sigma(m) in its finite stated domain gives the
same variance (enumerated). Needed facts are the deviations of held assets (a finite domain)
and the correlations between two held assets (the variance is linear in each, with slope
2 w(i) w(j) sigma(i) sigma(j) != 0, so another positive definite value changes it).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import List, Mapping, Optional

from mira_math.common.text import frac
from mira_math.generators.blind.contract import BlindFamily, Domain, Finite, Latent, Rational, Setting
from mira_math.generators.families.portfolio_variance_missing_corr import (
    _draw_correlations, _key, _matrix, _max_sigma, _max_weight_denominator, _numbering, _pairs,
    _positive_definite, _variance)


class PortfolioBlind(BlindFamily):
    name = "portfolio_variance_missing_corr"
    type = "B"
    answer_type = "fraction"

    def generate(self, rng: random.Random, level: int) -> Latent:
        n = level + 2
        held = n - 1
        denom = rng.randint(held + 1, _max_weight_denominator(level))
        cuts = sorted(rng.sample(range(1, denom), held - 1))
        parts = [Fraction(hi - lo, denom) for lo, hi in zip([0] + cuts, cuts + [denom])]
        idle = rng.randrange(n)
        w = parts[:idle] + [Fraction(0)] + parts[idle:]
        sigma = [rng.randint(1, _max_sigma(level)) for _ in range(n)]
        return {"level": level, "w": w, "sigma": sigma, "rho": _draw_correlations(rng, level, n)}

    def setting(self, latent: Latent) -> Setting:
        n, top = len(latent["w"]), _max_sigma(latent["level"])
        context = (f"A portfolio holds {n} assets, numbered {_numbering(n)}. w(i) is the portfolio "
                   "weight of asset i (the weights are nonnegative and sum to 1), sigma(i) is the "
                   "standard deviation of asset i's return, and rho(i,j) = rho(j,i) is the correlation "
                   "between the returns of assets i and j (rho(i,i) = 1). The portfolio variance is "
                   "sigma_p^2 = sum over i and j of w(i) w(j) sigma(i) sigma(j) rho(i,j).")
        return Setting(context, "What is the portfolio variance sigma_p^2? Give it as a reduced fraction.",
                       f"Every sigma(i) is an integer between 1 and {top}; every rho(i,j) is a "
                       "correlation in [-1, 1], and the correlation matrix is positive semidefinite.",
                       structure=[f"w({i + 1}) = {frac(x)}" for i, x in enumerate(latent["w"])])

    def slots(self, latent: Latent) -> List[str]:
        n = len(latent["w"])
        return [f"sigma({i + 1})" for i in range(n)] + [f"rho({_key(i, j)})" for i, j in _pairs(n)]

    def value(self, latent: Latent, slot: str) -> str:
        if slot.startswith("sigma("):
            return str(latent["sigma"][int(slot[6:-1]) - 1])
        return frac(latent["rho"][slot[4:-1]])

    def answer(self, latent: Latent, values: Mapping[str, str]) -> Optional[Fraction]:
        n, top = len(latent["w"]), _max_sigma(latent["level"])
        sigma = [Fraction(values[f"sigma({i + 1})"]) for i in range(n)]
        if any(s.denominator != 1 or not 1 <= s <= top for s in sigma):
            return None
        rho = {_key(i, j): Fraction(values[f"rho({_key(i, j)})"]) for i, j in _pairs(n)}
        if any(not -1 <= r <= 1 for r in rho.values()) or not _positive_definite(_matrix(rho, n)):
            return None
        return _variance(list(latent["w"]), [int(s) for s in sigma], rho)

    def needable(self, latent: Latent) -> List[str]:
        w, n = latent["w"], len(latent["w"])
        return ([f"sigma({i + 1})" for i in range(n) if w[i]]
                + [f"rho({_key(i, j)})" for i, j in _pairs(n) if w[i] and w[j]])

    def irrelevant(self, latent: Latent) -> List[str]:
        return [f"sigma({i + 1})" for i, x in enumerate(latent["w"]) if x == 0]

    def domain(self, latent: Latent, slot: str) -> Domain:
        if slot.startswith("sigma("):
            return Finite([str(v) for v in range(1, _max_sigma(latent["level"]) + 1)])
        return Rational(1, "sigma_p^2 is linear in each correlation", ["0", "1/2"])

    def alternatives(self, latent: Latent, slot: str) -> List[str]:
        if slot.startswith("sigma("):
            return []
        r = latent["rho"][slot[4:-1]]
        return [frac(r + d) for d in (Fraction(1, 4), Fraction(-1, 4), Fraction(1, 8), Fraction(-1, 8))
                if -1 < r + d < 1]


FAMILY = PortfolioBlind()
