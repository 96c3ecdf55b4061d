"""The LLM responder holding several facts (a k = 2 instance): one line per offer."""

from __future__ import annotations

import json

import pytest

from mira_math.eval.backends.base import Completion
from mira_math.eval.llm_responder import SYSTEM_PROMPT, build_conversation, postvalidate
from mira_math.game.responders.base import ResponderCall
from mira_math.generators.layout import DEFAULT_RELEASE, multi_hint_path
from mira_math.generators.schema import read_jsonl

INST = next(iter(read_jsonl(DEFAULT_RELEASE / multi_hint_path("crt_reconstruction"))))
A, B = INST.responder


def _reply(quote: str, type_: str = "offer", match: bool = True) -> Completion:
    text = json.dumps({"type": type_, "has_exact_match": match, "quoted_constraint": quote, "hint": ""})
    return Completion(text=text, finish_reason="stop")


def test_the_prompt_lists_every_held_line_and_asks_for_one_at_a_time():
    conv = build_conversation(ResponderCall(list(INST.responder), "What is congruence 3?",
                                            INST.family, 1))
    assert A in conv[1]["content"] and B in conv[1]["content"]
    assert "not several constraints at once" in SYSTEM_PROMPT


@pytest.mark.parametrize("line", [A, B])
def test_either_held_line_is_offered_verbatim(line):
    got = postvalidate(INST.responder, _reply(line))
    assert (got.decision, got.quoted_constraint) == ("offer", line)


@pytest.mark.parametrize("quote", [f"{A}\n{B}", f"{A}; {B}", f"{A} and {B}"])
def test_two_lines_in_one_offer_are_declined(quote):
    got = postvalidate(INST.responder, _reply(quote))
    assert got.decision == "decline" and got.quoted_constraint is None
