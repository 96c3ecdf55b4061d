"""Each family's notation as data: which quantity (slot) a responder line holds, and which
quantities a free-form request names.

The deterministic ``rules`` responder offers a private line L exactly when
``mentioned_slots(family, request) == {line_slot(family, L)}``: the request must name the
line's quantity and no other quantity of the family (a second quantity, a fact the solver
already has, or the target all make it decline). ``eval/RESPONDER.md`` lists every family's
slot ids and accepted aliases.

How a request is read (every step is total: no input raises):

1. *Normalise* (:func:`normalise`): Unicode subscripts/superscripts become ``_k``/``^k``
   (``μ₄`` -> ``mu_4``, ``M²`` -> ``M^2``), NFKC, Greek letters become their names
   (``λ μ ρ σ π``), dashes/arrows/relations become ASCII (``−`` ``→`` ``≥``), LaTeX
   commands lose their backslash (``\\mu_{4}`` -> ``mu_4``, ``\\neg`` -> ``¬``,
   ``\\mid`` -> ``|``) and braces and ``$`` are dropped.
2. *Scan* with the family's grammar: an ordered list of rules (regex, slot template), all
   compiled into one alternation. The text is scanned left to right (no match starts inside
   a word); at each position the first rule that matches wins and its span is consumed, so
   a longer phrase
   (``P(H|E)``, ``probability of H given E``) hides the shorter one inside it (``P(H``,
   ``H``). Matching ignores case except where the notation is case-sensitive (phase
   retrieval's ``X_k`` vs ``x_k``, geometry's points ``P``/``Q``, the moment sum ``D``).
3. *Build*: a rule's template is filled with the integers its groups captured (digits,
   ``one``..``ten``, ordinals ``first``..``tenth``); a callable builds slots that need
   arithmetic (sorting ``rho(2,1)`` -> ``rho(1,2)``, a path's edges -> its path sum, a
   moment expression's coefficients). A rule may also consume a span and name nothing.

Single letters (``c``, ``t``, ``x``, ``Q``) are matched only as whole tokens; a
coefficient may precede them (``3c``) but no letter or apostrophe (``can't`` names no
``t``). The article ``a`` counts as the variable ``a`` (linear_system_separator) only
when punctuation, ``=``, ``and``, ``or``, ``is`` or the end follows it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple, Union

__all__ = ["line_slot", "mentioned_slots", "normalise", "families", "UNPARSED", "META"]

SlotSpec = Union[None, str, Tuple[str, ...], Callable[[List[int], str], object]]
"""A rule's slots: None (consume, name nothing), a template or tuple of templates filled by
``str.format(*ints)``, or a callable ``(ints, span) -> str | tuple | None``."""

UNPARSED = "unparsed: "
"""Prefix of the id :func:`line_slot` gives a line whose label names no single quantity; no
request ever mentions such an id, so the rules responder never offers that line."""


# ---------------------------------------------------------------- normalisation

_SUB = str.maketrans("₀₁₂₃₄₅₆₇₈₉₊₋", "0123456789+-")
_SUP = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
_SUB_RUN = re.compile(r"[₀-₉₊₋]+")
_SUP_RUN = re.compile(r"[⁰-⁹¹²³⁺⁻]+")
_SYMBOLS = str.maketrans({
    "λ": "lambda", "Λ": "lambda", "μ": "mu", "ρ": "rho", "σ": "sigma", "π": "pi",
    "−": "-", "–": "-", "—": "-", "‐": "-", "‑": "-",
    "→": "->", "⟶": "->", "⇒": "->", "↦": "->", "≥": ">=", "⩾": ">=", "≤": "<=", "⩽": "<=",
    "∣": "|", "’": "'", "‘": "'", "“": '"', "”": '"', "⋅": "·", "∙": "·", "×": "*",
})
_LATEX = (
    (re.compile(r"\\(?:left|right|[bB]igg?[lr]?)(?![A-Za-z])"), ""),
    (re.compile(r"\\(?:mid|vert)(?![A-Za-z])"), "|"),
    (re.compile(r"\\(?:neg|lnot)(?![A-Za-z])"), "¬"),
    (re.compile(r"\\(?:to|rightarrow|longrightarrow|mapsto)(?![A-Za-z])"), "->"),
    (re.compile(r"\\(?:geq?|geqslant)(?![A-Za-z])"), ">="),
    (re.compile(r"\\(?:leq?|leqslant)(?![A-Za-z])"), "<="),
    (re.compile(r"\\(?:cdot|times)(?![A-Za-z])"), "·"),
    (re.compile(r"\\equiv(?![A-Za-z])"), "≡"),
    (re.compile(r"\\[pb]?mod(?![A-Za-z])"), " mod "),
    (re.compile(r"\\(?:text|mathrm|mathit|mathbf|operatorname|mathsf|rm)(?![A-Za-z])"), ""),
    (re.compile(r"\\([A-Za-z]+)"), r"\1"),
    (re.compile(r"\\."), " "),
)


def normalise(text: str) -> str:
    """The request as the grammars read it (see the module docstring, step 1)."""
    if not text.isascii():
        text = _SUB_RUN.sub(lambda m: "_" + m.group(0).translate(_SUB), text)
        text = _SUP_RUN.sub(lambda m: "^" + m.group(0).translate(_SUP), text)
        text = unicodedata.normalize("NFKC", text).translate(_SYMBOLS)
    if "\\" in text:
        for pattern, repl in _LATEX:
            text = pattern.sub(repl, text)
    if "{" in text or "}" in text or "$" in text:
        text = text.replace("{", "").replace("}", "").replace("$", "")
    return text


# ---------------------------------------------------------------- shared pattern pieces

_WORD_INTS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten".split())}
_ORDINALS = {w: i for i, w in enumerate(
    "zeroth first second third fourth fifth sixth seventh eighth ninth tenth".split())}
_ORDINALS.update({"1st": 1, "2nd": 2, "3rd": 3, **{f"{i}th": i for i in range(4, 11)}})

NB = r"(?<![A-Za-z0-9_'])"          # not glued to a preceding word or number
NBL = r"(?<![A-Za-z_'])"            # not glued to a preceding word ("3c" is fine, "can't" is not)
NA = r"(?![A-Za-z0-9_])"            # not followed by a word character
NUM = r"(\d+|(?:zero|one|two|three|four|five|six|seven|eight|nine|ten)\b)"
ORD = r"(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|1st|2nd|3rd|(?:[4-9]|10)th)\b"
LABEL_NO = r"\s*(?:#|no\.?|number)?\s*\(?" + NUM + r"\)?"
# one index: [1]  (1)  _1  1
IDX = r"(?:\s*\[\s*(\d+)\s*\]|\s*\(\s*(\d+)\s*\)|\s*_\s*(\d+)|(\d+))(?!\d)"
# two indices: [1][0]  [1,0]  (1,0)  _1,0 (from _{1,0})  _10  10
PAIR = (r"(?:\s*\[\s*(\d+)\s*\]\s*\[\s*(\d+)\s*\]|\s*[\[(]\s*(\d+)\s*[,;]\s*(\d+)\s*[\])]"
        r"|\s*_\s*(\d+)\s*,\s*(\d+)|_?(\d)(\d))(?!\d)")
BARE_PAIR = r"(?:[\[(]\s*(\d+)\s*,\s*(\d+)\s*[\])]|\[\s*(\d+)\s*\]\s*\[\s*(\d+)\s*\])"
ROW_COL = r"\brow\s*(\d+)\s*(?:,|and)?\s*(?:in\s+)?(?:the\s+)?col(?:umn)?\.?\s*(\d+)"
COL_ROW = r"\bcol(?:umn)?\.?\s*(\d+)\s*(?:,|and)?\s*(?:in\s+)?(?:the\s+)?row\s*(\d+)"


def letter(name: str, case: bool = False) -> str:
    """A one-letter (or short) name as a whole token; ``case``: match its case exactly."""
    core = f"(?-i:{name})" if case else name
    return NBL + core + NA


def to_int(token: str) -> int:
    low = token.lower()
    if low in _WORD_INTS:
        return _WORD_INTS[low]
    if low in _ORDINALS:
        return _ORDINALS[low]
    return int(token)


def labelled(words: str, template: str, last: Optional[int] = None,
             body: str = "") -> List[Tuple[str, SlotSpec]]:
    """Rules for numbered items named by a word: ``line 2``, ``line #2``, ``line two``,
    ``second line``, ``lines 1 and 2`` (both), and ``last line`` when ``last`` is given.
    ``body``: an optional pattern for the item's quoted text after its label, consumed with
    it (``congruence 3: x ≡ ? (mod ?)`` names congruence 3, not also ``x``)."""
    rules: List[Tuple[str, SlotSpec]] = [
        (rf"\b(?:{words})s\s*{NUM}\s*(?:,|and|&|or)\s*(?:{words})?\s*{NUM}",
         (template, template.replace("{0}", "{1}"))),
        (rf"\b(?:{words}){LABEL_NO}" + (f"(?:{body})?" if body else ""), template),
        (rf"\b{ORD}\s+(?:{words})\b", template),
    ]
    if last is not None:
        rules.append((rf"\b(?:last|final)\s+(?:{words})\b", template.format(last)))
    return rules


def matrix(name: str, template: str, bare_pair: bool = True) -> List[Tuple[str, SlotSpec]]:
    """Rules for the entries of a matrix called ``name``: ``M[1][0]``, ``M[1,0]``,
    ``M(1,0)``, ``M_{1,0}``, ``M_10``, ``M10``, ``entry (1,0) (of M)``, ``row 1, column 0``,
    and (``bare_pair``: the family's only matrix) ``(1,0)``."""
    of = rf"(?:\s+(?:of|in)\s+(?:the\s+)?(?:matrix\s+)?{name}\b)?"
    rules: List[Tuple[str, SlotSpec]] = [
        (NB + name + PAIR, template),
        (rf"\b(?:entry|element|coefficient|value)\s+(?:of\s+{name}\s+)?(?:at\s+)?{BARE_PAIR}{of}", template),
        (rf"{BARE_PAIR}[\s-]*(?:entry|element|coefficient){of}", template),
        (ROW_COL + of, template),
        (COL_ROW + of, template.replace("{0}", "{x}").replace("{1}", "{0}").replace("{x}", "{1}")),
    ]
    if bare_pair:
        rules.append((BARE_PAIR, template))
    return rules


# ---------------------------------------------------------------- the grammar object

@dataclass(frozen=True)
class _Compiled:
    spec: SlotSpec
    first: int   # index of the rule's first inner group in the combined regex
    count: int   # number of inner groups


class Grammar:
    """One family's notation: ordered ``(pattern, slots)`` rules compiled into a single
    alternation; at each position the first matching rule wins and consumes its span."""

    def __init__(self, rules: Sequence[Tuple[str, SlotSpec]]):
        parts, self._rules = [], {}
        group = 1
        for pattern, spec in rules:
            inner = re.compile(pattern, re.IGNORECASE).groups   # also validates the pattern
            parts.append(f"({pattern})")
            self._rules[group] = _Compiled(spec, group + 1, inner)
            group += 1 + inner
        # No match starts inside a word: one look-behind per position, not one per rule.
        self._regex = re.compile("(?<![A-Za-z])(?:" + "|".join(parts) + ")", re.IGNORECASE)

    def scan(self, text: str) -> List[Tuple[int, int, Tuple[str, ...]]]:
        """``(start, end, slots)`` for every consumed span of normalised ``text``."""
        found = []
        for m in self._regex.finditer(text):
            rule = self._rules.get(m.lastindex or 0)
            if rule is None:
                continue
            groups = m.groups()[rule.first - 1: rule.first - 1 + rule.count]
            try:
                ints = [to_int(g) for g in groups if g is not None]
                found.append((m.start(), m.end(), _build(rule.spec, ints, m.group(0))))
            except (ValueError, IndexError, KeyError, TypeError):
                continue   # a capture that is not a usable number names nothing
        return found

    def mentions(self, text: str) -> FrozenSet[str]:
        return frozenset(s for _, _, slots in self.scan(text) for s in slots)


def _build(spec: SlotSpec, ints: List[int], span: str) -> Tuple[str, ...]:
    if spec is None:
        return ()
    if callable(spec):
        spec = spec(ints, span)
        if spec is None:
            return ()
        return (spec,) if isinstance(spec, str) else tuple(spec)
    if isinstance(spec, str):
        return (spec.format(*ints),)
    return tuple(t.format(*ints) for t in spec)


# ---------------------------------------------------------------- families, Type A

# Each family's notation table registers itself under the family's name; a test checks that
# every family of the registry has one.
_GRAMMAR_RULES: Dict[str, Callable[[], List[Tuple[str, SlotSpec]]]] = {}


def _grammar(family: str) -> Callable:
    def register(rules: Callable[[], List[Tuple[str, SlotSpec]]]) -> Callable[[], List[Tuple[str, SlotSpec]]]:
        _GRAMMAR_RULES[family] = rules
        return rules
    return register


@_grammar("bayes_missing_prior")
def _bayes() -> List[Tuple[str, SlotSpec]]:
    events = (   # canonical event, pattern; complements first so "not H" is not read as "H"
        ("¬H", r"(?:¬|~|!|not\s*|neg\s*)\s*H|H\s*(?:\^\s*c|c|')"),
        ("¬E", r"(?:¬|~|!|not\s*|neg\s*)\s*E|E\s*(?:\^\s*c|c|')"),
        ("H", r"H"),
        ("E", r"E"),
    )
    prob = NB + r"(?:P|Pr|Prob)\s*[(\[]\s*"
    given = r"\s*(?:\||given)\s*"
    rules: List[Tuple[str, SlotSpec]] = [
        (prob + f"(?:{pa}){given}(?:{pb})" + r"\s*[)\]]", f"P({a}|{b})")
        for a, pa in events for b, pb in events if a[-1] != b[-1]
    ] + [(prob + f"(?:{pa})" + r"\s*[)\]]", f"P({a})") for a, pa in events]
    hyp, evid = r"(?:the\s+hypothesis|H)", r"(?:the\s+evidence|E)"
    chance = r"(?:probability|chance|likelihood|odds)"
    not_h = r"(?:not\s+H|¬\s*H|the\s+complement(?:\s+of\s+H)?|H\s+is\s+(?:false|not\s+true))"
    rules += [
        (r"\bposterior(?:\s+probability)?(?:\s+of\s+H)?\b", "P(H|E)"),
        (rf"\b{chance}\s+(?:of\s+|that\s+){hyp}(?:\s+is\s+true|\s+holds)?\s+"
         rf"(?:given|after\s+observing|conditional\s+on)\s+{evid}\b", "P(H|E)"),
        (rf"\b{chance}\s+(?:of\s+|that\s+){evid}(?:\s+is\s+observed|\s+occurs)?\s+"
         rf"(?:given|under|if|when)\s+{not_h}", "P(E|¬H)"),
        (rf"\b{chance}\s+(?:of\s+|that\s+){evid}(?:\s+is\s+observed|\s+occurs)?\s+"
         rf"(?:given|under|if|when)\s+{hyp}(?:\s+is\s+true|\s+holds)?\b", "P(E|H)"),
        (rf"\b{chance}\s+(?:of\s+|that\s+){not_h}", "P(¬H)"),
        (rf"\b{chance}\s+(?:of\s+|that\s+){hyp}(?:\s+is\s+true|\s+holds)?\b", "P(H)"),
        (r"\bfalse[\s-]+(?:positive|alarm)(?:\s+(?:rate|probability))?\b", "P(E|¬H)"),
        (r"\blikelihood\s+ratio\b", "likelihood ratio"),
        (r"\b(?:likelihood|sensitivity|true[\s-]+positive(?:\s+rate)?|hit\s+rate|detection\s+rate)\b",
         "P(E|H)"),
        (r"\bspecificity\b", "P(¬E|¬H)"),
        (rf"\b(?:prior|a\s+priori|base[\s-]+rate|prevalence)(?:\s+probability)?"
         rf"(?:\s+(?:of|for)\s+{hyp}\b)?", "P(H)"),
        (rf"\b(?:marginal\s+)?probability\s+of\s+{evid}\b|\bmarginal\s+(?:probability|likelihood)\b",
         "P(E)"),
    ]
    return rules


@_grammar("crt_reconstruction")
def _crt() -> List[Tuple[str, SlotSpec]]:
    cong = "congruence {0}"
    mod_m = r"(?:mod(?:ulo|ulus)?|%|when\s+(?:x\s+is\s+)?divided\s+by)\s*m(?:\s*_\s*)?(\d)(?!\d)"
    product = r"\bm\s*_?\s*1\s*[·*]?\s*m\s*_?\s*2\s*[·*]?\s*m\s*_?\s*3(?!\d)"
    return [
        (product + r"|\bproduct\s+of\s+(?:the\s+|all\s+)?moduli\b", "M"),
    ] + labelled("congruence|condition", cong, last=3,
                 body=r"\s*:?\s*x\s*(?:≡|==?)\s*[^()\n]{0,20}?\(\s*mod[^()\n]{0,20}\)") + [
        (rf"\b{ORD}\s+(?:modulus|residue|remainder)\b", cong),
        # x ≡ r_3 (mod m_3), x = ? (mod 17)
        (r"\bx\s*(?:≡|==?|is\s+congruent\s+to)\s*[^()\n]{0,20}?\(\s*" + mod_m + r"\s*\)", cong),
        (r"\bx\s*(?:≡|==?|is\s+congruent\s+to)\s*[^()\n]{0,20}?\(\s*mod(?:ulo)?\s*(\d+)\s*\)",
         "x mod {0}"),
        (r"\b(?:x\s*|(?:residue|remainder)s?\s+(?:of\s+x\s+)?)" + mod_m, cong),
        (r"\b(?:x\s*(?:mod(?:ulo)?|%)|(?:residue|remainder)s?\s+(?:of\s+x\s+)?"
         r"(?:mod(?:ulo)?|when\s+(?:x\s+is\s+)?divided\s+by))\s*(\d+)", "x mod {0}"),
        (r"\(?\s*\b" + mod_m + r"\s*\)?", cong),
        (NB + r"[rm](?:\s*_\s*)?(\d)(?!\d)", cong),                # r_3 (residue), m_3 (modulus)
        (letter("x"), "x"),
    ]


@_grammar("geometry_coordinates")
def _geometry() -> List[Tuple[str, SlotSpec]]:
    point = r"(?:the\s+)?(?:point\s+)?"
    return labelled("line", "line {0}", last=2) + [
        (r"\b(?:other|remaining)\s+line\b", "line 2"),
        (r"\|\s*(?-i:PQ|QP)\s*\||\b(?-i:PQ|QP)\b", "|PQ|"),
        (rf"\b(?:distance|length)\b(?:\s+(?:between|from)\s+{point}(?-i:P)\s+(?:and|to)\s+{point}(?-i:Q)\b"
         rf"|\s+(?:between|from)\s+{point}(?-i:Q)\s+(?:and|to)\s+{point}(?-i:P)\b)?", "|PQ|"),
        (r"\b(?:intersection(?:\s+point)?|point\s+of\s+intersection)(?:\s+(?-i:P)\b)?", "P"),
        (r"(?<![A-Za-z0-9_'|])(?-i:P)(?![A-Za-z0-9_(|])", "P"),
        (r"(?<![A-Za-z0-9_'|])(?-i:Q)(?![A-Za-z0-9_(|])", "Q"),
    ]


_EDGE_NAMES = {frozenset((0, 1)): "e01", frozenset((1, 2)): "e12", frozenset((0, 2)): "e20"}
_PATH_SUMS = {frozenset(("e01", "e12")): "s1", frozenset(("e12", "e20")): "s2",
              frozenset(("e20", "e01")): "s3"}


def _edges(ints: List[int]) -> List[Optional[str]]:
    return [_EDGE_NAMES.get(frozenset(ints[i:i + 2])) for i in range(0, len(ints) - 1, 2)]


def _edge(ints: List[int], span: str) -> Optional[str]:
    return _edges(ints)[0]


def _edge_sum(ints: List[int], span: str) -> object:
    names = _edges(ints)
    if None in names:
        return None
    return _PATH_SUMS.get(frozenset(names), tuple(names))   # e01 + e01 names e01 only


def _path(ints: List[int], span: str) -> object:
    a, b, c = ints
    return _edge_sum([a, b, b, c], span)


@_grammar("graph_path_sums")
def _graph() -> List[Tuple[str, SlotSpec]]:
    edge = r"(?:e|w)(?:\s*_\s*)?\(?\s*([012])\s*,?\s*([012])\s*\)?(?!\d)"
    and_edge = r"\s*(?:\+|plus)\s*"
    sep = r"\s*(?:-|->|,|–)\s*"
    return [
        (NB + r"s(?:\s*_\s*)?(\d)(?!\d)(?:\s*=\s*" + NB + edge + and_edge + NB + edge + ")?", "s{0}"),
        (r"\bsum\s+of\s+(?:the\s+)?(?:weights\s+)?(?:of\s+)?" + NB + edge + r"\s*(?:,|and|\+|plus)\s*"
         + NB + edge, _edge_sum),
        (NB + edge + and_edge + NB + edge, _edge_sum),
        (r"\bpath\s*(?:sum\s*)?(?:of\s+|through\s+|along\s+)?\(?([012])" + sep + r"([012])" + sep
         + r"([012])\)?", _path),
        (rf"\b{ORD}\s+(?:two[\s-]edge\s+)?path(?:\s+sum)?\b", "s{0}"),
        (r"\b(?:last|final)\s+(?:two[\s-]edge\s+)?path(?:\s+sum)?\b", "s3"),
        (r"\bpath\s+sum\s*(?:#|no\.?|number)?\s*" + NUM, "s{0}"),
        (r"\bedge\s+weights\b", ("e01", "e12", "e20")),
        (r"\bedge\s*(?:between\s+)?(?:vertices\s+)?\(?([012])\s*(?:-|–|and|to|,)?\s*([012])\)?(?!\d)",
         _edge),
        (NB + edge, _edge),
    ]


@_grammar("linear_system_separator")
def _separator() -> List[Tuple[str, SlotSpec]]:
    after_a = r"(?=\s*(?:$|[?.,;:!)=+*/<>\]-]|'s\b|(?:and|or|is|equals?)\b))"
    return labelled("equation", "equation {0}", last=2) + [
        (NB + r"eq\.?\s*_?\s*(\d)(?!\d)", "equation {0}"),
        (r"\bseparat(?:or|ing)(?:\s+variable)?(?:\s+(?-i:c)\b)?", "c"),
        (NBL + "a" + NA + after_a, "a"),
        (letter("b"), "b"),
        (letter("c"), "c"),
    ]


@_grammar("matrix_completion")
def _matrix_completion() -> List[Tuple[str, SlotSpec]]:
    return matrix("m", "m{0}{1}") + [
        (r"\b(?:top|upper)[\s-]+left\b", "m00"),
        (r"\b(?:top|upper)[\s-]+right\b", "m01"),
        (r"\b(?:bottom|lower)[\s-]+left\b", "m10"),
        (r"\b(?:bottom|lower)[\s-]+right\b", "m11"),
        (NB + "u" + IDX, "u{0}"),
        (NB + "v" + IDX, "v{0}"),
    ]


_MOMENT_TERM = re.compile(r"(\d*)\s*[*·]?\s*q(?:\s*_\s*)?(\d)", re.IGNORECASE)
_MOMENTS = {(1, 1, 1): "sum", (0, 1, 2): "q1 + 2q2", (0, 1, 4): "q1 + 4q2"}   # by coefficients
_MOMENT_ORDER = "q1 + 2q2", "q1 + 4q2"   # moment 1, moment 2


def _moment_expr(ints: List[int], span: str) -> object:
    coef = [0, 0, 0]
    for c, i in _MOMENT_TERM.findall(span):
        if int(i) > 2:
            return None
        coef[int(i)] += int(c) if c else 1
    name = _MOMENTS.get(tuple(coef))
    return name if name else tuple(f"q{i}" for i in range(3) if coef[i])


@_grammar("moment_problem")
def _moment() -> List[Tuple[str, SlotSpec]]:
    term = r"(?:\d+\s*[*·]?\s*)?q(?:\s*_\s*)?\d(?!\d)"
    times_d = r"(?:(?-i:D)\s*(?:times|·|\*)\s*(?:the\s+)?)?"
    x_sq = r"X\s*(?:\^\s*2|\*\*\s*2|2)"
    return [
        (NB + term + r"(?:\s*\+\s*" + term + r")+", _moment_expr),
        (rf"\b{times_d}(?:second|2nd)(?:\s+raw)?\s+moment\b", "q1 + 4q2"),
        (rf"\b{times_d}(?:first|1st)(?:\s+raw)?\s+moment\b", "q1 + 2q2"),
        (r"\bmoment\s*(?:#|no\.?|number)?\s*([12])\b", lambda n, s: _MOMENT_ORDER[n[0] - 1]),
        (rf"\bE\s*[\[(]\s*{x_sq}\s*[\])]|\b(?:expected\s+value|expectation|mean)\s+of\s+{x_sq}",
         "q1 + 4q2"),
        (r"\bE\s*[\[(]\s*X\s*[\])]|\bexpected\s+value\b|\bexpectation\b", "q1 + 2q2"),
        (NB + r"m(?:\s*_\s*)?([12])(?!\d)", lambda n, s: _MOMENT_ORDER[n[0] - 1]),
        (r"\b(?:sum|total)\s+(?:of\s+(?:the\s+|all\s+)?)?weights?\b|\btotal\s+weight\b|\bsum\s+equation\b"
         r"|\bnormali[sz](?:ing|ation)\s+constant\b", "sum"),
        (letter("D", case=True), "sum"),
        (r"\bsum\b(?!\s+(?:of\s+)?(?:the\s+)?(?:\d+\s*[*·]?\s*)?q)", "sum"),   # not "the sum q1 + 4q2"
        (NB + r"q(?:\s*_\s*)?(\d)(?!\d)", "q{0}"),
    ]


@_grammar("phase_retrieval")
def _phase() -> List[Tuple[str, SlotSpec]]:
    xs = r"(?-i:x)\s*(?:_\s*(\d)|\[\s*(\d)\s*\]|\(\s*(\d)\s*\)|(\d))(?!\d)"
    sign = "sign(x{0})"
    return [
        (r"\b(?:sign|sgn|signum)\b\s*(?:of\s+)?(?:the\s+)?(?:[a-z]+\s+){0,2}?\(?\s*" + xs + r"\s*\)?", sign),
        (NB + xs + r"\s*'s\s+sign\b", sign),
        (r"(?:\b(?:whether|is)\s+)?" + NB + xs + r"\s+(?:is\s+)?(?:positive|negative)"
         r"(?:\s+or\s+(?:positive|negative))?", sign),
        (NB + xs + r"\s*[<>]=?\s*0(?!\d)", sign),
        (r"\|\s*(?-i:X)(?:\s*_\s*)?(\d)\s*\|\s*(?:\^\s*2)?"
         r"|\b(?:squared\s+)?magnitude\s+of\s+(?-i:X)(?:\s*_\s*)?(\d)",
         "|X_{0}|^2"),
        (NB + r"(?-i:X)(?:\s*_\s*)?(\d)(?!\d)", "X_{0}"),
        (NB + xs, "x{0}"),
        (letter("x", case=True), "x"),
    ]


@_grammar("piecewise_missing_threshold")
def _piecewise() -> List[Tuple[str, SlotSpec]]:
    left, right = "f(x) for x < t", "f(x) for x ≥ t"
    piece = r"\b(?:formula|branch|piece|expression|rule|definition|slope|intercept|line)\s+" \
            r"(?:that\s+applies\s+|used\s+|of\s+f\s+)?(?:for|when|if|on)\s+x\s*"
    quoted = r"\bf\s*\(\s*x\s*\)\s*(?:=\s*[^?\n]{0,40}?)?\b(?:for|when|if)\s+x\s*"
    return [
        (quoted + r"<(?!=)\s*t\b", left), (quoted + r">=\s*t\b", right),
        (piece + r"<(?!=)\s*t\b", left), (piece + r"(?:>=|>)\s*t\b", right),
        (r"\b(?:left|lower|first)\s+(?:branch|piece|formula)\b", left),
        (r"\b(?:right|upper|second)\s+(?:branch|piece|formula)\b", right),
        (r"\bquery(?:\s+(?:point|x|value))?(?:\s*:?\s*x\s*=\s*-?\d+)?", "query point"),
        (r"\bf\s*\(\s*(-?\d+)\s*\)", "f({0})"),
        (r"\bf\s*\(\s*t\s*\)", "f(t)"),
        (r"\bthreshold(?:\s+value)?(?:\s+(?-i:t)\b)?|\bbreak[\s-]?point\b|\bswitch(?:ing)?[\s-]?point\b"
         r"|\bcut[\s-]?off\b|\bchange[\s-]?(?:over\s+)?point\b"
         r"|\bboundary\s+between\s+the\s+(?:two\s+)?(?:branches|pieces|formulas)\b", "t"),
        (letter("t"), "t"),
    ]


@_grammar("rankdef_linear_shared")
def _rankdef() -> List[Tuple[str, SlotSpec]]:
    body = r"(?:\s*:\s*[-+\dxyz\s·*]*=\s*(?:-?\d+|\?)?)?"       # "eq3: x + 2y - 2z = 13" quoted
    return [
        (r"\beq(?:uation)?s\s*" + NUM + r"\s*(?:,|and|&|or)\s*(?:eq(?:uation)?\s*)?" + NUM,
         ("eq{0}", "eq{1}")),
        (r"\beq(?:uation)?\.?\s*(?:#|no\.?|number)?\s*_?\s*\(?" + NUM + r"\)?" + body, "eq{0}"),
        (rf"\b{ORD}\s+equation\b", "eq{0}"),
        (r"\b(?:last|final)\s+equation\b", "eq4"),
        (letter("x"), "x"), (letter("y"), "y"), (letter("z"), "z"),
    ]


@_grammar("recurrence_missing_init")
def _recurrence() -> List[Tuple[str, SlotSpec]]:
    init = r"(?:initial\s+(?:value|condition)|starting\s+value|term)"
    return [
        (r"\ba\s*\(\s*n\s*\)(?:\s*=\s*[^?\n]{0,60}?\bn\s*>=?\s*\d+)?", "rule"),
        (r"\ba\s*\(\s*n\s*[-+]\s*\d+\s*\)", "rule"),
        (r"\b(?:recurrence|recursion|recursive)\s+(?:rule|relation|formula|equation)\b", "rule"),
        (r"\b(?:recurrence\s+)?coefficients\b", ("r1", "r2")),
        (NB + r"r(?:\s*_\s*)?([12])(?!\d)", "r{0}"),
        (r"\ba(?:\s*\(\s*(-?\d+)\s*\)|\s*\[\s*(-?\d+)\s*\]|\s*_\s*\(?\s*(-?\d+)\s*\)?"
         r"|(\d+)|\s+sub\s+(\d+))(?!\d)",
         "a({0})"),
        (r"\b(?:both\s+|two\s+)?initial\s+(?:values|conditions|terms)\b", ("a(0)", "a(1)")),
        (rf"\b(?:first|1st|zeroth)\s+{init}\b", "a(0)"),
        (rf"\b(?:second|2nd)\s+{init}\b|\b(?:other|remaining)\s+initial\s+(?:value|condition)\b", "a(1)"),
        (r"\bterm\s+(\d+)\b", "a({0})"),
        (r"\brule\b", "rule"),
    ]


# ---------------------------------------------------------------- families, Type B

def _rate(ints: List[int], span: str) -> str:
    i, j = ints[0], ints[1]
    if j == i + 1:
        return f"lambda_{i}"
    if j == i - 1:
        return f"mu_{i}"
    return f"rate {i}->{j}"


def _one_index(name: str) -> str:
    return (r"(?<![A-Za-z])" + name + r"\s*_?\s*(?:\(\s*(\d+)\s*\)|\[\s*(\d+)\s*\]|(\d+))(?!\d)")


@_grammar("birth_death_missing_rate")
def _birth_death() -> List[Tuple[str, SlotSpec]]:
    state = r"(?:state\s+)?"
    to_state = rf"(?:\s+(?:to|into)\s+{state}\d+)?"
    return [
        (_one_index("lambda"), "lambda_{0}"),
        (_one_index("mu"), "mu_{0}"),
        (_one_index("pi"), "pi_{0}"),
        (rf"\b(?:(?:birth|death)\s+)?(?:transition\s+)?rate\s+(?:of\s+(?:the\s+)?transition\s+)?"
         rf"from\s+{state}(\d+)\s+(?:to|into)\s+{state}(\d+)", _rate),
        (rf"\bbirth\s+rate\s+(?:of|from|at|in|for|out\s+of)\s+{state}(\d+){to_state}", "lambda_{0}"),
        (rf"\bdeath\s+rate\s+(?:of|from|at|in|for|out\s+of)\s+{state}(\d+){to_state}", "mu_{0}"),
        (rf"\b(?:transition\s+)?(?:from\s+)?{state}(\d+)\s*->\s*{state}(\d+)", _rate),
        (rf"\bstationary\s+probability\s+(?:of\s+)?{state}(\d+)", "pi_{0}"),
        (r"\bstationary\s+distribution\b|(?<![A-Za-z])pi(?![A-Za-z0-9_])", "pi"),
    ]


@_grammar("circuit_missing_resistance")
def _circuit() -> List[Tuple[str, SlotSpec]]:
    r_name = r"(?:R(?:\s*_\s*)?)?(\d+)(?!\d)"
    return [
        (NB + r"R(?:\s*_\s*)?(?:eq|equiv|total|tot)\b", "R_eq"),
        (r"\b(?:equivalent|total|overall|effective|net)\s+resistance\b", "R_eq"),
        (r"\b(?:resistance|value)\s+(?:of|for)\s+(?:the\s+)?(?:resistor\s+)?" + r_name, "R{0}"),
        (r"\bresistors\s*" + r_name + r"\s*(?:,|and|&)\s*" + r_name, ("R{0}", "R{1}")),
        (r"\bresistor\s*(?:#|no\.?|number)?\s*" + r_name, "R{0}"),
        (rf"\b{ORD}\s+resistor\b", "R{0}"),
        (NB + r"R(?:\s*_\s*)?(?:(\d+)|\(\s*(\d+)\s*\))(?!\d)", "R{0}"),
    ]


@_grammar("deconvolution")
def _deconvolution() -> List[Tuple[str, SlotSpec]]:
    return [
        (NB + "y" + IDX, "y{0}"),
        (r"\boutput\s*(?:#|no\.?|number|sample)?\s*(\d+)", "y{0}"),
        (NB + "h" + IDX, "h{0}"),
        (r"\b(?:kernel|filter)\s+(?:tap|coefficient|entry|value)\s*(\d+)", "h{0}"),
        (NB + "x" + IDX, "x{0}"),
        (r"\binput\s*(?:#|no\.?|number|sample)?\s*(\d+)", "x{0}"),
        (letter("x"), "x"),
    ]


@_grammar("discrete_tomography")
def _tomography() -> List[Tuple[str, SlotSpec]]:
    cell = "cell ({0},{1})"
    return [
        (r"\bcell\s*(?:at\s+)?(?:" + PAIR + r"|\s+(\d)\s*,\s*(\d)(?!\d))", cell),
        (ROW_COL, cell),
        (COL_ROW, "cell ({1},{0})"),
        (r"\b(?:sum\s+of\s+(?:the\s+)?)?row\s*(\d+)(?:\s*'s)?(?:\s+sum)?|\brow\s+sum\s+(?:of\s+row\s+)?(\d+)",
         "row {0} sum"),
        (r"\b(?:sum\s+of\s+(?:the\s+)?)?col(?:umn)?\.?\s*(\d+)(?:\s*'s)?(?:\s+sum)?"
         r"|\bcol(?:umn)?\s+sum\s+(?:of\s+col(?:umn)?\s+)?(\d+)", "column {0} sum"),
        (BARE_PAIR, cell),
    ]


@_grammar("eigenvector_missing_entry")
def _eigenvector() -> List[Tuple[str, SlotSpec]]:
    sq = r"\s*(?:\^\s*2|\*\*\s*2|\s+squared)"
    m2 = r"(?:\(\s*M" + sq + r"\s*\)|M" + sq + ")"
    target = "(M²)[{0}][{1}]"
    of_m2 = r"\s+(?:of|in)\s+(?:the\s+)?(?:matrix\s+)?" + m2
    return [
        (m2 + PAIR, target),
        (r"\b(?:entry|element)\s+(?:of\s+" + m2 + r"\s+)(?:at\s+)?" + BARE_PAIR, target),
        (r"(?:\b(?:entry|element)\s+)?" + BARE_PAIR + r"(?:[\s-]*(?:entry|element))?" + of_m2, target),
        (ROW_COL + of_m2, target),
    ] + matrix("M", "M[{0}][{1}]") + [
        (r"\beigenvalue\b|(?<![A-Za-z])lambda(?![A-Za-z0-9_])", "lambda"),
        (NB + "v" + IDX, "v[{0}]"),
        (r"\beigenvector\b", "v"),
        (letter("v"), "v"),
    ]


@_grammar("laplace_grid")
def _laplace() -> List[Tuple[str, SlotSpec]]:
    u = "u[{0}][{1}]"
    return [
        (r"(?<![A-Za-z_])u" + PAIR, u),
        (r"\b(?:cell|point|node|value)\s*(?:at\s+)?" + BARE_PAIR, u),
        (ROW_COL, u),
        (COL_ROW, "u[{1}][{0}]"),
        (BARE_PAIR, u),
    ]


@_grammar("linear_system_missing_coeff")
def _linear_coeff() -> List[Tuple[str, SlotSpec]]:
    return [
        (r"\bcoefficient\s+of\s+x\s*" + IDX + r"\s+in\s+(?:row|equation)\s*(\d+)", "A[{1}][{0}]"),
    ] + matrix("A", "A[{0}][{1}]") + [
        (NB + "b" + IDX, "b[{0}]"),
        (r"\b(?:right[\s-]+hand[\s-]+side|rhs)\s+(?:of\s+)?(?:row|equation)?\s*(\d+)", "b[{0}]"),
        (NB + "x" + IDX, "x[{0}]"),
        (letter("x"), "x"),
    ]


@_grammar("markov_missing_transition")
def _markov() -> List[Tuple[str, SlotSpec]]:
    p = "P[{0}][{1}]"
    state = r"(?:state\s+)?"
    return [
        (NB + r"P\s*\(\s*(\d+)\s*(?:->|to)\s*(\d+)\s*\)", p),
        (NB + r"P\s*\(\s*(\d+)\s*\|\s*(\d+)\s*\)", "P[{1}][{0}]"),
        (NB + r"P\s*_\s*(\d+)\s*->\s*(\d+)", p),
    ] + matrix("P", p) + [
        (rf"\b(?:transition\s+(?:probability\s+)?|probability\s+(?:of\s+)?(?:moving|going|jumping|"
         rf"transitioning|a\s+transition)\s+)?from\s+{state}(\d+)\s+(?:to|into)\s+{state}(\d+)", p),
        (r"(?<![\d.])(\d+)\s*->\s*(\d+)", p),
        (_one_index("pi"), "pi_{0}"),
        (rf"\bstationary\s+probability\s+(?:of\s+)?{state}(\d+)", "pi_{0}"),
        (r"\bstationary\s+distribution\b|(?<![A-Za-z])pi(?![A-Za-z0-9_])", "pi"),
    ]


@_grammar("poly_interpolation")
def _poly() -> List[Tuple[str, SlotSpec]]:
    p = "p({0})"
    at_x = r"(?:x\s*=\s*)?(-?\d+)(?!\d)"
    return [
        (r"\bp\s*\(\s*x\s*\)\s*(?:at|for|when)\s+x\s*=\s*(-?\d+)(?!\d)", p),
        (NB + r"p\s*\(\s*(-?\d+)\s*\)", p),
        (r"\bp\s+(?:at|of|evaluated\s+at)\s+" + at_x, p),
        (r"\b(?:value|point)\s+(?:of\s+p\s+)?(?:at|for)\s+(?:the\s+)?(?:node\s+)?" + at_x, p),
        (r"\b(?:at|for)\s+x\s*=\s*(-?\d+)(?!\d)", p),
        (r"\bnode\s+" + at_x, p),
        (r"\b(?:recorded\s+)?nodes\b", "nodes"),
    ]


def _rho(ints: List[int], span: str) -> str:
    i, j = sorted(ints[:2])
    return f"rho({i},{j})"


def _cov(ints: List[int], span: str) -> str:
    i, j = sorted(ints[:2])
    return f"cov({i},{j})"


@_grammar("portfolio_variance_missing_corr")
def _portfolio() -> List[Tuple[str, SlotSpec]]:
    asset = r"(?:assets?\s+)?"
    between = rf"\s+(?:between|of|for)\s+(?:the\s+returns?\s+of\s+)?{asset}(\d+)\s*(?:and|&|,)\s*{asset}(\d+)"
    return [
        (NB + r"(?:rho|corr|correlation)\s*(?:\(\s*(?:R(?:\s*_\s*)?)?(\d+)\s*,\s*(?:R(?:\s*_\s*)?)?(\d+)\s*\)"
         r"|\[\s*(\d+)\s*\]\s*\[\s*(\d+)\s*\]"
         r"|\[\s*(\d+)\s*,\s*(\d+)\s*\]|_\s*(\d+)\s*,\s*(\d+)|_?\s*(\d)(\d))(?!\d)", _rho),
        (r"\bcorrelation(?:\s+coefficient)?(?:\s+rho)?" + between, _rho),
        (rf"\bassets?\s+(\d+)\s+and\s+{asset}(\d+)(?:'s)?\s+correlation\b", _rho),
        (NB + r"cov(?:ariance)?\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)|\bcovariance" + between, _cov),
        (NB + r"sigma(?:\s*_\s*)?p\b(?:\s*\^\s*2)?|\bportfolio\s+variance\b"
         r"|\bvariance\s+of\s+the\s+portfolio\b",
         "sigma_p^2"),
        (NB + "sigma" + IDX, "sigma({0})"),
        (rf"\b(?:standard\s+deviation|std(?:\s+dev)?|volatility|sd|variance)\s+(?:of\s+)?{asset}(\d+)",
         "sigma({0})"),
        (NB + "w" + IDX, "w({0})"),
        (rf"\bweight\s+(?:of|on|for)\s+{asset}(\d+)", "w({0})"),
    ]


@_grammar("steady_state_missing_emission")
def _steady_state() -> List[Tuple[str, SlotSpec]]:
    s = r"(?:(?:state\s+)?s(?:\s*_\s*)?(\d+)|state\s+(\d+))(?!\d)"
    o = r"(?:(?:symbol\s+|observation\s+)?o(?:\s*_\s*)?(\d+)|(?:symbol|observation)\s+(\d+))(?!\d)"
    e, e_rev, t = "E[s{0}][o{1}]", "E[s{1}][o{0}]", "P[s{0}][s{1}]"
    return [
        (NB + r"E\s*\[\s*" + s + r"\s*\]\s*\[\s*" + o + r"\s*\]", e),
        (NB + r"E\s*\(\s*" + s + r"\s*,\s*" + o + r"\s*\)", e),
        (NB + r"E\s*_\s*" + s + r"\s*,?\s*" + o, e),
        (NB + r"E" + PAIR, e),
        (NB + r"P\s*\(\s*" + o + r"\s*\|\s*" + s + r"\s*\)", e_rev),
        (NB + r"P\s*\[\s*" + s + r"\s*\]\s*\[\s*" + s + r"\s*\]", t),
        (NB + r"P\s*\(\s*" + s + r"\s*\|\s*" + s + r"\s*\)", "P[s{1}][s{0}]"),
        (NB + r"P\s*\(\s*" + s + r"\s*,\s*" + s + r"\s*\)", t),
        (NB + r"P\s*_\s*" + s + r"\s*,?\s*" + s, t),
        (NB + r"P" + PAIR, t),
        (NB + r"P\s*\(\s*(?:observ(?:e|ing)\s+)?" + o + r"\s*\)", "P(o{0})"),
        (r"\bemission\s+(?:probability\s+)?(?:of\s+)?" + o + r"\s+(?:from|in|at|by|for|given|when\s+in)\s+"
         + s, e_rev),
        (r"\bemission\s+(?:probability\s+)?(?:of|from|for|in|at)\s+" + s
         + r"\s+(?:for|of|to|emitting|producing|->)?\s*" + o, e),
        (r"\b(?:probability\s+(?:that\s+)?)?" + s + r"\s+(?:emits|emitting|produces|outputs|generates)\s+"
         + o, e),
        (r"\bprobability\s+of\s+(?:observing|emitting|seeing)\s+" + o
         + r"\s+(?:from|in|at|given|when\s+in)\s+" + s, e_rev),
        (r"\bprobability\s+(?:of\s+|that\s+)?(?:observing\s+|seeing\s+|an\s+observation\s+is\s+)?" + o,
         "P(o{0})"),
        (r"\btransition\s+(?:probability\s+)?from\s+" + s + r"\s+(?:to|into)\s+" + s, t),
        (NB + s + r"\s*->\s*" + s, t),
        (r"(?<![A-Za-z])pi\s*(?:\(\s*" + s + r"\s*\)|_?\s*(\d+)(?!\d))", "pi(s{0})"),
        (r"\bstationary\s+probability\s+(?:of\s+)?" + s, "pi(s{0})"),
        (r"\bstationary\s+distribution\b|(?<![A-Za-z])pi(?![A-Za-z0-9_])", "pi"),
    ]


# ---------------------------------------------------------------- the responder itself

META = "(instructions)"
"""The slot id of a reference to the responder's own instructions (``ignore all prior
instructions``, ``your system prompt``, ``debug mode``). It is a quantity of no family and no
line holds it, so a request naming it is declined whatever else it names: the words of an
injection cannot be read as a family's alias (``prior`` is P(H) in bayes, ``last line`` is
line 2 in geometry, ``cutoff`` is t in piecewise)."""

_META_RULES: List[Tuple[str, SlotSpec]] = [
    (r"\b(?:system|hidden|initial|original|developer)\s+(?:prompt|message|instructions?)\b"
     r"|\b(?:prior|previous|earlier|above|preceding|original|initial)\s+"
     r"(?:instructions?|prompts?|rules|directions|directives)\b"
     r"|\byour\s+(?:own\s+)?(?:instructions?|prompt|guidelines|directives|programming|polic(?:y|ies)|rules)\b"
     r"|\b(?:debug|developer|admin|god)\s+mode\b|\bjailbreak|\b(?:knowledge\s+)?cutoff\s+date\b"
     r"|\bknowledge\s+cutoff\b", META),
]


_GRAMMARS: Dict[str, Grammar] = {}


def families() -> Tuple[str, ...]:
    """The families with a grammar (all 22 of ``generators.registry``)."""
    return tuple(_GRAMMAR_RULES)


def _grammar(family: str) -> Grammar:
    grammar = _GRAMMARS.get(family)
    if grammar is None:
        if family not in _GRAMMAR_RULES:
            raise KeyError(f"no slot grammar for family {family!r}")
        grammar = _GRAMMARS[family] = Grammar(_META_RULES + _GRAMMAR_RULES[family]())
    return grammar


# ---------------------------------------------------------------- public API

_LABEL_END = re.compile(r"[:=]")


def mentioned_slots(family: str, text: str) -> FrozenSet[str]:
    """Every quantity of ``family``'s notation that ``text`` names, as canonical slot ids.

    Never raises for any ``text`` (a non-string names nothing); an unknown family is a
    ``KeyError``."""
    grammar = _grammar(family)
    if not isinstance(text, str) or not text:
        return frozenset()
    try:
        return grammar.mentions(normalise(text))
    except Exception:   # defensive: a request must never crash an episode
        return frozenset()


def line_slot(family: str, line: str) -> str:
    """The slot a private constraint line holds, read from its label: the text before its
    first ``:`` or ``=`` (``congruence 3: ...``, ``P(H) = 1/2``, ``q0 + q1 + q2 = 13``),
    else the whole line (``f(x) = 2x + 1 for x < t``). The label must be exactly one
    quantity of the notation with nothing else beside it; otherwise the id is
    ``UNPARSED + line`` (no request names it, so the rules responder never offers it).
    Never raises for any ``line``; an unknown family is a ``KeyError``."""
    grammar = _grammar(family)
    if not isinstance(line, str):
        return UNPARSED + repr(line)
    try:
        text = normalise(line)
        cut = _LABEL_END.search(text)
        for part in (text[:cut.start()] if cut else text, text):
            spans = grammar.scan(part)
            slots = {s for _, _, found in spans for s in found}
            rest = part
            for start, end, _ in reversed(spans):
                rest = rest[:start] + rest[end:]
            if len(slots) == 1 and not rest.strip():
                return next(iter(slots))
    except Exception:
        pass
    return UNPARSED + line
