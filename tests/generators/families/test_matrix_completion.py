from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from generators.build import make_instance
from generators.families.matrix_completion import FAMILY
from generators.schema import Hint, View, encode_latent
from generators.validate import failed_properties
from verifiers import verify
from verifiers.exact import canonical


def _instance(latent: dict, d: int):
    """An instance record of ``latent``, every stored field rendered from it."""
    base = make_instance(FAMILY, d, 1, id="mat-000300", seed_set="t")
    r = FAMILY.render(latent)
    return replace(base, view=View(r.context, r.facts, r.question, r.domain),
                   responder=r.responder, hints=r.hints,
                   answer=replace(base.answer, value=canonical("int", FAMILY.solve(latent))),
                   candidate_answers=len(FAMILY.candidates(FAMILY.known(latent))),
                   latent=encode_latent(latent))



def test_hand_checked_instance():
    # Factors in [1, 3]: m00 = 2, m01 = 4 force u0 = 2, v = (1, 2); u1 is free in 1..3,
    # so m11 = 2·u1 is 2, 4 or 6. m10 = 3 gives u1 = 3 and m11 = 4·3/2 = 6.
    latent = {"level": 1, "M": [[2, 4], [3, 6]]}
    assert FAMILY.check(latent) is None
    r = FAMILY.render(latent)
    assert r.facts == ["m00 = 2", "m01 = 4"]
    assert r.responder == ["m10 = 3"] and r.hints == [Hint("m10", "m10 = 3", "3")]
    assert "between 1 and 3" in r.domain
    assert FAMILY.candidates(FAMILY.known(latent)) == {2, 4, 6}
    assert FAMILY.solve(FAMILY.complete(FAMILY.known(latent), r.hints[0])) == 6
    inst = _instance(latent, 1)
    assert failed_properties(inst) == set() and inst.candidate_answers == 3
    assert verify(inst, "m11 = 6").correct and not verify(inst, "4").correct


def test_reference_release_instance():
    # mat-000303 of the paper's release: m00 = 1, m01 = 2, m10 = 1 gives m11 = 2.
    latent = {"level": 1, "M": [[1, 2], [1, 2]]}
    assert FAMILY.check(latent) is None and FAMILY.solve(latent) == 2
    assert FAMILY.candidates(FAMILY.known(latent)) == {2, 4, 6}


def test_every_view_leaves_at_least_the_free_row_factor():
    for d in (1, 2, 3):
        for seed in range(40):
            inst = make_instance(FAMILY, d, seed, id="m", seed_set="t")
            assert inst.candidate_answers >= 2 + d
            m = inst.latent_state()["M"]
            assert m[0][0] * m[1][1] == m[0][1] * m[1][0]
            assert max(x for row in m for x in row) <= (2 + d) ** 2


def test_answers_are_spread_over_the_possible_products():
    # Uniform factors would give 2, 3 and 6 each 2/9 of d=1 instances; drawing the answer
    # first keeps every value near 1/6.
    answers = Counter(make_instance(FAMILY, 1, s, id="m", seed_set="t").answer.value
                      for s in range(600))
    assert set(answers) == {"1", "2", "3", "4", "6", "9"}
    assert max(answers.values()) <= 130


def test_invalid_matrices_are_rejected():
    assert "rank 1" in FAMILY.check({"level": 1, "M": [[2, 4], [3, 7]]})
    assert "factorisation" in FAMILY.check({"level": 1, "M": [[1, 4], [1, 4]]})  # v1 = 4 > 3
    assert FAMILY.check({"level": 2, "M": [[1, 4], [1, 4]]}) is None
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
