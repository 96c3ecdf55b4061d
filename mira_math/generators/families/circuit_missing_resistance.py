"""Series-parallel resistor network with one resistance withheld (which one varies).

The topology is a random binary tree over R1..Rn (n = 2d+1, 1-based names everywhere).
An internal node is ``["+", left, right]`` (series) or ``["||", left, right]`` (parallel),
a leaf is the resistor's number. The solver sees the whole network as one expression in
that notation, e.g. ``(R3 + R7) || (R4 + (R6 + (R1 + (R2 + R5))))``.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any, Dict, List, Optional, Sequence, Union

from mira_math.generators.family import Family, Latent, Reject, Rendered
from mira_math.generators.schema import Hint
from mira_math.common.text import frac

Tree = Union[int, List[Any]]
SERIES, PARALLEL = "+", "||"


def _max_value(level: int) -> int:
    return 5 + 3 * (level - 1)


def _random_tree(rng: random.Random, labels: List[int]) -> Tree:
    """A random binary tree whose leaves are ``labels`` in order, random ops at each node."""
    if len(labels) == 1:
        return labels[0]
    cut = rng.randint(1, len(labels) - 1)
    return [rng.choice((SERIES, PARALLEL)),
            _random_tree(rng, labels[:cut]), _random_tree(rng, labels[cut:])]


def _leaves(tree: Tree) -> List[int]:
    if isinstance(tree, int):
        return [tree]
    return _leaves(tree[1]) + _leaves(tree[2])


def _ops(tree: Tree) -> List[str]:
    if isinstance(tree, int):
        return []
    return [tree[0]] + _ops(tree[1]) + _ops(tree[2])


def _well_formed(tree: Any) -> bool:
    if isinstance(tree, int) and not isinstance(tree, bool):
        return True
    return (isinstance(tree, list) and len(tree) == 3 and tree[0] in (SERIES, PARALLEL)
            and _well_formed(tree[1]) and _well_formed(tree[2]))


def _expression(tree: Tree, top: bool = True) -> str:
    """Fully parenthesised below the root: every sub-network reads unambiguously."""
    if isinstance(tree, int):
        return f"R{tree}"
    body = f"{_expression(tree[1], False)} {tree[0]} {_expression(tree[2], False)}"
    return body if top else f"({body})"


def _resistance(tree: Tree, values: Dict[str, int]) -> Fraction:
    if isinstance(tree, int):
        return Fraction(values[f"R{tree}"])
    a, b = _resistance(tree[1], values), _resistance(tree[2], values)
    return a + b if tree[0] == SERIES else a * b / (a + b)


def _context(n: int) -> str:
    """The setup paragraph, the same whether one resistor or two are withheld."""
    return (f"Resistors R1, ..., R{n} (resistances in ohms) form a series-parallel network between "
            f"two terminals. In the network expression, A + B means A and B connected in series and "
            f"A || B means A and B connected in parallel; parentheses group sub-networks. R_eq is the "
            f"equivalent resistance between the terminals.")

class CircuitMissingResistance(Family):
    name = "circuit_missing_resistance"
    type = "B"
    answer_type = "fraction"
    slot_fields = ("missing",)

    def generate(self, rng: random.Random, level: int) -> Latent:
        n = 2 * level + 1
        labels = list(range(1, n + 1))
        rng.shuffle(labels)
        tree = _random_tree(rng, labels)
        if len(set(_ops(tree))) < 2:
            raise Reject("a purely series or purely parallel network is a bare sum")
        values = {f"R{i}": rng.randint(1, _max_value(level)) for i in range(1, n + 1)}
        return {"level": level, "tree": tree, "values": values, "missing": rng.randint(1, n)}

    def check(self, latent: Latent) -> Optional[str]:
        level, tree, values = latent["level"], latent["tree"], latent["values"]
        if level not in (1, 2, 3):
            return f"level {level} is not 1, 2 or 3"
        n = 2 * level + 1
        if not _well_formed(tree):
            return "the topology is not a series-parallel tree"
        if sorted(_leaves(tree)) != list(range(1, n + 1)):
            return f"the network does not use each of R1..R{n} exactly once"
        if len(set(_ops(tree))) < 2:
            return "the network is purely series or purely parallel"
        if sorted(values) != sorted(f"R{i}" for i in range(1, n + 1)):
            return f"values are not given for exactly R1..R{n}"
        for name in sorted(values):
            v = values[name]
            if not (isinstance(v, int) and 1 <= v <= _max_value(level)):
                return f"{name} = {v} is outside [1, {_max_value(level)}]"
        if not (isinstance(latent["missing"], int) and 1 <= latent["missing"] <= n):
            return f"missing resistor {latent['missing']} is not one of R1..R{n}"
        return None

    def render(self, latent: Latent) -> Rendered:
        values, k = latent["values"], latent["missing"]
        n = len(values)
        line = f"R{k} = {values[f'R{k}']}"
        return Rendered(
            context=_context(n),
            facts=[f"Network: {_expression(latent['tree'])}"]
                  + [f"R{i} = {values[f'R{i}']}" for i in range(1, n + 1) if i != k],
            question="What is R_eq, in ohms? Give it as a reduced fraction.",
            domain="Every resistance is a positive integer number of ohms.",
            responder=[line],
            hints=[Hint(f"R{k}", line, frac(values[f"R{k}"]))],
        )

    def solve(self, latent: Latent) -> Fraction:
        return _resistance(latent["tree"], latent["values"])

    def known(self, latent: Latent) -> Dict[str, Any]:
        skip = f"R{latent['missing']}"
        return {"level": latent["level"], "tree": latent["tree"],
                "values": {k: v for k, v in latent["values"].items() if k != skip}}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        absent = [i for i in sorted(_leaves(known["tree"])) if f"R{i}" not in known["values"]]
        if [f"R{i}" for i in absent] != [hint.slot]:
            raise ValueError(f"hint slot {hint.slot!r} is not the one absent resistor")
        value = Fraction(hint.value)
        if value.denominator != 1 or value <= 0:
            raise ValueError(f"resistance {hint.value!r} is not a positive integer")
        return {"level": known["level"], "tree": known["tree"],
                "values": {**known["values"], hint.slot: int(value)}, "missing": absent[0]}

    def witness(self, latent: Latent) -> Optional[Latent]:
        # R_eq is strictly increasing in every resistance, so any other value changes it.
        key = f"R{latent['missing']}"
        v = latent["values"][key]
        other = v + 1 if v < _max_value(latent["level"]) else v - 1
        return {**latent, "values": {**latent["values"], key: other}}


FAMILY = CircuitMissingResistance()


class CircuitTwoFacts(CircuitMissingResistance):
    """Two resistances withheld (which two varies): ``missing`` is the pair, in increasing
    order. R_eq is strictly increasing in every resistance, so either one alone leaves it open."""

    k = 2

    def generate(self, rng: random.Random, level: int) -> Latent:
        latent = super().generate(rng, level)
        n = 2 * level + 1
        return {**latent, "missing": sorted(rng.sample(range(1, n + 1), 2))}

    def check(self, latent: Latent) -> Optional[str]:
        pair = latent["missing"]
        n = 2 * latent["level"] + 1
        if not (isinstance(pair, list) and len(pair) == 2 and pair == sorted(set(pair))
                and all(isinstance(i, int) and 1 <= i <= n for i in pair)):
            return f"the withheld resistors {pair} are not two of R1..R{n} in order"
        return super().check({**latent, "missing": pair[0]})

    def render(self, latent: Latent) -> Rendered:
        values, pair = latent["values"], latent["missing"]
        n = len(values)
        lines = [f"R{k} = {values[f'R{k}']}" for k in pair]
        return Rendered(
            context=_context(n),
            facts=[f"Network: {_expression(latent['tree'])}"]
                  + [f"R{i} = {values[f'R{i}']}" for i in range(1, n + 1) if i not in pair],
            question="What is R_eq, in ohms? Give it as a reduced fraction.",
            domain="Every resistance is a positive integer number of ohms.",
            responder=lines,
            hints=[Hint(f"R{k}", line, frac(values[f"R{k}"])) for k, line in zip(pair, lines)],
            hint_groups=[[f"R{k}"] for k in pair],
        )

    def known(self, latent: Latent) -> Dict[str, Any]:
        skip = {f"R{i}" for i in latent["missing"]}
        return {"level": latent["level"], "tree": latent["tree"],
                "values": {k: v for k, v in latent["values"].items() if k not in skip}}

    def complete_many(self, known: Dict[str, Any], hints: Sequence[Hint]) -> Latent:
        absent = [i for i in sorted(_leaves(known["tree"])) if f"R{i}" not in known["values"]]
        if sorted(h.slot for h in hints) != sorted(f"R{i}" for i in absent):
            raise ValueError("the hints are not the absent resistors")
        values = dict(known["values"])
        for h in hints:
            value = Fraction(h.value)
            if value.denominator != 1 or value <= 0:
                raise ValueError(f"resistance {h.value!r} is not a positive integer")
            values[h.slot] = int(value)
        return {"level": known["level"], "tree": known["tree"], "values": values,
                "missing": absent}

    def witness_given(self, latent: Latent, given: Optional[Hint]) -> Optional[Latent]:
        free = [i for i in latent["missing"] if given is None or f"R{i}" != given.slot]
        key = f"R{free[0]}"
        v = latent["values"][key]
        other = v + 1 if v < _max_value(latent["level"]) else v - 1
        return {**latent, "values": {**latent["values"], key: other}}


FAMILY_K2 = CircuitTwoFacts()
