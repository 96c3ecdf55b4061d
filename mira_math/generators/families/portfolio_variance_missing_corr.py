"""Portfolio variance with one pairwise correlation rho(a,b) withheld (held by the responder).

n = d+1 assets with positive fractional weights summing to 1, integer standard deviations and
fractional correlations. sigma_p^2 = sum_i sum_j w(i) w(j) sigma(i) sigma(j) rho(i,j) is linear
in rho(a,b) with slope 2 w(a) w(b) sigma(a) sigma(b) != 0, so every other admissible value of
rho(a,b) (one that keeps the correlation matrix positive semidefinite) changes the answer.
Instances are drawn positive definite (a non-degeneracy filter: no riskless combination of the
assets, and rho(a,b) can move both ways), so admissible values other than the true one exist.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction
from itertools import chain
from math import gcd
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from mira_math.generators.family import Family, Latent, Reject, Rendered
from mira_math.generators.schema import Hint
from mira_math.common.text import frac

_SLOT_RE = re.compile(r"^rho\((\d+,\d+)\)$")


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
_COLUMN_TRIES = 50


def _rho_grid(level: int) -> List[Fraction]:
    """Correlations strictly inside (-1, 1) with small denominators, in a fixed order."""
    return _GRIDS[level]


def _lcm_denominator(values: Iterable[Fraction]) -> int:
    out = 1
    for x in values:
        out = out * x.denominator // gcd(out, x.denominator)
    return out


_GRID_SCALE = {level: _lcm_denominator(grid) for level, grid in _GRIDS.items()}


def _leading_minors_positive(a: List[List[int]], size: int) -> bool:
    """Sylvester's criterion on the leading size x size block of an integer symmetric matrix:
    fraction-free (Bareiss) elimination, whose k-th pivot is the k-th leading principal minor."""
    m = [row[:size] for row in a[:size]]
    n, prev = size, 1
    for k in range(n):
        pivot = m[k][k]
        if pivot <= 0:
            return False
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                m[i][j] = (m[i][j] * pivot - m[i][k] * m[k][j]) // prev
        prev = pivot
    return True


def _positive_definite(c: List[List[Fraction]]) -> bool:
    """Exact positive definiteness of a symmetric matrix of fractions (scaled to integers)."""
    scale = _lcm_denominator(x for row in c for x in row)
    m = [[x.numerator * (scale // x.denominator) for x in row] for row in c]
    return _leading_minors_positive(m, len(m))


def _key(i: int, j: int) -> str:
    """Latent key of the pair of 0-based assets i < j, in the 1-based notation of the text."""
    return f"{i + 1},{j + 1}"


def _pairs(n: int) -> List[Tuple[int, int]]:
    return [(i, j) for i in range(n) for j in range(i + 1, n)]


def _matrix(rho: Dict[str, Fraction], n: int) -> List[List[Fraction]]:
    m = [[Fraction(1)] * n for _ in range(n)]
    for i, j in _pairs(n):
        m[i][j] = m[j][i] = rho[_key(i, j)]
    return m


def _numbering(n: int) -> str:
    return "1 and 2" if n == 2 else f"1 to {n}"


def _draw_correlations(rng: random.Random, level: int, n: int) -> Dict[str, Fraction]:
    """Grid correlations drawn column by column, each column redrawn until the leading block
    is positive definite (cheap in integers scaled by the grid's common denominator)."""
    grid, scale = _rho_grid(level), _GRID_SCALE[level]
    scaled = [g.numerator * (scale // g.denominator) for g in grid]
    idx = [[0] * n for _ in range(n)]
    m = [[scale if i == j else 0 for j in range(n)] for i in range(n)]
    for k in range(1, n):
        for _ in range(_COLUMN_TRIES):
            for i in range(k):
                idx[i][k] = rng.randrange(len(grid))
                m[i][k] = m[k][i] = scaled[idx[i][k]]
            if _leading_minors_positive(m, k + 1):
                break
        else:
            raise Reject("no positive definite correlation column found")
    return {_key(i, j): grid[idx[i][j]] for i, j in _pairs(n)}


def _variance(w: List[Fraction], sigma: List[int], rho: Dict[str, Fraction]) -> Fraction:
    """sum_ij u_i u_j rho_ij with u_i = w_i sigma_i, in integers over one common denominator."""
    dw, dr = _lcm_denominator(w), _lcm_denominator(rho.values())
    u = [x.numerator * (dw // x.denominator) * s for x, s in zip(w, sigma)]
    total = sum(x * x for x in u) * dr
    for i, j in _pairs(len(u)):
        r = rho[_key(i, j)]
        total += 2 * u[i] * u[j] * r.numerator * (dr // r.denominator)
    return Fraction(total, dw * dw * dr)


class PortfolioVarianceMissingCorr(Family):
    name = "portfolio_variance_missing_corr"
    type = "B"
    answer_type = "fraction"
    slot_fields = ("missing",)

    def generate(self, rng: random.Random, level: int) -> Latent:
        n = _n_assets(level)
        denom = rng.randint(n + 1, _max_weight_denominator(level))
        cuts = sorted(rng.sample(range(1, denom), n - 1))  # positive parts summing to denom
        parts = [hi - lo for lo, hi in zip([0] + cuts, cuts + [denom])]
        w = [Fraction(p, denom) for p in parts]
        sigma = [rng.randint(1, _max_sigma(level)) for _ in range(n)]
        rho = _draw_correlations(rng, level, n)
        a, b = sorted(rng.sample(range(n), 2))
        return {"level": level, "w": w, "sigma": sigma, "rho": rho, "missing": _key(a, b)}

    def check(self, latent: Latent) -> Optional[str]:
        level = latent["level"]
        n = _n_assets(level)
        w, sigma, rho, missing = latent["w"], latent["sigma"], latent["rho"], latent["missing"]
        keys = sorted(_key(i, j) for i, j in _pairs(n))
        if len(w) != n or len(sigma) != n or sorted(rho) != keys:
            return f"expected {n} assets at level {level}"
        if missing not in rho:
            return f"missing pair {missing!r} is not a pair of distinct assets"
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
        for key in sorted(rho):
            r = rho[key]
            if isinstance(r, bool) or not isinstance(r, (int, Fraction)) or not -1 <= r <= 1:
                return f"rho({key}) = {r} is not a correlation"
            if key != missing and r.denominator > _max_rho_denominator(level):
                return f"rho({key}) has denominator above {_max_rho_denominator(level)}"
        if not _positive_definite(_matrix(rho, n)):
            return "correlation matrix is not positive definite"
        a, b = (int(t) - 1 for t in missing.split(","))
        if w[a] * w[b] * sigma[a] * sigma[b] == 0:
            return "the missing correlation does not enter the variance"
        return None

    def render(self, latent: Latent) -> Rendered:
        w, sigma, rho, missing = latent["w"], latent["sigma"], latent["rho"], latent["missing"]
        n = len(w)
        facts = [f"w({i + 1}) = {frac(w[i])}" for i in range(n)]
        facts += [f"sigma({i + 1}) = {frac(sigma[i])}" for i in range(n)]
        facts += [f"rho({_key(i, j)}) = {frac(rho[_key(i, j)])}"
                  for i, j in _pairs(n) if _key(i, j) != missing]
        slot = f"rho({missing})"
        line = f"{slot} = {frac(rho[missing])}"
        return Rendered(
            context=f"A portfolio holds {n} assets, numbered {_numbering(n)}. w(i) is the "
                    "portfolio weight of asset i (the weights sum to 1), sigma(i) is the standard "
                    "deviation of asset i's return, and rho(i,j) = rho(j,i) is the correlation "
                    "between the returns of assets i and j (rho(i,i) = 1). The portfolio variance "
                    "is sigma_p^2 = sum over i and j of w(i) w(j) sigma(i) sigma(j) rho(i,j).",
            facts=facts,
            question="What is the portfolio variance sigma_p^2? Give it as a reduced fraction.",
            domain=f"{slot} is a correlation in [-1, 1] for which the correlation matrix is "
                   "positive semidefinite.",
            responder=[line],
            hints=[Hint(slot, line, frac(rho[missing]))],
        )

    def solve(self, latent: Latent) -> Fraction:
        return _variance(latent["w"], latent["sigma"], latent["rho"])

    def known(self, latent: Latent) -> Dict[str, Any]:
        missing = latent["missing"]
        rho = {k: v for k, v in sorted(latent["rho"].items()) if k != missing}
        return {"level": latent["level"], "w": list(latent["w"]), "sigma": list(latent["sigma"]),
                "rho": rho, "missing": missing}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        match = _SLOT_RE.match(hint.slot)
        if not match or match.group(1) != known["missing"]:
            raise ValueError(f"{hint.slot!r} is not the correlation the view lacks")
        rho = {**known["rho"], known["missing"]: Fraction(hint.value)}
        return {"level": known["level"], "w": list(known["w"]), "sigma": list(known["sigma"]),
                "rho": dict(sorted(rho.items())), "missing": known["missing"]}

    def witness(self, latent: Latent) -> Optional[Latent]:
        # The admissible values of rho(a,b) form an interval around the true value (the matrix
        # is PD there); the variance has nonzero slope in rho(a,b): any other admissible value
        # works. Nice grid values first, then ever smaller steps (PD guarantees one fits).
        missing, n = latent["missing"], len(latent["w"])
        true = latent["rho"][missing]
        steps = [Fraction(1, 2 ** k) for k in range(1, 40)]
        tries = chain(_rho_grid(latent["level"]), (true + s for s in steps),
                      (true - s for s in steps))
        for t in tries:
            if t != true and -1 < t < 1:
                rho = {**latent["rho"], missing: t}
                if _positive_definite(_matrix(rho, n)):
                    return {**latent, "rho": rho}
        return None


FAMILY = PortfolioVarianceMissingCorr()


class PortfolioTwoFacts(PortfolioVarianceMissingCorr):
    """Two facts withheld: the correlation rho(a,b) and the deviation sigma(c) of one of its two
    assets (which pair and which asset vary). The variance is linear in rho(a,b) with nonzero
    slope (the one-fact witness keeps the matrix positive definite) and a nonconstant quadratic
    in sigma(c), which takes each value at most twice: among the other integers of sigma's
    stated range (at least three) one gives another variance."""

    k = 2
    slot_fields = ("missing", "missing_sigma")  # type: ignore[assignment]  # both choose the slots

    def generate(self, rng: random.Random, level: int) -> Latent:
        latent = super().generate(rng, level)
        a, b = (int(t) for t in latent["missing"].split(","))
        return {**latent, "missing_sigma": rng.choice((a, b))}

    def check(self, latent: Latent) -> Optional[str]:
        problem = super().check(latent)
        if problem:
            return problem
        c = latent["missing_sigma"]
        if not (type(c) is int and str(c) in latent["missing"].split(",")):
            return f"sigma({c}) is not the deviation of an asset of the withheld pair"
        return None

    def render(self, latent: Latent) -> Rendered:
        one = super().render(latent)
        c, sigma = latent["missing_sigma"], latent["sigma"]
        sigma_line = f"sigma({c}) = {frac(sigma[c - 1])}"
        top = _max_sigma(latent["level"])
        return Rendered(
            context=one.context,
            facts=[f for f in one.facts if not f.startswith(f"sigma({c}) = ")],
            question=one.question,
            domain=one.domain[:-1] + f"; sigma({c}) is an integer between 1 and {top}.",
            responder=one.responder + [sigma_line],
            hints=one.hints + [Hint(f"sigma({c})", sigma_line, frac(sigma[c - 1]))],
            hint_groups=[[one.hints[0].slot], [f"sigma({c})"]],
        )

    def known(self, latent: Latent) -> Dict[str, Any]:
        out = super().known(latent)
        c = latent["missing_sigma"]
        out["sigma"] = [None if i == c - 1 else s for i, s in enumerate(latent["sigma"])]
        return {**out, "missing_sigma": c}

    def complete_many(self, known: Dict[str, Any], hints: Sequence[Hint]) -> Latent:
        c = known["missing_sigma"]
        rho_hint = next((h for h in hints if _SLOT_RE.match(h.slot)), None)
        sigma = self.given_value(hints, f"sigma({c})")
        if rho_hint is None or sigma is None or len(hints) != 2:
            raise ValueError(f"needs the withheld correlation and sigma({c})")
        value = Fraction(sigma)
        if value.denominator != 1 or value < 1:
            raise ValueError(f"sigma({c}) = {sigma} is not a positive integer")
        filled = [int(value) if s is None else s for s in known["sigma"]]
        full = PortfolioVarianceMissingCorr.complete(self, {**known, "sigma": filled}, rho_hint)
        return {**full, "missing_sigma": c}

    def witness_given(self, latent: Latent, given: Optional[Hint]) -> Optional[Latent]:
        if given is not None and given.slot.startswith("sigma("):
            return PortfolioVarianceMissingCorr.witness(self, latent)
        c, sigma = latent["missing_sigma"], latent["sigma"]
        answer = self.solve(latent)
        for s in sorted(range(1, _max_sigma(latent["level"]) + 1), key=lambda s: (abs(s - sigma[c - 1]), s)):
            alt = {**latent, "sigma": [s if i == c - 1 else x for i, x in enumerate(sigma)]}
            if s != sigma[c - 1] and self.solve(alt) != answer:
                return alt
        return None


FAMILY_K2 = PortfolioTwoFacts()
