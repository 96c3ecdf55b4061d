"""Every registered family x difficulty 1-3 x 50 seeds: valid, verifiable, deterministic.

Family-specific facts (worked examples, placement rules) live in ``families/test_<name>.py``.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from mira_math.generators import registry
from mira_math.generators.build import make_instance
from mira_math.generators.schema import decode_latent
from mira_math.generators.validate import validate_instance
from mira_math.verifiers import verify
from mira_math.verifiers.exact import from_canonical

SEEDS = range(50)
FAMILIES = registry.names()


def _instances(name: str, d: int, seeds=SEEDS):
    family = registry.get(name)
    return [make_instance(family, d, 1000 * d + s, id=f"t-{d}-{s}", seed_set="test") for s in seeds]


def _written_forms(inst) -> list[str]:
    """Several ways a solver may write the stored answer; all must be accepted."""
    value = from_canonical(inst.answer.type, inst.answer.value)
    canon = inst.answer.value
    forms = [canon, f"\\boxed{{{canon}}}", f"The answer is {canon}".split(" is ")[1], f"  {canon}. "]
    if inst.answer.type == "tuple":
        inner = canon[1:-1]
        forms += [f"[{inner}]", ", ".join(f"{n} = {v}" for n, v in zip(inst.answer.components, inner.split(", "))),
                  f"({', '.join(inst.answer.components)}) = {canon}"]
    else:
        v = Fraction(value)
        forms += [f"x = {canon}", f"{2 * v.numerator}/{2 * v.denominator}",
                  f"\\frac{{{v.numerator}}}{{{v.denominator}}}"]
        if v < 0:
            forms.append(canon.replace("-", "\u2212"))
    return forms


def _perturbed(inst) -> str:
    value = from_canonical(inst.answer.type, inst.answer.value)
    if inst.answer.type == "tuple":
        return "(" + ", ".join(str(Fraction(c) + (1 if i == 0 else 0)) for i, c in enumerate(value)) + ")"
    if inst.answer.type == "cell":
        return str(1 - value)
    return str(Fraction(value) + 1)


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("name", FAMILIES)
def test_family_instances_are_valid_and_verifiable(name, d):
    family = registry.get(name)
    for inst in _instances(name, d):
        assert inst.level == family.level(d)
        assert validate_instance(inst, family) == []
        for form in _written_forms(inst):
            verdict = verify(inst, form)
            assert verdict.correct, (inst.id, form, verdict)
        assert not verify(inst, _perturbed(inst)).correct
        assert any(h.constraint in inst.responder for h in inst.hints)
        assert not set(h.constraint for h in inst.hints) & set(inst.view.facts)


@pytest.mark.parametrize("name", FAMILIES)
def test_regeneration_from_seed_is_identical(name):
    family = registry.get(name)
    for d in (1, 2, 3):
        a = make_instance(family, d, 77 + d, id="x", seed_set="test")
        b = make_instance(family, d, 77 + d, id="x", seed_set="test")
        assert a.to_json_line() == b.to_json_line()
        assert decode_latent(a.latent) == decode_latent(b.latent)


@pytest.mark.parametrize("name", FAMILIES)
def test_answers_do_not_cluster(name):
    family = registry.get(name)
    for d in (1, 2, 3):
        answers = Counter(i.answer.value for i in _instances(name, d, range(200)))
        value, count = answers.most_common(1)[0]
        assert Fraction(count, 200) <= family.max_answer_share, (name, d, value, count)


@pytest.mark.parametrize("name", FAMILIES)
def test_latent_states_vary(name):
    """Different seeds give different problems (no degenerate generator)."""
    latents = {i.latent for i in _instances(name, 2, range(40))}
    assert len(latents) >= 20
