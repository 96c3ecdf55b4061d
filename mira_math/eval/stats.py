"""The statistics scoring prints (docs/benchmark.md §7): small pure functions, exact where the
quantity is rational (pass@k, McNemar's p-value) and otherwise computed from exact fractions
with one square root taken to 15 decimals by integer arithmetic (the same bytes on every
machine, no floating point).

* :func:`wilson`: the Wilson score interval of a proportion (never zero-width: 0/30 gives
  [0, 11.35]%);
* :func:`cluster_wilson`: the same with instances as the unit when each instance was sampled
  several times (``--epochs``): Wilson at the effective sample size of the clustered variance;
* :func:`pass_at_k` / :func:`pass_hat_k`: the unbiased pass@k estimator and pass^k
  (all k samples correct), per instance;
* :func:`mcnemar_exact`: McNemar's exact two-sided p-value (a sign test on the discordant pairs);
* :func:`newcombe_paired`: Newcombe's hybrid score interval for a paired difference of
  proportions; :func:`paired_mean_interval` the normal interval of a mean paired difference
  (instances as the unit, for runs with several epochs).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb, isqrt
from typing import Optional, Sequence, Tuple, Union

Interval = Tuple[Fraction, Fraction]

Z95 = Fraction("1.959963984540054")         # the 97.5th percentile of the standard normal
SQRT_PLACES = 15


def sqrt(value: Fraction, places: int = SQRT_PLACES) -> Fraction:
    """The square root of a non-negative fraction, rounded down to ``places`` decimals."""
    if value < 0:
        raise ValueError(f"square root of a negative number {value}")
    scale = 10 ** places
    return Fraction(isqrt(value.numerator * scale * scale // value.denominator), scale)


def _clamp(x: Fraction) -> Fraction:
    return min(Fraction(1), max(Fraction(0), x))


def wilson(successes: Union[int, Fraction], n: Union[int, Fraction], z: Fraction = Z95) -> Optional[Interval]:
    """The Wilson score interval of ``successes``/``n`` (``n`` may be an effective, fractional
    size); None for n = 0. The bounds at 0 and n are exactly 0 and 1."""
    successes, n = Fraction(successes), Fraction(n)
    if n <= 0:
        return None
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z / denom * sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    low = Fraction(0) if successes == 0 else _clamp(_outward(centre - half, -1))
    high = Fraction(1) if successes == n else _clamp(_outward(centre + half, 1))
    return low, high


BOUND_PLACES = 12


def _outward(x: Fraction, direction: int) -> Fraction:
    """``x`` to :data:`BOUND_PLACES` decimals, rounded away from the estimate (short exact text)."""
    scale = 10 ** BOUND_PLACES
    q = x * scale
    whole = q.numerator // q.denominator
    return Fraction(whole if direction < 0 or whole == q else whole + 1, scale)


@dataclass(frozen=True)
class Moments:
    """What a clustered proportion needs, as integer sums over clusters (correct c, samples m):
    the number of clusters, sum c, sum m, sum c^2, sum c*m, sum m^2. Built while streaming."""

    clusters: int = 0
    c: int = 0
    m: int = 0
    cc: int = 0
    cm: int = 0
    mm: int = 0

    @classmethod
    def of(cls, clusters: Sequence[Tuple[int, int]]) -> "Moments":
        pairs = [(c, m) for c, m in clusters if m]
        return cls(len(pairs), sum(c for c, _ in pairs), sum(m for _, m in pairs),
                   sum(c * c for c, _ in pairs), sum(c * m for c, m in pairs), sum(m * m for _, m in pairs))


def effective_size(clusters: "Sequence[Tuple[int, int]] | Moments") -> Fraction:
    """The effective sample size of a proportion over clusters (correct, samples): the
    binomial variance over the clustered (ratio-estimator) variance, kept between the number of
    clusters and the number of samples. One sample per cluster gives exactly the count."""
    mo = clusters if isinstance(clusters, Moments) else Moments.of(clusters)
    if not mo.m:
        return Fraction(0)
    p = Fraction(mo.c, mo.m)
    spread = mo.cc - 2 * p * mo.cm + p * p * mo.mm        # sum over clusters of (c - p m)^2
    low, high = Fraction(mo.clusters), Fraction(mo.m)
    if p in (0, 1):
        return low
    if spread == 0:                  # every cluster at the mean: all variation is within clusters
        return high
    return min(high, max(low, p * (1 - p) * mo.m * mo.m / spread))


def cluster_wilson(clusters: "Sequence[Tuple[int, int]] | Moments", z: Fraction = Z95) -> Optional[Interval]:
    """Wilson's interval of the pooled proportion over clusters (correct, samples), at the
    effective sample size (:func:`effective_size`); equals :func:`wilson` with one sample each."""
    mo = clusters if isinstance(clusters, Moments) else Moments.of(clusters)
    if not mo.m:
        return None
    if mo.clusters == mo.m:                                # one sample per cluster
        return wilson(mo.c, mo.m, z)
    p = Fraction(mo.c, mo.m)
    n_eff = effective_size(mo)
    return wilson(p * n_eff, n_eff, z)


def pass_at_k(n: int, c: int, k: int) -> Fraction:
    """The unbiased estimator of pass@k from n samples with c correct: 1 - C(n-c, k)/C(n, k)."""
    if not 0 < k <= n or not 0 <= c <= n:
        raise ValueError(f"pass@k needs 0 < k <= n and 0 <= c <= n, got n={n}, c={c}, k={k}")
    return 1 - Fraction(comb(n - c, k), comb(n, k))


def pass_hat_k(n: int, c: int, k: int) -> Fraction:
    """pass^k: the chance that k samples drawn without replacement are all correct, C(c, k)/C(n, k)."""
    if not 0 < k <= n or not 0 <= c <= n:
        raise ValueError(f"pass^k needs 0 < k <= n and 0 <= c <= n, got n={n}, c={c}, k={k}")
    return Fraction(comb(c, k), comb(n, k))


def mcnemar_exact(only_a: int, only_b: int) -> Fraction:
    """McNemar's exact two-sided p-value from the discordant counts: twice the smaller binomial
    tail of Binomial(only_a + only_b, 1/2), at most 1 (1 when there is no discordant pair)."""
    n = only_a + only_b
    if n == 0:
        return Fraction(1)
    tail = sum(comb(n, i) for i in range(min(only_a, only_b) + 1))
    return min(Fraction(1), Fraction(2 * tail, 2 ** n))


def newcombe_paired(both: int, only_a: int, only_b: int, neither: int,
                    z: Fraction = Z95) -> Optional[Interval]:
    """Newcombe's (1998) hybrid score interval ("method 10") for p_A - p_B on paired binary
    outcomes: p_A = (both + only_a)/n, p_B = (both + only_b)/n, from each margin's Wilson
    interval and the phi correlation of the pairs. Never zero-width for n > 0."""
    n = both + only_a + only_b + neither
    if n == 0:
        return None
    pa, pb = Fraction(both + only_a, n), Fraction(both + only_b, n)
    la, ua = wilson(both + only_a, n, z) or (Fraction(0), Fraction(1))
    lb, ub = wilson(both + only_b, n, z) or (Fraction(0), Fraction(1))
    margins = (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    phi = Fraction(0) if margins == 0 else \
        Fraction(both * neither - only_a * only_b) / sqrt(Fraction(margins))
    d = pa - pb
    low = d - sqrt(max(Fraction(0), (pa - la) ** 2 - 2 * phi * (pa - la) * (ub - pb) + (ub - pb) ** 2))
    high = d + sqrt(max(Fraction(0), (ua - pa) ** 2 - 2 * phi * (ua - pa) * (pb - lb) + (pb - lb) ** 2))
    return max(Fraction(-1), low), min(Fraction(1), high)


def paired_mean_interval(differences: Sequence[Fraction], z: Fraction = Z95) -> Optional[Interval]:
    """The normal interval mean +- z * sd / sqrt(n) of per-instance differences (instances are
    the unit; each difference is a mean over that instance's epochs); None for n < 2."""
    n = len(differences)
    if n < 2:
        return None
    mean = sum(differences, Fraction(0)) / n
    variance = sum(((d - mean) ** 2 for d in differences), Fraction(0)) / (n - 1)
    half = z * sqrt(variance / n)
    return max(Fraction(-1), mean - half), min(Fraction(1), mean + half)


__all__ = ["Interval", "Moments", "Z95", "cluster_wilson", "effective_size", "mcnemar_exact", "newcombe_paired",
           "paired_mean_interval", "pass_at_k", "pass_hat_k", "sqrt", "wilson"]
