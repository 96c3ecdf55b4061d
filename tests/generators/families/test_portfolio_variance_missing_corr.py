"""portfolio_variance_missing_corr: exact PSD filter, varying missing pair, one notation."""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import replace
from fractions import Fraction

from mira_math.generators.build import assemble_instance, make_instance
from mira_math.generators.families.portfolio_variance_missing_corr import (
    FAMILY, _matrix, _positive_definite, _rho_grid)
from mira_math.generators.linalg import det
from mira_math.generators.schema import Hint, decode_latent, encode_latent
from mira_math.generators.validate import validate_instance
from mira_math.verifiers import verify

F = Fraction

# Three assets, by hand: u = w * sigma = (1, 1, 1/4); sum u_i^2 = 33/16; cross terms
# 2 (1*1*1/2 + 1*(1/4)*0 + 1*(1/4)*(-1/2)) = 3/4, so sigma_p^2 = 45/16. With rho(1,2) = 0
# instead (the witness: 0 is the first grid value, and the matrix stays PD) it is 29/16.
HAND = {"level": 2, "w": [F(1, 2), F(1, 4), F(1, 4)], "sigma": [2, 4, 1],
        "rho": {"1,2": F(1, 2), "1,3": F(0), "2,3": F(-1, 2)}, "missing": "1,2"}


def _instances(d, seeds=range(60)):
    return [make_instance(FAMILY, d, 700 * d + s, id=f"p-{d}-{s}", seed_set="test") for s in seeds]


def _psd_by_minors(c):
    """PSD the slow, obvious way: every principal minor >= 0."""
    n = len(c)
    return all(det([[c[i][j] for j in idx] for i in idx]) >= 0
               for k in range(1, n + 1) for idx in itertools.combinations(range(n), k))


def test_hand_checked_instance():
    assert FAMILY.check(HAND) is None
    assert FAMILY.solve(HAND) == F(45, 16)
    inst = assemble_instance(FAMILY, 2, 2, 0, decode_latent(encode_latent(HAND)), id="p", seed_set="t")
    assert inst.view.facts == ["w(1) = 1/2", "w(2) = 1/4", "w(3) = 1/4", "sigma(1) = 2",
                               "sigma(2) = 4", "sigma(3) = 1", "rho(1,3) = 0", "rho(2,3) = -1/2"]
    assert inst.responder == ["rho(1,2) = 1/2"]
    assert inst.hints == [Hint("rho(1,2)", "rho(1,2) = 1/2", "1/2")]
    assert inst.view.domain.startswith("rho(1,2) is a correlation in [-1, 1]")
    assert inst.answer.value == "45/16"
    assert validate_instance(inst, FAMILY) == []
    alt = FAMILY.witness(HAND)
    assert alt["rho"]["1,2"] == 0 and FAMILY.solve(alt) == F(29, 16)
    assert verify(inst, "\\frac{45}{16}").correct and not verify(inst, "29/16").correct


def test_reference_release_values():
    # Two assets (por-002020): w = (3/5, 2/5), sigma = (3, 4), rho = -3/4 -> 37/25.
    two = {"level": 1, "w": [F(3, 5), F(2, 5)], "sigma": [3, 4], "rho": {"1,2": F(-3, 4)},
           "missing": "1,2"}
    assert FAMILY.check(two) is None and FAMILY.solve(two) == F(37, 25)
    # Three assets (por-002068, 1-based here): only the value is checked, 1/9 is outside our
    # weight-denominator range at d=2.
    three = {"level": 2, "w": [F(1, 9), F(4, 9), F(4, 9)], "sigma": [1, 2, 1],
             "rho": {"1,2": F(0), "1,3": F(1, 3), "2,3": F(-2, 3)}, "missing": "1,2"}
    assert FAMILY.solve(three) == F(41, 81)
    assert "denominator" in FAMILY.check(three)


def test_positive_definite_matches_principal_minors():
    rng = random.Random(11)
    grid = _rho_grid(3)
    seen = set()
    for _ in range(400):
        n = rng.randint(2, 4)
        rho = {f"{i + 1},{j + 1}": rng.choice(grid) for i in range(n) for j in range(i + 1, n)}
        c = _matrix(rho, n)
        pd = _positive_definite(c)
        seen.add(pd)
        assert pd == (all(det([row[:k] for row in c[:k]]) > 0 for k in range(1, n + 1)))
        if pd:
            assert _psd_by_minors(c)
    assert seen == {True, False}


def test_missing_pair_varies_and_is_the_only_absent_correlation():
    for d in (1, 2, 3):
        n = d + 1
        pairs = set()
        for inst in _instances(d):
            latent = inst.latent_state()
            pairs.add(latent["missing"])
            slot = inst.hints[0].slot
            assert slot == f"rho({latent['missing']})"
            rho_facts = [f for f in inst.view.facts if f.startswith("rho(")]
            assert len(rho_facts) == n * (n - 1) // 2 - 1
            assert not any(f.startswith(slot) for f in inst.view.facts)
            assert inst.responder == [inst.hints[0].constraint]
            assert re.fullmatch(r"rho\(\d,\d\) = -?\d+(/\d+)?", inst.hints[0].constraint)
            assert slot in inst.view.domain
        assert len(pairs) == n * (n - 1) // 2  # every pair is withheld somewhere


def test_every_instance_and_witness_is_a_psd_correlation_with_another_answer():
    for d in (1, 2, 3):
        for inst in _instances(d, range(40)):
            latent = inst.latent_state()
            n = len(latent["w"])
            assert _psd_by_minors(_matrix(latent["rho"], n))
            assert sum(latent["w"]) == 1 and all(x > 0 for x in latent["w"])
            alt = FAMILY.witness(latent)
            assert FAMILY.check(alt) is None
            assert -1 <= alt["rho"][latent["missing"]] <= 1
            assert _psd_by_minors(_matrix(alt["rho"], n))
            assert FAMILY.known(alt) == FAMILY.known(latent)
            assert FAMILY.solve(alt) != FAMILY.solve(latent)


def test_hint_names_the_missing_pair_only():
    known = FAMILY.known(HAND)
    assert FAMILY.solve(FAMILY.complete(known, Hint("rho(1,2)", "", "-1/4"))) == F(21, 16)
    for slot in ("rho(1,3)", "rho(2,1)", "sigma(1)"):
        try:
            FAMILY.complete(known, Hint(slot, "", "0"))
        except ValueError:
            continue
        raise AssertionError(f"{slot} was accepted as the missing correlation")


def test_non_psd_latent_fails_validation():
    inst = make_instance(FAMILY, 2, 5, id="p", seed_set="t")
    latent = inst.latent_state()
    # rho(1,2) = rho(1,3) = 9/10 with rho(2,3) = -9/10 is not PSD (det < 0).
    latent["rho"] = {"1,2": F(9, 10), "1,3": F(9, 10), "2,3": F(-9, 10)}
    bad = replace(inst, latent=encode_latent(latent))
    props = {f.property for f in validate_instance(bad, FAMILY)}
    assert "global_uniqueness" in props


def test_wrong_stored_answer_fails_validation():
    inst = make_instance(FAMILY, 3, 6, id="p", seed_set="t")
    value = F(inst.answer.value) + 1
    bad = replace(inst, answer=replace(inst.answer, value=str(value)))
    props = {f.property for f in validate_instance(bad, FAMILY)}
    assert props == {"global_uniqueness", "hint_sufficiency"}
