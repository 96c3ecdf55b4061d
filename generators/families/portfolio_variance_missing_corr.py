"""Portfolio variance with one pairwise correlation rho(a,b) withheld (held by the responder).

n = d+1 assets with positive fractional weights summing to 1, integer standard deviations and
fractional correlations. sigma_p^2 = sum_i sum_j w(i) w(j) sigma(i) sigma(j) rho(i,j) is linear
in rho(a,b) with slope 2 w(a) w(b) sigma(a) sigma(b) != 0, so every other admissible value of
rho(a,b) (one that keeps the correlation matrix positive semidefinite) changes the answer.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction
from math import gcd
from typing import Any, Dict, List, Optional

from generators.family import Family, Latent, Reject, Rendered
from generators.schema import Hint
from generators.text import frac

_SLOT_RE = re.compile(r"^rho\((\d+),(\d+)\)$")


def _n_assets(level: int) -> int:
    return level + 1


def _max_weight_denominator(level: int) -> int:
    return 4 + 2 * level


def _max_sigma(level: int) -> int:
    return 3 + level


def _max_rho_denominator(level: int) -> int:
    return 3 + level


def _build_grid(level: int) -> List[Fraction]:
    values = {Fraction(p, q) for q in range(1, _max_rho_denominator(level) + 1)
              for p in range(-q + 1, q)}
    return sorted(values, key=lambda v: (v.denominator, abs(v), v))


_GRIDS = {level: _build_grid(level) for level in (1, 2, 3)}


def _rho_grid(level: int) -> List[Fraction]:
    """Correlations strictly inside (-1, 1) with small denominators, in a fixed order."""
    return _GRIDS[level] if level in _GRIDS else _build_grid(level)


def _positive_definite(c: List[List[Fraction]]) -> bool:
    """Sylvester's criterion, exactly and fast: scale to integers, then fraction-free
    (Bareiss) elimination, whose k-th pivot is the k-th leading principal minor."""
    scale = 1
    for row in c:
        for x in row:
            scale = scale * x.denominator // gcd(scale, x.denominator)
    m = [[x.numerator * (scale // x.denominator) for x in row] for row in c]
    n, prev = len(m), 1
    for k in range(n):
        pivot = m[k][k]
        if pivot <= 0:
            return False
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                m[i][j] = (m[i][j] * pivot - m[i][k] * m[k][j]) // prev
        prev = pivot
    return True


def _with_rho(rho: List[List[Fraction]], a: int, b: int, value: Fraction) -> List[List[Fraction]]:
    out = [list(row) for row in rho]
    out[a][b] = out[b][a] = value
    return out


def _variance(w: List[Fraction], sigma: List[int], rho: List[List[Fraction]]) -> Fraction:
    n = len(w)
    return sum((w[i] * w[j] * sigma[i] * sigma[j] * rho[i][j]
                for i in range(n) for j in range(n)), Fraction(0))


def _name(a: int, b: int) -> str:
    return f"rho({a + 1},{b + 1})"


class PortfolioVarianceMissingCorr(Family):
    name = "portfolio_variance_missing_corr"
    type = "B"
    answer_type = "fraction"

    def generate(self, rng: random.Random, level: int) -> Latent:
        n = _n_assets(level)
        denom = rng.randint(n + 1, _max_weight_denominator(level))
        cuts = sorted(rng.sample(range(1, denom), n - 1))  # positive parts summing to denom
        parts = [hi - lo for lo, hi in zip([0] + cuts, cuts + [denom])]
        w = [Fraction(p, denom) for p in parts]
        sigma = [rng.randint(1, _max_sigma(level)) for _ in range(n)]
        grid = _rho_grid(level)
        rho = [[Fraction(1) if i == j else Fraction(0) for j in range(n)] for i in range(n)]
        for i in range(n):
            for j in range(i + 1, n):
                rho[i][j] = rho[j][i] = rng.choice(grid)
        if not _positive_definite(rho):
            raise Reject("correlation matrix is not positive definite")
        a, b = sorted(rng.sample(range(n), 2))
        return {"level": level, "w": w, "sigma": sigma, "rho": rho, "missing": [a, b]}

    def check(self, latent: Latent) -> Optional[str]:
        level = latent["level"]
        n = _n_assets(level)
        w, sigma, rho = latent["w"], latent["sigma"], latent["rho"]
        a, b = latent["missing"]
        if len(w) != n or len(sigma) != n or len(rho) != n or any(len(r) != n for r in rho):
            return f"expected {n} assets at level {level}"
        if not (0 <= a < b < n):
            return f"missing pair {latent['missing']} is not a pair of distinct assets"
        for x in w:
            if not (isinstance(x, Fraction) and x > 0):
                return f"weight {x} is not a positive fraction"
            if x.denominator > _max_weight_denominator(level):
                return f"weight {x} has denominator above {_max_weight_denominator(level)}"
        if sum(w) != 1:
            return "weights do not sum to 1"
        for s in sigma:
            if not (isinstance(s, int) and 1 <= s <= _max_sigma(level)):
                return f"standard deviation {s} outside [1, {_max_sigma(level)}]"
        for i in range(n):
            if rho[i][i] != 1:
                return f"rho({i + 1},{i + 1}) is not 1"
            for j in range(i + 1, n):
                r = rho[i][j]
                if not isinstance(r, Fraction) or rho[j][i] != r:
                    return f"rho({i + 1},{j + 1}) is not a symmetric fraction"
                if not -1 <= r <= 1:
                    return f"rho({i + 1},{j + 1}) = {r} is not a correlation"
                if (i, j) != (a, b) and r.denominator > _max_rho_denominator(level):
                    return f"rho({i + 1},{j + 1}) has denominator above {_max_rho_denominator(level)}"
        if not _positive_definite(rho):
            return "correlation matrix is not positive definite"
        if w[a] * w[b] * sigma[a] * sigma[b] == 0:
            return "the missing correlation does not enter the variance"
        return None

    def render(self, latent: Latent) -> Rendered:
        w, sigma, rho = latent["w"], latent["sigma"], latent["rho"]
        a, b = latent["missing"]
        n = len(w)
        facts = [f"w({i + 1}) = {frac(w[i])}" for i in range(n)]
        facts += [f"sigma({i + 1}) = {frac(sigma[i])}" for i in range(n)]
        facts += [f"{_name(i, j)} = {frac(rho[i][j])}"
                  for i in range(n) for j in range(i + 1, n) if (i, j) != (a, b)]
        slot = _name(a, b)
        line = f"{slot} = {frac(rho[a][b])}"
        return Rendered(
            context=f"A portfolio holds {n} assets, numbered 1 to {n}. w(i) is the portfolio "
                    "weight of asset i (the weights sum to 1), sigma(i) is the standard deviation "
                    "of asset i's return, and rho(i,j) = rho(j,i) is the correlation between the "
                    "returns of assets i and j (rho(i,i) = 1). The portfolio variance is "
                    "sigma_p^2 = sum over i and j of w(i) w(j) sigma(i) sigma(j) rho(i,j).",
            facts=facts,
            question="What is the portfolio variance sigma_p^2? Give it as a reduced fraction.",
            domain=f"{slot} is a correlation in [-1, 1] for which the correlation matrix is "
                   "positive semidefinite.",
            responder=[line],
            hints=[Hint(slot, line, frac(rho[a][b]))],
        )

    def solve(self, latent: Latent) -> Fraction:
        return _variance(latent["w"], latent["sigma"], latent["rho"])

    def known(self, latent: Latent) -> Dict[str, Any]:
        a, b = latent["missing"]
        rho = [[None if {i, j} == {a, b} else v for j, v in enumerate(row)]
               for i, row in enumerate(latent["rho"])]
        return {"level": latent["level"], "w": list(latent["w"]), "sigma": list(latent["sigma"]),
                "rho": rho, "missing": [a, b]}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        match = _SLOT_RE.match(hint.slot)
        if not match:
            raise ValueError(f"unknown slot {hint.slot!r}")
        a, b = int(match.group(1)) - 1, int(match.group(2)) - 1
        if [a, b] != list(known["missing"]):
            raise ValueError(f"{hint.slot} is not the correlation the view lacks")
        rho = _with_rho(known["rho"], a, b, Fraction(hint.value))
        return {"level": known["level"], "w": list(known["w"]), "sigma": list(known["sigma"]),
                "rho": rho, "missing": [a, b]}

    def witness(self, latent: Latent) -> Optional[Latent]:
        # The admissible values of rho(a,b) form an interval around the true value (the matrix is
        # PD there); the variance has nonzero slope in rho(a,b), so any other admissible value works.
        a, b = latent["missing"]
        true = latent["rho"][a][b]
        steps = [Fraction(1, 2 ** k) for k in range(1, 40)]
        tries = _rho_grid(latent["level"]) + [true + s for s in steps] + [true - s for s in steps]
        for t in tries:
            if t != true and -1 < t < 1:
                rho = _with_rho(latent["rho"], a, b, t)
                if _positive_definite(rho):
                    return {**latent, "rho": rho}
        return None


FAMILY = PortfolioVarianceMissingCorr()
