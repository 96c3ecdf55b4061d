"""The message reader: one solver message (and its reasoning, if any) into one action
(docs/benchmark.md §6). Pure functions, no I/O: the episode calls :func:`read_message`, the
facade and the scorers read answers through the same function.

Action parsing scans lines with plain string operations (no backtracking regex), so it runs in
time linear in the message: ``benchmarks/bench_answers.py`` prints its worst case.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Dict, List, Literal, Optional, Tuple

from mira_math.game.turns import STOP_SEQUENCES, cut_at_other_speaker, split_reasoning
from mira_math.verifiers.words import has_numeric_character, is_doubt, is_number_word

__all__ = ["STOP_SEQUENCES", "Action", "Reading", "cut_at_other_speaker", "parse_action", "read_message",
           "split_reasoning", "states_value"]

ActionKind = Literal["request", "answer", "format_error"]
ActionSource = Literal["marker", "fallback"]

# "REQUEST: ..." / "ANSWER: ..." at the start of a line, optionally bulleted, quoted or in bold.
# No two adjacent repetitions can match the same character, so a match attempt is linear in
# the line's leading run and the whole scan linear in the message.
# The leading run is taken whole ("(?=(run))(?P=run)": an atomic group), so a failed match never
# backtracks through it; an optional "Solver:"/"Assistant:" speaker prefix is tolerated.
_MARKER_RE = re.compile(r"^(?=(?P<lead>[ \t>*_#-]*))(?P=lead)(?:(?:solver|assistant)[ \t*_]*:[ \t*_]*)?"
                        r"(?:(?:<answer>[ \t*_]*)?(?P<kind>request|answer)[ \t*_]*[:\uff1a]|(?P<tag><answer>))",
                        re.IGNORECASE | re.MULTILINE)
_ANSWER_TAG_RE = re.compile(r"</?answer>", re.IGNORECASE)
_EMPHASIS = ("**", "__")
# Display blocks an answer may open, with their closing delimiters.
_DISPLAYS = (("$$", "$$"), ("\\[", "\\]"))
_FINAL_RE = re.compile(r"final\s?answer", re.IGNORECASE)  # a literal: linear
_BOX_COMMANDS = ("\\boxed", "\\fbox")
_PROSE = ".,;:!?'\"()[]{}*_$`\u2019"
_CONNECTORS = (":", "\uff1a", "=", "-", "\u2013", "\u2014")   # "final answer" + one of these, or "is"
# Words that make a final statement conditional, negated or not yet given: a message with
# one of them in the sentence that states the answer, or a question after it, asks.
_NOT_FINAL_WORDS = frozenset("""if were suppose supposing assume assuming assumed unless whether
until provided unknown""".split())
_MAX_BOX = 4000  # a box longer than the verifier reads (2,000 characters) is unbalanced


@dataclass(frozen=True)
class Action:
    kind: ActionKind
    text: str  # the request or the answer; empty for a format error
    source: Optional[ActionSource] = None  # "marker" (an action line), "fallback", None
    # a format error's own kind when it is not a missing action line: "empty" (no text),
    # "reasoning_only" (reasoning came back, no visible text)
    error: Optional[str] = None


def _last_match(pattern: "re.Pattern[str]", text: str) -> "Optional[re.Match[str]]":
    """The last non-overlapping match of ``pattern`` in ``text`` (None when there is none)."""
    last = None
    for last in pattern.finditer(text):  # noqa: B007  (the loop keeps the last one)
        pass
    return last


def _strip_emphasis(s: str) -> str:
    s = s.strip()
    for mark in _EMPHASIS:
        if s.startswith(mark):
            s = s[len(mark):].strip()
    return s


def _display_end(opener: str, lines: List[str], i: int, start: str) -> Tuple[str, int]:
    """The text from ``start`` (the opening line's content) through the closing delimiter
    of the display block it opens; an unclosed block reads to the end of the message."""
    if opener.startswith("\\begin{"):
        env = opener[len("\\begin{"):].split("}", 1)[0]
        closer = "\\end{" + env + "}"
    else:
        closer = dict(_DISPLAYS)[opener]
    first_close = start.find(closer, len(opener))
    if first_close >= 0:
        return start[:first_close + len(closer)], i
    parts = [start]
    j = i + 1
    while j < len(lines):
        parts.append(lines[j])
        pos = lines[j].find(closer)
        if pos >= 0:
            parts[-1] = lines[j][:pos + len(closer)]
            return "\n".join(parts), j
        j += 1
    return "\n".join(parts), j


def _opener(text: str) -> Optional[str]:
    for opener, _ in _DISPLAYS:
        if text.startswith(opener):
            return opener
    if text.startswith("\\begin{") and "}" in text:
        return text[:text.index("}") + 1]
    return None


def _content_from(lines: List[str], i: int, text: str) -> Tuple[str, int]:
    """An answer's text and the last line it takes: ``text`` (what follows the marker on
    line ``i``), else the next non-empty line, or the run of list items / ``name = value``
    lines there (one tuple component per line, joined by commas); a display block it opens
    reads through to its end, and an open bracket through to the line that closes it."""
    if not text:
        i += 1
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i >= len(lines):
            return "", i
        text = lines[i].strip()
        items = _component_lines(lines, i)
        if len(items) > 1:
            return ", ".join(items), i + len(items) - 1
    opener = _opener(text)
    if opener is not None:
        text, i = _display_end(opener, lines, i, text)
    else:
        text, i = _bracket_end(lines, i, text)
        items = _named_components(lines, i, text)
        if len(items) > 1:
            return ", ".join(items), i + len(items) - 1
    return text.strip().strip("*_").strip(), i


_COMPONENT_RE = re.compile(r"^[A-Za-z\\][A-Za-z0-9_{}\[\]()^',\\]{0,24}[ \t]*=[ \t]*[^=\s][^=]*$")


def _named_components(lines: List[str], i: int, text: str) -> List[str]:
    """``x = 3`` on the action line and ``y = -1``, ``z = -6`` on the lines right after it:
    one component per line, each a different name (a line that repeats the name restates)."""
    first = text.strip().strip("*_").strip()
    if not _COMPONENT_RE.match(first):
        return []
    items, names = [first], {first.split("=", 1)[0].strip()}
    j = i + 1
    while j < len(lines):
        item = (_bullet_free(lines[j]) or lines[j].strip()).strip("*_ ").rstrip(",;")
        name = item.split("=", 1)[0].strip()
        if not item or not _COMPONENT_RE.match(item) or name in names:
            break
        items.append(item)
        names.add(name)
        j += 1
    return items


def _bullet_free(line: str) -> Optional[str]:
    """A list item's content (``- x``, ``* x``, ``• x``, ``1. x``, ``1) x``), else None."""
    s = line.strip()
    if s[:1] in "-*\u2022\u2013\u2014" and s[1:2] in (" ", "\t"):
        return s[2:].strip()
    digits = len(s) - len(s.lstrip("0123456789"))
    if 0 < digits < 3 and s[digits:digits + 1] in (".", ")") and s[digits + 1:digits + 2] == " ":
        return s[digits + 2:].strip()
    return None


def _component_lines(lines: List[str], i: int) -> List[str]:
    """Consecutive list items or ``name = value`` lines from line ``i`` (bullets removed)."""
    items: List[str] = []
    while i < len(lines) and lines[i].strip():
        item = _bullet_free(lines[i])
        if item is None:
            item = lines[i].strip()
            if "=" not in item and ":" not in item:
                break
        items.append(item.strip("*_ "))
        i += 1
    return items if len(items) > 1 else []


def _depth(text: str) -> int:
    return text.count("(") + text.count("[") - text.count(")") - text.count("]")


def _bracket_end(lines: List[str], i: int, text: str) -> Tuple[str, int]:
    """A tuple whose bracket opens on line ``i`` and closes on a later line reads through
    to that line; a bracket that never closes is left as it is (the verifier rejects it)."""
    depth = _depth(text)
    if depth <= 0:
        return text, i
    parts, j = [text], i + 1
    while j < len(lines) and depth > 0:
        depth += _depth(lines[j])
        parts.append(lines[j].strip())
        j += 1
    if depth > 0:
        return text, i
    return "\n".join(parts), j - 1


def parse_action(message: object, reasoning: Optional[str] = None) -> Action:
    """The action of a solver message: :func:`read_message`'s, so every caller (the episode,
    the library's ``respond``/``extract_answer``/``verify``) reads a message the same way."""
    return read_message(message, reasoning).action


def _parse_visible(message: object) -> Action:
    """Rules 2 to 4 of the reading contract (docs/benchmark.md §6): the last action line
    counts; the answer is its content without wrappers, extended over a display block, an open
    bracket or component lines; later lines that state a value or a doubt are read with it (the
    verifier accepts a restatement of the same value and rejects anything else). With no
    action line, a closing ``\\boxed{...}`` or "final answer" statement is the answer
    (source ``fallback``)."""
    if not isinstance(message, str):
        return Action("format_error", "")
    last = _last_match(_MARKER_RE, message)
    if last is None:
        return _fallback(message)
    line_end = message.find("\n", last.end())
    line_end = len(message) if line_end < 0 else line_end
    kind = (last.group("kind") or "answer").lower()
    rest = _strip_emphasis(_drop_answer_tags(message[last.end():line_end]))
    lines = message[last.start():].splitlines()
    if kind == "request":
        text = rest.strip().strip("*_").strip()
        if not text:
            rest_lines = [ln.strip() for ln in lines[1:] if ln.strip()]
            text = rest_lines[0].strip("*_").strip() if rest_lines else ""
        return Action("request", text, "marker") if text else Action("format_error", "")
    text, last_line = _content_from(lines, 0, rest)
    text = _unwrap_answer(text)
    if not text:
        return Action("format_error", "")
    tail = lines[last_line + 1:]
    if last_line < len(lines) and text.count("\n") == 0:
        tail = [_after_content(lines[last_line], text)] + tail
    joined = "\n".join(tail)
    later = [ln.strip() for ln in tail if _states_or_doubts(ln)] if _states_or_doubts(joined) else []
    if later:                  # read with the answer: the same value restated, or unreadable
        text = text + "\n" + "\n".join(later)
    return Action("answer", text, "marker")


def _drop_answer_tags(text: str) -> str:
    return _ANSWER_TAG_RE.sub("", text) if "<" in text else text


def _unwrap_answer(text: str) -> str:
    """An answer without what models wrap around it: answer tags, emphasis, the format's
    placeholder brackets around the whole answer (``<1/4>``), and a JSON object of components
    (``{"x": 3, "y": -1}`` -> ``x = 3, y = -1``)."""
    text = _drop_answer_tags(text).strip().strip("*_").strip()
    if len(text) > 2 and text[0] == "<" and text[-1] == ">" and "<" not in text[1:-1] and ">" not in text[1:-1]:
        text = text[1:-1].strip()
    if text.startswith("{") and text.endswith("}") and '"' in text:
        try:
            obj = json.loads(text, parse_float=str, parse_int=str)
        except ValueError:
            return text
        if isinstance(obj, dict) and obj and all(isinstance(k, str) and isinstance(v, str) for k, v in obj.items()):
            return ", ".join(f"{k} = {v}" for k, v in obj.items())
    return text


def _states_or_doubts(line: str) -> bool:
    """Whether a line after the answer matters to it: it states a value, or holds a word of
    doubt, assumption or correction (rule 4 of the contract)."""
    if not line or line.isspace():
        return False
    return states_value(line) or _doubts(line)


def _after_content(line: str, text: str) -> str:
    """What a one-line answer's line holds after the answer text."""
    at = line.rfind(text)
    return line[at + len(text):] if at >= 0 else ""


# ---------------------------------------------------------------- one message, read once

_DIGIT_RE = re.compile(r"\d")
_WORD_RE = re.compile(r"[^\W\d_]+")


def states_value(text: str) -> bool:
    """Whether ``text`` states a value: a digit, a character Unicode gives a numeric value
    (``¾``, ``⁵⁄₄``), or a number word by rule (``a twelfth``, ``twenty-one``; one scan)."""
    if _DIGIT_RE.search(text) is not None or has_numeric_character(text):
        return True
    return any(is_number_word(m.group(0).lower()) for m in _WORD_RE.finditer(text))


@dataclass(frozen=True)
class Reading:
    """What a solver message is: its action, read from the visible text before any cut;
    the reasoning (inline blocks and the server's field), never read for an action; the
    visible text the conversation keeps; and where the message was cut."""

    action: Action
    visible: str
    reasoning: Optional[str] = None
    cut: Optional[Dict[str, object]] = None


def read_message(message: object, reasoning: Optional[str] = None) -> Reading:
    """The one classifier of a solver message (docs/benchmark.md §6): reasoning removed,
    the message cut where it speaks for another party, then its action. No visible text is
    a format error of kind ``empty`` (``reasoning_only`` when reasoning came back)."""
    text = message if isinstance(message, str) else ""
    visible, inline = split_reasoning(text)
    thoughts = [r for r in (reasoning, inline) if isinstance(r, str) and r.strip()]
    all_reasoning = "\n\n".join(thoughts) if thoughts else None
    own, cut = cut_at_other_speaker(visible)
    if not own.strip():
        kind = "reasoning_only" if all_reasoning else "empty"
        return Reading(Action("format_error", "", None, kind), own, all_reasoning, cut)
    return Reading(_parse_visible(own), own, all_reasoning, cut)


# ---------------------------------------------------------------- fallback without a marker

def _closer(opener: str) -> str:
    if opener.startswith("\\begin{"):
        return "\\end{" + opener[len("\\begin{"):]
    return dict(_DISPLAYS)[opener]


def _line_bounds(message: str, pos: int) -> Tuple[int, int]:
    start = message.rfind("\n", 0, pos) + 1
    end = message.find("\n", pos)
    return start, (len(message) if end < 0 else end)


def _box_end(message: str, start: int) -> int:
    """Index just past the brace group of the box command at ``start``; -1 if unbalanced."""
    i = start + 1
    while i < len(message) and message[i].isalpha():
        i += 1
    while i < len(message) and message[i] in " \t":
        i += 1
    if i >= len(message) or message[i] != "{":
        return -1
    depth, limit = 0, min(len(message), i + _MAX_BOX)
    while i < limit:
        if message[i] == "{":
            depth += 1
        elif message[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def _no_math_after(tail: str) -> bool:
    """Nothing mathematical follows: only words, spaces, closing delimiters and punctuation."""
    for closer in ("\\]", "\\)", "$$"):
        tail = tail.replace(closer, " ")
    return all(ch.isalpha() or ch.isspace() or ch in _PROSE for ch in tail)


def _clause_start(message: str, line_start: int, box_at: int) -> int:
    """Where the box's clause begins on its line: after the last ``, `` / ``. `` / ``; `` /
    ``: `` outside brackets ("Since P(E) = 0.4, we get \\boxed{1/4}" -> "we get ...");
    the whole line when the box sits inside an open group."""
    depth, i = 0, box_at - 1
    while i >= line_start:
        ch = message[i]
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            depth -= 1
            if depth < 0:
                return line_start
        elif depth == 0 and ch in ",.;:" and message[i + 1:i + 2] == " ":
            return i + 2
        i -= 1
    return line_start


def _continues(line: str) -> bool:
    """A line that ends inside an expression: an operator, an open group or a command."""
    s = line.rstrip()
    if not s or s.endswith("\\[") or s.endswith("$$"):
        return False
    word = s.rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    if word != s:
        return word.endswith("\\")
    return not (s[-1].isalnum() or s[-1] in ".,;:!?)]}'\"*_$`")


def _phrase_statement(message: str, at: int, length: int) -> Tuple[str, int]:
    """What a "final answer" phrase states, and where that statement ends: the rest of its
    line (after emphasis, ``:`` and ``is``), else the next non-empty line; a display block
    there reads through to its closing delimiter."""
    _, end = _line_bounds(message, at)
    rest = _strip_emphasis(message[at + length:end].lstrip("*_"))
    connected = not rest
    if rest[:1] in _CONNECTORS:
        rest, connected = _strip_emphasis(rest[1:]), True
    if rest.lower().startswith("is ") or rest.lower() == "is":
        rest, connected = _strip_emphasis(rest[2:]), True
    if rest[:1] in (":", "\uff1a"):
        rest = _strip_emphasis(rest[1:])
    if not connected:           # "the final answer depends on ...", "... a final answer yet"
        return "", end
    search_from = at
    while not rest:
        if end >= len(message):
            return "", len(message)
        start, end = _line_bounds(message, end + 1)
        rest, search_from = message[start:end].strip(), start
    opener = _opener(rest)
    if opener is None:
        return rest.strip("*_ "), end
    open_at = message.find(opener, search_from)
    close_at = message.find(_closer(opener), open_at + len(opener))
    if close_at < 0:
        return message[open_at:].strip(), len(message)
    stop = close_at + len(_closer(opener))
    return message[open_at:stop].strip(), stop


def _fallback(message: str) -> Action:
    """No action line: the last mathematical statement, if it is a ``\\boxed{...}`` (its
    line) or a "final answer" phrase (what it states), is the answer."""
    candidates: List[Tuple[int, str]] = []
    box_end = len(message)
    phrase = _last_match(_FINAL_RE, message)
    if phrase is not None:
        text, end = _phrase_statement(message, phrase.start(), phrase.end() - phrase.start())
        if text:
            candidates.append((end, text))
    box_at = max(message.rfind(cmd) for cmd in _BOX_COMMANDS)
    if box_at >= 0:
        end = _box_end(message, box_at)
        if end < 0:
            return Action("format_error", "")
        line_start, _ = _line_bounds(message, box_at)
        start = _clause_start(message, line_start, box_at)
        _, stop = _line_bounds(message, end - 1)
        # a box opening its line may continue an expression from the line before it
        if start > 0 and start == line_start and not message[start:box_at].strip(" \t$\\[("):
            prev_start, _ = _line_bounds(message, start - 1)
            if _continues(message[prev_start:start - 1]):
                start = prev_start
        if not _part_of_expression(message[start:box_at]) and not _doubts(message[start:box_at]):
            start = box_at          # "..., the number of values is \\boxed{5}.": the box is the answer
        box_end = end
        if _no_math_after(message[end:stop]):
            # closing words ("\\boxed{28} meters.") are not the answer, unless they doubt it
            keep = stop if start < box_at or _doubts(message[end:stop]) else end
            candidates.append((stop, message[start:keep].strip()))
        else:
            candidates.append((end, message[start:end].strip()))
    if not candidates:
        return Action("format_error", "")
    end, text = candidates[-1] if candidates[-1][0] >= candidates[0][0] else candidates[0]  # ties: the box
    if not text or not _no_math_after(message[end:]) or states_value(message[end:]):
        return Action("format_error", "")
    asks_after = "?" in message[end:] or (text.count("\\boxed") + text.count("\\fbox") > 0
                                          and "?" in message[box_end:end])
    if asks_after or not _unconditional(message, end, text):
        return Action("format_error", "")
    return Action("answer", text, "fallback")


_EXPRESSION_END = re.compile(r"(?:[-+*/^_.0-9|({\[]|\\(?:cdot|times|div|frac|sqrt|pm|mp|left))$")


def _part_of_expression(prefix: str) -> bool:
    """Whether the text before a box makes the box part of an expression (``2 + \\boxed{3}``)."""
    return _EXPRESSION_END.search(prefix.rstrip(" \t$").rstrip("\\([").rstrip()) is not None


def _doubts(text: str) -> bool:
    """Whether text doubts a value stated beside it (``probably``, ``I think``, ``a guess``)."""
    return any(is_doubt(m.group(0).lower()) for m in _WORD_RE.finditer(text))


def _unconditional(message: str, end: int, text: str) -> bool:
    """The statement's sentence (from the last sentence end before it) and what follows it
    hold no conditional, negation or "still missing" word."""
    start = message.rfind(text, 0, end)
    start = max(0, start)
    sentence_start = max(message.rfind(". ", 0, start), message.rfind("\n", 0, start),
                         message.rfind("? ", 0, start), message.rfind("! ", 0, start))
    around = message[sentence_start + 1:start] + " " + message[end:]
    words = {w.lower() for w in re.findall(r"[A-Za-z']+", around)}
    return not (words & _NOT_FINAL_WORDS) and not _doubts(around)
