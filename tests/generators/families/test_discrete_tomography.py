"""discrete_tomography: ambiguous target, a hint cell that pins the grid, level 1 always."""

from __future__ import annotations

from itertools import product

from generators.build import assemble_instance, make_instance
from generators.families.discrete_tomography import FAMILY
from generators.schema import Hint
from generators.validate import failed_properties, validate_instance
from verifiers import verify

HAND = {"level": 1, "grid": [[0, 1, 1], [1, 0, 0], [1, 0, 0]], "target": [2, 1], "hint": [0, 0]}


def _record(latent, difficulty=1):
    return assemble_instance(FAMILY, difficulty, 1, 0, latent, id="dis-test", seed_set="test")


def _grids(rows, cols):
    """Every 0/1 grid with the given sums, by brute force (independent of the module)."""
    out = []
    for bits in product((0, 1), repeat=9):
        g = [list(bits[0:3]), list(bits[3:6]), list(bits[6:9])]
        col_sums = [sum(g[i][j] for i in range(3)) for j in range(3)]
        if [sum(r) for r in g] == list(rows) and col_sums == list(cols):
            out.append(g)
    return out



def test_hand_instance():
    # Sums rows (2,1,1), columns (2,1,1). With cell (0,0) = 0 row 0 is (0,1,1), which fills
    # columns 1 and 2, so rows 1 and 2 are (1,0,0): cell (2,1) = 0. Without the hint the grid
    # rows (1,0,1), (1,0,0), (0,1,0) also fits and has cell (2,1) = 1.
    inst = _record(HAND)
    assert validate_instance(inst, FAMILY) == []
    assert inst.answer.value == "0" and inst.candidate_answers == 2
    assert inst.view.facts == ["row 0 sum = 2", "row 1 sum = 1", "row 2 sum = 1",
                               "column 0 sum = 2", "column 1 sum = 1", "column 2 sum = 1"]
    assert inst.responder == ["cell (0,0) = 0"]
    assert inst.hints == [Hint("cell (0,0)", "cell (0,0) = 0", "0")]
    assert inst.view.question == "What is the value of cell (2,1)? Answer 0 or 1."
    full = FAMILY.complete(FAMILY.known(HAND), inst.hints[0])
    assert full["grid"] == HAND["grid"]
    assert verify(inst, "0").correct and not verify(inst, "1").correct


def test_never_scales_and_keeps_nominal_difficulty():
    for d in (1, 2, 3):
        inst = make_instance(FAMILY, d, 11 + d, id="x", seed_set="test")
        assert inst.difficulty == d and inst.level == 1
        assert FAMILY.level(d) == 1


def test_target_ambiguous_and_hint_pins_the_grid():
    for s in range(60):
        inst = make_instance(FAMILY, 1 + s % 3, 500 + s, id="x", seed_set="test")
        lat = inst.latent_state()
        grid, (ti, tj), (hi, hj) = lat["grid"], lat["target"], lat["hint"]
        rows = [sum(r) for r in grid]
        cols = [sum(grid[i][j] for i in range(3)) for j in range(3)]
        fits = _grids(rows, cols)
        assert {g[ti][tj] for g in fits} == {0, 1}
        assert (hi, hj) != (ti, tj)
        assert [g for g in fits if g[hi][hj] == grid[hi][hj]] == [grid]
        assert inst.candidate_answers == 2
        assert inst.hints[0].slot == f"cell ({hi},{hj})"
        assert inst.hints[0].constraint not in inst.view.facts


def test_answers_balanced_and_slots_vary():
    insts = [make_instance(FAMILY, 1, 900 + s, id="x", seed_set="test") for s in range(300)]
    ones = sum(int(i.answer.value) for i in insts)
    assert 0.4 <= ones / 300 <= 0.6
    assert len({i.hints[0].slot for i in insts}) == 9


def test_hint_that_does_not_pin_fails_hint_sufficiency():
    bad = {**HAND, "hint": [1, 1]}      # cell (1,1) = 0 leaves several grids
    assert len([g for g in _grids((2, 1, 1), (2, 1, 1)) if g[1][1] == 0]) > 1
    props = failed_properties(_record(bad))
    assert "hint_sufficiency" in props and "global_uniqueness" in props


def test_determined_target_fails_local_underdetermination():
    bad = {"level": 1, "grid": [[1, 1, 1], [0, 0, 0], [0, 0, 1]], "target": [1, 1], "hint": [0, 0]}
    # Row 0 full and row 1 empty leave one 1 in row 2; cell (1,1) is 0 in every grid.
    assert {g[1][1] for g in _grids((3, 0, 1), (1, 1, 2))} == {0}
    props = failed_properties(_record(bad))
    assert "local_underdetermination" in props


def test_wrong_level_is_rejected():
    assert FAMILY.check({**HAND, "level": 2}) is not None
