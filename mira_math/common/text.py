"""Small, shared formatting helpers so every family writes numbers the same way."""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence, Union

from mira_math.verifiers.exact import scalar_string

Number = Union[int, Fraction]


def frac(x: Number) -> str:
    """``3/4``, ``-2``: the canonical exact form, used in every fact and constraint line."""
    return scalar_string(x)


def signed_term(coef: int, var: str, first: bool) -> str:
    """One term of a linear expression: ``3x``, ``- y``, ``+ 2z`` (coefficient 1 implied)."""
    mag = abs(coef)
    body = var if mag == 1 else f"{mag}{var}"
    if first:
        return f"-{body}" if coef < 0 else body
    return f"- {body}" if coef < 0 else f"+ {body}"


def linear(coefs: Sequence[int], names: Sequence[str]) -> str:
    """``2x - y + 3z``; zero terms skipped (an all-zero row renders as ``0``)."""
    terms = [(c, n) for c, n in zip(coefs, names) if c != 0]
    if not terms:
        return "0"
    return " ".join(signed_term(c, n, i == 0) for i, (c, n) in enumerate(terms))


def tuple_string(values: Sequence[Number]) -> str:
    return "(" + ", ".join(frac(v) for v in values) + ")"
