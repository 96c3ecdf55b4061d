"""The interaction protocol as pure functions: parsing a solver message into one action, and
the dialogue state machine (SPEC §6). No I/O, no model calls: the schedulers in
``eval.runner`` drive these functions, and the tests walk every path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal, Optional

PROTOCOL_VERSION = "1.0"
DECLINE_TEXT = "I do not have that information."

ActionKind = Literal["request", "answer", "format_error"]

# "REQUEST: ..." / "ANSWER: ..." at the start of a line, optionally bulleted or in bold.
_ACTION_RE = re.compile(
    r"^[ \t>*_#-]*(?:\*\*|__)?\s*(REQUEST|ANSWER)\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?(.*)$",
    re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class Action:
    kind: ActionKind
    text: str  # the request or the answer; empty for a format error


def parse_action(message: object) -> Action:
    """The last ``REQUEST:``/``ANSWER:`` line of a message counts, so a model may reason first.
    An ``ANSWER:`` with nothing after it on its line takes the next non-empty line."""
    if not isinstance(message, str):
        return Action("format_error", "")
    matches = list(_ACTION_RE.finditer(message))
    if not matches:
        return Action("format_error", "")
    last = matches[-1]
    kind, text = last.group(1).lower(), last.group(2).strip()
    if not text:
        rest = [line.strip() for line in message[last.end():].splitlines() if line.strip()]
        text = rest[0] if rest else ""
    text = text.strip().strip("*_").strip()
    if not text:
        return Action("format_error", "")
    return Action("request" if kind == "request" else "answer", text)


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
