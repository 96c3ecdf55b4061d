"""Series-parallel network with a shorted branch: a sub-network in parallel with a wire ``W``
(zero resistance) carries no current, so every resistance inside it is irrelevant to R_eq.

The latent state is the tree (``["+", a, b]`` series, ``["||", a, b]`` parallel, an int a
resistor, ``"W"`` the wire) and the resistances. Needed facts are resistances outside the
shorted branch: R_eq strictly grows with each of them, so any other value changes it.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any, Dict, List, Mapping, Optional, Union

from mira_math.generators.blind.contract import BlindFamily, Domain, Latent, Rational, Reject, Setting

Tree = Union[int, str, List[Any]]
SERIES, PARALLEL, WIRE = "+", "||", "W"


def _tree(rng: random.Random, labels: List[int]) -> Tree:
    if len(labels) == 1:
        return labels[0]
    cut = rng.randint(1, len(labels) - 1)
    return [rng.choice((SERIES, PARALLEL)), _tree(rng, labels[:cut]), _tree(rng, labels[cut:])]


def _subtrees(tree: Tree, path: tuple = ()) -> List[tuple]:
    if not isinstance(tree, list):
        return [path]
    return [path] + _subtrees(tree[1], path + (1,)) + _subtrees(tree[2], path + (2,))


def _get(tree: Tree, path: tuple) -> Tree:
    for step in path:
        tree = tree[step]  # type: ignore[index]
    return tree


def _replace(tree: Tree, path: tuple, new: Tree) -> Tree:
    if not path:
        return new
    out = list(tree)  # type: ignore[arg-type]
    out[path[0]] = _replace(out[path[0]], path[1:], new)
    return out


def _leaves(tree: Tree) -> List[int]:
    if isinstance(tree, int):
        return [tree]
    if isinstance(tree, str):
        return []
    return _leaves(tree[1]) + _leaves(tree[2])


def _shorted(tree: Tree) -> List[int]:
    """Resistors inside a sub-network in parallel with the wire."""
    if not isinstance(tree, list):
        return []
    if tree[0] == PARALLEL and WIRE in (tree[1], tree[2]):
        other = tree[2] if tree[1] == WIRE else tree[1]
        return _leaves(other)
    return _shorted(tree[1]) + _shorted(tree[2])


def _expression(tree: Tree, top: bool = True) -> str:
    if isinstance(tree, int):
        return f"R{tree}"
    if isinstance(tree, str):
        return tree
    body = f"{_expression(tree[1], False)} {tree[0]} {_expression(tree[2], False)}"
    return body if top else f"({body})"


def _resistance(tree: Tree, values: Mapping[str, Fraction]) -> Fraction:
    if isinstance(tree, int):
        return values[f"R{tree}"]
    if isinstance(tree, str):
        return Fraction(0)
    a, b = _resistance(tree[1], values), _resistance(tree[2], values)
    if tree[0] == SERIES:
        return a + b
    return Fraction(0) if a + b == 0 else a * b / (a + b)


class CircuitBlind(BlindFamily):
    name = "circuit_missing_resistance"
    type = "B"
    answer_type = "fraction"

    def generate(self, rng: random.Random, level: int) -> Latent:
        n = level + 3
        tree = _tree(rng, list(range(1, n + 1)))
        # the shorted branch is one side of a series connection: in parallel, the wire would
        # short its sibling too
        inner = [p for p in _subtrees(tree) if p and _get(tree, p[:-1])[0] == SERIES]  # type: ignore[index]
        if not inner:
            raise Reject("no series connection to short a branch of")
        path = rng.choice(inner)
        tree = _replace(tree, path, [PARALLEL, _get(tree, path), WIRE] if rng.random() < 0.5
                        else [PARALLEL, WIRE, _get(tree, path)])
        if len(_leaves(tree)) - len(_shorted(tree)) < 2:
            raise Reject("fewer than two resistors outside the shorted branch")
        top = 4 + 2 * level
        return {"level": level, "tree": tree,
                "values": {f"R{i}": rng.randint(1, top) for i in range(1, n + 1)}}

    def setting(self, latent: Latent) -> Setting:
        n = len(latent["values"])
        context = (f"Resistors R1, ..., R{n} (resistances in ohms) and a wire W (zero resistance) "
                   "form a series-parallel network between two terminals. In the network "
                   "expression, A + B means A and B connected in series and A || B means A and B "
                   "connected in parallel; parentheses group sub-networks. R_eq is the equivalent "
                   "resistance between the terminals.")
        return Setting(context, "What is R_eq, in ohms? Give it as a reduced fraction.",
                       "Every resistance is a positive integer number of ohms.",
                       structure=[f"Network: {_expression(latent['tree'])}"])

    def slots(self, latent: Latent) -> List[str]:
        return [f"R{i}" for i in range(1, len(latent["values"]) + 1)]

    def value(self, latent: Latent, slot: str) -> str:
        return str(latent["values"][slot])

    def answer(self, latent: Latent, values: Mapping[str, str]) -> Optional[Fraction]:
        parsed: Dict[str, Fraction] = {}
        for slot in self.slots(latent):
            v = Fraction(values[slot])
            if v.denominator != 1 or v <= 0:
                return None
            parsed[slot] = v
        return _resistance(latent["tree"], parsed)

    def needable(self, latent: Latent) -> List[str]:
        shorted = set(_shorted(latent["tree"]))
        return [f"R{i}" for i in _leaves(latent["tree"]) if i not in shorted]

    def irrelevant(self, latent: Latent) -> List[str]:
        return [f"R{i}" for i in _shorted(latent["tree"])]

    def domain(self, latent: Latent, slot: str) -> Domain:
        return Rational(1, "R_eq of a series-parallel network is (a R + b)/(c R + d) in any one "
                           "resistance R, defined for every R > 0", ["1", "2"])

    def alternatives(self, latent: Latent, slot: str) -> List[str]:
        v = latent["values"][slot]
        return [str(v + 1), str(v - 1)] if v > 1 else [str(v + 1)]


FAMILY = CircuitBlind()
