"""birth_death_missing_rate: one indexing everywhere, the slot varies, the target depends on it."""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

from mira_math.generators.build import assemble_instance, make_instance
from mira_math.generators.families.birth_death_missing_rate import FAMILY
from mira_math.generators.linalg import stationary
from mira_math.generators.schema import Hint, decode_latent, encode_latent
from mira_math.generators.validate import validate_instance
from mira_math.verifiers import verify

# n = 3: lambda_0 = 2, lambda_1 = 3, mu_1 = 1, mu_2 = 2. By hand: pi ∝ (1, 2/1, 2·3/(1·2))
# = (1, 2, 3), so pi = (1/6, 1/3, 1/2).
HAND = {"level": 1, "n": 3, "rates": {"lambda_0": 2, "lambda_1": 3, "mu_1": 1, "mu_2": 2},
        "missing": "mu_1", "target": 2}


def _instances(d, seeds=range(60)):
    return [make_instance(FAMILY, d, 500 * d + s, id=f"b-{d}-{s}", seed_set="test") for s in seeds]


def _brute_force_pi(n, rates):
    """Stationary law of the uniformised jump chain built straight from the definitions:
    lambda_i moves i -> i+1, mu_i moves i -> i-1."""
    q = [[Fraction(0)] * n for _ in range(n)]
    for i in range(n - 1):
        q[i][i + 1] = Fraction(rates[f"lambda_{i}"])
    for i in range(1, n):
        q[i][i - 1] = Fraction(rates[f"mu_{i}"])
    c = 1 + max(sum(row) for row in q)
    p = [[(1 if i == j else 0) + (q[i][j] - (sum(q[i]) if i == j else 0)) / c
          for j in range(n)] for i in range(n)]
    return stationary(p)


def test_hand_checked_instance():
    assert FAMILY.check(HAND) is None
    assert FAMILY.solve(HAND) == Fraction(1, 2)
    assert FAMILY.solve({**HAND, "target": 0}) == Fraction(1, 6)
    r = FAMILY.render(HAND)
    assert r.facts == ["lambda_0 = 2", "lambda_1 = 3", "mu_2 = 2"]
    assert r.responder == ["mu_1 = 1"]
    assert r.hints == [Hint("mu_1", "mu_1 = 1", "1")]
    assert "mu_i is the rate of the transition from state i to state i-1" in r.context
    assert "lambda_i is the rate of the transition from state i to state i+1" in r.context
    assert "pi_2" in r.question
    inst = assemble_instance(FAMILY, 1, 1, 0, decode_latent(encode_latent(HAND)), id="hand", seed_set="test")
    assert validate_instance(inst, FAMILY) == []
    assert verify(inst, "1/2").correct and verify(inst, "\\frac{3}{6}").correct
    assert not verify(inst, "1/3").correct


def test_same_indexing_in_context_facts_responder_and_hint():
    """docs/benchmark.md §9: the reference's death rates were off by one between views. Here the names
    in the context, the facts, the responder line and the hint slot are one set."""
    for d in (1, 2, 3):
        n = d + 2
        expected = {f"lambda_{i}" for i in range(n - 1)} | {f"mu_{i}" for i in range(1, n)}
        for inst in _instances(d, range(40)):
            named = re.findall(r"(lambda_\d+|mu_\d+) = \d+", "\n".join(inst.view.facts + inst.responder))
            assert sorted(named) == sorted(expected)
            assert set(re.findall(r"lambda_\d+|mu_\d+", inst.view.context)) == expected
            (hint,) = inst.hints
            assert inst.responder == [hint.constraint]
            assert hint.constraint == f"{hint.slot} = {hint.value}"
            assert hint.slot not in {line.split(" = ")[0] for line in inst.view.facts}
            assert "mu_0" not in inst.view.context + "".join(inst.responder)
            assert f"lambda_{n - 1}" not in inst.view.context + "".join(inst.responder)


def test_solver_follows_the_stated_definitions():
    for d in (1, 2, 3):
        for inst in _instances(d, range(30)):
            latent = decode_latent(inst.latent)
            pi = _brute_force_pi(latent["n"], latent["rates"])
            assert FAMILY.solve(latent) == pi[latent["target"]]


def test_missing_slot_and_target_vary():
    for d in (1, 2, 3):
        n = d + 2
        latents = [decode_latent(i.latent) for i in _instances(d, range(150))]
        slots = {lat["missing"] for lat in latents}
        assert {"lambda_0", f"lambda_{n - 2}", "mu_1", f"mu_{n - 1}"} <= slots
        assert {lat["target"] for lat in latents} == set(range(n))


def test_answer_depends_on_the_missing_rate():
    for d in (1, 2, 3):
        for inst in _instances(d, range(30)):
            latent = decode_latent(inst.latent)
            answers = {FAMILY.solve({**latent, "rates": {**latent["rates"], latent["missing"]: v}})
                       for v in range(1, 4 + 2 * d)}
            assert len(answers) == 3 + 2 * d  # strictly monotone: every value gives its own answer


def test_complete_rejects_a_wrong_slot():
    known = FAMILY.known(HAND)
    assert FAMILY.complete(known, Hint("mu_1", "mu_1 = 1", "1"))["rates"] == HAND["rates"]
    for bad in (Hint("mu_2", "mu_2 = 1", "1"), Hint("mu_1", "mu_1 = 1/2", "1/2"),
                Hint("mu_1", "mu_1 = 0", "0")):
        try:
            FAMILY.complete(known, bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad} was accepted")


def _corrupt(inst, **changes):
    latent = decode_latent(inst.latent)
    latent.update(changes)
    return dataclasses.replace(inst, latent=encode_latent(latent))


def test_corrupted_states_fail_with_the_right_property():
    inst = make_instance(FAMILY, 2, 7, id="c", seed_set="test")
    latent = decode_latent(inst.latent)
    missing = latent["missing"]
    # the missing rate out of range: the state is invalid (facts are unchanged)
    bad = _corrupt(inst, rates={**latent["rates"], missing: 99})
    props = {f.property for f in validate_instance(bad, FAMILY)}
    assert "global_uniqueness" in props and "consistency" in props  # responder line changed
    # a known rate changed: the record's fact lines no longer render from the state
    other = next(k for k in sorted(latent["rates"]) if k != missing)
    bad = _corrupt(inst, rates={**latent["rates"], other: latent["rates"][other] % 5 + 1})
    assert "consistency" in {f.property for f in validate_instance(bad, FAMILY)}
    # a wrong stored answer
    bad = dataclasses.replace(inst, answer=dataclasses.replace(inst.answer, value="1/1000"))
    assert {f.property for f in validate_instance(bad, FAMILY)} >= {"global_uniqueness"}
