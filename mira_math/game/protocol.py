"""The interaction protocol as pure functions: parsing a solver message into one action, and
the dialogue state machine (docs/benchmark.md §6). No I/O, no model calls: the schedulers in
``eval.runner`` drive these functions, and the tests walk every path.

Action parsing scans lines with plain string operations (no backtracking regex), so it runs in
time linear in the message: ``benchmarks/bench_answers.py`` prints its worst case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import List, Literal, Optional, Tuple

PROTOCOL_VERSION = "1.1"
DECLINE_TEXT = "I do not have that information."

ActionKind = Literal["request", "answer", "format_error"]
ActionSource = Literal["marker", "fallback"]

# "REQUEST: ..." / "ANSWER: ..." at the start of a line, optionally bulleted, quoted or in bold.
# No two adjacent repetitions can match the same character, so a match attempt is linear in
# the line's leading run and the whole scan linear in the message.
_MARKER_RE = re.compile(r"^[ \t>*_#-]*(request|answer)[ \t*_]*[:\uff1a]", re.IGNORECASE | re.MULTILINE)
_EMPHASIS = ("**", "__")
# Display blocks an answer may open, with their closing delimiters.
_DISPLAYS = (("$$", "$$"), ("\\[", "\\]"))
_FINAL_RE = re.compile(r"final\s?answer", re.IGNORECASE)  # a literal: linear
_BOX_COMMANDS = ("\\boxed", "\\fbox")
_PROSE = ".,;:!?'\"()[]{}*_$`\u2019"
_MAX_BOX = 4000  # a box longer than the verifier reads (2,000 characters) is unbalanced


@dataclass(frozen=True)
class Action:
    kind: ActionKind
    text: str  # the request or the answer; empty for a format error
    source: Optional[ActionSource] = None  # "marker" (an action line), "fallback", None


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


def _content_from(lines: List[str], i: int, text: str) -> str:
    """An answer's text: ``text`` (what follows the marker on line ``i``), else the next
    non-empty line; a display block it opens reads through to its end."""
    if not text:
        i += 1
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i >= len(lines):
            return ""
        text = lines[i].strip()
    opener = _opener(text)
    if opener is not None:
        text, _ = _display_end(opener, lines, i, text)
    return text.strip().strip("*_").strip()


def parse_action(message: object) -> Action:
    """The last ``REQUEST:``/``ANSWER:`` line of a message counts, so a model may reason first.
    An ``ANSWER:`` with nothing after it on its line takes the next non-empty line; an answer
    that opens a display block (``$$``, ``\\[``, ``\\begin{...}``) reads through to its end.
    With no action line at all, a message whose last mathematical statement is a
    ``\\boxed{...}`` or a "final answer" phrase is an answer (source ``fallback``)."""
    if not isinstance(message, str):
        return Action("format_error", "")
    last = None
    for last in _MARKER_RE.finditer(message):
        pass
    if last is None:
        return _fallback(message)
    line_end = message.find("\n", last.end())
    line_end = len(message) if line_end < 0 else line_end
    kind, rest = last.group(1).lower(), _strip_emphasis(message[last.end():line_end])
    lines = message[last.start():].splitlines()
    i = 0
    if kind == "request":
        text = rest.strip().strip("*_").strip()
        if not text:
            rest_lines = [ln.strip() for ln in lines[i + 1:] if ln.strip()]
            text = rest_lines[0].strip("*_").strip() if rest_lines else ""
        return Action("request", text, "marker") if text else Action("format_error", "")
    text = _content_from(lines, i, rest)
    return Action("answer", text, "marker") if text else Action("format_error", "")


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
    rest = _strip_emphasis(message[at + length:end])
    if rest[:1] in (":", "\uff1a"):
        rest = _strip_emphasis(rest[1:])
    if rest.lower().startswith("is ") or rest.lower() == "is":
        rest = _strip_emphasis(rest[2:])
    if rest[:1] in (":", "\uff1a"):
        rest = _strip_emphasis(rest[1:])
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
    phrase = None
    for phrase in _FINAL_RE.finditer(message):
        pass
    if phrase is not None:
        text, end = _phrase_statement(message, phrase.start(), phrase.end() - phrase.start())
        if text:
            candidates.append((end, text))
    box_at = max(message.rfind(cmd) for cmd in _BOX_COMMANDS)
    if box_at >= 0:
        end = _box_end(message, box_at)
        if end < 0:
            return Action("format_error", "")
        start, _ = _line_bounds(message, box_at)
        start = _clause_start(message, start, box_at)
        _, stop = _line_bounds(message, end - 1)
        # a box opening its line may continue an expression from the line before it
        if start > 0 and not message[start:box_at].strip(" \t$\\[("):
            prev_start, _ = _line_bounds(message, start - 1)
            if _continues(message[prev_start:start - 1]):
                start = prev_start
        if _no_math_after(message[end:stop]):
            candidates.append((stop, message[start:stop].strip()))
        else:
            candidates.append((end, message[start:end].strip()))
    if not candidates:
        return Action("format_error", "")
    end, text = candidates[-1] if candidates[-1][0] >= candidates[0][0] else candidates[0]  # ties: the box
    if not text or not _no_math_after(message[end:]):
        return Action("format_error", "")
    return Action("answer", text, "fallback")


@dataclass(frozen=True)
class DialogueState:
    """Where an episode stands. ``final_turn``: the budget is spent and the solver has one
    last turn, in which only an answer counts."""

    budget: int
    requests_used: int = 0
    final_turn: bool = False
    done: bool = False
    answer: Optional[str] = None
    ended_by: Optional[str] = None   # "answer", "no_answer_in_final_turn", "zero_budget"

    @property
    def requests_left(self) -> int:
        return max(0, self.budget - self.requests_used)


def start(budget: int) -> DialogueState:
    """A fresh episode; with no budget at all (oracle-hint condition) the first turn is final."""
    return DialogueState(budget=budget, final_turn=budget <= 0)


def after_solver(state: DialogueState, action: Action) -> DialogueState:
    """Apply the solver's action. A request or a format error costs one request; once the
    budget is spent the next turn is the final one; any non-answer in the final turn ends
    the episode without an answer. The episode always ends within budget + 1 solver turns."""
    if state.done:
        raise ValueError("the episode has ended")
    if action.kind == "answer":
        return replace(state, done=True, answer=action.text, ended_by="answer")
    if state.final_turn:
        return replace(state, done=True, ended_by="no_answer_in_final_turn")
    used = state.requests_used + 1
    return replace(state, requests_used=used, final_turn=used >= state.budget)


def needs_responder(action: Action, before: DialogueState) -> bool:
    """Only a request made while requests remain goes to the responder."""
    return action.kind == "request" and not before.final_turn
