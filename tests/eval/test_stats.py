"""eval/stats.py against published values and exact identities."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

from mira_math.eval.stats import (cluster_wilson, effective_size, mcnemar_exact, newcombe_paired,
                                  paired_mean_interval, pass_at_k, pass_hat_k, sqrt, wilson)


def approx(interval, places=4):
    return tuple(round(float(x), places) for x in interval)


@pytest.mark.parametrize("k, n, expected", [
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", method 3
    (81, 263, (0.2553, 0.3662)), (15, 148, (0.0624, 0.1605)), (0, 20, (0.0, 0.1611)),
    (1, 29, (0.0061, 0.1718)),
])
def test_wilson_matches_published_values(k, n, expected):
    assert approx(wilson(k, n)) == expected


def test_wilson_is_never_zero_width():
    low, high = wilson(0, 30)
    assert low == 0 and round(float(high), 4) == 0.1135       # z^2 / (30 + z^2)
    low, high = wilson(60, 60)
    assert high == 1 and 0.93 < float(low) < 0.95
    assert wilson(0, 0) is None


def test_square_root_is_exact_to_its_places():
    assert sqrt(Fraction(4)) == 2 and sqrt(Fraction(1, 4)) == Fraction(1, 2)
    root = sqrt(Fraction(2))
    assert root * root <= 2 < (root + Fraction(1, 10 ** 15)) ** 2


def test_cluster_wilson_reduces_to_wilson_with_one_sample_each():
    clusters = [(1, 1)] * 7 + [(0, 1)] * 13
    assert cluster_wilson(clusters) == wilson(7, 20)
    assert effective_size(clusters) == 20


def test_cluster_wilson_counts_instances_when_epochs_agree():
    # 3 epochs that always agree carry no more information than one: the width of n=20
    agree = [(3, 3)] * 7 + [(0, 3)] * 13
    assert effective_size(agree) == 20
    assert approx(cluster_wilson(agree)) == approx(wilson(7, 20))
    # independent coin flips within each instance: the effective size reaches the samples
    mixed = [(1, 2), (1, 2), (1, 2), (1, 2)]
    assert effective_size(mixed) == 8


def test_pass_at_k_and_pass_hat_k_exact():
    assert pass_at_k(10, 3, 1) == Fraction(3, 10)
    assert pass_at_k(10, 3, 2) == 1 - Fraction(comb(7, 2), comb(10, 2)) == Fraction(8, 15)
    assert pass_at_k(3, 0, 3) == 0 and pass_at_k(3, 1, 3) == 1
    assert pass_hat_k(3, 3, 3) == 1 and pass_hat_k(3, 2, 3) == 0 and pass_hat_k(4, 2, 2) == Fraction(1, 6)
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_mcnemar_exact_p_values():
    assert mcnemar_exact(1, 6) == Fraction(16, 128)      # 2 * (1 + 7) / 2^7
    assert mcnemar_exact(0, 0) == 1 and mcnemar_exact(3, 3) == 1
    assert mcnemar_exact(0, 10) == Fraction(2, 1024)


def test_newcombe_paired_interval():
    # Agresti's presidential approval table (n = 1600): close to the Wald interval at this size,
    # 0.04 +- 1.96 * sqrt(236 - 64^2/1600)/1600 = (0.0213, 0.0587)
    low, high = newcombe_paired(794, 150, 86, 570)
    assert abs(float(low) - 0.0213) < 0.001 and abs(float(high) - 0.0587) < 0.001
    # no discordant pair: difference 0, but the interval is not zero-width
    low, high = newcombe_paired(10, 0, 0, 20)
    assert low < 0 < high
    # swapping the runs mirrors the interval
    a = newcombe_paired(5, 7, 2, 16)
    b = newcombe_paired(5, 2, 7, 16)
    assert (a[0], a[1]) == (-b[1], -b[0])
    assert newcombe_paired(0, 0, 0, 0) is None


def test_paired_mean_interval():
    diffs = [Fraction(1), Fraction(0), Fraction(0), Fraction(-1), Fraction(1)]
    low, high = paired_mean_interval(diffs)
    assert low < Fraction(1, 5) < high
    assert paired_mean_interval([Fraction(1)]) is None
