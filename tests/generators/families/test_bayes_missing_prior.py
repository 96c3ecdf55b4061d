from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from generators.build import make_instance
from generators.families.bayes_missing_prior import FAMILY
from generators.schema import Hint, encode_latent
from generators.validate import validate_instance
from verifiers import verify


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
    for d in (1, 2, 3):
        for seed in range(30):
            inst = make_instance(FAMILY, d, seed, id="b", seed_set="t")
            latent = inst.latent_state()
            assert max(latent[k].denominator for k in ("prior", "sens", "fpr")) <= 3 + 2 * d


def test_out_of_range_prior_fails_validation():
    inst = make_instance(FAMILY, 1, 4, id="b", seed_set="t")
    latent = inst.latent_state()
    latent["prior"] = Fraction(3, 2)
    bad = replace(inst, latent=encode_latent(latent))
    assert "global_uniqueness" in {f.property for f in validate_instance(bad, FAMILY)}
