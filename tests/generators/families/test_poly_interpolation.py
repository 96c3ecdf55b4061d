"""poly_interpolation: δ of δ+1 recorded points shown; the held-back node varies."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from mira_math.generators import registry
from mira_math.generators.build import assemble_instance, make_instance
from mira_math.generators.schema import Hint, decode_latent, encode_latent
from mira_math.generators.validate import failed_properties

FAMILY = registry.get("poly_interpolation")

# By hand: p(x) = x³ - 2x + 1 (ascending coefficients), nodes -1, 0, 1, 2, node 2 held back.
# p(-1) = 2, p(0) = 1, p(1) = 0, p(2) = 5, and the target p(3) = 27 - 6 + 1 = 22.
HAND = {"level": 1, "coeffs": [1, -2, 0, 1], "nodes": [-1, 0, 1, 2], "missing": 3, "query": 3}


def _record(latent):
    d = latent["level"]
    return assemble_instance(FAMILY, d, d, 0, decode_latent(encode_latent(latent)), id="pol-000000",
                     seed_set="t")



def test_hand_instance():
    inst = _record(HAND)
    assert inst.view.facts == ["The recorded nodes are x = -1, 0, 1, 2.", "p(-1) = 2", "p(0) = 1",
                               "p(1) = 0"]
    assert inst.responder == ["p(2) = 5"]
    assert [(h.slot, h.value) for h in inst.hints] == [("p(2)", "5")]
    assert inst.answer.value == "22"
    assert failed_properties(inst) == set()


def test_reference_release_interpolation():
    # pol-001892 of the reference release: p(0) = -2, p(1) = -1, p(2) = -14, p(3) = -53
    # gives p(5) = -257 (its coefficients are -2, 4, -1, -2).
    known = {"level": 1, "nodes": [0, 1, 2, 3], "query": 5,
             "points": [[0, -2], [1, -1], [2, -14]]}
    full = FAMILY.complete(known, Hint("p(3)", "p(3) = -53", "-53"))
    assert full["coeffs"] == [-2, 4, -1, -2] and FAMILY.solve(full) == -257


def test_witness_keeps_the_shown_points_and_the_degree():
    alt = FAMILY.witness(HAND)
    assert FAMILY.render(alt).facts == FAMILY.render(HAND).facts
    assert alt["coeffs"][-1] != 0 and FAMILY.check(alt) is None
    assert FAMILY.solve(alt) != 22


def test_held_back_node_varies_and_query_is_never_a_node():
    for d, degree in ((1, 3), (2, 4), (3, 4)):
        positions = Counter()
        for seed in range(150):
            inst = make_instance(FAMILY, d, seed, id="x", seed_set="t")
            lat = inst.latent_state()
            assert len(lat["coeffs"]) == degree + 1 and lat["coeffs"][-1] != 0
            assert all(abs(c) <= 3 + d for c in lat["coeffs"])
            assert lat["query"] not in lat["nodes"]
            held = lat["nodes"][lat["missing"]]
            assert inst.hints[0].slot == f"p({held})"
            assert all(not f.startswith(f"p({held})") for f in inst.view.facts)
            positions[lat["missing"]] += 1
        assert sorted(positions) == list(range(degree + 1))


def test_query_at_a_node_fails_global_uniqueness():
    bad = {**HAND, "query": 0}
    assert "global_uniqueness" in failed_properties(replace(_record(HAND), latent=encode_latent(bad)))


def test_zero_leading_coefficient_fails_global_uniqueness():
    bad = {**HAND, "coeffs": [1, -2, 0, 0]}
    assert "global_uniqueness" in failed_properties(replace(_record(HAND), latent=encode_latent(bad)))
