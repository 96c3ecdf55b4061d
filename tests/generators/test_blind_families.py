"""Every blind-tier family, on a small split of its own seed set: each row's proofs redo from
the record, the kinds follow the plan, the view names every held quantity, the stated domain
never depends on what is withheld, and the rules responder offers each held line to a plain
request for its slot and declines a request for the target."""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import lru_cache
from typing import List

import pytest

from mira_math.game.responders.base import ResponderCall
from mira_math.game.responders.rules import decide
from mira_math.generators import registry
from mira_math.generators.blind.build import PLAN, build_blind_split, plan_of
from mira_math.generators.blind.validate import prove_instance
from mira_math.generators.schema import Instance, instance_from_dict
from mira_math.generators.seeds import SeedSet

PER_TYPE = {"A": 6, "B": 6}


@lru_cache(maxsize=None)
def rows(family: str) -> List[Instance]:
    return list(build_blind_split(SeedSet.named("blind-family-test"), PER_TYPE, families=[family]))


@pytest.fixture(params=registry.BLIND)
def family(request) -> str:
    return request.param


def test_every_proof_redoes_from_the_record(family):
    blind = registry.get_blind(family)
    for inst in rows(family):
        back = instance_from_dict(json.loads(inst.to_json_line()))
        assert back == inst
        problems, counts = prove_instance(back, blind)
        assert problems == [], (inst.id, problems)
        assert counts.second_completions == len(inst.gaps.needed)
        assert counts.enumerations + counts.degree_proofs == len(inst.gaps.irrelevant)


def test_kinds_follow_the_plan(family):
    blind = registry.get_blind(family)
    by_kind = Counter()
    for inst in rows(family):
        index = int(inst.id.rsplit("-", 1)[1]) % PER_TYPE[blind.type]
        kind, k, irrelevant = plan_of(blind, index)
        assert (inst.gaps.kind, len(inst.gaps.needed), len(inst.gaps.irrelevant)) == (kind, k, irrelevant)
        assert inst.k == k and inst.budget == 3
        by_kind[kind] += 1
    assert set(by_kind) == {kind for kind, _, _ in PLAN}


def test_a_tampered_proof_or_view_fails(family):
    blind = registry.get_blind(family)
    inst = next(i for i in rows(family) if i.gaps.irrelevant)
    raw = json.loads(inst.to_json_line())
    raw["gaps"]["proofs"][-1]["answers"][0] = "12345/7"
    assert prove_instance(instance_from_dict(raw), blind)[0]
    raw = json.loads(inst.to_json_line())
    raw["view"]["facts"] = raw["view"]["facts"][:-1]
    assert prove_instance(instance_from_dict(raw), blind)[0]


def _view_text(inst: Instance) -> str:
    v = inst.view
    return "\n".join([v.context, *v.facts, v.question, v.domain])


def test_every_held_quantity_is_named_in_the_view(family):
    for inst in rows(family):
        text = _view_text(inst)
        for hint in inst.hints:
            assert hint.slot in text or _named_by_range(hint.slot, text), (inst.id, hint.slot)


def _named_by_range(slot: str, text: str) -> bool:
    """``R4`` is named by ``R1, ..., R5`` (a range of the same letter); ``A[2][0]`` by the
    indexed notation ``A[r][c]`` the setup paragraph defines."""
    template = re.sub(r"\d+", "[a-z]", re.escape(slot))
    if template != re.escape(slot) and re.search(template, text):
        return True
    m = re.fullmatch(r"([A-Za-z_]+)(\d+)", slot)
    if not m:
        return False
    ranges = re.findall(rf"{re.escape(m.group(1))}(\d+), \.\.\., {re.escape(m.group(1))}(\d+)", text)
    return any(int(a) <= int(m.group(2)) <= int(b) for a, b in ranges)


def test_the_stated_domain_does_not_depend_on_what_is_withheld(family):
    blind = registry.get_blind(family)
    for inst in rows(family):
        latent = inst.latent_state()
        setting = blind.setting(latent)
        assert (inst.view.context, inst.view.domain) == (setting.context, setting.domain)
        for hint in inst.hints:     # the withheld slot's name is no more in the domain than another's
            assert inst.view.domain.count(hint.slot) <= min(
                (inst.view.domain.count(s) for s in blind.slots(latent)), default=0), (inst.id, hint.slot)


def test_the_rules_responder_offers_each_held_line_and_declines_the_target(family):
    for inst in rows(family):
        for hint in inst.hints:
            call = ResponderCall(list(inst.responder), f"What is the value of {hint.slot}?",
                                 inst.family, 0, inst.view.question)
            result = decide(call)
            assert (result.decision, result.quoted_constraint) == ("offer", hint.constraint), \
                (inst.id, hint.slot, result)
        asked = ResponderCall(list(inst.responder), inst.view.question, inst.family, 0, inst.view.question)
        assert decide(asked).decision == "decline", inst.id


def test_answers_respect_the_cap(family):
    blind = registry.get_blind(family)
    cap = max(1, int(blind.max_answer_share * PER_TYPE[blind.type]))
    counts = Counter((i.difficulty, i.answer.value) for i in rows(family))
    assert max(counts.values()) <= cap
