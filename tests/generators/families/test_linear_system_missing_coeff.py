"""linear_system_missing_coeff: x[k*] depends on the withheld A[i*][j*]; denominators <= 300."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction

from mira_math.generators.build import assemble_instance, make_instance
from mira_math.generators.families.linear_system_missing_coeff import FAMILY, _depends, _mobius
from mira_math.generators.linalg import solve
from mira_math.generators.schema import Hint, encode_latent
from mira_math.generators.validate import failed_properties, validate_instance
from mira_math.verifiers import verify

# 2x0 + x1 = 3, x0 + 3x1 = 5: det 5, x0 = (9 - 5)/5 = 4/5, x1 = (10 - 3)/5 = 7/5.
HAND = {"level": 1, "A": [[2, 1], [1, 3]], "b": [3, 5], "missing": [0, 1], "target": 0}


def _record(latent):
    return assemble_instance(FAMILY, latent["level"], latent["level"], 0, latent, id="lin-test",
                     seed_set="test")



def test_hand_instance():
    inst = _record(HAND)
    assert validate_instance(inst, FAMILY) == []
    # Chance level: x0 = (9 - 5t)/(6 - t) is injective and defined on all of t in [-4, 4].
    assert inst.answer.value == "4/5" and inst.candidate_answers == 9
    assert inst.view.facts == ["A[0][0] = 2", "A[1][0] = 1", "A[1][1] = 3", "b[0] = 3", "b[1] = 5"]
    assert inst.hints == [Hint("A[0][1]", "A[0][1] = 1", "1")]
    assert inst.view.question == "What is x[0]? Give it as a reduced fraction."
    # With A[0][1] = t: x0 = (9 - 5t)/(6 - t); the witness takes t = 0: x0 = 3/2.
    alt = FAMILY.witness(HAND)
    assert alt["A"][0][1] == 0 and FAMILY.solve(alt) == Fraction(3, 2)
    assert verify(inst, "4/5").correct and verify(inst, "0.8").correct
    assert not verify(inst, "7/5").correct


def test_target_that_cannot_move_fails():
    # b = (2, 1) gives x = (1, 0): with x[1] = 0 no component depends on A[0][1].
    bad = {**HAND, "b": [2, 1]}
    assert FAMILY.check(bad) == "x[k*] does not depend on the missing coefficient"
    assert "local_underdetermination" in failed_properties(_record(bad))


def test_singular_system_fails_global_uniqueness():
    inst = _record(HAND)
    singular = {**HAND, "A": [[2, 1], [4, 2]]}
    assert FAMILY.check(singular) == "A is singular"
    assert "global_uniqueness" in failed_properties(replace(inst, latent=encode_latent(singular)))


def test_large_denominator_is_rejected():
    rng = random.Random(5)
    while True:
        a = [[rng.randint(-10, 10) for _ in range(4)] for _ in range(4)]
        b = [rng.randint(-8, 8) for _ in range(4)]
        lat = {"level": 3, "A": a, "b": b, "missing": [0, 0], "target": 1}
        try:
            x = solve(a, b)
        except ValueError:
            continue
        if x[1].denominator > 300 and _depends(a, b, 0, 0, 1):
            break
    assert FAMILY.check(lat) == "x[k*] has a denominator above 300"


def test_dependence_rule_matches_the_mobius_form():
    rng = random.Random(11)
    checked = 0
    while checked < 300:
        n = rng.randint(2, 4)
        a = [[rng.randint(-2, 2) for _ in range(n)] for _ in range(n)]
        b = [rng.randint(-2, 2) for _ in range(n)]
        probe = {"level": n - 1, "A": a, "b": b, "missing": [0, 0], "target": 0}
        if FAMILY.check(probe) == "A is singular":
            continue
        i, j, k = rng.randrange(n), rng.randrange(n), rng.randrange(n)
        n0, n1, d0, d1 = _mobius(a, b, i, j, k)
        assert _depends(a, b, i, j, k) == (n0 * d1 - n1 * d0 != 0)
        checked += 1


def test_generated_instances_follow_the_spec():
    for d in (1, 2, 3):
        n, bound = d + 1, 4 + 3 * (d - 1)
        slots = set()
        for s in range(40):
            inst = make_instance(FAMILY, d, 8000 * d + s, id="x", seed_set="test")
            lat = inst.latent_state()
            a, b = lat["A"], lat["b"]
            i, j = lat["missing"]
            assert len(a) == n and all(abs(v) <= bound for r in a for v in r)
            assert all(abs(v) <= 8 for v in b)
            x = solve(a, b)
            answer = x[lat["target"]]
            assert Fraction(inst.answer.value) == answer and answer.denominator <= 300
            moved = [list(r) for r in a]
            moved[i][j] += 1
            try:
                assert solve(moved, b)[lat["target"]] != answer
            except ValueError:   # singular after the move: the Möbius pole; try the other side
                moved[i][j] -= 2
                assert solve(moved, b)[lat["target"]] != answer
            assert f"A[{i}][{j}] = {a[i][j]}" not in inst.view.facts
            slots.add((i, j))
        assert len(slots) >= min(n * n, 4)
