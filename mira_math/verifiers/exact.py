"""Exact answer values: one Python form, one canonical string, one type tag each.

Answers are ``int``, reduced ``Fraction`` or tuples of those; a discrete-tomography
cell is an ``int`` restricted to 0/1. The canonical string is what the release stores,
so it must never depend on how a value was computed (``Fraction(4, 2)`` and ``2`` give
``"2"`` under the ``fraction`` tag).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Literal, Tuple, Union

AnswerType = Literal["int", "fraction", "tuple", "cell"]
ANSWER_TYPES: Tuple[AnswerType, ...] = ("int", "fraction", "tuple", "cell")

Scalar = Union[int, Fraction]
Value = Union[Scalar, Tuple[Scalar, ...]]

_SCALAR_RE = re.compile(r"^-?\d+(/\d+)?$")


def scalar_string(x: Scalar) -> str:
    """``-3``, ``10/37``: integers without a denominator, fractions reduced."""
    if isinstance(x, bool):
        raise TypeError("booleans are not exact answer values")
    if isinstance(x, int):
        return str(x)
    if isinstance(x, Fraction):
        return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    raise TypeError(f"not an exact scalar: {x!r} ({type(x).__name__})")


def canonical(answer_type: str, value: Value) -> str:
    """The one string the release stores for ``value`` under ``answer_type`` (one of
    :data:`ANSWER_TYPES`, checked here: records carry it as a plain string)."""
    if answer_type == "tuple":
        if not isinstance(value, (tuple, list)) or not value:
            raise TypeError(f"tuple answer needs a non-empty tuple, got {value!r}")
        return "(" + ", ".join(scalar_string(c) for c in value) + ")"
    if isinstance(value, (tuple, list)):
        raise TypeError(f"{answer_type} answer cannot be a tuple: {value!r}")
    scalar_string(value)  # type check: int or Fraction only (no bool, no float)
    if answer_type == "int":
        if Fraction(value).denominator != 1:
            raise ValueError(f"int answer is not an integer: {value!r}")
        return scalar_string(int(value))
    if answer_type == "cell":
        if value not in (0, 1):
            raise ValueError(f"cell answer must be 0 or 1, got {value!r}")
        return scalar_string(int(value))
    if answer_type == "fraction":
        return scalar_string(Fraction(value))
    raise ValueError(f"unknown answer type {answer_type!r}")


def _parse_scalar_string(text: str) -> Fraction:
    if not _SCALAR_RE.match(text):
        raise ValueError(f"not a canonical exact scalar: {text!r}")
    return Fraction(text)


def from_canonical(answer_type: str, text: str) -> Value:
    """Inverse of :func:`canonical`; strict, for data read back from the release."""
    if answer_type == "tuple":
        if not (text.startswith("(") and text.endswith(")")):
            raise ValueError(f"not a canonical tuple: {text!r}")
        parts = text[1:-1].split(", ")
        return tuple(_normalise(_parse_scalar_string(p)) for p in parts)
    if answer_type not in ANSWER_TYPES:
        raise ValueError(f"unknown answer type {answer_type!r}")
    value = _normalise(_parse_scalar_string(text))
    if answer_type in ("int", "cell") and not isinstance(value, int):
        raise ValueError(f"{answer_type} answer is not an integer: {text!r}")
    if answer_type == "cell" and value not in (0, 1):
        raise ValueError(f"cell answer must be 0 or 1: {text!r}")
    return value


def _normalise(x: Fraction) -> Scalar:
    return x.numerator if x.denominator == 1 else x


def equal(a: Value, b: Value) -> bool:
    """Value equality: ``2 == Fraction(4, 2)``, tuples componentwise."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(Fraction(x) == Fraction(y) for x, y in zip(a, b))
    if isinstance(a, tuple) or isinstance(b, tuple):
        return False
    return Fraction(a) == Fraction(b)
