"""Lenient reading of a written answer into one exact value, strict about anything else.

The accepted and rejected forms are listed in ``verifiers/README.md``; each row there is a test
in ``tests/verifiers/test_forms.py``. Every function here returns a value or raises
:class:`Unreadable`; :func:`mira_math.verifiers.verify.verify` turns that into a verdict.

The reading is a fixed sequence of passes, each a single scan or a regex without nested
repetition over the (at most 2,000-character) text, so it runs in linear time; the worst
case is printed by ``benchmarks/bench_answers.py``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from fractions import Fraction
from typing import Dict, List, Optional, Sequence, Tuple

from mira_math.verifiers.exact import Scalar, Value
from mira_math.verifiers.words import has_numeric_character, is_hedge, is_number_word

MAX_LENGTH = 2000  # longer answers are rejected before any pass runs


class Unreadable(ValueError):
    """The text is not one exact value of the expected shape."""


@dataclass(frozen=True)
class AnswerContext:
    """What the question itself licenses beyond a bare value: a unit it names, the modulus
    of a congruence answer, other names of a component (an undirected edge read backwards)."""

    units: Tuple[str, ...] = ()
    modulus: Optional[int] = None
    aliases: Tuple[Tuple[str, str], ...] = ()   # (other name, component name)


NO_CONTEXT = AnswerContext()

# ---------------------------------------------------------------- characters

# Every dash-like character is a minus sign: it is never silently dropped, so "‐\boxed{3}"
# (U+2010 HYPHEN) is a sign outside a box, not 3.
_MINUSES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d\u02d7\u2796"
_SUPERSCRIPTS = {"\u2070": "0", "\u00b9": "1", "\u00b2": "2", "\u00b3": "3", "\u2074": "4",
                 "\u2075": "5", "\u2076": "6", "\u2077": "7", "\u2078": "8", "\u2079": "9",
                 "\u207b": "-", "\u207a": "+"}
_CHAR_MAP = {**{m: "-" for m in _MINUSES}, "\u2044": "/", "\u2215": "/", "\u2126": "\u03a9",
             "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "}
# ASCII that never belongs to an exact value or its label: percent, approximation, relations,
# factorial / emphasis, uncertainty, and '&' / '#' / '@' outside the LaTeX that uses them.
_ASCII_FORBIDDEN = {"%": "percent", "~": "approximation", "<": "a relation", ">": "a relation",
                    "!": "an operator", "?": "a question", "#": "a symbol", "@": "a symbol",
                    "&": "an alignment outside a vector"}

# ---------------------------------------------------------------- words and commands

# Hedges, corrections, negations, approximations, quantity words and values in words or in
# Unicode numerals, anywhere in the text: recognised by rule (``verifiers/words.py``), word by
# word, lower-cased (a memoised lookup per word keeps the pass linear).
# A list bullet or dash before a value, set off from it by whitespace, is punctuation: "- 32"
# and "— 32" read as 32. Attached to the number it is a sign ("-32", "—32"); U+2212 MINUS
# SIGN is a sign spaced or not.
_BULLETS = "-*\u2022\u2010\u2011\u2012\u2013\u2014\u2015"
# LaTeX relations other than '=' (and the negation prefix \not), and commands that make an
# expression of a value (\pm, \infty, dots), anywhere.
_RELATION_COMMANDS = frozenset("""
ne neq le leq ge geq leqq geqq leqslant geqslant lt gt ll gg lll ggg lesssim gtrsim lessapprox
gtrapprox lessgtr gtrless approx approxeq sim simeq cong equiv propto asymp doteq prec succ preceq
succeq precsim succsim in notin ni subset supset subseteq supseteq to rightarrow Rightarrow
leftarrow Leftarrow leftrightarrow iff implies mapsto longrightarrow Longrightarrow coloneqq
eqqcolon triangleq stackrel overset underset not nless ngtr nleq ngeq ncong nsim parallel perp
nmid vdash models bowtie pm mp infty dots ldots cdots vdots ddots""".split())
_WORD_RE = re.compile(r"[^\W\d_]+")   # words in any script: hedges in other languages
_COMMAND_RE = re.compile(r"\\([A-Za-z]+)")
_INEXACT = ("...", "e+", "E+")
# Commands that may appear in a label (a name, never a number): Greek letters and fonts.
_GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu"
          " nu xi pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma"
          " Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega").split()
_LABEL_COMMANDS = frozenset(_GREEK + ["frac", "cdot", "times", "mathrm", "mathbf", "mathit",
                                      "mathsf", "boldsymbol", "bm", "vec", "hat", "bar", "tilde",
                                      "operatorname", "Pr", "mid", "vert", "lvert", "rvert", "quad",
                                      "qquad", "therefore"])
_LABEL_BANNED_WORDS = re.compile(r"\band\b", re.IGNORECASE)

# Wrappers whose braces go and whose content stays.
_UNWRAP = ("\\text", "\\textbf", "\\textrm", "\\textit", "\\mathrm", "\\mathbf", "\\mathit",
           "\\mbox", "\\operatorname", "\\boldsymbol", "\\bm", "\\mathsf", "\\displaystyle")
_MATRICES = ("pmatrix", "bmatrix", "Bmatrix", "matrix", "smallmatrix", "array")
_ALIGNED = ("aligned", "align", "align*", "equation", "equation*", "gather", "gather*",
            "gathered", "split", "displaymath")
# Wrappers and spacing that carry no value: they become a space (never joining two numbers).
_DROP = ("\\left", "\\right", "\\big", "\\Big", "\\,", "\\;", "\\:", "\\!", "\\ ", "\\quad",
         "\\qquad", "\\(", "\\)", "\\[", "\\]", "$", "**", "`", "\\\\")
_BOXES = ("\\fbox", "\\framebox", "\\boxed")
_BOX_SPACE_RE = re.compile(r"\\(?:boxed|fbox|framebox)[ \t\n]+\{")
_FRAC_DIGITS_RE = re.compile(r"\\[dt]?frac(?:([0-9])([0-9])|\{([^{}]*)\}([0-9])|([0-9])\{([^{}]*)\})")
_PMOD_RE = re.compile(r"\\pmod[ \t\n]*\{[ \t\n]*([0-9]+)[ \t\n]*\}")
_COMMAND_SPACE_RE = re.compile(r"(\\[A-Za-z]+)[ \t\n]+(?=[A-Za-z])")  # "\mid E" stays two tokens
_TRANSPOSE = ("^T", "^{T}", "^{\\top}", "^\\top", "^\\intercal", "^{\\intercal}", "^{\\mathsf{T}}",
              "^{\\mathrm{T}}", "^t", "^{t}", "'")
# Two numbers with only spacing (or a dropped wrapper) between them: "1 1/2" (a mixed number),
# "1 417" / "1\\,417" (a thousands group), "4**2" (a power), "4$$2": never one number.
_SPLIT_NUMBER_RE = re.compile(r"[0-9]\.?[ \t\n\r\f\v]+\.?[0-9]")
# What may not touch a \\boxed{} from outside: it would make the box part of an expression.
_OPS = r"\\(?:cdot|times|div|frac|sqrt|pm|mp|log|ln|exp|sin|cos|tan)"
_BOX_BEFORE_RE = re.compile(r"(?:[-+*/^_.0-9|]|" + _OPS + r"|(?:" + _OPS + r"|[\^_}\]])\{)$")
_BOX_AFTER_RE = re.compile(r"^(?:[-+*/^_%!0-9{|]|\.[0-9]|[eE][-+]?[0-9]|\\%|\(|" + _OPS + r")")

_INT_RE = re.compile(r"^[+-]?[0-9]+$")
_DEC_RE = re.compile(r"^[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+)$")
_SLASH_RE = re.compile(r"^([+-]?)([0-9]+)/([0-9]+)$")
_NUM = r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+"
_FRAC_RE = re.compile(rf"^([+-]?)\\frac\{{([+-]?)({_NUM})\}}\{{({_NUM})\}}$")


# ---------------------------------------------------------------- passes over the text

def _check_characters(text: str, ctx: AnswerContext) -> str:
    """Map dashes, slashes and superscripts; reject every other symbol that is not a letter,
    a space or plain ASCII (math symbols, combining marks, invisible format characters,
    non-ASCII digits, vulgar fractions, fullwidth punctuation such as U+FF05)."""
    out = []
    for ch in text:
        if ch < "\x80":
            if ch < " " and ch not in "\t\n\r":
                raise Unreadable(f"control character U+{ord(ch):04X}")
            out.append(ch)
            continue
        ch = _CHAR_MAP.get(ch, ch)
        if ch in _SUPERSCRIPTS:
            out.append("^" + _SUPERSCRIPTS[ch])
            continue
        if ch < "\x80" or ch == "\u03a9" or (ch == "\u2261" and ctx.modulus is not None):
            out.append(ch)
            continue
        cat = unicodedata.category(ch)
        if cat[0] == "L" or cat[0] == "Z":
            out.append(" " if cat[0] == "Z" else ch)
            continue
        raise Unreadable(f"symbol U+{ord(ch):04X} ({unicodedata.name(ch, 'unnamed').lower()})")
    return "".join(out)


def _unwrap(text: str) -> str:
    """``\\text{ ohms}`` -> `` ohms ``: drop the command and its brace pair, keep the content."""
    out, closing, i, depth = [], [], 0, 0
    while i < len(text):
        if text[i] == "\\":
            for cmd in _UNWRAP:
                end = i + len(cmd)
                if text.startswith(cmd, i) and not text[end:end + 1].isalpha():
                    j = end
                    while j < len(text) and text[j] == " ":
                        j += 1
                    if j < len(text) and text[j] == "{":
                        closing.append(depth)
                        depth += 1
                        out.append(" ")
                        i = j + 1
                    else:
                        out.append(" ")
                        i = end
                    break
            else:
                out.append(text[i])
                i += 1
            continue
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if closing and closing[-1] == depth:
                closing.pop()
                out.append(" ")
                i += 1
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def _environments(text: str) -> str:
    """Column and row vectors become tuples; alignment environments vanish."""
    if "\\begin" not in text and "\\end" not in text:
        return text
    for env in _ALIGNED:
        text = text.replace("\\begin{" + env + "}", " ").replace("\\end{" + env + "}", " ")
    aligned = "&" in text and "matrix" not in text and "array" not in text
    if aligned:                         # "x &= 1/4": alignment marks carry no value
        text = text.replace("&", " ")
    for env in _MATRICES:
        opening = "\\begin{" + env + "}"
        while opening in text:
            start = text.index(opening)
            end = text.find("\\end{" + env + "}", start)
            if end < 0:
                raise Unreadable(f"unclosed {env}")
            body = text[start + len(opening):end]
            if env == "array" and body.lstrip().startswith("{"):
                body = body.lstrip()[body.lstrip().find("}") + 1:]
            rows = [r for r in body.split("\\\\") if r.strip()]
            if len(rows) > 1 and "&" in body:
                raise Unreadable("a matrix, not a vector")
            body = body.replace("\\\\", ",").replace("&", ",").strip().rstrip(",")
            text = text[:start] + " (" + body + ") " + text[end + len("\\end{" + env + "}"):]
    if "\\begin" in text or "\\end" in text:
        raise Unreadable("an environment that is not a vector")
    return text


def _latex(text: str) -> str:
    text = _BOX_SPACE_RE.sub("\\\\boxed{", text)
    for box in ("\\fbox", "\\framebox"):
        text = text.replace(box + "{", "\\boxed{")
    for frac in ("\\dfrac", "\\tfrac", "\\cfrac"):
        text = text.replace(frac, "\\frac")
    text = text.replace("\\Omega", "\u03a9")
    text = _FRAC_DIGITS_RE.sub(_braced_frac, text)
    text = _unwrap(text)
    text = _environments(text)
    return text


def _braced_frac(m: "re.Match[str]") -> str:
    a, b, c, d, e, f = m.groups()
    num, den = (a, b) if a is not None else ((c, d) if c is not None else (e, f))
    return "\\frac{" + num + "}{" + den + "}"


def _take_modulus(text: str, ctx: AnswerContext) -> str:
    """``x ≡ 349 (mod 663)``: one congruence whose modulus is the product of the moduli
    becomes ``x = 349``; a wrong or second modulus is unreadable."""
    text = _PMOD_RE.sub(r"(mod \1)", text)
    text = text.replace("\\equiv", "\u2261").replace("\\pmod", "(mod").replace("\\bmod", "mod")
    text = text.replace("\\mod", "mod")
    count = text.lower().count("mod")
    if count == 0:
        if "\u2261" in text:
            raise Unreadable("a congruence without its modulus")
        return text
    if count > 1 or text.count("\u2261") > 1:
        raise Unreadable("more than one congruence")
    i = text.lower().index("mod")
    start, j = i, i + 3
    back = i - 1
    while back >= 0 and text[back] == " ":
        back -= 1
    paren = back >= 0 and text[back] == "("
    if paren:
        start = back
    while j < len(text) and text[j] in " {":
        j += 1
    k = j
    while k < len(text) and text[k].isdigit():
        k += 1
    if k == j:
        raise Unreadable("a modulus that is not a number")
    modulus = int(text[j:k])
    while k < len(text) and text[k] in " }":
        k += 1
    if paren:
        if k >= len(text) or text[k] != ")":
            raise Unreadable("unbalanced (mod ...)")
        k += 1
    if modulus != ctx.modulus:
        raise Unreadable(f"modulus {modulus} is not the product of the moduli")
    return (text[:start] + " " + text[k:]).replace("\u2261", "=")


def _rejections(text: str) -> None:
    for m in _WORD_RE.finditer(text):
        word = m.group(0).lower()
        if is_hedge(word) or (word == "t" and text[m.start() - 2:m.start()] == "n'"):
            raise Unreadable(f"a hedge, correction or quantity word ({m.group(0)!r})")
        if is_number_word(word):
            raise Unreadable(f"a value in words ({m.group(0)!r})")
    for m in _COMMAND_RE.finditer(text):
        if m.group(1) in _RELATION_COMMANDS:
            raise Unreadable(f"a relation or operator other than '=' ({m.group(0)!r})")
    for token in _INEXACT:
        if token in text:
            raise Unreadable(f"inexact or elided value ({token!r})")
    if "\\%" in text:
        raise Unreadable("percent")


def _drop_closing_prose(text: str) -> str:
    """``\\boxed{1/4}. I hope it is correct.``: a closing sentence with no number goes."""
    p = len(text)
    while p > 0 and (text[p - 1].isalpha() or text[p - 1] in " \t\n.,;:'\""):
        p -= 1
    i = text.find(".", max(p - 1, 0))
    while i >= 0:
        rest = text[i + 1:]
        stripped = rest.lstrip()
        if stripped != rest and stripped[:1].isupper():
            return text[:i]
        i = text.find(".", i + 1)
    return text


def _unbox(text: str) -> str:
    """The one ``\\boxed{...}`` (braces matched) is replaced by its content, set off by spaces;
    text around it stays and is read with it, unless it makes the box part of an expression."""
    start = text.find("\\boxed")
    if start < 0:
        return text
    if text.count("\\boxed") > 1:
        raise Unreadable("more than one box")
    if not text.startswith("\\boxed{", start):
        raise Unreadable("\\boxed without braces")
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
                prefix = _drop(text[:start])
                if prefix.strip() and "=" not in prefix and ":" not in prefix and _is_label(prefix):
                    prefix = " "   # "we get \\boxed{1/4}": words before a box state nothing
                return prefix + " " + text[begin:i] + " " + text[i + 1:]
        i += 1
    raise Unreadable("unbalanced \\boxed{...}")


def _drop(text: str) -> str:
    for token in _DROP:
        text = text.replace(token, " ")
    return text


def _strip_units(text: str, ctx: AnswerContext) -> str:
    """A unit the question names, right after a value: ``9/5 Ω``, ``9/5 ohms``."""
    for unit in ctx.units:
        low, out, i = text.lower(), [], 0
        if len(low) != len(text):
            return text
        while True:
            j = low.find(unit.lower(), i)
            if j < 0:
                out.append(text[i:])
                break
            end = j + len(unit)
            b = j - 1
            while b >= 0 and text[b] in " \t\n":
                b -= 1
            after_ok = end >= len(text) or not text[end].isalpha()
            if after_ok and b >= 0 and (text[b].isdigit() or text[b] == "}"):
                out.append(text[i:j] + " ")
            else:
                out.append(text[i:end])
            i = end
        text = "".join(out)
    return text


def _sentence_prefix(text: str, names: Sequence[str] = ()) -> str:
    """``The answer is 1/4``, ``P(H|E): 1/4``: words or a label before ``is`` / ``are`` /
    ``equals`` / ``:`` are dropped when they state no value; otherwise the text stays as it
    is (and is read whole, strictly)."""
    keys = {_name_key(nm) for nm in names}
    for _ in range(4):
        low = text.lower()
        cands = [(low.find(sep), sep) for sep in (" is ", " are ", " equals ", ":")]
        cands = [c for c in cands if c[0] >= 0]
        if not cands:
            return text
        pos, sep = min(cands)
        head = text[:pos]
        if "=" in head or not _is_label(head) or _name_key("".join(head.split())) in keys:
            return text
        text = text[pos + len(sep):].lstrip(" :")
    return text


def _prepare(text: object, ctx: AnswerContext, tuple_answer: bool, names: Sequence[str] = ()) -> str:
    if not isinstance(text, str):
        raise Unreadable(f"answer is {type(text).__name__}, not text")
    if len(text) > MAX_LENGTH:
        raise Unreadable(f"answer longer than {MAX_LENGTH} characters")
    text = _leading_bullet(text)
    text = _check_characters(text, ctx)
    text = _latex(text)
    _one_statement(text)
    if ctx.modulus is not None:
        text = _take_modulus(text, ctx)
    _rejections(text)
    text = _drop_closing_prose(text)
    text = _unbox(text)
    text = _drop(text)
    text = _strip_units(text, ctx)
    for ch in text:
        if ch in _ASCII_FORBIDDEN:
            raise Unreadable(f"{_ASCII_FORBIDDEN[ch]} ({ch!r})")
    if _SPLIT_NUMBER_RE.search(text):
        raise Unreadable("numbers separated only by spacing (mixed number, digit groups, two values)")
    text = _sentence_prefix(text.strip(), list(names) + [a for a, _ in ctx.aliases])
    if tuple_answer:
        text = text.replace(", and ", ", ").replace(" and ", ", ")
    text = _COMMAND_SPACE_RE.sub(r"\1{}", text)
    text = "".join(text.split())
    text = text.rstrip(".")
    if not text:
        raise Unreadable("empty answer")
    return text


# ---------------------------------------------------------------- labels

def _leading_bullet(text: str) -> str:
    """``- 32``, ``— 32``, ``• 32``: a bullet or dash set off by whitespace from the number is
    punctuation. Before anything but a digit it stays (``- \\boxed{3}`` is a sign outside a box)."""
    s = text.lstrip()
    if len(s) > 1 and s[0] in _BULLETS and s[1] in " \t\n" and s[1:].lstrip()[:1].isdigit():
        return s[1:]
    return text


class _SeveralStatements(Unreadable):
    """The text states a value on more than one line: each is read on its own (see
    :func:`parse_answer`). An ``Unreadable`` subclass, so a caller that does not handle it
    still rejects the text."""

    def __init__(self, statements: List[str]):
        super().__init__("two statements of a value on separate lines")
        self.statements = statements


def _one_statement(text: str) -> None:
    """Lines that each state a value, outside any bracket, are separate statements: the
    answer restated (``\\boxed{1/4}`` under ``1/4``), a correction, a second answer or a list
    item. They are read one by one (:class:`_SeveralStatements`). A line that starts with ``=``
    (or ``&=``) continues the chain of the line before it. The lines that state no value are
    checked for hedges here, since no statement's own reading sees them."""
    if "\n" not in text:
        return
    depth = 0
    line: List[str] = []
    statements: List[str] = []
    prose: List[str] = []
    for ch in text + "\n":
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "\n" and depth <= 0:
            piece = "".join(line).strip()
            line = []
            if not piece:
                continue
            if piece.lstrip("& ").startswith("=") and statements:
                statements[-1] += " " + piece
            elif any(c.isdigit() for c in piece) or has_numeric_character(piece) or any(
                    is_number_word(m.group(0).lower()) for m in _WORD_RE.finditer(piece)):
                statements.append(piece)
            else:
                prose.append(piece)
            continue
        line.append(ch)
    if len(statements) > 1:
        for piece in prose:
            _rejections(piece)
        raise _SeveralStatements(statements)


def _is_label(text: str) -> bool:
    """A name, never a value: letters, Greek and font commands, subscripts and indices
    attached to a name (``x3``, ``pi_2``, ``a(7)``, ``u[2][1]``, ``(M^2)[1][0]``,
    ``P(H|E)``); a digit standing on its own, ``=``, a decimal point or any other command
    makes it an expression or a second value."""
    if _LABEL_BANNED_WORDS.search(text):
        return False
    index_depth = 0      # inside an index group after a name: a(7), u[2][1]
    stack = []           # for each open bracket: is it an index group?
    prev = " "           # the last character that was not a digit or a space
    spaced = False       # a space since ``prev``: "x 5" is a name and a number, "x5" a name
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            j = i + 1
            while j < n and text[j].isalpha():
                j += 1
            if text[i + 1:j] not in _LABEL_COMMANDS:
                return False
            prev, i, spaced = "a", j, False
            continue
        if ch.isdigit():
            if index_depth == 0 and (spaced or not (prev.isalpha() or prev in "_^'")):
                return False
            i += 1
            continue
        if ch.isspace():
            spaced = True
            i += 1
            continue
        if ch in "([{":
            # a(7), u[2][1], and a LaTeX subscript group u_{2,1} are indices of a name
            is_index = (ch != "{" and (prev.isalnum() or prev in ")]}'")) or (ch == "{" and prev == "_")
            stack.append(is_index)
            index_depth += is_index
        elif ch in ")]}":
            if not stack:
                return False
            index_depth -= stack.pop()
        elif ch in "=." or ch in _ASCII_FORBIDDEN:
            return False
        elif ch in "+-*/" and index_depth == 0 and i + 1 < n and text[i + 1].isdigit():
            return False
        if ch == "{":
            prev = "_" if prev in "_^" else "("     # x_{3} is attached, \\frac{3} is not
        else:
            prev = ch
        spaced = False
        i += 1
    return not stack


# ---------------------------------------------------------------- numbers

def _strip_parens(text: str) -> str:
    """``((1/4))`` -> ``1/4``: outer bracket pairs that enclose everything (one scan)."""
    if len(text) < 2 or text[0] + text[-1] not in ("()", "[]", "{}"):
        return text
    match, stack = {}, []
    for i, ch in enumerate(text):
        if ch in "([{":
            stack.append(i)
        elif ch in ")]}":
            if not stack:
                break
            match[stack.pop()] = i
    left, right = 0, len(text) - 1
    while left < right and text[left] + text[right] in ("()", "[]", "{}") and match.get(left) == right:
        left, right = left + 1, right - 1
    return text[left:right + 1]


def _scalar(token: str) -> Scalar:
    token = _strip_parens(token)
    if _INT_RE.match(token):
        return int(token)
    if _DEC_RE.match(token):
        return _reduce(Fraction(token))
    m = _SLASH_RE.match(token)
    if m:
        sign, num, den = m.groups()
        return _ratio(sign, num, den)
    m = _FRAC_RE.match(token)
    if m:
        outer, inner, num, den = m.groups()
        if outer and inner:
            raise Unreadable("two signs")
        return _ratio(outer or inner, num, den)
    raise Unreadable(f"not an exact number: {token[:40]!r}")


def _ratio(sign: str, num: str, den: str) -> Scalar:
    num_v, den_v = Fraction(num), Fraction(den)
    if den_v == 0:
        raise Unreadable("zero denominator")
    value = num_v / den_v
    return _reduce(-value if sign == "-" else value)


def _reduce(x: Fraction) -> Scalar:
    return x.numerator if x.denominator == 1 else x


def _labelled_scalar(text: str) -> Scalar:
    """``P(H|E)=10/37`` -> 10/37. Each part before an ``=`` is a label (a name) or the same
    value (``x=20/74=10/37``); an expression or a different value there is unreadable."""
    *labels, last = text.split("=")
    if not last:
        raise Unreadable("nothing after '='")
    value = _scalar(last)
    for label in labels:
        if not label or _is_label(label):
            continue
        try:
            other = _scalar(label)
        except Unreadable:
            raise Unreadable("an expression before '='") from None
        if other != value:
            raise Unreadable("two different values")
    return value


def parse_scalar(text: str, ctx: AnswerContext = NO_CONTEXT) -> Scalar:
    """One exact number, possibly labelled, boxed, in LaTeX or as a terminating decimal."""
    return _labelled_scalar(_prepare(text, ctx, tuple_answer=False))


# ---------------------------------------------------------------- tuples

def _split_top(text: str, sep: str = ",") -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
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


def _strip_transpose(text: str) -> str:
    for mark in _TRANSPOSE:
        if text.endswith(mark) and text[:-len(mark)][-1:] in (")", "]"):
            return text[:-len(mark)]
    return text


def parse_tuple(text: str, names: Sequence[str], ctx: AnswerContext = NO_CONTEXT) -> Tuple[Scalar, ...]:
    """A tuple of ``len(names)`` exact numbers: positional, or all named (any order)."""
    cleaned = _prepare(text, ctx, tuple_answer=True, names=names)
    n = len(names)
    wanted: Dict[str, int] = {_name_key(nm): i for i, nm in enumerate(names)}
    for alias, name in ctx.aliases:
        if _name_key(name) in wanted:
            wanted.setdefault(_name_key(alias), wanted[_name_key(name)])
    parts: Optional[list] = None
    # "(q0, q1, q2) = (10, 1, 1)", "v = (10, 1, 1)", "(1, 2, 3)^T": a bracketed tuple after the
    # last '='. Each part before it is a tuple of the component names (pairing the values by
    # name, any order), a label (a name), or the same tuple of numbers.
    segments = [_strip_transpose(s) for s in _split_top(cleaned, "=")]
    tail = segments[-1]
    values = _split_top(_strip_parens(tail), ",;")
    bracketed = _strip_parens(tail) != tail
    if len(segments) > 1 and bracketed and len(values) == n and n > 1:
        for head in segments[:-1]:
            heads = _split_top(_strip_parens(head), ",;")
            keys = [_name_key(h) for h in heads]
            if len(heads) == n and all(k in wanted for k in keys):
                if len({wanted[k] for k in keys}) != n:
                    raise Unreadable("the label tuple does not name each component once")
                if parts is not None:
                    raise Unreadable("two label tuples")
                parts = [f"{h}={v}" for h, v in zip(heads, values)]
            elif any(k in wanted for k in keys) and len(heads) > 1:
                raise Unreadable("the label tuple does not name each component once")
            elif _is_label(head) and (len(heads) == 1 or not any(k in wanted for k in keys)):
                continue
            else:
                try:
                    numbers = tuple(_scalar(h) for h in heads)
                except Unreadable:
                    raise Unreadable("an expression before '='") from None
                if len(numbers) != n or numbers != tuple(_scalar(v) for v in values):
                    raise Unreadable("two different tuples")
        if parts is None:
            cleaned = tail
    elif len(segments) == 1:
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


def parse_answer(text: str, answer_type: str, names: Sequence[str] = (),
                 ctx: AnswerContext = NO_CONTEXT) -> Value:
    """Read ``text`` as a value of ``answer_type``; raise :class:`Unreadable` if it is not one.
    A text that states a value on several lines is one answer when every line reads, on its
    own, as the same value (an answer and its restatement); otherwise it is unreadable."""
    try:
        return _parse_one(text, answer_type, names, ctx)
    except _SeveralStatements as several:
        values = []
        for statement in several.statements:
            try:
                values.append(_parse_one(statement, answer_type, names, ctx))
            except Unreadable as err:
                raise Unreadable(f"a later statement is not the same value ({err})") from None
        if any(v != values[0] for v in values[1:]):
            raise Unreadable("two different values on separate lines") from None
        return values[0]


def _parse_one(text: str, answer_type: str, names: Sequence[str], ctx: AnswerContext) -> Value:
    if answer_type == "tuple":
        return parse_tuple(text, names, ctx)
    value = parse_scalar(text, ctx)
    if answer_type == "cell" and value not in (0, 1):
        raise Unreadable("a cell is 0 or 1")
    return value
