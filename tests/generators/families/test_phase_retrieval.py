from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from mira_math.generators.build import assemble_instance, make_instance
from mira_math.generators.families.phase_retrieval import FAMILY, _pool, _power
from mira_math.generators.schema import Hint, encode_latent
from mira_math.generators.validate import failed_properties
from mira_math.verifiers import verify

_I_POWERS = [(1, 0), (0, -1), (-1, 0), (0, 1)]  # (-i)^m = e^(-2πi·m/4) as (re, im)


def _dft_power(x) -> tuple:
    """|X_k|^2 from the definition, in exact Gaussian integers (independent of the family)."""
    out = []
    for k in range(4):
        re = sum(v * _I_POWERS[(k * n) % 4][0] for n, v in enumerate(x))
        im = sum(v * _I_POWERS[(k * n) % 4][1] for n, v in enumerate(x))
        out.append(re * re + im * im)
    return tuple(out)


def _instance(latent: dict, d: int):
    """An instance record of ``latent``, every stored field rendered from it."""
    return assemble_instance(FAMILY, d, FAMILY.level(d), 1, latent, id="t-000000", seed_set="t")



def test_power_formula_matches_the_dft_definition():
    for x in itertools.product(range(-2, 3), repeat=4):
        assert _power(x) == _dft_power(x)


@pytest.mark.parametrize("bound", [3, 4])
def test_pool_is_every_valid_signal_of_the_box(bound):
    box = [x for x in itertools.product(range(-bound, bound + 1), repeat=4) if x[0] != 0]
    groups: dict = {}
    for x in box:
        groups.setdefault(_dft_power(x), []).append(x)
    def fits(x):
        return [y for y in groups[_dft_power(x)] if y[1] == x[1]]

    valid = sorted(x for x in box
                   if len(set(x)) > 1 and sum(v != 0 for v in x) > 1 and len(fits(x)) >= 2
                   and sum((y[0] > 0) == (x[0] > 0) for y in fits(x)) == 1)
    assert _pool(bound) == valid
    # With the powers alone (docs/benchmark.md §5 as worded) only the 6·bound period-2 signals would be
    # pinned down by sign(x0); stating x1 too leaves hundreds (docs/decisions.md).
    only_powers = [x for x in box if len(set(x)) > 1 and sum(v != 0 for v in x) > 1
                   and sum((y[0] > 0) == (x[0] > 0) for y in groups[_dft_power(x)]) == 1]
    assert len(only_powers) == 6 * bound
    assert len(valid) > 20 * len(only_powers)


def test_hand_checked_instance():
    # x = (1, 0, -1, 0): X = (0, 2, 0, 2), powers (0, 4, 0, 4). In the box, with x0 != 0,
    # only ±x fit: x0 - x2 = ±2 with x1 = x3 and both sums 0.
    latent = {"level": 1, "x": [1, 0, -1, 0]}
    assert FAMILY.check(latent) is None
    r = FAMILY.render(latent)
    assert r.facts == ["|X_0|^2 = 0", "|X_1|^2 = 4", "|X_2|^2 = 0", "|X_3|^2 = 4", "x1 = 0"]
    assert r.responder == ["sign(x0) = 1"] and r.hints == [Hint("sign(x0)", "sign(x0) = 1", "1")]
    assert "between -3 and 3" in r.domain and "x0 is not 0" in r.domain
    assert FAMILY.candidates(FAMILY.known(latent)) == {(1, 0, -1, 0), (-1, 0, 1, 0)}
    flipped = FAMILY.complete(FAMILY.known(latent), Hint("sign(x0)", "sign(x0) = -1", "-1"))
    assert flipped["x"] == [-1, 0, 1, 0]
    inst = _instance(latent, 1)
    assert failed_properties(inst) == set() and inst.candidate_answers == 2
    assert verify(inst, "x0 = 1, x1 = 0, x2 = -1, x3 = 0").correct
    assert not verify(inst, "(-1, 0, 1, 0)").correct


def test_bound_is_3_4_4():
    for d, bound in ((1, 3), (2, 4), (3, 4)):
        inst = make_instance(FAMILY, d, 5, id="p", seed_set="t")
        assert f"between -{bound} and {bound}" in inst.view.domain
        assert max(abs(v) for v in inst.latent_state()["x"]) <= bound


def test_degenerate_and_ambiguous_signals_are_rejected():
    assert "constant" in FAMILY.check({"level": 2, "x": [2, 2, 2, 2]})
    assert "spike" in FAMILY.check({"level": 1, "x": [3, 0, 0, 0]})
    # (-3,-3,-2,-3) and (-2,-3,-3,-3) share its powers, x1 and sign(x0)
    assert "more than one" in FAMILY.check({"level": 1, "x": [-3, -3, -3, -2]})
    assert "no sign" in FAMILY.check({"level": 1, "x": [0, 1, 0, -1]})
    # the box is the level's own: |x_i| <= 3 at d=1, 4 at d=2
    assert "|x_i| <= 3" in FAMILY.check({"level": 1, "x": [4, 0, -4, 0]})
    assert FAMILY.check({"level": 2, "x": [4, 0, -4, 0]}) is None


def test_corrupted_latent_fails_validation():
    inst = _instance({"level": 1, "x": [1, 0, -1, 0]}, 1)
    bad = replace(inst, latent=encode_latent({"level": 1, "x": [-3, -3, -3, -2]}))
    assert "global_uniqueness" in failed_properties(bad)
    wrong_hint = replace(inst, hints=[Hint("sign(x0)", "sign(x0) = -1", "-1")])
    assert "hint_sufficiency" in failed_properties(wrong_hint)
