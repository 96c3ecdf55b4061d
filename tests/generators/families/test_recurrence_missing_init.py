"""recurrence_missing_init: rule and a(0) shown; the responder repeats the rule and holds a(1)."""

from __future__ import annotations

from dataclasses import replace

from mira_math.generators import registry
from mira_math.generators.build import assemble_instance, make_instance
from mira_math.generators.schema import decode_latent, encode_latent
from mira_math.generators.validate import failed_properties

FAMILY = registry.get("recurrence_missing_init")

# The reference release's rec-000602: a(n) = a(n-1) - 2a(n-2), a(0) = -4, a(1) = 1, a(8) = 53.
# By hand: -4, 1, 9, 7, -11, -25, -3, 47, 53.
REFERENCE = {"level": 1, "r1": 1, "r2": -2, "a0": -4, "a1": 1, "n": 8}


def _record(latent):
    d = latent["level"]
    return assemble_instance(FAMILY, d, d, 0, decode_latent(encode_latent(latent)), id="rec-000000",
                     seed_set="t")



def test_reference_instance():
    inst = _record(REFERENCE)
    assert inst.answer.value == "53"
    assert inst.view.facts == ["a(n) = 1·a(n-1) - 2·a(n-2) for n ≥ 2", "a(0) = -4"]
    assert inst.view.question.startswith("What is a(8)?")
    assert inst.responder == ["a(n) = 1·a(n-1) - 2·a(n-2) for n ≥ 2", "a(1) = 1"]
    assert [(h.slot, h.constraint, h.value) for h in inst.hints] == [("a(1)", "a(1) = 1", "1")]
    assert failed_properties(inst) == set()


def test_rule_line_is_a_noncanonical_repeat_and_zero_r2_is_written_out():
    inst = _record({**REFERENCE, "r2": 0, "n": 5})  # a(n) = a(n-1): a(5) = a(1)
    assert inst.responder[0] == inst.view.facts[0] == "a(n) = 1·a(n-1) + 0·a(n-2) for n ≥ 2"
    assert inst.hints[0].constraint == inst.responder[1] not in inst.view.facts
    assert inst.answer.value == "1"


def test_witness_changes_only_a1_and_the_answer():
    alt = FAMILY.witness(REFERENCE)
    assert {**alt, "a1": 0} == {**REFERENCE, "a1": 0}
    assert alt["a1"] != 1 and FAMILY.check(alt) is None and FAMILY.solve(alt) != 53


def test_target_independent_of_a1_is_rejected():
    # r1 = 1, r2 = -1 has period 6: the coefficient of a(1) in a(6) is 0.
    bad = {"level": 1, "r1": 1, "r2": -1, "a0": 2, "a1": 3, "n": 6}
    assert "does not depend on a(1)" in FAMILY.check(bad)
    inst = _record(REFERENCE)
    assert "global_uniqueness" in failed_properties(replace(inst, latent=encode_latent(bad)))


def test_generated_ranges_follow_the_spec():
    for d in (1, 2, 3):
        for seed in range(60):
            lat = make_instance(FAMILY, d, seed, id="x", seed_set="t").latent_state()
            assert 1 <= lat["r1"] <= 3 + d and 4 <= lat["n"] <= 7 + d
            assert all(-3 - d <= lat[k] <= 3 + d for k in ("r2", "a0", "a1"))


def test_out_of_range_a0_fails_global_uniqueness():
    bad = {**REFERENCE, "a0": 9}
    inst = _record(REFERENCE)
    assert "global_uniqueness" in failed_properties(replace(inst, latent=encode_latent(bad)))
