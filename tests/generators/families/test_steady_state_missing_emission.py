"""steady_state_missing_emission: two absent entries of one emission row, either canonical."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction

from mira_math.generators.build import assemble_instance, make_instance
from mira_math.generators.families.steady_state_missing_emission import (
    FAMILY, _draw_row, _ergodic, _stationary)
from mira_math.generators.linalg import Singular, stationary
from mira_math.generators.schema import Hint, decode_latent, encode_latent
from mira_math.generators.validate import validate_instance
from mira_math.verifiers import verify

F = Fraction

# By hand: P = [[1/2, 1/2], [1/4, 3/4]] gives pi ∝ (P[s2][s1], P[s1][s2]) = (1/4, 1/2), so
# pi = (1/3, 2/3). E[s1] = (1/5, 4/5), E[s2] = (3/5, 2/5); P(o2) = 1/3·4/5 + 2/3·2/5 = 8/15.
# Swapping the absent row s2 to (2/5, 3/5) (the witness) gives 1/3·4/5 + 2/3·3/5 = 2/3.
HAND = {"level": 1, "P": [[1, 1], [1, 3]], "P_den": [2, 4], "E": [[1, 4], [3, 2]],
        "E_den": [5, 5], "state": 1, "absent": [0, 1], "target": 1}


def _instances(d, seeds=range(60)):
    return [make_instance(FAMILY, d, 900 * d + s, id=f"s-{d}-{s}", seed_set="test") for s in seeds]


def _latent(p, e, state, absent, target, level=1):
    """A latent state from fraction matrices (rows over their least common denominator)."""
    def rows(m):
        dens = [next(d for d in range(1, 1000) if all((x * d).denominator == 1 for x in r))
                for r in m]
        return [[int(x * d) for x in r] for r, d in zip(m, dens)], dens
    (pn, pd), (en, ed) = rows(p), rows(e)
    return {"level": level, "P": pn, "P_den": pd, "E": en, "E_den": ed, "state": state,
            "absent": absent, "target": target}


def test_hand_checked_instance():
    assert FAMILY.check(HAND) is None
    assert FAMILY.solve(HAND) == F(8, 15)
    inst = assemble_instance(FAMILY, 1, 1, 0, decode_latent(encode_latent(HAND)), id="s", seed_set="t")
    assert inst.view.facts == ["P[s1][s1] = 1/2", "P[s1][s2] = 1/2", "P[s2][s1] = 1/4",
                               "P[s2][s2] = 3/4", "E[s1][o1] = 1/5", "E[s1][o2] = 4/5"]
    assert inst.responder == ["E[s2][o1] = 3/5", "E[s2][o2] = 2/5"]
    assert [h.slot for h in inst.hints] == ["E[s2][o1]", "E[s2][o2]"]
    assert "o2" in inst.view.question and "row s2" in inst.view.domain
    assert inst.answer.value == "8/15"
    assert validate_instance(inst, FAMILY) == []
    alt = FAMILY.witness(HAND)
    assert alt["E"][1] == [2, 3] and FAMILY.solve(alt) == F(2, 3)
    assert verify(inst, "8/15").correct and not verify(inst, "2/3").correct


def test_reference_release_values():
    # ste-002180 (0-based there): P = [[1/3, 2/3], [2/5, 3/5]], E = [[2/5, 3/5], [1/2, 1/2]],
    # symbol index 1 -> 43/80; ste-002182: P = [[2/5, 3/5], [1/4, 3/4]],
    # E = [[4/5, 1/5], [1/3, 2/3]], symbol index 0 -> 8/17. Values only: P's fifths are outside
    # the d=1 denominator range.
    a = _latent([[F(1, 3), F(2, 3)], [F(2, 5), F(3, 5)]], [[F(2, 5), F(3, 5)], [F(1, 2), F(1, 2)]],
                1, [0, 1], 1)
    b = _latent([[F(2, 5), F(3, 5)], [F(1, 4), F(3, 4)]], [[F(4, 5), F(1, 5)], [F(1, 3), F(2, 3)]],
                1, [0, 1], 0)
    assert FAMILY.solve(a) == F(43, 80) and FAMILY.solve(b) == F(8, 17)
    assert "denominator" in FAMILY.check(a)


def test_integer_stationary_matches_linalg():
    rng = random.Random(3)
    checked = 0
    for _ in range(600):
        n = rng.randint(2, 4)
        rows = [_draw_row(rng, n, 6) for _ in range(n)]
        p, dens = [r for r, _ in rows], [d for _, d in rows]
        fractions = [[F(k, d) for k in r] for r, d in rows]
        if not _ergodic(p):
            continue
        weights, total = _stationary(p, dens)
        assert [F(w, total) for w in weights] == stationary(fractions)
        checked += 1
    assert checked > 100


def test_ergodicity_filter():
    assert _ergodic([[1, 1], [1, 3]])
    assert not _ergodic([[0, 1], [1, 0]])              # periodic
    assert not _ergodic([[1, 0], [1, 1]])              # reducible (s1 absorbing)
    assert not _ergodic([[0, 1, 0], [0, 0, 1], [1, 0, 0]])  # a 3-cycle
    assert _ergodic([[0, 1, 0], [0, 0, 1], [1, 1, 0]])      # cycles of length 2 and 3
    try:
        _stationary([[1, 0], [0, 1]], [1, 1])
    except Singular:
        pass
    else:
        raise AssertionError("a reducible chain has no unique stationary distribution")


def test_two_absent_entries_each_canonical_and_sufficient():
    for d in (1, 2, 3):
        n, m = d + 1, min(d + 1, 3)
        states, symbols = set(), set()
        for inst in _instances(d):
            latent = inst.latent_state()
            s, absent, target = latent["state"], latent["absent"], latent["target"]
            states.add(s)
            symbols.add(tuple(absent))
            assert target in absent
            assert f"pi(s) E[s][o{target + 1}]?" in inst.view.question
            assert len(inst.view.facts) == n * n + n * m - 2
            # row s* keeps m - 2 of its entries in the solver's view
            row_facts = [f for f in inst.view.facts if f.startswith(f"E[s{s + 1}]")]
            assert len(row_facts) == m - 2
            assert len(inst.responder) == 2 and len(inst.hints) == 2
            assert [h.constraint for h in inst.hints] == inst.responder
            assert [h.slot for h in inst.hints] == [f"E[s{s + 1}][o{o + 1}]" for o in absent]
            for h in inst.hints:
                assert h.constraint == f"{h.slot} = {h.value}"
                assert h.constraint not in inst.view.facts
                full = FAMILY.complete(FAMILY.known(latent), h)
                assert FAMILY.solve(full) == F(inst.answer.value)
        assert states == set(range(n))
        assert len(symbols) == m * (m - 1) // 2


def test_witness_keeps_the_view_and_changes_the_answer():
    for d in (1, 2, 3):
        for inst in _instances(d, range(40)):
            latent = inst.latent_state()
            alt = decode_latent(encode_latent(FAMILY.witness(latent)))
            assert FAMILY.check(alt) is None
            assert FAMILY.render(alt).facts == inst.view.facts
            assert FAMILY.known(alt) == FAMILY.known(latent)
            assert FAMILY.solve(alt) != FAMILY.solve(latent)


def test_equal_absent_entries_witness_moves_the_mass():
    latent = dict(HAND, E=[[1, 4], [1, 1]], E_den=[5, 2])  # E[s2] = (1/2, 1/2), target o2
    alt = FAMILY.witness(latent)
    assert alt["E"][1] == [1, 0] and alt["E_den"][1] == 1
    assert FAMILY.check(alt) is None
    assert FAMILY.solve(alt) != FAMILY.solve(latent)


def test_hint_outside_the_absent_pair_is_refused():
    known = FAMILY.known(HAND)
    for slot, value in (("E[s1][o1]", "1/5"), ("E[s2][o3]", "0"), ("E[s2][o1]", "6/5")):
        try:
            FAMILY.complete(known, Hint(slot, "", value))
        except ValueError:
            continue
        raise AssertionError(f"{slot} = {value} was accepted")


def test_absent_entries_both_zero_fail_validation():
    # Row s2 = (1, 0, 0) with o2 and o3 withheld: the row sum gives both away.
    inst = make_instance(FAMILY, 2, 8, id="s", seed_set="t")
    latent = inst.latent_state()
    s, absent = latent["state"], latent["absent"]
    row = [0, 0, 0]
    row[[o for o in range(3) if o not in absent][0]] = 1
    latent["E"][s], latent["E_den"][s] = row, 1
    bad = replace(inst, latent=encode_latent(latent))
    props = {f.property for f in validate_instance(bad, FAMILY)}
    assert "global_uniqueness" in props and "local_underdetermination" in props


def test_non_ergodic_chain_fails_validation():
    inst = make_instance(FAMILY, 1, 9, id="s", seed_set="t")
    latent = inst.latent_state()
    latent["P"], latent["P_den"] = [[0, 1], [1, 0]], [1, 1]
    bad = replace(inst, latent=encode_latent(latent))
    assert "global_uniqueness" in {f.property for f in validate_instance(bad, FAMILY)}
