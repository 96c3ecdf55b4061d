"""Hand-corrupted instances fail ``validate`` and name the property they break."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from mira_math.generators import registry
from mira_math.generators.build import make_instance
from mira_math.generators.schema import Hint
from mira_math.generators.validate import validate_instance
from mira_math.verifiers.exact import canonical, from_canonical


def _bayes():
    return make_instance(registry.get("bayes_missing_prior"), 2, 11, id="bay-000020", seed_set="t")


def _properties(inst):
    return {f.property for f in validate_instance(inst, registry.get(inst.family))}


def test_clean_instance_passes():
    assert _properties(_bayes()) == set()


def test_wrong_answer_fails_global_uniqueness():
    inst = _bayes()
    value = from_canonical("fraction", inst.answer.value)
    bad = replace(inst, answer=replace(inst.answer, value=canonical("fraction", value / 2)))
    assert "global_uniqueness" in _properties(bad)


def test_hint_that_does_not_suffice_fails_hint_sufficiency():
    inst = _bayes()
    h = inst.hints[0]
    other = "1/3" if h.value != "1/3" else "1/4"
    bad = replace(inst, hints=[Hint(h.slot, f"P(H) = {other}", other)],
                  responder=[f"P(H) = {other}"])
    assert "hint_sufficiency" in _properties(bad)


def test_view_that_already_determines_the_answer_fails_underdetermination():
    inst = _bayes()
    bad = replace(inst, view=replace(inst.view, facts=inst.view.facts + [inst.hints[0].constraint]))
    assert "local_underdetermination" in _properties(bad)


def test_unreadable_latent_is_a_finding_not_a_crash():
    inst = _bayes()
    bad = replace(inst, latent=json.dumps({"level": 2}))
    assert _properties(bad) == {"schema"}


@pytest.mark.parametrize("name", registry.names())
def test_every_family_rejects_a_wrong_answer_and_a_changed_fact(name):
    family = registry.get(name)
    inst = make_instance(family, 2, 3, id="x-000000", seed_set="t")
    value = from_canonical(inst.answer.type, inst.answer.value)
    if inst.answer.type == "tuple":
        wrong = canonical("tuple", (value[0] + 1,) + tuple(value[1:]))
    elif inst.answer.type == "cell":
        wrong = canonical("cell", 1 - value)
    else:
        wrong = canonical(inst.answer.type, value + 1)
    assert "global_uniqueness" in _properties(replace(inst, answer=replace(inst.answer, value=wrong)))
    changed = replace(inst, view=replace(inst.view, facts=inst.view.facts[:-1] + ["x = 0"]))
    assert {"consistency", "local_underdetermination"} <= _properties(changed)
