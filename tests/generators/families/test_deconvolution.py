"""deconvolution: causal convolution truncated to n outputs, one output y_k* withheld."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from mira_math.generators import registry
from mira_math.generators.build import assemble_instance, make_instance
from mira_math.generators.schema import Hint, decode_latent, encode_latent
from mira_math.generators.validate import failed_properties

FAMILY = registry.get("deconvolution")

# By hand: h = (1, 2), x = (1, 0, -1, 2): y0 = 1, y1 = 0 + 2 = 2, y2 = -1 + 0 = -1,
# y3 = 2 - 2 = 0. y1 withheld.
HAND = {"level": 1, "h": [1, 2], "x": [1, 0, -1, 2], "missing": 1}


def _record(latent):
    d = latent["level"]
    return assemble_instance(FAMILY, d, d, 0, decode_latent(encode_latent(latent)), id="dec-000000",
                     seed_set="t")



def test_hand_instance():
    inst = _record(HAND)
    assert inst.view.facts == ["h0 = 1", "h1 = 2", "y0 = 1", "y2 = -1", "y3 = 0"]
    assert inst.responder == ["y1 = 2"]
    assert [(h.slot, h.value) for h in inst.hints] == [("y1", "2")]
    assert inst.answer.value == "(1, 0, -1, 2)"
    assert inst.answer.components == ["x0", "x1", "x2", "x3"]
    assert "y3 = h0·x3 + h1·x2" in inst.view.context  # truncated: no y4 = h1·x3
    assert failed_properties(inst) == set()


def test_witness_moves_x1_and_cancels_every_later_output():
    alt = FAMILY.witness(HAND)
    assert alt["x"] == [1, 1, -3, 6]  # e = (0, 1, -2, 4): h*e = (0, 1, 0, 0)
    assert FAMILY.render(alt).facts == FAMILY.render(HAND).facts
    assert FAMILY.check(alt) is None


def test_witness_stays_integral_when_h0_is_not_a_unit():
    lat = {"level": 3, "h": [-3, 2, 1], "x": [0, 1, -2, 3, 1], "missing": 0}
    alt = FAMILY.witness(lat)
    assert FAMILY.check(alt) is None and alt["x"] != lat["x"]
    assert FAMILY.render(alt).facts == FAMILY.render(lat).facts


def test_complete_rejects_the_wrong_slot():
    known = FAMILY.known(HAND)
    assert FAMILY.solve(FAMILY.complete(known, Hint("y1", "y1 = 2", "2"))) == (1, 0, -1, 2)
    try:
        FAMILY.complete(known, Hint("y2", "y2 = -1", "-1"))
    except ValueError:
        pass
    else:
        raise AssertionError("a hint for a shown output must not complete the state")


def test_sizes_and_missing_index_follow_the_spec():
    for d, n, taps in ((1, 4, 2), (2, 5, 3), (3, 5, 3)):
        seen = Counter()
        for seed in range(120):
            inst = make_instance(FAMILY, d, seed, id="x", seed_set="t")
            lat = inst.latent_state()
            assert len(lat["x"]) == n and len(lat["h"]) == taps
            assert lat["h"][0] != 0 and lat["h"][-1] != 0
            assert all(abs(v) <= 2 + d for v in lat["h"] + lat["x"])
            assert len(inst.view.facts) == taps + n - 1
            seen[lat["missing"]] += 1
        assert sorted(seen) == list(range(n))


def test_zero_h0_fails_global_uniqueness():
    bad = {**HAND, "h": [0, 2]}
    assert "global_uniqueness" in failed_properties(replace(_record(HAND), latent=encode_latent(bad)))


def test_degenerate_kernel_fails_global_uniqueness():
    bad = {**HAND, "h": [1, 0]}  # the reference's degenerate [h0, 0] kernel
    assert "global_uniqueness" in failed_properties(replace(_record(HAND), latent=encode_latent(bad)))
