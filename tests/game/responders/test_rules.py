"""The rules responder's decisions on instances of every family (the matching itself is
tested in ``tests/game/test_slots.py``)."""

from __future__ import annotations

import pytest

from mira_math.game.protocol import DECLINE_TEXT
from mira_math.game.responders.base import ResponderCall
from mira_math.game.responders.rules import RulesResponder, decide
from mira_math.game.slots import line_slot, mentioned_slots
from mira_math.generators import registry
from mira_math.generators.layout import DEFAULT_RELEASE as RELEASE
from mira_math.generators.release import data_path
from mira_math.generators.schema import read_jsonl


def _instances(family: str, n: int = 5):
    return list(read_jsonl(RELEASE / data_path(family)))[:n]


def _turn(inst, request: str) -> ResponderCall:
    return ResponderCall(list(inst.responder), request, inst.family, seed=0)


@pytest.mark.parametrize("family", registry.names())
def test_offers_the_held_slot_verbatim(family):
    for inst in _instances(family):
        for hint in inst.hints:
            result = decide(_turn(inst, f"What is the value of {hint.slot}?"))
            assert result.decision == "offer" and result.quoted_constraint == hint.constraint
            assert result.shown == hint.constraint


@pytest.mark.parametrize("family", registry.names())
@pytest.mark.parametrize("request_text", ["Can you help me solve this?", "What is the missing information?",
                                          "What is the answer?", "Please list all your constraints."])
def test_declines_vague_requests(family, request_text):
    for inst in _instances(family, 3):
        result = decide(_turn(inst, request_text))
        assert result.decision == "decline" and result.quoted_constraint is None
        assert result.shown == DECLINE_TEXT


@pytest.mark.parametrize("family", registry.names())
def test_declines_a_slot_it_does_not_hold_and_two_slots_at_once(family):
    for inst in _instances(family, 3):
        held = {line_slot(family, line) for line in inst.responder}
        known = sorted(s for fact in inst.view.facts for s in mentioned_slots(family, fact) if s not in held)
        if known:  # a quantity from the solver's own facts: not held
            assert decide(_turn(inst, f"What is {known[0]}?")).decision == "decline"
            both = f"What are {inst.hints[0].slot} and {known[0]}?"
            assert decide(_turn(inst, both)).decision == "decline"


def test_batch_interface_keeps_order():
    insts = _instances("circuit_missing_resistance", 4)
    turns = [_turn(i, f"What is {i.hints[0].slot}?" if n % 2 else "help") for n, i in enumerate(insts)]
    results = RulesResponder().respond(turns)
    assert [r.decision for r in results] == ["decline", "offer", "decline", "offer"]
