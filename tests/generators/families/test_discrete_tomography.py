"""discrete_tomography: ambiguous target, the responder holds every cell that fixes it
(each canonical), level 1 always."""

from __future__ import annotations

from itertools import product

from mira_math.generators.build import assemble_instance, make_instance
from mira_math.generators.families.discrete_tomography import FAMILY
from mira_math.generators.schema import Hint
from mira_math.generators.validate import failed_properties, validate_instance
from mira_math.verifiers import verify

HAND = {"level": 1, "grid": [[0, 1, 1], [1, 0, 0], [1, 0, 0]], "target": [2, 1]}


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


def _resolving(grid, target):
    """Cells (target excluded) whose true value leaves one target value, by brute force."""
    rows = [sum(r) for r in grid]
    cols = [sum(grid[i][j] for i in range(3)) for j in range(3)]
    fits = _grids(rows, cols)
    ti, tj = target
    return [(i, j) for i in range(3) for j in range(3) if (i, j) != (ti, tj)
            and len({g[ti][tj] for g in fits if g[i][j] == grid[i][j]}) == 1]


def test_hand_instance():
    # Sums rows (2,1,1), columns (2,1,1). With cell (0,0) = 0 row 0 is (0,1,1), which fills
    # columns 1 and 2, so rows 1 and 2 are (1,0,0): cell (2,1) = 0. Without the hint the grid
    # rows (1,0,1), (1,0,0), (0,1,0) also fits and has cell (2,1) = 1. Cell (0,1) = 1 fills
    # column 1, and cell (2,0) = 1 fills row 2: each fixes cell (2,1) = 0 too.
    inst = _record(HAND)
    assert validate_instance(inst, FAMILY) == []
    assert inst.answer.value == "0" and inst.candidate_answers == 2
    assert inst.view.facts == ["row 0 sum = 2", "row 1 sum = 1", "row 2 sum = 1",
                               "column 0 sum = 2", "column 1 sum = 1", "column 2 sum = 1"]
    assert inst.responder == ["cell (0,0) = 0", "cell (0,1) = 1", "cell (2,0) = 1"]
    assert inst.hints == [Hint("cell (0,0)", "cell (0,0) = 0", "0"),
                          Hint("cell (0,1)", "cell (0,1) = 1", "1"),
                          Hint("cell (2,0)", "cell (2,0) = 1", "1")]
    assert inst.view.question == "What is the value of cell (2,1)? Answer 0 or 1."
    full = FAMILY.complete(FAMILY.known(HAND), inst.hints[0])
    assert full["grid"] == HAND["grid"]
    assert verify(inst, "0").correct and not verify(inst, "1").correct


def test_never_scales_and_keeps_nominal_difficulty():
    for d in (1, 2, 3):
        inst = make_instance(FAMILY, d, 11 + d, id="x", seed_set="test")
        assert inst.difficulty == d and inst.level == 1
        assert FAMILY.level(d) == 1


def test_responder_holds_every_resolving_cell_and_nothing_else():
    # v1.0 held one resolving cell, picked at random, in most instances out of several.
    several = 0
    for s in range(60):
        inst = make_instance(FAMILY, 1 + s % 3, 500 + s, id="x", seed_set="test")
        lat = inst.latent_state()
        grid, (ti, tj) = lat["grid"], lat["target"]
        rows = [sum(r) for r in grid]
        cols = [sum(grid[i][j] for i in range(3)) for j in range(3)]
        assert {g[ti][tj] for g in _grids(rows, cols)} == {0, 1}
        cells = _resolving(grid, (ti, tj))
        assert [h.slot for h in inst.hints] == [f"cell ({i},{j})" for i, j in cells]
        assert inst.responder == [h.constraint for h in inst.hints]
        assert all(h.constraint not in inst.view.facts for h in inst.hints)
        assert inst.candidate_answers == 2
        several += len(cells) > 1
    assert several > 0


def test_answers_balanced_and_slots_vary():
    insts = [make_instance(FAMILY, 1, 900 + s, id="x", seed_set="test") for s in range(300)]
    ones = sum(int(i.answer.value) for i in insts)
    assert 0.4 <= ones / 300 <= 0.6
    assert len({h.slot for i in insts for h in i.hints}) == 9


def test_a_missing_resolving_cell_fails_hint_completeness():
    inst = _record(HAND)
    short = type(inst)(**{**inst.__dict__, "hints": inst.hints[:1], "responder": inst.responder[:1]})
    assert "hint_completeness" in failed_properties(short)


def test_a_cell_that_does_not_fix_the_target_fails_hint_sufficiency():
    inst = _record(HAND)
    bad = Hint("cell (1,1)", "cell (1,1) = 0", "0")     # cell (1,1) = 0 leaves both values
    assert {g[2][1] for g in _grids((2, 1, 1), (2, 1, 1)) if g[1][1] == 0} == {0, 1}
    wrong = type(inst)(**{**inst.__dict__, "hints": inst.hints + [bad],
                          "responder": inst.responder + [bad.constraint]})
    props = failed_properties(wrong)
    assert "hint_sufficiency" in props and "hint_completeness" in props


def test_determined_target_fails_local_underdetermination():
    bad = {"level": 1, "grid": [[1, 1, 1], [0, 0, 0], [0, 0, 1]], "target": [1, 1]}
    # Row 0 full and row 1 empty leave one 1 in row 2; cell (1,1) is 0 in every grid.
    assert {g[1][1] for g in _grids((3, 0, 1), (1, 1, 2))} == {0}
    props = failed_properties(_record(bad))
    assert "local_underdetermination" in props


def test_wrong_level_is_rejected():
    assert FAMILY.check({**HAND, "level": 2}) is not None
