"""Markov chain with a transient state that no other state enters: its row is irrelevant.

States 0..n-1; state s has P[i][s] = 0 for every i != s (stated), every other off-diagonal
entry is positive and each diagonal entry P[i][i] is 1 minus the other entries of row i (so it
is never a quantity of its own, and withholding an off-diagonal entry is never undone by the
row sum). The states other than s form the single closed class (all their mutual entries are
positive), s is transient (P[s][s] < 1), so pi_s = 0 and the stationary distribution is the
one of the closed class, which never reads row s: every entry P[s][j] is irrelevant to
pi_target (target != s). By the Markov chain tree theorem pi_target is w_target / sum(w), where
each w_k is a sum over spanning trees of products holding at most one entry of row s, so it is
a ratio of polynomials of degree <= 1 in P[s][j], with a positive denominator on the whole
domain: two points prove it constant (three are given).

Needed facts are the off-diagonal entries P[i][j] with i, j in the closed class; each moves
pi_target (the second completion shows it). Entries are drawn from a circulation (as in the
one-fact family), so pi_i = R_i / sum(R) and answers' denominators stay small.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Dict, List, Mapping, Optional

from mira_math.common.text import frac
from mira_math.generators.blind.contract import BlindFamily, Domain, Latent, Rational, Setting
from mira_math.generators.families.markov_missing_transition import _circulation


def _slot(i: int, j: int) -> str:
    return f"P[{i}][{j}]"


def _size(level: int) -> int:
    """States of the closed class (the transient state comes on top)."""
    return {1: 2, 2: 3, 3: 4}[level]


def _limit(level: int) -> int:
    return {1: 13, 2: 12, 3: 10}[level]


def _stationary(p: List[List[Fraction]]) -> Optional[List[Fraction]]:
    """The unique solution of pi P = pi, sum(pi) = 1 (exact elimination), or None."""
    n = len(p)
    # unknowns pi_0..pi_{n-1}; equations: columns of (P - I) but the last, then the sum
    rows = [[p[i][j] - (1 if i == j else 0) for i in range(n)] + [Fraction(0)] for j in range(n - 1)]
    rows.append([Fraction(1)] * n + [Fraction(1)])
    for c in range(n):
        pivot = next((r for r in range(c, n) if rows[r][c] != 0), None)
        if pivot is None:
            return None
        rows[c], rows[pivot] = rows[pivot], rows[c]
        for r in range(n):
            if r != c and rows[r][c] != 0:
                f = rows[r][c] / rows[c][c]
                rows[r] = [x - f * y for x, y in zip(rows[r], rows[c])]
    return [rows[r][n] / rows[r][r] for r in range(n)]


class MarkovBlind(BlindFamily):
    name = "markov_missing_transition"
    type = "B"
    answer_type = "fraction"

    def generate(self, rng: random.Random, level: int) -> Latent:
        m = _size(level)
        n = m + 1
        s = rng.randrange(n)
        closed = [i for i in range(n) if i != s]
        k = _circulation(rng, m, _limit(level))
        entries: Dict[str, Fraction] = {}
        for a, i in enumerate(closed):
            total = sum(k[a])
            for b, j in enumerate(closed):
                if a != b:
                    entries[_slot(i, j)] = Fraction(k[a][b], total)
        # the transient row: positive integers over their sum, the self-loop included
        top = _limit(level)
        out = [rng.randint(1, top // 2) for _ in range(n)]
        for j in closed:
            entries[_slot(s, j)] = Fraction(out[j], sum(out))
        target = rng.choice(closed)
        return {"level": level, "n": n, "s": s, "target": target, "P": entries}

    def setting(self, latent: Latent) -> Setting:
        n, s, t = latent["n"], latent["s"], latent["target"]
        context = (f"A discrete-time Markov chain has states {', '.join(str(i) for i in range(n))} "
                   "and transition matrix P: P[i][j] is the probability of moving from state i to "
                   "state j in one step. The entries P[i][j] with i != j are the chain's "
                   "transition probabilities between distinct states; each diagonal entry "
                   "P[i][i] is 1 minus the sum of the other entries of row i, so "
                   "every row of P sums to 1. The chain has a single closed class, so its "
                   "stationary distribution is unique; pi_i is the stationary probability of "
                   "state i.")
        return Setting(context,
                       f"What is pi_{t}, the stationary probability of state {t}? Give it as a "
                       "reduced fraction.",
                       "Every entry P[i][j] with i != j is a positive fraction, except those the "
                       "facts state to be 0, and every diagonal entry P[i][i] is positive.",
                       structure=[f"P[i][{s}] = 0 for every state i other than {s}"])

    def slots(self, latent: Latent) -> List[str]:
        n, s = latent["n"], latent["s"]
        return [_slot(i, j) for i in range(n) for j in range(n) if i != j and j != s]

    def value(self, latent: Latent, slot: str) -> str:
        return frac(latent["P"][slot])

    def _matrix(self, latent: Latent, values: Mapping[str, str]) -> Optional[List[List[Fraction]]]:
        n, s = latent["n"], latent["s"]
        p = [[Fraction(0)] * n for _ in range(n)]
        for i in range(n):
            for j in range(n):
                if i != j and j != s:
                    v = Fraction(values[_slot(i, j)])
                    if v <= 0:
                        return None
                    p[i][j] = v
            p[i][i] = 1 - sum(p[i], Fraction(0))
            if p[i][i] <= 0:
                return None
        return p

    def answer(self, latent: Latent, values: Mapping[str, str]) -> Optional[Fraction]:
        p = self._matrix(latent, values)
        if p is None:
            return None
        pi = _stationary(p)
        if pi is None or any(x < 0 for x in pi):
            return None
        return pi[latent["target"]]

    def needable(self, latent: Latent) -> List[str]:
        s = latent["s"]
        return [x for x in self.slots(latent) if not x.startswith(f"P[{s}]")]

    def irrelevant(self, latent: Latent) -> List[str]:
        s = latent["s"]
        return [x for x in self.slots(latent) if x.startswith(f"P[{s}]")]

    def _slack(self, latent: Latent, slot: str) -> Fraction:
        """1 minus the other off-diagonal entries of the slot's row: its domain is (0, slack)."""
        row = slot[:slot.index("]") + 1]
        return 1 - sum((v for k, v in latent["P"].items() if k.startswith(row) and k != slot),
                       Fraction(0))

    def domain(self, latent: Latent, slot: str) -> Domain:
        slack = self._slack(latent, slot)
        return Rational(1, "by the Markov chain tree theorem pi_k is a ratio of sums of spanning-"
                           "tree products, each holding at most one entry of a row, with a positive "
                           "denominator while every entry lies in its domain",
                        [frac(slack * Fraction(1, d)) for d in (2, 3, 4)])

    def alternatives(self, latent: Latent, slot: str) -> List[str]:
        v, slack = latent["P"][slot], self._slack(latent, slot)
        return [frac(x) for x in (v / 2, (v + slack) / 2, v * Fraction(2, 3), slack / 3)
                if 0 < x < slack and x != v]


FAMILY = MarkovBlind()
