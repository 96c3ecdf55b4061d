"""Lenient reading of a written answer into an exact value.

The accepted and rejected forms are listed in ``verifiers/README.md``; each has a test in
``tests/verifiers/test_forms.py``. Every function here returns a value or raises
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
# Relations other than '=': "x >= 3", "x != 3", "x \\leq 3" say the value is *not* (only) 3.
_RELATION_RE = re.compile(r"[<>\u2260\u2264\u2265\u2266\u2267\u2a7d\u2a7e\u226a\u226b\u226e\u226f]|!="
                          r"|\\(?:neq?|leq?|geq?|leqslant|geqslant|lt|gt|ll|gg|not)(?![A-Za-z])")
# Two numbers with only spacing (or a dropped wrapper) between them: "1 1/2" (a mixed number),
# "1 417" / "1\\,417" (a thousands group), "4**2" (a power), "4$$2": never one number.
_SPLIT_NUMBER_RE = re.compile(r"\d\.?\s+\.?\d")
# What may not touch a \\boxed{} from outside: it would make the box part of an expression
# ("-\\boxed{3/4}", "\\boxed{3}/4", "2\\boxed{3}", "\\frac{\\boxed{3}}{4}").
_OPS = r"\\(?:cdot|times|div|frac|dfrac|tfrac|sqrt|pm|mp)"
_BOX_BEFORE_RE = re.compile(r"(?:[-+*/^_\u00b7\u00d7\u00f7.\d]|" + _OPS + r"|(?:" + _OPS + r"|[\^_}\]])\{)$")
_BOX_AFTER_RE = re.compile(r"^(?:[-+*/^_\u00b7\u00d7\u00f7%!\d{]|\.\d|[eE][-+]?\d|\\%|" + _OPS + r")")

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
    if _RELATION_RE.search(text):
        raise Unreadable("a relation other than '='")
    text = _unbox(text)
    text = _drop(text)
    if _SPLIT_NUMBER_RE.search(text):
        raise Unreadable("numbers separated only by spacing (mixed number, digit groups, two values)")
    text = "".join(text.split())  # all whitespace, Unicode included
    text = text.rstrip(".")
    if not text:
        raise Unreadable("empty answer")
    return text


def _drop(text: str) -> str:
    """Wrappers and LaTeX spacing become a space (so they cannot join two numbers)."""
    for token in _DROP:
        text = text.replace(token, " ")
    return text


def _unbox(text: str) -> str:
    """Content of the one ``\\boxed{...}`` (braces matched), else the text itself. Text around
    the box is ignored (a label, words), unless it makes the box part of an expression."""
    start = text.find("\\boxed{")
    if start < 0:
        return text
    if text.count("\\boxed{") > 1:
        raise Unreadable("more than one \\boxed{...}")
    depth, i = 1, start + len("\\boxed{")
    begin = i
    while i < len(text):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                before = "".join(_drop(text[:start]).split()).rstrip("([")
                after = "".join(_drop(text[i + 1:]).split()).lstrip(")]")
                if _BOX_BEFORE_RE.search(before) or _BOX_AFTER_RE.match(after):
                    raise Unreadable("\\boxed{...} is part of an expression")
                return text[begin:i]
        i += 1
    raise Unreadable("unbalanced \\boxed{...}")


def _labelled_scalar(text: str) -> Scalar:
    """``P(H|E)=10/37`` -> ``10/37``: whatever stands before the last ``=`` is a label, but a
    label that is itself a number must have the same value (``20/74=10/37`` is 10/37,
    ``5/29=10/37`` is two values)."""
    if "=" not in text:
        return _scalar(text)
    *labels, last = text.split("=")
    if not last:
        raise Unreadable("nothing after '='")
    value = _scalar(last)
    for label in labels:
        try:
            other = _scalar(label) if label else None
        except Unreadable:
            continue
        if other is not None and other != value:
            raise Unreadable("two different values")
    return value


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
    return _labelled_scalar(_clean(text))


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
    wanted = {_name_key(nm): i for i, nm in enumerate(names)}
    parts: Optional[list] = None
    # "(q0, q1, q2) = (10, 1, 1)": a tuple of labels before the last '='. Labels that are the
    # component names pair with the values by name ("(q1, q0, q2) = (1, 10, 1)"); other names
    # are positional; numbers must be the same values ("(1, 10, 1) = (10, 1, 1)" is two tuples).
    # "v = (10, 1, 1)" too, but not "q0 = 10, 1, 1" (a named first component).
    if "=" in cleaned:
        head, tail = cleaned.rsplit("=", 1)
        values = _split_top(_strip_parens(tail), ",;")
        bracketed = _strip_parens(tail) != tail
        heads = _split_top(_strip_parens(head), ",;")
        if n > 1 and len(values) == n and len(heads) == n:
            keys = [_name_key(h) for h in heads]
            known = [k in wanted for k in keys]
            if all(known) and len(set(keys)) == n:
                parts = [f"{h}={v}" for h, v in zip(heads, values)]
            elif any(known):
                raise Unreadable("the label tuple does not name each component once")
            else:
                try:
                    numbers = tuple(_scalar(h) for h in heads)
                except Unreadable:
                    numbers = None
                if numbers is not None and numbers != tuple(_scalar(v) for v in values):
                    raise Unreadable("two different tuples")
                cleaned = tail
        elif n > 1 and len(values) == n and bracketed and "," not in head:
            cleaned = tail
    if parts is None:
        parts = _split_top(_strip_parens(cleaned), ",;")
    if len(parts) != n:
        raise Unreadable(f"expected {n} components, found {len(parts)}")
    labelled = [("=" in p or ":" in p) for p in parts]
    if any(labelled) and not all(labelled):
        raise Unreadable("some components are named and some are not")
    if not any(labelled):
        return tuple(_scalar(p) for p in parts)
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
