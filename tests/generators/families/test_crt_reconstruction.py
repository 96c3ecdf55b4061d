"""crt_reconstruction: the unknown third modulus, the finite candidate set, level always 1."""

from __future__ import annotations

import dataclasses

from mira_math.generators.build import make_instance
from mira_math.generators.families.crt_reconstruction import FAMILY, PRIMES
from mira_math.generators.schema import Hint, encode_latent
from mira_math.generators.validate import validate_instance


def _instance(d: int = 1, seed: int = 3):
    return make_instance(FAMILY, d, seed, id="crt-test", seed_set="test")


def test_reference_example_solved_by_hand():
    # x ≡ 0 (mod 13), x ≡ 6 (mod 17), x ≡ 9 (mod 11): 1417 = 13·109 = 17·83 + 6 = 11·128 + 9.
    latent = {"level": 1, "moduli": [13, 17, 11], "x": 1417}
    assert FAMILY.check(latent) is None
    r = FAMILY.render(latent)
    assert r.facts == ["congruence 1: x ≡ 0 (mod 13)", "congruence 2: x ≡ 6 (mod 17)"]
    assert r.responder == ["congruence 3: x ≡ 9 (mod 11)"]
    assert r.hints == [Hint("congruence 3", "congruence 3: x ≡ 9 (mod 11)", "x ≡ 9 (mod 11)")]
    assert FAMILY.complete(FAMILY.known(latent), r.hints[0]) == latent
    assert FAMILY.solve(latent) == 1417


def test_candidates_follow_the_largest_unused_prime():
    # 13 and 17 used: m_3 may be 19, so x0 + 221k for k < 19, x0 = 1417 mod 221 = 91.
    known = {"level": 1, "moduli": [13, 17], "residues": [0, 6]}
    assert FAMILY.candidates(known) == {91 + 221 * k for k in range(19)}
    # 17 and 19 both used: the largest possible m_3 is 13.
    known = {"level": 1, "moduli": [19, 17], "residues": [1, 1]}
    assert FAMILY.candidates(known) == {1 + 323 * k for k in range(13)}


def test_third_congruence_is_always_held_back_and_level_is_one():
    for d in (1, 2, 3):
        for seed in range(30):
            inst = _instance(d, seed)
            assert inst.level == 1 and inst.difficulty == d
            latent = inst.latent_state()
            assert latent["moduli"][2] not in latent["moduli"][:2]
            assert all(m in PRIMES for m in latent["moduli"])
            assert inst.hints[0].slot == "congruence 3" and inst.responder == [inst.hints[0].constraint]
            assert inst.candidate_answers in (13, 17, 19)


def test_hint_with_a_used_modulus_is_refused():
    known = {"level": 1, "moduli": [13, 17], "residues": [0, 6]}
    try:
        FAMILY.complete(known, Hint("congruence 3", "congruence 3: x ≡ 1 (mod 13)", "x ≡ 1 (mod 13)"))
    except ValueError:
        return
    raise AssertionError("a congruence modulo an already used prime was accepted")


def test_corrupted_latent_fails_global_uniqueness():
    inst = _instance()
    latent = inst.latent_state()
    m = latent["moduli"]
    bad = dataclasses.replace(inst, latent=encode_latent({**latent, "x": m[0] * m[1] * m[2]}))
    props = {f.property for f in validate_instance(bad, FAMILY)}
    assert "global_uniqueness" in props


def test_wrong_hint_value_fails_hint_sufficiency():
    inst = _instance()
    h = inst.hints[0]
    m3 = inst.latent_state()["moduli"][2]
    r3 = (inst.latent_state()["x"] + 1) % m3
    bad = dataclasses.replace(inst, hints=[Hint(h.slot, h.constraint, f"x ≡ {r3} (mod {m3})")])
    props = {f.property for f in validate_instance(bad, FAMILY)}
    assert "hint_sufficiency" in props
