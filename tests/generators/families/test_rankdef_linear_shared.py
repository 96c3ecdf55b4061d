"""rankdef_linear_shared: two shown equations of rank 2, two held ones, either canonical."""

from __future__ import annotations

from dataclasses import replace

from mira_math.generators import registry
from mira_math.generators.build import assemble_instance, make_instance
from mira_math.generators.schema import Hint, decode_latent, encode_latent
from mira_math.generators.validate import failed_properties

FAMILY = registry.get("rankdef_linear_shared")

# Solved by hand: (x, y, z) = (1, 2, 3).  eq1 × eq2 = (3, -1, -2); its dot products with eq3
# and eq4 are 7 and -5, so each held equation makes the system full rank.
HAND = {"level": 1, "solution": [1, 2, 3], "eq1": [1, 1, 1], "eq2": [1, -1, 2],
        "held": {"eq3": [2, 1, -1], "eq4": [1, 2, 3]}}


def _record(latent, d=1):
    return assemble_instance(FAMILY, d, d, 0, decode_latent(encode_latent(latent)), id="ran-000000",
                     seed_set="t")



def test_hand_instance_renders_and_validates():
    inst = _record(HAND)
    assert inst.view.facts == ["eq1: x + y + z = 6", "eq2: x - y + 2z = 5"]
    assert inst.responder == ["eq3: 2x + y - z = 1", "eq4: x + 2y + 3z = 14"]
    assert inst.answer.value == "(1, 2, 3)" and inst.answer.components == ["x", "y", "z"]
    assert [h.slot for h in inst.hints] == ["eq3", "eq4"]
    assert [h.constraint for h in inst.hints] == inst.responder
    assert failed_properties(inst) == set()


def test_either_held_equation_alone_fixes_the_solution():
    known = FAMILY.known(HAND)
    for hint in _record(HAND).hints:
        full = FAMILY.complete(known, hint)
        assert FAMILY.solve(full) == (1, 2, 3)
        assert list(full["held"]) == [hint.slot]  # the other equation is not invented


def test_witness_is_the_next_integer_point_on_the_solution_line():
    alt = FAMILY.witness(HAND)
    assert alt["solution"] == [4, 1, 1]
    assert FAMILY.render(alt).facts == FAMILY.render(HAND).facts
    assert FAMILY.check(alt) is None


def test_generated_instances_follow_the_spec():
    for d in (1, 2, 3):
        for seed in range(40):
            inst = make_instance(FAMILY, d, seed, id="x", seed_set="t")
            latent = inst.latent_state()
            rows = [latent["eq1"], latent["eq2"], latent["held"]["eq3"], latent["held"]["eq4"]]
            assert all(1 <= abs(a) <= 3 + d for row in rows for a in row)
            assert all(abs(v) <= 5 + d for v in latent["solution"])
            assert len(inst.hints) == 2
            assert set(inst.responder) == {h.constraint for h in inst.hints}
            assert not set(inst.responder) & set(inst.view.facts)


def test_a_held_equation_in_the_span_of_the_shown_ones_fails_global_uniqueness():
    bad = {**HAND, "held": {"eq3": [2, 0, 3], "eq4": [1, 2, 3]}}  # eq3 = eq1 + eq2
    assert FAMILY.check(bad) is not None
    inst = _record(HAND)
    assert "global_uniqueness" in failed_properties(replace(inst, latent=encode_latent(bad)))


def test_a_zero_coefficient_fails_global_uniqueness():
    bad = {**HAND, "eq1": [1, 0, 1]}
    assert "global_uniqueness" in failed_properties(replace(_record(HAND), latent=encode_latent(bad)))


def test_a_wrong_held_equation_fails_hint_sufficiency():
    inst = _record(HAND)
    wrong = Hint("eq3", "eq3: 2x + y - z = 2", "2x + y - z = 2")
    bad = replace(inst, hints=[wrong, inst.hints[1]],
                  responder=[wrong.constraint, inst.responder[1]])
    assert "hint_sufficiency" in failed_properties(bad)
