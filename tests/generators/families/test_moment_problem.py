from __future__ import annotations

from dataclasses import replace

import pytest

from mira_math.generators.build import assemble_instance, make_instance
from mira_math.generators.families.moment_problem import FAMILY
from mira_math.generators.schema import Hint, encode_latent
from mira_math.generators.validate import failed_properties
from mira_math.verifiers import verify


def _instance(latent: dict, d: int):
    """An instance record of ``latent``, every stored field rendered from it."""
    return assemble_instance(FAMILY, d, FAMILY.level(d), 1, latent, id="t-000000", seed_set="t")



def test_paper_worked_example():
    latent = {"level": 3, "D": 12, "q": [10, 1, 1]}
    assert FAMILY.check(latent) is None
    r = FAMILY.render(latent)
    assert r.facts == ["q0 + q1 + q2 = 12", "q1 + 2q2 = 3"]
    assert r.responder == ["q0 + q1 + q2 = 12", "q1 + 4q2 = 5"]
    assert r.hints == [Hint("q1 + 4q2", "q1 + 4q2 = 5", "5")]
    assert FAMILY.solve(latent) == (10, 1, 1)
    assert FAMILY.solve(FAMILY.complete(FAMILY.known(latent), r.hints[0])) == (10, 1, 1)
    assert FAMILY.candidates(FAMILY.known(latent)) == {(9, 3, 0), (10, 1, 1)}
    inst = _instance(latent, 3)
    assert failed_properties(inst) == set()
    assert inst.answer.value == "(10, 1, 1)" and inst.candidate_answers == 2
    assert verify(inst, "(10, 1, 1)").correct
    assert verify(inst, "q0 = 10, q1 = 1, q2 = 1").correct
    assert not verify(inst, "(9, 3, 0)").correct


def test_hand_checked_instance():
    # D = 8, q1 + 2q2 = 7: q2 in 0..3 gives (1,7,0), (2,5,1), (3,3,2), (4,1,3);
    # q1 + 4q2 = 13 picks q2 = (13 - 7)/2 = 3.
    latent = {"level": 1, "D": 8, "q": [4, 1, 3]}
    assert FAMILY.candidates(FAMILY.known(latent)) == {(1, 7, 0), (2, 5, 1), (3, 3, 2), (4, 1, 3)}
    assert FAMILY.render(latent).hints[0].value == "13"
    assert _instance(latent, 1).candidate_answers == 4


def test_sum_repeat_is_noncanonical_and_second_moment_is_canonical():
    for d in (1, 2, 3):
        totals = set()
        for seed in range(60):
            inst = make_instance(FAMILY, d, seed, id="m", seed_set="t")
            total = inst.latent_state()["D"]
            assert 6 + 2 * d <= total <= 12 + 2 * d
            totals.add(total)
            assert inst.view.facts[0] == inst.responder[0] == f"q0 + q1 + q2 = {total}"
            assert [h.constraint for h in inst.hints] == [inst.responder[1]]
            assert inst.responder[1] == f"q1 + 4q2 = {inst.hints[0].value}"
            assert inst.responder[1] not in inst.view.facts
            q = inst.latent_state()["q"]
            assert sum(q) == total and min(q) >= 0
        assert len(totals) >= 5  # D really varies over its range


def test_enough_distinct_views_per_level():
    # The view is (D, m1); for each D, m1 in [2, 2D - 2] leaves at least two weight vectors,
    # 2D - 3 views. With D in [6+2d, 12+2d] that is 133, 161 and 189 views (the originally specified fixed
    # D = 6+2d gave 13, 17 and 21: too few for the release and its held-out splits).
    for d, expected in ((1, 133), (2, 161), (3, 189)):
        views = set()
        for total in range(6 + 2 * d, 13 + 2 * d):
            for q2 in range(total + 1):
                for q1 in range(total + 1 - q2):
                    latent = {"level": d, "D": total, "q": [total - q1 - q2, q1, q2]}
                    if FAMILY.check(latent) is None:
                        views.add(tuple(FAMILY.render(latent).facts))
        assert len(views) == expected


def test_views_the_sum_and_first_moment_already_fix_are_rejected():
    assert "already fix" in FAMILY.check({"level": 1, "D": 8, "q": [8, 0, 0]})  # m1 = 0
    assert "already fix" in FAMILY.check({"level": 1, "D": 8, "q": [0, 0, 8]})  # m1 = 16


def test_wrong_denominator_or_sum_is_rejected():
    assert "[10, 16]" in FAMILY.check({"level": 2, "D": 8, "q": [6, 1, 1]})
    assert "[10, 16]" in FAMILY.check({"level": 2, "D": 17, "q": [15, 1, 1]})
    assert FAMILY.check({"level": 2, "D": 12, "q": [10, 1, 1]}) is None
    assert FAMILY.check({"level": 2, "D": 16, "q": [14, 1, 1]}) is None
    assert "sum to" in FAMILY.check({"level": 3, "D": 12, "q": [10, 1, 2]})


def test_inconsistent_hint_cannot_complete():
    known = FAMILY.known({"level": 3, "D": 12, "q": [10, 1, 1]})
    with pytest.raises(ValueError):
        FAMILY.complete(known, Hint("q1 + 4q2", "q1 + 4q2 = 6", "6"))  # odd difference
    with pytest.raises(ValueError):
        FAMILY.complete(known, Hint("q1 + 4q2", "q1 + 4q2 = 45", "45"))  # q1 < 0


def test_corrupted_latent_fails_validation():
    inst = _instance({"level": 3, "D": 12, "q": [10, 1, 1]}, 3)
    bad = replace(inst, latent=encode_latent({"level": 3, "D": 12, "q": [9, 1, 2]}))
    assert "global_uniqueness" in failed_properties(bad)
    wrong_hint = replace(inst, hints=[Hint("q1 + 4q2", "q1 + 4q2 = 7", "7")])
    assert "hint_sufficiency" in failed_properties(wrong_hint)
