"""The engine behind :mod:`mira_math.game.slots`: normalisation, the :class:`Grammar` that scans a
request with a family's ordered rules, the pattern pieces the notation tables share, the
registry the tables join with :func:`register`, and the public reading functions
(:func:`mentioned_slots`, :func:`line_slot`). ``game/slots/__init__.py`` describes how a
request is read; the tables live in ``type_a.py`` and ``type_b.py``.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple, Union, cast

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
    return _SPACES.sub(" ", text)


_SPACES = re.compile(r"\s+")
r"""Whitespace runs collapse to one space, so no ``\s*`` in a rule can scan a long run: the
rules stay linear in the request's length (a 16,000-space request once took seconds)."""

# Tokens that are encodings, not names: base64 (mixed case with digits, or ``=`` padding),
# long hex strings, URL-encoding (``%52``), ``\x52`` / ``\u0052`` escapes, HTML entities.
# Character tests, not backtracking patterns: linear in the token's length.
_TOKEN = re.compile(r"\S+")
_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")
_HEX_CHARS = frozenset("0123456789abcdefABCDEF")
_BASE64_PADDED = re.compile(r"[A-Za-z0-9+/]{4,}={1,2}[.,;:!?)\]]*")
_ESCAPES = re.compile(r"%[0-9A-Fa-f]{2}|x[0-9A-Fa-f]{2}x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|&#x?[0-9A-Fa-f]+;")


def _is_encoded(token: str) -> bool:
    core = token.strip(".,;:!?()[]\"'`")
    if _ESCAPES.search(token) or _BASE64_PADDED.fullmatch(token):
        return True
    if len(core) < 8:
        return False
    digits = sum(c.isdigit() for c in core)
    if not digits:
        return False
    if all(c in _B64_CHARS for c in core) and sum(c.isupper() for c in core) >= 2 \
            and any(c.islower() for c in core):
        return True
    hexed = core[2:] if core[:2].lower() == "0x" else core
    return all(c in _HEX_CHARS for c in hexed) and any(c.isalpha() for c in hexed)


def strip_encoded(text: str) -> str:
    """``text`` with every encoded-looking token (base64, hex, URL-encoding, escapes) blanked:
    an encoded string is never read as a name (a base64 string containing ``R2`` names no R2)."""
    return _TOKEN.sub(lambda m: " " if _is_encoded(m.group(0)) else m.group(0), text)


_VERBS = (r"(?:compute|computing|calculate|calculating|determine|determining|derive|deriving|evaluate|"
          r"evaluating|obtain|obtaining|reconstruct|reconstructing|recover|recovering|solve\s+for|"
          r"solving\s+for)")
_VERBS_WIDE = r"(?:" + _VERBS[3:-1] + r"|find|finding|get|getting|work\s+out|working\s+out|answer|answering)"
_SUBJECT = r"(?:I|we)"
# Where a stated purpose starts inside a sentence: it runs to the end of the sentence.
_PURPOSE = re.compile(
    r"(?:"
    # "I need it to compute P(H|E)", "we'd like this for finding R_eq", "so I can find x"
    r"\b" + _SUBJECT + r"\s*(?:'d|would|will|'ll)?\s*(?:need|want|like|use|am\s+going\s+to\s+use|plan\s+to\s+use)"
    r"\s+(?:it|this|that|them|these|the\s+value|this\s+value|that\s+value)\s+(?:to|for|in\s+order\s+to)\b"
    r"|\bso\s+(?:that\s+)?" + _SUBJECT + r"\b"
    # "... (in order) to compute R_eq", "needed for computing x", "to find" only after "in order"
    r"|\b(?:in\s+order\s+)?to\s+(?:help\s+(?:me\s+|us\s+)?)?" + _VERBS + r"\b"
    r"|\bin\s+order\s+to\b|\bfor\s+the\s+purpose\s+of\b"
    r"|\bfor\s+" + _VERBS + r"\b"
    r"|\b(?:needed|required|necessary|useful|used|wanted)\s+(?:for|to|in\s+order\s+to)\b"
    r"|\bwithout\s+(?:it|this|that|which|them)\b"
    r"|\b(?:which|that)\s+" + _SUBJECT + r"\s*(?:'ll|'d|will|would|can|could|need\s+to|want\s+to|plan\s+to)?\s*"
    r"(?:use|need|want)\b"
    r"|\b(?:because|since|as)\s+" + _SUBJECT + r"\s+(?:need|want|am|are|'m|'re)\b"
    r"|(?<=[.?!;,] )" + _SUBJECT + r"\s+(?:need|want)\s+(?:it|this|that|them)\s+for\b"
    r")[^.?!;\n]*",
    re.IGNORECASE)

# A clause opening a sentence that is context, not the question: a purpose ("To compute
# P(H|E), ...", "In order to find ..."), a given ("Given P(E|H) and P(E|¬H), ...", "Since I
# know ..."). It runs to the comma before the question or imperative, else to the first comma.
_LEADING = re.compile(
    r"^\s*(?:(?:in\s+order\s+)?to\s+(?:help\s+(?:me\s+|us\s+)?)?" + _VERBS_WIDE + r"\b"
    r"|for\s+(?:the\s+purpose\s+of\s+)?" + _VERBS + r"\b|so\s+(?:that\s+)?" + _SUBJECT + r"\b"
    r"|given\b|knowing\b|using\b|with\b|since\b|because\b|as\s+" + _SUBJECT + r"\b|from\b|so\s+far\b"
    r"|(?:here\s+is|here's|these\s+are|this\s+is)\s+what\s+" + _SUBJECT + r"\b"
    r"|what\s+" + _SUBJECT + r"\s+(?:know|have)\b"
    r"|(?:needed|required|necessary|useful)\s+(?:for|to|in\s+order\s+to)\b|without\b"
    r"|if\s+" + _SUBJECT + r"\s+(?:want|need|are|am|'re|'m)\b)",
    re.IGNORECASE)
_ASKING = re.compile(r",\s*(?=(?:what|which|how|could|can|would|will|may|please|tell|give|share|provide|send|"
                     r"state|let|do|does|is|are|I\s+need|I'd\s+like|I\s+would\s+like|I\s+want)\b)", re.IGNORECASE)

# A whole sentence that is context: it states a purpose or recalls what is known, and asks
# nothing ("It's needed to find P(H|E).", "I am trying to find x.", "I know P(E|H) = 2/3.").
_CONTEXT_SENTENCE = re.compile(
    r"^\s*(?:(?:note|also|btw|context|background)\s*[:,]\s*)?(?:"
    r"(?:it|this|that|which|they|these)(?:'s|'ll|\s+is|\s+are|\s+will|\s+would|\s+should)?\s*(?:be\s+)?"
    r"(?:needed|required|necessary|useful|used|for|to|help)\b"
    r"|" + _SUBJECT + r"(?:'m|\s+am|'re|\s+are)\s+(?:trying|attempting|going|about|working|looking|aiming)\s+to\b"
    r"|" + _SUBJECT + r"\s*(?:'d|would|will|'ll)?\s*(?:need|want|like|plan|intend|hope|aim)\s+"
    r"(?:it|this|that|them|to\s+" + _VERBS_WIDE + r")\b"
    r"|" + _SUBJECT + r"\s+(?:can|could|will|'ll|then)\s+(?:then\s+)?" + _VERBS_WIDE + r"\b"
    r"|(?:then\s+)?" + _SUBJECT + r"(?:'ll|\s+will)?\s+be\s+able\s+to\b"
    r"|without\b|so\s+far\b|from\s+the\s+(?:problem|question|facts?|statement|data)\b"
    r"|(?:my|our|the)\s+(?:goal|aim|plan|task|objective|target)\b"
    r"|(?:in\s+order\s+)?to\s+" + _VERBS_WIDE + r"\b|for\s+" + _VERBS + r"\b|so\s+(?:that\s+)?" + _SUBJECT + r"\b"
    r"|" + _SUBJECT + r"\s+(?:already\s+)?(?:know|have|got|computed|found|was\s+given|were\s+given)\b"
    r"|" + _SUBJECT + r"(?:'m|\s+am|'re|\s+are)\s+(?:given|told)\b"
    r"|(?:the\s+problem|the\s+question|the\s+facts?)\s+(?:says|say|gives|give|states|state|tells|tell)\b"
    r")", re.IGNORECASE)
# A sentence ends at ".", "?", "!" or ";" before a capital, a quote or the end, or at a line
# break ("congruence 3: x ≡ ? (mod ?)" is one sentence).
_SENTENCES = re.compile(r"(?:[^.?!;\n]|[.?!]+(?!\s+[A-Z\u00bf\u00a1\"'(]|\s*$|\s*\n))+(?:[.?!;]+|(?=\n)|$)|[.?!;\n]")
_STATES_VALUE = re.compile(r"=\s*\(?\s*[-+]?\s*\d")
# Words of asking: a sentence holding one is a request even when it states a value ("Please
# give me p at x = 2.").
_ASK_WORDS = re.compile(r"\b(?:please|give|tell|provide|share|send|state|show|what|which|how|need|want|like|"
                        r"request|ask|could|can|would)\b", re.IGNORECASE)


def _clause_end(sentence: str, start: int) -> int:
    """Where a leading clause ends: its first comma, colon or dash outside brackets (-1: none)."""
    depth = 0
    for i in range(start, len(sentence)):
        ch = sentence[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth <= 0 and (ch in ",:" or sentence.startswith(" - ", i)):
            return i
    return -1


def strip_purpose(text: str) -> str:
    """``text`` without a stated purpose ("... I need it to compute P(H|E)", "... so I can find
    R_eq"): the quantity one wants to compute is not one being asked for."""
    return _PURPOSE.sub(" ", text)


def asked_part(text: str) -> str:
    """What a request asks (docs/benchmark.md §6, the request rule): its sentences without the
    context, that is without a stated purpose, a given or a recap, before or after the
    question, in its own sentence or not."""
    kept: List[Tuple[str, bool]] = []           # (sentence, whether it only states values)
    for m in _SENTENCES.finditer(text):
        sentence = m.group(0)
        if not sentence.strip(" .?!;\n"):
            continue
        question = sentence.rstrip().endswith("?")
        led = False
        for _ in range(3):                      # "To compute X, given Y, what is Z?"
            lead = _LEADING.match(sentence)
            if lead is None:
                break
            asking = _ASKING.search(sentence, lead.end())
            comma = asking.start() if asking else _clause_end(sentence, lead.end())
            if comma < 0:
                sentence = ""                   # all of it is purpose or given
                break
            sentence, led = sentence[comma + 1:], True
        if not question and (_CONTEXT_SENTENCE.match(sentence) or (led and not _ASK_WORDS.search(sentence))):
            continue                            # a purpose, or a given / recap that asks nothing
        stated = not question and bool(_STATES_VALUE.search(sentence)) and not _ASK_WORDS.search(sentence)
        kept.append((strip_purpose(sentence), stated))
    if any(not stated for _, stated in kept):   # values recalled beside a question are context
        kept = [(s, stated) for s, stated in kept if not stated]
    return " ".join(s for s, _ in kept)


# An operator or a word that makes another quantity of a named one ("1 - P(H)", "P(H)^2",
# "c + 1", "twice R2", "the square of x"): the request names a derived quantity.
_DERIVED_BEFORE = re.compile(r"(?:(?:\d|\))\s*[-+*/·]\s*|[*/·^]\s*|(?<![A-Za-z0-9_)\]])-|\b(?:twice|double|triple|"
                             r"half|square|cube|inverse|reciprocal|complement|negative|log|logarithm|sqrt|root|times|"
                             r"plus|minus)\s+(?:of\s+)?(?:the\s+)?)\(?\s*$", re.IGNORECASE)
_DERIVED_AFTER = re.compile(r"^\s*\)?\s*(?:\^|\*\*|[-+*/·]\s*(?:\d|\()"
                            r"|\b(?:squared|cubed|times|plus|minus|divided|over)\b)",
                            re.IGNORECASE)
DERIVED = "(derived) "
"""Prefix of the id of a quantity derived from a named one: no line holds it."""


def _derived(text: str, spans: List[Tuple[int, int, Tuple[str, ...]]]) -> List[Tuple[int, int, Tuple[str, ...]]]:
    out = []
    for start, end, slots in spans:
        if slots and slots[0] != META and (_DERIVED_BEFORE.search(text[max(0, start - 24):start])
                                           or _DERIVED_AFTER.match(text[end:end + 24])):
            slots = tuple(DERIVED + s for s in slots)
        out.append((start, end, slots))
    return out


_ARTICLES = re.compile(r"\b(?:the|a|an)\b|[\s?.,:;!'\"`*_]+", re.IGNORECASE)
_QUESTION_FRAME = re.compile(r"^\s*(?:in\s+[^,]{0,60},\s*)?(?:what|which)\s+(?:is|are)\s+", re.IGNORECASE)


def _canon(text: str) -> str:
    return _ARTICLES.sub("", text).lower()


@functools.lru_cache(maxsize=4096)     # one question per instance, read at every request
def question_phrases(question: str) -> Tuple[str, ...]:
    """The target's own wording in an instance's question ("What is pi_2, the stationary
    probability of state 2?" -> ``pi_2``, ``stationary probability of state 2``), each
    canonical (lower case, no articles, spaces or punctuation)."""
    if not isinstance(question, str) or not question:
        return ()
    first = normalise(question).split("?")[0]
    body = _QUESTION_FRAME.sub("", first)
    pieces = re.split(r",\s*(?:that\s+is,?\s*)?|\s+that\s+is,?\s+|\s+i\.e\.,?\s+", body, flags=re.IGNORECASE)
    return tuple(c for c in (_canon(p) for p in pieces) if len(c) >= 3)


MAX_REQUEST_CHARS = 600
"""A request longer than this (after whitespace is collapsed) is declined unread: a precise
request is one short sentence, and the bound keeps the cost of reading one fixed."""


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


_START = r"(?<![A-Za-z])(?!(?<=\d)\d)"
"""Where a match may start: not inside a word, and not inside a number (so a run of digits
costs one attempt per run, not one per digit)."""


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
        self._regex = re.compile(_START + "(?:" + "|".join(parts) + ")", re.IGNORECASE)

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
        built = spec(ints, span)
        if built is None:
            return ()
        return (built,) if isinstance(built, str) else tuple(cast(Sequence[str], built))
    if isinstance(spec, str):
        return (spec.format(*ints),)
    return tuple(t.format(*ints) for t in spec)


# ---------------------------------------------------------------- the registry

@dataclass(frozen=True)
class NotationDoc:
    """A family's section of ``game/RESPONDER.md``, kept beside its rules so that one edit changes
    both (``python -m mira_math.game.slots.doc --write`` renders the file; a test checks it).
    Cells and notes are Markdown; the examples are request texts, ``offered`` ones naming the
    ``held`` slot alone, ``declined`` ones not (``tests/game/test_slots.py`` runs them all)."""

    slots: Tuple[Tuple[str, str], ...]     # (slot id, accepted forms), one table row each
    held: str
    offered: Tuple[str, ...]
    declined: Tuple[str, ...]
    note: str = ""                         # a paragraph between the table and the examples


# Each family's notation table registers itself under the family's name, with its documentation;
# a test checks that every family of the registry has one.
_GRAMMAR_RULES: Dict[str, Callable[[], List[Tuple[str, SlotSpec]]]] = {}
_DOCS: Dict[str, NotationDoc] = {}


def register(family: str, doc: NotationDoc) -> Callable:
    def register(rules: Callable[[], List[Tuple[str, SlotSpec]]]) -> Callable[[], List[Tuple[str, SlotSpec]]]:
        _GRAMMAR_RULES[family] = rules
        _DOCS[family] = doc
        return rules
    return register


def notation_doc(family: str) -> Optional[NotationDoc]:
    """The documentation ``family``'s notation registered with (None: no notation)."""
    return _DOCS.get(family)


# ---------------------------------------------------------------- the responder itself

META = "(instructions)"
"""The slot id of a reference to the responder's own instructions (``ignore all prior
instructions``, ``your system prompt``, ``debug mode``). It is a quantity of no family and no
line holds it, so a request naming it is declined whatever else it names: the words of an
injection cannot be read as a family's alias (``prior`` is P(H) in bayes, ``last line`` is
line 2 in geometry, ``cutoff`` is t in piecewise)."""

_HOLDINGS = (r"(?:constraints?|lines?|lists?|data|dataset|facts?|information|info|knowledge|notes|"
             r"records?|table|tables|files?|documents?|memory|context|polic(?:y|ies)|rules?|instructions?|"
             r"prompts?|guidelines|directives|programming|configuration|config|settings|holdings?|"
             r"private\s+\w+|secrets?|message|messages|text|inputs?|spec|specification|terms)\b")

_META_RULES: List[Tuple[str, SlotSpec]] = [
    (r"\b(?:system|hidden|initial|original|developer)\s+(?:prompt|message|instructions?)\b"
     r"|\b(?:prior|previous|earlier|above|preceding|original|initial)\s+"
     r"(?:instructions?|prompts?|rules|directions|directives)\b"
     r"|\byour\s+(?:own\s+)?(?:instructions?|prompt|guidelines|directives|programming|polic(?:y|ies)|rules)\b"
     r"|\b(?:debug|developer|admin|god)\s+mode\b|\bjailbreak|\b(?:knowledge\s+)?cutoff\s+date\b"
     r"|\bknowledge\s+cutoff\b", META),
    # the holder's own lines, list, data, policy, constraints (of your constraints, in the list)
    (r"\byour(?:\s+(?:own|private|hidden|secret|internal|current|full|whole|entire|reply|response|"
     r"offering|answering|decline|declining|disclosure|sharing|output|system))*\s+"
     rf"{_HOLDINGS}"
     r"|\b(?:of|in|from|on|inside|within)\s+(?:the|this|that)\s+(?:private\s+|hidden\s+|secret\s+)?"
     r"(?:list|lists|data|dataset|constraints?|instructions|polic(?:y|ies)|prompt|notes|memory|"
     r"records?|file|document|context|holdings?)\b"
     r"|\b(?:of|in|from|on|inside|within)\s+yours\b"
     r"|\b(?:prior|previous|earlier|background|initial|original|preexisting|pre-existing|hidden|secret)\s+"
     r"(?:information|info|knowledge|context|facts|data)\b", META),
]


# References to the holder's own lines by position: the solver is never told the holder's
# numbering, so "your last line", "your second congruence", "the last condition you were
# given" name no quantity of the problem; they are read as a reference to the holder itself.
_POSITIONS = r"(?:last|final|first|second|third|fourth|fifth|next|previous|other|top|bottom|[0-9]+(?:st|nd|rd|th))"
_POSITION_RULES: List[Tuple[str, SlotSpec]] = [
    (rf"\byour\s+(?:very\s+)?{_POSITIONS}\b"
     rf"|\b{_POSITIONS}\s+(?:[A-Za-z]+\s+){{0,2}}(?:that\s+|which\s+)?you\s+(?:were|have\s+been|got|have|hold|"
     r"received|know|see)\b", META),
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
        grammar = _GRAMMARS[family] = Grammar(_META_RULES + _POSITION_RULES + _GRAMMAR_RULES[family]())
    return grammar


# ---------------------------------------------------------------- public API

_LABEL_END = re.compile(r"[:=]")


def mentioned_slots(family: str, text: str) -> FrozenSet[str]:
    """Every quantity of ``family``'s notation that ``text`` names, as canonical slot ids.

    Never raises for any ``text`` (a non-string names nothing); an unknown family is a
    ``KeyError``."""
    return read_request(family, text).own


@dataclass(frozen=True)
class RequestReading:
    """What a request names: ``own`` (this family's quantities, as slot ids) and ``foreign``
    (quantities written in another family's notation, as ``family: slot``: looked for only
    when ``own`` is one quantity, and only in the first other family that has one, since any
    one makes the request a two-quantity request); ``too_long`` when the request exceeds
    :data:`MAX_REQUEST_CHARS` and was not read."""

    own: FrozenSet[str]
    foreign: FrozenSet[str] = frozenset()
    too_long: bool = False


def request_text(text: str) -> str:
    """A request as the grammars read it: normalised, encodings blanked, context dropped."""
    return asked_part(strip_encoded(normalise(text)))


TARGET = "(target)"
"""The id of the quantity an instance's question asks for, named in the question's own words."""


def read_request(family: str, text: str, question: str = "", held: Sequence[str] = ()) -> RequestReading:
    """Everything the asked part of ``text`` names, in ``family``'s notation and in every
    other family's. With the instance's ``question``, the question's own wording of the target
    names :data:`TARGET` too (``held``: the slots of the responder's lines, whose spans are
    not searched for it, so "the coefficient of x[0] in row 2" is not the target x[0]).

    Never raises for any ``text``; an unknown family is a ``KeyError``."""
    grammar = _grammar(family)
    if not isinstance(text, str) or not text:
        return RequestReading(frozenset())
    try:
        read = normalise(text)
        if len(read) > MAX_REQUEST_CHARS:
            return RequestReading(frozenset(), too_long=True)
        read = asked_part(strip_encoded(read))
        spans = _derived(read, grammar.scan(read))
        own = set(s for _, _, slots in spans for s in slots)
        phrases = question_phrases(question) if isinstance(question, str) else ()
        if phrases:
            held_slots = set(held)
            held_names = {_canon(h) for h in held}
            rest, last = [], 0
            for start, end, slots in spans:
                if held_slots.intersection(slots):
                    rest.append(read[last:start])
                    last = end
            rest.append(read[last:])
            residual = _canon(" ".join(rest))
            if any(p in residual for p in phrases if p not in held_names):
                own.add(TARGET)
        named = frozenset(own)
        if len(named) != 1:     # declined whatever else it names: no need to look further
            return RequestReading(named)
        return RequestReading(named, _foreign(family, read, [(a, b) for a, b, _ in spans]))
    except Exception:   # defensive: a request must never crash an episode
        return RequestReading(frozenset())


# A foreign match counts only when it is notation: a digit or a symbol in it, or a single
# letter (``c``, ``t``); another family's plain English words ("threshold", "prior",
# "distance") are not names in this family.
_NOTATION = re.compile(r"[0-9()\[\]|_^≡¬=+*/<>·]|(?<![A-Za-z'])[A-Za-z](?![A-Za-z'])")


def _is_notation(span: str) -> bool:
    core = span.strip()
    return bool(re.search(r"[0-9()\[\]|_^≡¬=+*/<>·]", core)) or (len(core) == 1 and core.isalpha())


def _foreign(family: str, text: str, own: List[Tuple[int, int]]) -> FrozenSet[str]:
    """Quantities of every other family's notation in ``text`` that this family's names do
    not cover (``cell (1,1)`` in a family that reads the bare ``(1,1)``: the ``cell`` part is
    not covered). Skipped, as in most precise requests, when the text outside this family's
    names holds nothing notation-like and no name of this family starts with a symbol."""
    rest, last = [], 0
    for start, end in own:
        rest.append(text[last:start])
        last = end
    rest.append(text[last:])
    loose = any(not text[start].isalpha() for start, _ in own)
    if not loose and not _NOTATION.search(" ; ".join(rest)):
        return frozenset()
    found: Set[str] = set()
    for other in families():
        if other == family:
            continue
        for start, end, slots in _grammar(other).scan(text):
            if slots and slots != (META,) and _is_notation(text[start:end]) \
                    and not _covered(start, end, own) and not _own_words(family, text, start, end):
                found.update(f"{other}: {s}" for s in slots)
        if found:     # one foreign quantity is enough to decline
            break
    return frozenset(found)


def _covered(start: int, end: int, own: List[Tuple[int, int]]) -> bool:
    """Whether ``[start, end)`` lies inside this family's name spans (blanks between two
    adjacent spans included)."""
    pos = start
    for a, b in own:
        if b <= pos:
            continue
        if a > pos and a > end - 1:
            break
        if a > pos:
            return False
        pos = b
        if pos >= end:
            return True
    return pos >= end


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


_TEMPLATE: Dict[str, str] = {}
_TOKENS = re.compile(r"[A-Za-z]+|[0-9]+|[<>=]+")


def _phrase(text: str) -> str:
    return " " + " ".join(_TOKENS.findall(text)) + " "


def _own_words(family: str, text: str, start: int, end: int) -> bool:
    """Whether a span is the family's own prompt wording, not another family's notation: the
    span with the token before or after it (``coefficients a``, ``x < t``) occurs in the
    family's own template (a few generated views: context, facts, domain, question). A
    letter on its own (``M[1][0] and c``) stays foreign."""
    span = text[start:end]
    if not _TOKENS.search(span) or re.search(r"[0-9]", span):
        return False
    template = _TEMPLATE.get(family)
    if template is None:
        template = _TEMPLATE[family] = _template_text(family)
    before = _TOKENS.findall(text[:start])[-1:]
    after = _TOKENS.findall(text[end:])[:1]
    core = _TOKENS.findall(span)
    for window in (before + core, core + after):
        if len(window) > len(core) and window[0] not in ("and", "or") and window[-1] not in ("and", "or") \
                and " " + " ".join(window) + " " in template:
            return True
    return False


def _template_text(family: str) -> str:
    """The token sequence of a few generated views of ``family``, one phrase per field."""
    from mira_math.generators import registry
    from mira_math.generators.build import make_instance

    try:
        fam = registry.get(family)
    except Exception:   # noqa: BLE001 - a family without a generator has no template
        return ""
    phrases = []
    for difficulty in (1, 2, 3):
        for seed in range(3):
            try:
                view = make_instance(fam, difficulty, 7919 * (seed + 1), id="template",
                                     seed_set="template", validate=False).view
            except Exception:   # noqa: BLE001 - a draw that fails adds nothing
                continue
            phrases += [_phrase(normalise(t)) for t in (view.context, view.domain, view.question)]
    return "|".join(phrases)
