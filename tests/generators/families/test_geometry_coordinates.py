"""geometry_coordinates: varied integer distances, line 2 the only canonical hint, Q repeated."""

from __future__ import annotations

import dataclasses
from collections import Counter

from mira_math.generators.build import assemble_instance, make_instance
from mira_math.generators.families.geometry_coordinates import FAMILY
from mira_math.generators.schema import Hint, encode_latent
from mira_math.generators.validate import validate_instance


def test_reference_example_solved_by_hand():
    # -4x + 4y = 4 gives y = x + 1; -3x - 4(x + 1) = -18 gives x = 2: P = (2, 3),
    # Q - P = (5, 12), |PQ| = 13.
    latent = {"level": 1, "P": [2, 3], "Q": [7, 15], "line1": [-4, 4, 4], "line2": [-3, -4, -18]}
    assert FAMILY.check(latent) is None
    r = FAMILY.render(latent)
    assert r.facts == ["line 1: -4x + 4y = 4", "Q = (7, 15)"]
    assert r.responder == ["line 2: -3x - 4y = -18", "Q = (7, 15)"]
    assert r.hints == [Hint("line 2", "line 2: -3x - 4y = -18", "-3x - 4y = -18")]
    assert FAMILY.solve(latent) == 13
    assert FAMILY.complete(FAMILY.known(latent), r.hints[0]) == latent
    # Lattice points of y = x + 1 in the box |x|, |y| <= 5 at integer distance from Q:
    # (2, 3) at 13 and (-1, 0) at 17 (8² + 15² = 289); no others.
    assert FAMILY.candidates(FAMILY.known(latent)) == {13, 17}


def test_q_is_repeated_but_only_line_2_is_canonical():
    for d in (1, 2, 3):
        for seed in range(30):
            inst = make_instance(FAMILY, d, seed, id="geo-test", seed_set="test")
            q_line = inst.view.facts[1]
            assert q_line.startswith("Q = ") and q_line in inst.responder
            assert [h.slot for h in inst.hints] == ["line 2"]
            assert inst.hints[0].constraint == inst.responder[0] != q_line
            assert inst.candidate_answers >= 2


def test_distances_vary_with_all_signs():
    insts = [make_instance(FAMILY, 2, s, id="g", seed_set="test") for s in range(200)]
    answers = Counter(i.answer.value for i in insts)
    assert len(answers) >= 12                       # not only 5 and 13 (docs/benchmark.md §9)
    assert max(answers.values()) <= 50
    quadrants = set()
    pythagorean = axis = 0
    for i in insts:
        lat = i.latent_state()
        dx, dy = lat["Q"][0] - lat["P"][0], lat["Q"][1] - lat["P"][1]
        quadrants.add((dx > 0, dy > 0))
        axis += dx == 0 or dy == 0
        pythagorean += dx != 0 and dy != 0
    assert quadrants == {(True, True), (True, False), (False, True), (False, False)}
    assert axis >= 20 and pythagorean >= 100


def test_single_candidate_view_fails_local_underdetermination():
    # x + 2y = 0 meets the box |x|, |y| <= 5 at (-2s, s), s = -2..2; only (0, 0) is at an
    # integer distance (5) from Q = (3, 4): the view alone would fix the answer.
    latent = {"level": 1, "P": [0, 0], "Q": [3, 4], "line1": [1, 2, 0], "line2": [1, 0, 0]}
    assert FAMILY.check(latent) is None
    inst = assemble_instance(FAMILY, 1, 1, 0, latent, id="geo-bad", seed_set="test")
    assert [f.property for f in validate_instance(inst, FAMILY)] == ["local_underdetermination"]


def test_corrupted_latent_fails_global_uniqueness():
    inst = make_instance(FAMILY, 1, 4, id="geo-test", seed_set="test")
    latent = inst.latent_state()
    a, b, c = latent["line2"]
    bad = dataclasses.replace(inst, latent=encode_latent({**latent, "line2": [a, b, c + 1]}))
    props = {f.property for f in validate_instance(bad, FAMILY)}
    assert "global_uniqueness" in props
