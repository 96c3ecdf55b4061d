"""circuit_missing_resistance: the paper's example, 1-based names, readable topology."""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

from mira_math.generators.build import assemble_instance, make_instance
from mira_math.generators.families.circuit_missing_resistance import FAMILY
from mira_math.generators.schema import Hint, decode_latent, encode_latent
from mira_math.generators.validate import validate_instance
from mira_math.verifiers import verify

# docs/benchmark.md §5 / paper Appendix D: (R3+R7) || (R4+(R6+(R1+(R2+R5)))), R3 = 7 held by B.
PAPER = {
    "level": 3,
    "tree": ["||", ["+", 3, 7], ["+", 4, ["+", 6, ["+", 1, ["+", 2, 5]]]]],
    "values": {"R1": 8, "R2": 11, "R3": 7, "R4": 1, "R5": 4, "R6": 9, "R7": 6},
    "missing": 3,
}


class _Net:
    """Evaluates a rendered network expression: ``+`` series, ``|`` (from ``||``) parallel."""

    def __init__(self, r):
        self.r = Fraction(r)

    def __add__(self, other):
        return _Net(self.r + other.r)

    def __or__(self, other):
        return _Net(self.r * other.r / (self.r + other.r))


def _evaluate(expression, values):
    env = {name: _Net(v) for name, v in values.items()}
    return eval(expression.replace("||", "|"), {"__builtins__": {}}, env).r  # noqa: S307


def _instances(d, seeds=range(60)):
    return [make_instance(FAMILY, d, 700 * d + s, id=f"c-{d}-{s}", seed_set="test") for s in seeds]


def test_paper_example_through_solve_and_verifier():
    assert FAMILY.check(PAPER) is None
    assert FAMILY.solve(PAPER) == Fraction(429, 46)
    r = FAMILY.render(PAPER)
    assert r.facts[0] == "Network: (R3 + R7) || (R4 + (R6 + (R1 + (R2 + R5))))"
    assert r.facts[1:] == ["R1 = 8", "R2 = 11", "R4 = 1", "R5 = 4", "R6 = 9", "R7 = 6"]
    assert r.responder == ["R3 = 7"]
    assert r.hints == [Hint("R3", "R3 = 7", "7")]
    inst = assemble_instance(FAMILY, 3, 3, 0, decode_latent(encode_latent(PAPER)), id="cir-paper",
                     seed_set="test")
    assert inst.answer.value == "429/46"
    assert validate_instance(inst, FAMILY) == []
    for form in ("429/46", "R_eq = 429/46", "\\frac{429}{46}", "\\boxed{858/92}"):
        assert verify(inst, form).correct, form
    for form in ("429/47", "9.33", "46/429"):
        assert not verify(inst, form).correct, form


def test_hand_checked_small_network():
    # (R1 + R2) || R3 with 1, 3, 4: (1 + 3) || 4 = 16/8 = 2; with R2 = 4 it is 20/9.
    latent = {"level": 1, "tree": ["||", ["+", 1, 2], 3], "values": {"R1": 1, "R2": 3, "R3": 4},
              "missing": 2}
    assert FAMILY.check(latent) is None
    assert FAMILY.solve(latent) == 2
    r = FAMILY.render(latent)
    assert r.facts == ["Network: (R1 + R2) || R3", "R1 = 1", "R3 = 4"]
    assert r.responder == ["R2 = 3"]
    assert FAMILY.complete(FAMILY.known(latent), r.hints[0]) == latent
    assert FAMILY.solve(FAMILY.witness(latent)) == Fraction(20, 9)
    assert FAMILY.check({**latent, "values": {"R1": 1, "R2": 3, "R3": 6}}) == "R3 = 6 is outside [1, 5]"


def test_names_are_one_based_and_the_expression_is_the_network():
    for d in (1, 2, 3):
        n = 2 * d + 1
        for inst in _instances(d, range(40)):
            network = inst.view.facts[0]
            assert network.startswith("Network: ")
            expression = network[len("Network: "):]
            named = re.findall(r"R(\d+)", expression)
            assert sorted(map(int, named)) == list(range(1, n + 1))
            given = [line for line in inst.view.facts[1:]] + inst.responder
            assert sorted(int(re.match(r"R(\d+) = \d+$", g).group(1)) for g in given) == list(range(1, n + 1))
            assert "R0" not in " ".join(inst.view.facts + inst.responder) + inst.view.context
            (hint,) = inst.hints
            assert hint.constraint == f"{hint.slot} = {hint.value}" and re.fullmatch(r"R[1-9]", hint.slot)
            values = {line.split(" = ")[0]: int(line.split(" = ")[1]) for line in given}
            assert _evaluate(expression, values) == Fraction(inst.answer.value)


def test_missing_resistor_varies_and_networks_mix_series_and_parallel():
    for d in (1, 2, 3):
        n = 2 * d + 1
        latents = [decode_latent(i.latent) for i in _instances(d, range(150))]
        assert {lat["missing"] for lat in latents} == set(range(1, n + 1))
        for latent in latents:
            text = FAMILY.render(latent).facts[0]
            assert " + " in text and " || " in text
            assert max(latent["values"].values()) <= 5 + 3 * (d - 1)


def test_answer_depends_on_the_missing_resistance():
    for d in (1, 2, 3):
        for inst in _instances(d, range(30)):
            latent = decode_latent(inst.latent)
            key = f"R{latent['missing']}"
            answers = [FAMILY.solve({**latent, "values": {**latent["values"], key: v}})
                       for v in range(1, 6 + 3 * (d - 1))]
            assert answers == sorted(set(answers))  # strictly increasing in R_k


def test_corrupted_states_fail_with_the_right_property():
    inst = assemble_instance(FAMILY, 3, 3, 0, decode_latent(encode_latent(PAPER)), id="c", seed_set="test")
    # a resistor used twice (R7 replaced by R3): not a valid network
    latent = {**PAPER, "tree": ["||", ["+", 3, 3], PAPER["tree"][2]]}
    bad = dataclasses.replace(inst, latent=encode_latent(latent))
    props = {f.property for f in validate_instance(bad, FAMILY)}
    assert "global_uniqueness" in props and "consistency" in props
    # a resistance of 0 ohms on the missing resistor
    bad = dataclasses.replace(inst, latent=encode_latent({**PAPER, "values": {**PAPER["values"], "R3": 0}}))
    assert "global_uniqueness" in {f.property for f in validate_instance(bad, FAMILY)}
    # the stored answer is the paper's R_eq with a wrong value
    bad = dataclasses.replace(inst, answer=dataclasses.replace(inst.answer, value="429/47"))
    assert [f.property for f in validate_instance(bad, FAMILY)] == ["global_uniqueness", "hint_sufficiency"]
