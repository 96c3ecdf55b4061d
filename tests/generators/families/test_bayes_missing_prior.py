from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from mira_math.generators.build import make_instance
from mira_math.generators.families.bayes_missing_prior import FAMILY
from mira_math.generators.schema import Hint, encode_latent
from mira_math.generators.validate import validate_instance
from mira_math.verifiers import verify


def test_paper_worked_example():
    latent = {"level": 3, "prior": Fraction(5, 8), "sens": Fraction(1, 9), "fpr": Fraction(1, 2)}
    assert FAMILY.check(latent) is None
    assert FAMILY.solve(latent) == Fraction(10, 37)
    rebuilt = FAMILY.complete(FAMILY.known(latent), Hint("P(H)", "P(H) = 5/8", "5/8"))
    assert FAMILY.solve(rebuilt) == Fraction(10, 37)
    inst = make_instance(FAMILY, 3, 1, id="bay-000044", seed_set="t")
    inst = replace(inst, answer=replace(inst.answer, value="10/37"))
    assert verify(inst, "10/37").correct
    assert verify(inst, "\\frac{10}{37}").correct
    assert not verify(inst, "5/29").correct


def test_views_use_one_notation():
    inst = make_instance(FAMILY, 1, 3, id="bay-000000", seed_set="t")
    assert [f.split(" = ")[0] for f in inst.view.facts] == ["P(E|H)", "P(E|¬H)"]
    assert inst.responder == [inst.hints[0].constraint]
    assert inst.hints[0].constraint == f"P(H) = {inst.hints[0].value}"


def test_uninformative_evidence_is_rejected():
    latent = {"level": 1, "prior": Fraction(1, 2), "sens": Fraction(1, 3), "fpr": Fraction(1, 3)}
    assert "uninformative" in FAMILY.check(latent)


def test_denominators_respect_the_difficulty_range():
    # Denominators b in [2, 4+2d] (the originally specified [2, 3+2d] widened: see docs/decisions.md).
    for d in (1, 2, 3):
        tops = set()
        for seed in range(60):
            inst = make_instance(FAMILY, d, seed, id="b", seed_set="t")
            latent = inst.latent_state()
            top = max(latent[k].denominator for k in ("prior", "sens", "fpr"))
            assert top <= 4 + 2 * d
            tops.add(top)
        assert 4 + 2 * d in tops  # the widened range is actually used
    assert "denominator above 6" in FAMILY.check(
        {"level": 1, "prior": Fraction(1, 7), "sens": Fraction(1, 2), "fpr": Fraction(1, 3)})


def test_enough_distinct_views_at_level_1():
    # The view is (P(E|H), P(E|¬H)): ordered pairs of distinct fractions in (0, 1) with
    # denominator <= 6, 11 * 10 = 110 of them (72 with the originally specified <= 5), all valid.
    fractions = {Fraction(a, b) for b in range(2, 7) for a in range(1, b)}
    assert len(fractions) == 11
    ok = [(s, f) for s in fractions for f in fractions
          if FAMILY.check({"level": 1, "prior": Fraction(1, 2), "sens": s, "fpr": f}) is None]
    assert len(ok) == 110


def test_out_of_range_prior_fails_validation():
    inst = make_instance(FAMILY, 1, 4, id="b", seed_set="t")
    latent = inst.latent_state()
    latent["prior"] = Fraction(3, 2)
    bad = replace(inst, latent=encode_latent(latent))
    assert "global_uniqueness" in {f.property for f in validate_instance(bad, FAMILY)}
