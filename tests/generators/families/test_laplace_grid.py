"""laplace_grid: harmonic interior, corners never used, integer target, boundary cell missing."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from mira_math.generators.build import assemble_instance, make_instance
from mira_math.generators.families.laplace_grid import FAMILY
from mira_math.generators.linalg import solve
from mira_math.generators.schema import Hint, encode_latent
from mira_math.generators.validate import failed_properties, validate_instance
from mira_math.verifiers import verify

CORNERS = {(0, 0), (0, 3), (3, 0), (3, 3)}


def _linear_boundary(n):
    """u[i][j] = 3i + 2j + 1 is discrete-harmonic; its values on the non-corner boundary."""
    return {f"{i},{j}": 3 * i + 2 * j + 1 for i in range(n) for j in range(n)
            if (i in (0, n - 1)) != (j in (0, n - 1))}


HAND = {"level": 1, "n": 4, "boundary": _linear_boundary(4), "missing": [0, 1], "target": [1, 2]}


def _record(latent):
    return assemble_instance(FAMILY, latent["level"], latent["level"], 0, latent, id="lap-test",
                     seed_set="test")



def _interior_by_full_solve(n, boundary):
    """Solve the stencil system directly (independent of the module's precomputed inverse)."""
    cells = [(i, j) for i in range(1, n - 1) for j in range(1, n - 1)]
    idx = {c: k for k, c in enumerate(cells)}
    a = [[0] * len(cells) for _ in cells]
    rhs = [0] * len(cells)
    for (i, j), k in idx.items():
        a[k][k] = 4
        for nb in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
            if nb in idx:
                a[k][idx[nb]] = -1
            else:
                rhs[k] += boundary[f"{nb[0]},{nb[1]}"]
    return dict(zip(cells, solve(a, rhs)))


def test_hand_instance():
    # A linear function is harmonic under the 5-point stencil: u[1][2] = 3 + 4 + 1 = 8.
    inst = _record(HAND)
    assert validate_instance(inst, FAMILY) == []
    assert inst.answer.value == "8" and inst.candidate_answers is None
    assert inst.view.facts[0] == "4u[1][1] = u[0][1] + u[2][1] + u[1][0] + u[1][2]"
    assert len(inst.view.facts) == 4 + 7
    assert inst.hints == [Hint("u[0][1]", "u[0][1] = 3", "3")]
    assert "u[0][1] = 3" not in inst.view.facts
    # The weight of u[0][1] on u[1][2] is 1/12 (from the 2×2 interior's inverse): a witness
    # moves u[0][1] by 12 and the target by 1.
    alt = FAMILY.witness(HAND)
    assert alt["boundary"]["0,1"] == 3 - 12 and FAMILY.solve(alt) == 7
    assert verify(inst, "8").correct and not verify(inst, "9").correct


def test_corners_are_never_shown_or_missing():
    for d in (1, 2, 3):
        n = 4 if d == 1 else 5
        for s in range(40):
            inst = make_instance(FAMILY, d, 4000 * d + s, id="x", seed_set="test")
            lat = inst.latent_state()
            corners = {(0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1)}
            assert lat["n"] == n
            assert tuple(lat["missing"]) not in corners
            assert lat["missing"][0] in (0, n - 1) or lat["missing"][1] in (0, n - 1)
            for i, j in corners:
                assert not any(f.startswith(f"u[{i}][{j}] =") for f in inst.view.facts)
            assert len(lat["boundary"]) == 4 * (n - 2)


def test_interior_integral_target_moves_and_bounds_grow():
    for d in (1, 2, 3):
        bound = 10 * (d + 1)
        slots = set()
        for s in range(40):
            inst = make_instance(FAMILY, d, 6000 * d + s, id="x", seed_set="test")
            lat = inst.latent_state()
            interior = _interior_by_full_solve(lat["n"], lat["boundary"])
            assert all(v.denominator == 1 for v in interior.values())   # the generator's choice
            assert Fraction(inst.answer.value) == interior[tuple(lat["target"])]
            assert all(abs(v) <= bound for v in lat["boundary"].values())
            moved = dict(lat["boundary"])
            moved[f"{lat['missing'][0]},{lat['missing'][1]}"] += 1
            assert _interior_by_full_solve(lat["n"], moved)[tuple(lat["target"])] != \
                interior[tuple(lat["target"])]
            slots.add(inst.hints[0].slot)
        assert len(slots) >= 6


def test_corner_as_missing_cell_fails():
    bad = {**HAND, "boundary": {**HAND["boundary"], "0,0": 1}, "missing": [0, 0]}
    props = failed_properties(_record(bad))
    assert "global_uniqueness" in props and "local_underdetermination" in props


def test_non_integer_target_fails_global_uniqueness():
    inst = _record(HAND)
    shifted = {**HAND, "boundary": {**HAND["boundary"], "1,0": 5}}   # weight 1/12 on u[1][2]
    props = failed_properties(replace(inst, latent=encode_latent(shifted)))
    assert "global_uniqueness" in props
    assert FAMILY.check(shifted) == "the target value is not an integer"


def test_interior_target_required():
    assert FAMILY.check({**HAND, "target": [0, 1]}) == "the target is not an interior cell"
