"""The dialogue state machine (docs/benchmark.md §6): what a solver's action does to an
episode's budget and whether the episode ends. Pure functions; the reader that turns a message
into an :class:`~mira_math.game.reading.Action` is :mod:`mira_math.game.reading`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

from mira_math.game.reading import Action

PROTOCOL_VERSION = "1.2"
DECLINE_TEXT = "I do not have that information."


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
