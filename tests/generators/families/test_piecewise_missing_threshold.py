from __future__ import annotations

from dataclasses import replace

from mira_math.generators.build import assemble_instance, make_instance
from mira_math.generators.families.piecewise_missing_threshold import FAMILY, _branch
from mira_math.generators.schema import Hint, encode_latent
from mira_math.generators.validate import failed_properties
from mira_math.verifiers import verify


def _instance(latent: dict, d: int):
    """An instance record of ``latent``, every stored field rendered from it."""
    return assemble_instance(FAMILY, d, FAMILY.level(d), 1, latent, id="t-000000", seed_set="t")



HAND = {"level": 1, "m": [-3, -1], "c": [6, -3], "x": -6, "t": -4}


def test_hand_checked_instance():
    # x = -6 < t = -4: the lower branch, -3·(-6) + 6 = 24; the upper one would give 6 - 3 = 3.
    assert FAMILY.check(HAND) is None
    r = FAMILY.render(HAND)
    assert r.facts == ["f(x) = -3x + 6 for x < t", "f(x) = -x - 3 for x ≥ t",
                       "query point: x = -6"]
    assert r.question == "What is f(-6)?"
    assert r.domain == "t is an integer with -8 ≤ t ≤ 8."
    assert r.responder == ["query point: x = -6", "t = -4"]
    assert r.hints == [Hint("t", "t = -4", "-4")]
    assert FAMILY.solve(HAND) == 24
    assert FAMILY.candidates(FAMILY.known(HAND)) == {24, 3}
    inst = _instance(HAND, 1)
    assert failed_properties(inst) == set() and inst.candidate_answers == 2
    assert verify(inst, "f(-6) = 24").correct and not verify(inst, "3").correct


def test_threshold_at_the_query_point_takes_the_upper_branch():
    assert FAMILY.solve({**HAND, "t": -6}) == 3
    assert FAMILY.solve({**HAND, "t": -5}) == 24


def test_query_repeat_is_noncanonical_and_threshold_is_canonical():
    for d in (1, 2, 3):
        for seed in range(20):
            inst = make_instance(FAMILY, d, seed, id="p", seed_set="t")
            assert inst.responder[0] == inst.view.facts[2]
            assert [h.constraint for h in inst.hints] == [inst.responder[1]]
            assert inst.responder[1] == f"t = {inst.hints[0].value}"
            latent = inst.latent_state()
            assert max(abs(v) for v in latent["m"]) <= 2 + d
            assert max(abs(v) for v in latent["c"] + [latent["x"], latent["t"]]) <= 5 + 3 * d


def test_branch_formulas_render_in_one_style():
    assert [_branch(m, c) for m, c in [(2, -1), (-1, 1), (1, 0), (0, -5), (0, 0), (-4, 7)]] == [
        "2x - 1", "-x + 1", "x", "-5", "0", "-4x + 7"]


def test_degenerate_states_are_rejected():
    assert "agree" in FAMILY.check({**HAND, "m": [1, 1], "c": [2, 2]})
    # at x = -2, f = x and f = -x - 4 both give -2: crossing branches agree there
    assert "agree" in FAMILY.check({**HAND, "m": [1, -1], "c": [0, -4], "x": -2})
    # at x = 8 (top of the d=1 range) no t in range exceeds x: only the upper branch is possible
    assert "forced" in FAMILY.check({**HAND, "x": 8, "t": 8})
    assert "outside" in FAMILY.check({**HAND, "m": [-4, -1]})


def test_corrupted_latent_fails_validation():
    inst = _instance(HAND, 1)
    moved = replace(inst, latent=encode_latent({**HAND, "t": -7}))  # now the upper branch applies
    assert "global_uniqueness" in failed_properties(moved)
    wrong_hint = replace(inst, hints=[Hint("t", "t = -8", "-8")])
    assert "hint_sufficiency" in failed_properties(wrong_hint)
