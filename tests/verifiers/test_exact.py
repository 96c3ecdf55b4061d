from __future__ import annotations

from fractions import Fraction

import pytest

from mira_math.verifiers.exact import canonical, equal, from_canonical


def test_canonical_strings():
    assert canonical("int", 7) == "7"
    assert canonical("int", Fraction(6, 2)) == "3"
    assert canonical("fraction", Fraction(4, 2)) == "2"
    assert canonical("fraction", Fraction(-6, 8)) == "-3/4"
    assert canonical("tuple", (10, Fraction(1, 2), -1)) == "(10, 1/2, -1)"
    assert canonical("cell", 1) == "1"


@pytest.mark.parametrize("bad", [("int", Fraction(1, 2)), ("cell", 2), ("tuple", ()), ("int", (1, 2)),
                                 ("fraction", 0.5), ("int", True)])
def test_canonical_rejects_wrong_values(bad):
    with pytest.raises((TypeError, ValueError)):
        canonical(*bad)


@pytest.mark.parametrize("bad", [("int", "1/2"), ("fraction", "2/4 "), ("fraction", "0.5"),
                                 ("tuple", "10, 1"), ("cell", "3"), ("nope", "1")])
def test_from_canonical_is_strict(bad):
    with pytest.raises(ValueError):
        from_canonical(*bad)


def test_equal_is_value_equality():
    assert equal(2, Fraction(4, 2))
    assert equal((1, Fraction(1, 2)), (Fraction(1), Fraction(2, 4)))
    assert not equal((1, 2), (2, 1))
    assert not equal(1, (1,))
