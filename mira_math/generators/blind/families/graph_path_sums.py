"""Path sums in a directed acyclic graph: S is the sum, over every directed path from node 0 to
the last node t, of the path's weight (the sum of its edge weights).

S = sum over edges (i -> j) of eij · P(0, i) · P(j, t), where P(a, b) counts the directed paths
from a to b. An edge out of a node that no path from 0 reaches, or into a node from which no
path leads to t, lies on no path the question sums over: its count is 0 and its weight is an
irrelevant gap (proved by enumerating its stated range). Needed facts are the weights of edges
on some path from 0 to t: S grows strictly with each of them, so any other value changes it.

Edges always run from a lower node to a higher one, so ``eij`` has i < j; nodes are single
digits (the family's grammar reads ``e13``, ``edge from node 1 to node 3``; ``e02`` is the
grammar's ``e20``, the same edge).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Dict, List, Mapping, Optional, Tuple

from mira_math.generators.blind.contract import BlindFamily, Domain, Finite, Latent, Reject, Setting


def _top(level: int) -> int:
    return 5 + level


def _name(edge: List[int]) -> str:
    return f"e{edge[0]}{edge[1]}"


def _counts(n: int, edges: List[List[int]]) -> Tuple[List[int], List[int]]:
    """(paths from 0 to each node, paths from each node to n - 1); edges run low -> high."""
    into = [1] + [0] * (n - 1)
    for j in range(n):
        for a, b in edges:
            if b == j:
                into[j] += into[a]
    out = [0] * (n - 1) + [1]
    for i in reversed(range(n)):
        for a, b in edges:
            if a == i:
                out[i] += out[b]
    return into, out


def _multiplicity(latent: Latent) -> Dict[str, int]:
    """How many 0 -> t paths use each edge."""
    n, edges = latent["nodes"], latent["edges"]
    into, out = _counts(n, edges)
    return {_name(e): into[e[0]] * out[e[1]] for e in edges}


class GraphPathSumsBlind(BlindFamily):
    name = "graph_path_sums"
    type = "A"
    answer_type = "int"

    def generate(self, rng: random.Random, level: int) -> Latent:
        n = level + 4                                   # nodes 0 .. n-1, t = n - 1
        pairs = [[i, j] for i in range(n) for j in range(i + 1, n)]
        k = rng.randint(n, n + level + 1)               # edges, drawn among all low -> high pairs
        edges = sorted(rng.sample(pairs, k))
        latent = {"level": level, "nodes": n, "edges": edges,
                  "values": {_name(e): rng.randint(1, _top(level)) for e in edges}}
        mult = _multiplicity(latent)
        paths = _counts(n, edges)[0][n - 1]
        if not 2 <= paths <= 3 + 2 * level:
            raise Reject("too few or too many paths from 0 to t")
        if sum(1 for m in mult.values() if m == 0) < 1:
            raise Reject("every edge lies on a path from 0 to t")
        if sum(1 for m in mult.values() if m > 0) < 3:
            raise Reject("fewer than three edges on paths from 0 to t")
        return latent

    def setting(self, latent: Latent) -> Setting:
        n = latent["nodes"]
        t = n - 1
        context = (f"A directed graph has nodes 0, 1, ..., {t} and the edges listed below, each "
                   "from a lower-numbered node to a higher-numbered one; eij is the weight of the "
                   "edge from node i to node j. The weight of a directed path is the sum of the "
                   f"weights of its edges. S is the sum of the weights of all directed paths from "
                   f"node 0 to node {t}.")
        edges = ", ".join(f"{_name(e)} ({e[0]} -> {e[1]})" for e in latent["edges"])
        return Setting(context, f"What is S, the sum of the weights of all directed paths from "
                                f"node 0 to node {t}? Give it as an integer.",
                       f"Every edge weight is an integer between 1 and {_top(latent['level'])} "
                       "inclusive.",
                       structure=[f"Edges: {edges}"])

    def slots(self, latent: Latent) -> List[str]:
        return [_name(e) for e in latent["edges"]]

    def value(self, latent: Latent, slot: str) -> str:
        return str(latent["values"][slot])

    def answer(self, latent: Latent, values: Mapping[str, str]) -> Optional[int]:
        top = _top(latent["level"])
        total = 0
        for slot, count in _multiplicity(latent).items():
            w = Fraction(values[slot])
            if w.denominator != 1 or not 1 <= w <= top:
                return None
            total += count * int(w)
        return total

    def needable(self, latent: Latent) -> List[str]:
        mult = _multiplicity(latent)
        return [s for s in self.slots(latent) if mult[s] > 0]

    def irrelevant(self, latent: Latent) -> List[str]:
        mult = _multiplicity(latent)
        return [s for s in self.slots(latent) if mult[s] == 0]

    def domain(self, latent: Latent, slot: str) -> Domain:
        return Finite([str(w) for w in range(1, _top(latent["level"]) + 1)])

    def alternatives(self, latent: Latent, slot: str) -> List[str]:
        v, top = latent["values"][slot], _top(latent["level"])
        return [str(v + 1)] if v < top else [str(v - 1)]


FAMILY = GraphPathSumsBlind()
