"""linear_system_separator: c held back, the (a, b) block nonsingular, witness along the kernel."""

from __future__ import annotations

import dataclasses

from mira_math.generators.build import make_instance
from mira_math.generators.families.linear_system_separator import FAMILY
from mira_math.generators.schema import Hint, encode_latent
from mira_math.generators.validate import validate_instance

REFERENCE = {"level": 1, "x": [-4, 5, -5], "rows": [[-4, 4, 3], [-1, -3, 4]], "rhs": [21, -31]}


def test_reference_example_solved_by_hand():
    # -4a + 4b + 3c = 21 and -a - 3b + 4c = -31 with c = -5: -4a + 4b = 36, -a - 3b = -11,
    # so a = b - 9 and -(b - 9) - 3b = -11 gives b = 5, a = -4.
    assert FAMILY.check(REFERENCE) is None
    r = FAMILY.render(REFERENCE)
    assert r.facts == ["-4a + 4b + 3c = 21", "-a - 3b + 4c = -31"]
    assert r.responder == ["c = -5"]
    assert r.hints == [Hint("c", "c = -5", "-5")]
    assert r.components == ["a", "b", "c"]
    assert FAMILY.complete(FAMILY.known(REFERENCE), r.hints[0])["x"] == [-4, 5, -5]
    assert FAMILY.solve(REFERENCE) == (-4, 5, -5)


def test_witness_steps_along_the_integer_kernel():
    # (-4, 4, 3) x (-1, -3, 4) = (25, 13, 16): (21, 18, 11) also satisfies both equations.
    alt = FAMILY.witness(REFERENCE)
    assert alt["x"] == [21, 18, 11]
    assert FAMILY.check(alt) is None and FAMILY.known(alt) == FAMILY.known(REFERENCE)


def test_block_is_nonsingular_and_c_matters():
    for d in (1, 2, 3):
        for seed in range(30):
            lat = make_instance(FAMILY, d, seed, id="lin-test", seed_set="test").latent_state()
            (a0, b0, c0), (a1, b1, c1) = lat["rows"]
            assert a0 * b1 - a1 * b0 != 0 and (c0, c1) != (0, 0)
            assert all(abs(v) <= 5 + d for v in lat["x"])
            assert all(abs(v) <= 3 + d for row in lat["rows"] for v in row)


def test_singular_block_is_invalid():
    latent = {"level": 1, "x": [1, 1, 1], "rows": [[1, 2, 1], [2, 4, 1]], "rhs": [4, 7]}
    assert "singular" in FAMILY.check(latent)


def test_corrupted_latent_fails_global_uniqueness():
    inst = make_instance(FAMILY, 2, 9, id="lin-test", seed_set="test")
    latent = inst.latent_state()
    x = latent["x"]
    bad = dataclasses.replace(inst, latent=encode_latent({**latent, "x": [x[0] + 1, x[1], x[2]]}))
    props = {f.property for f in validate_instance(bad, FAMILY)}
    assert "global_uniqueness" in props


def test_non_integer_completion_is_refused():
    # 2a + b + c = 0, a - b = 0 (block det -3): c = 1 gives a = b = -1/3.
    known = {"level": 1, "rows": [[2, 1, 1], [1, -1, 0]], "rhs": [0, 0]}
    try:
        FAMILY.complete(known, Hint("c", "c = 1", "1"))
    except ValueError:
        return
    raise AssertionError("a non-integer completion was accepted")
