"""Small, shared formatting helpers so every family writes numbers the same way."""

from __future__ import annotations

import functools
import re
from fractions import Fraction
from typing import List, Sequence, Tuple, Union

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


def parse_linear(text: str, names: Sequence[str]) -> List[int]:
    """``2x - y + 3z = -4`` -> ``[2, -1, 3, -4]``: the inverse of :func:`linear` with an integer
    right-hand side. Strict: anything but the exact text ``linear`` writes is a ValueError
    naming it (a hint or fact line is read back only in the canonical form)."""
    lhs, sep, rhs = text.partition(" = ")
    coefs = {name: 0 for name in names}
    compact, pos = lhs.replace(" ", ""), 0
    for m in _term_re(tuple(names)).finditer(compact):
        if m.start() != pos or coefs[m.group(3)]:
            raise ValueError(f"not a canonical equation: {text!r}")
        mag = int(m.group(2)) if m.group(2) else 1
        coefs[m.group(3)] = -mag if m.group(1) == "-" else mag
        pos = m.end()
    try:
        row = [coefs[name] for name in names] + [int(rhs)]
    except ValueError:
        raise ValueError(f"not a canonical equation: {text!r}") from None
    if not sep or pos != len(compact) or f"{linear(row[:-1], names)} = {row[-1]}" != text:
        raise ValueError(f"not a canonical equation: {text!r}")
    return row


@functools.lru_cache(maxsize=None)
def _term_re(names: Tuple[str, ...]) -> "re.Pattern[str]":
    return re.compile(r"([+-]?)(\d*)(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + ")")


def tuple_string(values: Sequence[Number]) -> str:
    return "(" + ", ".join(frac(v) for v in values) + ")"
