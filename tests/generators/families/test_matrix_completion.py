from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from mira_math.generators.build import assemble_instance, make_instance
from mira_math.generators.families.matrix_completion import FAMILY
from mira_math.generators.schema import Hint, encode_latent
from mira_math.generators.validate import failed_properties
from mira_math.verifiers import verify


def _instance(latent: dict, d: int):
    """An instance record of ``latent``, every stored field rendered from it."""
    return assemble_instance(FAMILY, d, FAMILY.level(d), 1, latent, id="t-000000", seed_set="t")



def test_hand_checked_instance():
    # Factors in [1, 5]: m00 = 3, m01 = 5 force u0 = 1, v = (3, 5); u1 is free in 1..5,
    # so m11 = 5·u1 is 5, 10, 15, 20 or 25. m10 = 6 gives u1 = 2 and m11 = 5·6/3 = 10.
    latent = {"level": 1, "M": [[3, 5], [6, 10]]}
    assert FAMILY.check(latent) is None
    r = FAMILY.render(latent)
    assert r.facts == ["m00 = 3", "m01 = 5"]
    assert r.responder == ["m10 = 6"] and r.hints == [Hint("m10", "m10 = 6", "6")]
    assert "between 1 and 5" in r.domain
    assert FAMILY.candidates(FAMILY.known(latent)) == {5, 10, 15, 20, 25}
    assert FAMILY.solve(FAMILY.complete(FAMILY.known(latent), r.hints[0])) == 10
    inst = _instance(latent, 1)
    assert failed_properties(inst) == set() and inst.candidate_answers == 5
    assert verify(inst, "m11 = 10").correct and not verify(inst, "15").correct
    # Two factorisations of the known row: m00 = 2, m01 = 4 allow u0 = 1, v = (2, 4) and
    # u0 = 2, v = (1, 2), so m11 is 4·u1 or 2·u1.
    assert FAMILY.candidates({"level": 1, "m00": 2, "m01": 4}) == {2, 4, 6, 8, 10, 12, 16, 20}


def test_reference_release_instance():
    # mat-000303 of the paper's release: m00 = 1, m01 = 2, m10 = 1 gives m11 = 2.
    latent = {"level": 1, "M": [[1, 2], [1, 2]]}
    assert FAMILY.check(latent) is None and FAMILY.solve(latent) == 2
    assert FAMILY.candidates(FAMILY.known(latent)) == {2, 4, 6, 8, 10}


def test_every_view_leaves_at_least_the_free_row_factor():
    for d in (1, 2, 3):
        for seed in range(40):
            inst = make_instance(FAMILY, d, seed, id="m", seed_set="t")
            assert inst.candidate_answers >= 4 + d
            m = inst.latent_state()["M"]
            assert m[0][0] * m[1][1] == m[0][1] * m[1][0]
            assert max(x for row in m for x in row) <= (4 + d) ** 2


def test_enough_distinct_views_per_level():
    # The view is (m00, m01) = (u0·v0, u0·v1): with factors in [1, 4+d] there are 110, 174 and
    # 295 of them (the originally specified [1, 2+d] gave 24 at d=1, too few for the release and held-out splits).
    for d, expected in ((1, 110), (2, 174), (3, 295)):
        r = range(1, 5 + d)
        views = {tuple(FAMILY.render({"level": d, "M": [[u0 * v0, u0 * v1], [v0, v1]]}).facts)
                 for u0 in r for v0 in r for v1 in r}
        assert len(views) == expected


def test_answers_are_spread_over_the_possible_products():
    # Uniform factors would give 4 to 3/25 of d=1 instances and 1 to 1/25; drawing the answer
    # first keeps every one of the 14 products near 1/14 (about 43 of 600).
    answers = Counter(make_instance(FAMILY, 1, s, id="m", seed_set="t").answer.value
                      for s in range(600))
    assert set(answers) == {str(i * j) for i in range(1, 6) for j in range(1, 6)}
    assert len(answers) == 14
    assert min(answers.values()) >= 20 and max(answers.values()) <= 70


def test_invalid_matrices_are_rejected():
    assert "rank 1" in FAMILY.check({"level": 1, "M": [[2, 4], [3, 7]]})
    assert "factorisation" in FAMILY.check({"level": 1, "M": [[1, 6], [1, 6]]})  # v1 = 6 > 5
    assert FAMILY.check({"level": 2, "M": [[1, 6], [1, 6]]}) is None
    assert "positive" in FAMILY.check({"level": 1, "M": [[0, 0], [0, 0]]})


def test_hint_with_fractional_completion_is_refused():
    with pytest.raises(ValueError):
        FAMILY.complete({"level": 1, "m00": 2, "m01": 3}, Hint("m10", "m10 = 1", "1"))


def test_corrupted_latent_fails_validation():
    inst = _instance({"level": 1, "M": [[2, 4], [3, 6]]}, 1)
    bad = replace(inst, latent=encode_latent({"level": 1, "M": [[2, 4], [3, 7]]}))
    assert "global_uniqueness" in failed_properties(bad)
    wrong = replace(inst, answer=replace(inst.answer, value="4"))
    assert "global_uniqueness" in failed_properties(wrong)
