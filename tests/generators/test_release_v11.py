"""The v1.1 decisions on the committed release (docs/benchmark.md §2, §4, §5): each test
fails on the v1.0 release."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from mira_math.game.responders.base import ResponderCall
from mira_math.game.responders.rules import decide
from mira_math.generators import registry
from mira_math.generators.build import answer_denominator, instance_keys


@pytest.fixture(scope="module")
def instances(release_instances):
    return release_instances


def test_answer_denominators_within_the_caps(instances):
    # v1.0: markov up to 156,744, circuit 22,892, birth_death 3,287, portfolio 2,430.
    for inst in instances:
        cap = 200 if inst.family == "markov_missing_transition" else 500
        assert answer_denominator(registry.get(inst.family), inst) <= cap, inst.id


def test_tomography_responder_holds_every_resolving_cell(instances):
    from mira_math.generators.families.discrete_tomography import _CLASSES, _sums
    several = 0
    for inst in (i for i in instances if i.family == "discrete_tomography"):
        lat = inst.latent_state()
        grid, (ti, tj) = lat["grid"], lat["target"]
        grids = _CLASSES[_sums(grid)]
        resolving = [f"cell ({i},{j})" for i in range(3) for j in range(3) if (i, j) != (ti, tj)
                     and len({g[ti][tj] for g in grids if g[i][j] == grid[i][j]}) == 1]
        assert [h.slot for h in inst.hints] == resolving
        several += len(resolving) > 1
        for h in inst.hints:  # the rules responder offers each held cell when asked for it
            turn = ResponderCall(inst.responder, f"What is the value of {h.slot}?", inst.family, 0)
            assert decide(turn).quoted_constraint == h.constraint
    assert several > 100  # v1.0 held one cell where 123 of 150 had several


def test_no_two_instances_share_facts_or_problem_across_levels(instances):
    # v1.0: 10 graph_path_sums and 8 matrix_completion views repeated across levels.
    keys = [k for i in instances for k in instance_keys(i)]
    assert len(set(keys)) == len(keys) == 2 * len(instances)   # a problem key and a view key each


def test_finite_chance_levels_are_stored(instances):
    # v1.0 stored null for these two families.
    by = Counter()
    for inst in instances:
        if inst.family in ("eigenvector_missing_entry", "linear_system_missing_coeff"):
            assert inst.candidate_answers is not None and inst.candidate_answers >= 2
            by[(inst.family, inst.difficulty)] = max(by[(inst.family, inst.difficulty)],
                                                     inst.candidate_answers)
    assert by[("eigenvector_missing_entry", 1)] <= 17
    assert by[("linear_system_missing_coeff", 3)] <= 21


def test_answer_share_cap_still_holds(instances):
    blocks = Counter((i.family, i.difficulty) for i in instances)
    values = Counter((i.family, i.difficulty, i.answer.value) for i in instances)
    for (family, d, _), n in values.items():
        assert Fraction(n, blocks[(family, d)]) <= registry.get(family).max_answer_share
