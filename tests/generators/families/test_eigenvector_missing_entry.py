"""eigenvector_missing_entry: the missing entry sits where v is 0; the target depends on it."""

from __future__ import annotations

from dataclasses import replace

from mira_math.generators.build import assemble_instance, make_instance
from mira_math.generators.families.eigenvector_missing_entry import FAMILY
from mira_math.generators.schema import Hint, encode_latent
from mira_math.generators.validate import failed_properties, validate_instance
from mira_math.verifiers import verify

# M v = (2·2 + (-2)·0, 0·2 + 3·0) = (4, 0) = 2·v. M² = [[4, -10], [0, 9]].
HAND = {"level": 1, "M": [[2, -2], [0, 3]], "v": [2, 0], "missing": [0, 1], "target": [0, 1]}


def _record(latent):
    return assemble_instance(FAMILY, latent["level"], latent["level"], 0, latent, id="eig-test",
                     seed_set="test")



def _square(m, i, t):
    return sum(m[i][k] * m[k][t] for k in range(len(m)))


def test_hand_instance():
    # (M²)[0][1] = M[0][0]·M[0][1] + M[0][1]·M[1][1] = 2·(-2) + (-2)·3 = -10; as a function of
    # the missing x = M[0][1] it is 5x, so the view alone leaves it open.
    inst = _record(HAND)
    assert validate_instance(inst, FAMILY) == []
    # Chance level: 5x over the stated range x in [-8, 8] takes 17 values.
    assert inst.answer.value == "-10" and inst.candidate_answers == 17
    assert inst.view.facts == ["M[0][0] = 2", "M[1][0] = 0", "M[1][1] = 3", "v = (2, 0)"]
    assert inst.hints == [Hint("M[0][1]", "M[0][1] = -2", "-2")]
    assert inst.view.question == "What is (M²)[0][1]? Give its exact integer value."
    assert inst.view.domain == "Every entry of M is an integer between -8 and 8."
    alt = FAMILY.witness(HAND)
    assert alt["M"][0][1] != -2 and FAMILY.check(alt) is None
    assert FAMILY.solve(alt) == 5 * alt["M"][0][1]
    assert verify(inst, "-10").correct and not verify(inst, "10").correct


def test_missing_entry_where_v_is_nonzero_fails():
    # M[0][0] enters M v = λ v (v[0] = 2): the view would give it away.
    bad = {**HAND, "missing": [0, 0], "target": [0, 1]}
    assert FAMILY.check(bad) is not None
    props = failed_properties(_record(bad))
    assert "global_uniqueness" in props
    # The chance level counts only values that keep v an eigenvector: with v = (1, 1) and
    # M[0][0] missing, M[0][0] + M[0][1] must equal M[1][0] + M[1][1], one value.
    known = {"level": 1, "M": [[None, 1], [2, 3]], "v": [1, 1], "missing": [0, 0],
             "target": [0, 1]}
    assert FAMILY.candidates(known) == {4 * 1 + 1 * 3}


def test_target_independent_of_missing_entry_fails():
    bad = {**HAND, "target": [0, 0]}    # (M²)[0][0] = 4 + x·0
    props = failed_properties(_record(bad))
    assert "local_underdetermination" in props


def test_square_of_missing_entry_alone_is_filtered():
    # v = (1, 0): M = [[λ, x], [0, s]]; with s missing, (M²)[1][1] = s² uses no known entry.
    lat = {"level": 1, "M": [[2, 1], [0, 3]], "v": [1, 0], "missing": [1, 1], "target": [1, 1]}
    assert "alone" in FAMILY.check(lat)


def test_broken_eigenvector_fails_global_uniqueness():
    inst = _record(HAND)
    broken = {**HAND, "M": [[2, -2], [1, 3]]}          # M v = (4, 2) is not a multiple of v
    props = failed_properties(replace(inst, latent=encode_latent(broken)))
    assert "global_uniqueness" in props


def test_generated_instances_follow_the_spec():
    seen_slots = set()
    for d in (1, 2, 3):
        n, bound = d + 1, 7 + d
        for s in range(40):
            inst = make_instance(FAMILY, d, 3000 * d + s, id="x", seed_set="test")
            lat = inst.latent_state()
            m, v = lat["M"], lat["v"]
            i, j = lat["missing"]
            ti, t = lat["target"]
            assert len(m) == n and all(abs(x) <= bound for r in m for x in r)
            mv = [sum(a * b for a, b in zip(r, v)) for r in m]
            k = next(c for c in range(n) if v[c] != 0)
            lam = mv[k] // v[k]
            assert mv == [lam * c for c in v] and 1 <= lam <= bound
            assert v[j] == 0 and ti == i
            # the answer really moves with the missing entry
            answers = set()
            for y in range(-bound, bound + 1):
                m2 = [list(r) for r in m]
                m2[i][j] = y
                answers.add(_square(m2, i, t))
            assert len(answers) > 1
            assert inst.answer.value == str(_square(m, i, t)) != "0"
            assert f"M[{i}][{j}] = {m[i][j]}" not in inst.view.facts
            seen_slots.add((d, i, j))
    assert len(seen_slots) >= 8


def test_bound_and_distinct_views_at_level_1():
    # At n = 2 the view is v ∈ {(1, 0), (0, 1)}, λ on the diagonal, a 0 and the other
    # diagonal entry s (λ + s != 0): 4B² views for bound B. the originally specified B = 3 gave 36, too few for
    # the release and its held-out splits; B = 8 gives 256, and the bound grows with d.
    assert [FAMILY.check({**HAND, "level": 1, "M": [[2, x], [0, 3]]}) is None
            for x in (-8, 8, 9)] == [True, True, False]
    views = set()
    for s in range(1200):
        inst = make_instance(FAMILY, 1, s, id="x", seed_set="test")
        views.add((tuple(inst.view.facts), inst.view.question))
    assert 200 <= len(views) <= 256
