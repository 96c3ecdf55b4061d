"""Lenient reading of a written answer into an exact value.

The accepted and rejected forms are listed in ``verifiers/README.md``; each has a test in
``tests/verifiers/test_parse.py``. Every function here returns a value or raises
:class:`Unreadable`; :func:`verifiers.verify.verify` turns that into a verdict.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Optional, Sequence, Tuple

from verifiers.exact import Scalar, Value

MAX_LENGTH = 2000  # longer answers are rejected before any regex runs


class Unreadable(ValueError):
    """The text is not one exact value of the expected shape."""


# Wrappers and spacing that carry no value: stripped before parsing.
_DROP = (
    "\\displaystyle", "\\left", "\\right", "\\,", "\\;", "\\:", "\\!", "\\ ",
    "\\(", "\\)", "\\[", "\\]", "$", "**", "`", "\\text{}",
)
_MINUSES = {"\u2212": "-", "\u2013": "-", "\u2014": "-", "\ufe63": "-", "\uff0d": "-"}
_INEXACT = ("\u2248", "\\approx", "~", "...", "\u2026", "\\ldots", "\\dots", "e+", "E+")

_INT = r"[+-]?\d+"
_DEC = r"[+-]?(?:\d+\.\d*|\.\d+)"
_INT_RE = re.compile(rf"^{_INT}$")
_DEC_RE = re.compile(rf"^{_DEC}$")
_SLASH_RE = re.compile(rf"^([+-]?)({_INT})/({_INT})$")
_FRAC_RE = re.compile(rf"^([+-]?)\\[dt]?frac\{{({_INT}|{_DEC})\}}\{{({_INT}|{_DEC})\}}$")
_NAME_RE = re.compile(r"^[A-Za-z\\][A-Za-z0-9_{}()\[\]|\\^'.]*$")


def _clean(text: str) -> str:
    if not isinstance(text, str):
        raise Unreadable(f"answer is {type(text).__name__}, not text")
    if len(text) > MAX_LENGTH:
        raise Unreadable(f"answer longer than {MAX_LENGTH} characters")
    for old, new in _MINUSES.items():
        text = text.replace(old, new)
    text = text.replace("\u2044", "/").replace("\u2215", "/")
    for token in _INEXACT:
        if token in text:
            raise Unreadable(f"inexact or elided value ({token!r})")
    text = _unbox(text)
    for token in _DROP:
        text = text.replace(token, "")
    text = "".join(text.split())  # all whitespace, Unicode included
    text = text.rstrip(".")
    if not text:
        raise Unreadable("empty answer")
    return text


def _unbox(text: str) -> str:
    """Content of the last ``\\boxed{...}`` (braces matched), else the text itself."""
    start = text.rfind("\\boxed{")
    if start < 0:
        return text
    depth, i = 1, start + len("\\boxed{")
    begin = i
    while i < len(text):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[begin:i]
        i += 1
    raise Unreadable("unbalanced \\boxed{...}")


def _strip_label(text: str) -> str:
    """``P(H|E)=10/37`` -> ``10/37``: whatever stands before the last ``=`` is a label."""
    if "=" in text:
        text = text.rsplit("=", 1)[1]
        if not text:
            raise Unreadable("nothing after '='")
    return text


def _strip_parens(text: str) -> str:
    while len(text) >= 2 and text[0] + text[-1] in ("()", "[]", "{}") and _balanced(text[1:-1]):
        text = text[1:-1]
    return text


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _scalar(token: str) -> Scalar:
    token = _strip_parens(token)
    if _INT_RE.match(token):
        return int(token)
    if _DEC_RE.match(token):
        return _reduce(Fraction(token))
    m = _SLASH_RE.match(token) or _FRAC_RE.match(token)
    if m:
        sign, num, den = m.groups()
        num_v, den_v = Fraction(num), Fraction(den)
        if den_v == 0:
            raise Unreadable("zero denominator")
        value = num_v / den_v
        return _reduce(-value if sign == "-" else value)
    raise Unreadable(f"not an exact number: {token[:40]!r}")


def _reduce(x: Fraction) -> Scalar:
    return x.numerator if x.denominator == 1 else x


def parse_scalar(text: str) -> Scalar:
    """One exact number, possibly labelled, boxed, in LaTeX or as a terminating decimal."""
    return _scalar(_strip_label(_clean(text)))


def _split_top(text: str, sep: str = ",") -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch in sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _name_key(name: str) -> str:
    return name.replace("_", "").replace("{", "").replace("}", "").replace("\\", "").lower()


def parse_tuple(text: str, names: Sequence[str]) -> Tuple[Scalar, ...]:
    """A tuple of ``len(names)`` exact numbers: positional, or all named (any order)."""
    cleaned = _clean(text)
    n = len(names)
    # "(q0, q1, q2) = (10, 1, 1)": a tuple of labels before the last '='.
    # "v = (10, 1, 1)" too, but not "q0 = 10, 1, 1" (a named first component).
    if "=" in cleaned:
        head, tail = cleaned.rsplit("=", 1)
        values = _split_top(_strip_parens(tail), ",;")
        bracketed = _strip_parens(tail) != tail
        names_before = len(_split_top(_strip_parens(head), ",;")) == n
        if n > 1 and len(values) == n and (names_before or (bracketed and "," not in head)):
            cleaned = tail
    body = _strip_parens(cleaned)
    parts = _split_top(body, ",;")
    if len(parts) != n:
        raise Unreadable(f"expected {n} components, found {len(parts)}")
    labelled = [("=" in p or ":" in p) for p in parts]
    if any(labelled) and not all(labelled):
        raise Unreadable("some components are named and some are not")
    if not any(labelled):
        return tuple(_scalar(p) for p in parts)
    wanted = {_name_key(nm): i for i, nm in enumerate(names)}
    out: list[Optional[Scalar]] = [None] * n
    for p in parts:
        label, value = re.split(r"[=:]", p, maxsplit=1)
        key = _name_key(label)
        if key not in wanted:
            raise Unreadable(f"unknown component name {label[:20]!r}")
        if out[wanted[key]] is not None:
            raise Unreadable(f"component {label[:20]!r} given twice")
        out[wanted[key]] = _scalar(value)
    return tuple(out)  # type: ignore[arg-type]


def parse_answer(text: str, answer_type: str, names: Sequence[str] = ()) -> Value:
    """Read ``text`` as a value of ``answer_type``; raise :class:`Unreadable` if it is not one."""
    if answer_type == "tuple":
        return parse_tuple(text, names)
    value = parse_scalar(text)
    if answer_type == "cell" and value not in (0, 1):
        raise Unreadable("a cell is 0 or 1")
    return value
