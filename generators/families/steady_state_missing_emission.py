"""HMM observation probability with two emission entries of one row withheld.

n = d+1 hidden states, m = min(d+1, 3) symbols, ergodic transition matrix P, emission matrix E.
The solver knows P and all of E but two entries of row s*: if only one were missing, the row sum
would give it away (SPEC §9), so the responder holds both, each on its own line, and either one
fixes the other through the row sum. The target P(observe o*) = sum_s pi(s) E[s][o*] uses one of
the two absent entries; pi(s*) > 0, so it moves with E[s*][o*] whenever the absent pair does not
sum to 0.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction
from math import gcd
from typing import Any, Dict, List, Optional

from generators.family import Family, Latent, Reject, Rendered
from generators.linalg import Singular
from generators.schema import Hint
from generators.text import frac

_SLOT_RE = re.compile(r"^E\[s(\d+)\]\[o(\d+)\]$")


def _sizes(level: int) -> tuple:
    return level + 1, min(level + 1, 3)


def _max_p_denominator(level: int) -> int:
    return 3 + level


def _max_e_denominator(level: int) -> int:
    return 4 + level


def _max_pi_denominator(level: int) -> int:
    return 40 * level


def _composition(rng: random.Random, total: int, parts: int, positive: bool) -> List[int]:
    """A random ordered split of ``total`` into ``parts`` integers (> 0, or >= 0)."""
    if positive:
        cuts = sorted(rng.sample(range(1, total), parts - 1))
    else:
        cuts = sorted(rng.randint(0, total) for _ in range(parts - 1))
    return [hi - lo for lo, hi in zip([0] + cuts, cuts + [total])]


def _distribution_row(rng: random.Random, width: int, low: int, high: int,
                      positive: bool) -> List[Fraction]:
    denom = rng.randint(max(low, width if positive else 1), high)
    return [Fraction(k, denom) for k in _composition(rng, denom, width, positive)]


def _primitive(p: List[List[Fraction]]) -> bool:
    """Ergodic (irreducible and aperiodic): some power of P is entrywise positive.

    By Wielandt's bound the power (n-1)^2 + 1 suffices, so squaring a few times is enough.
    """
    n = len(p)
    reach = [[p[i][j] > 0 for j in range(n)] for i in range(n)]
    power = 1
    while power < (n - 1) ** 2 + 1:
        reach = [[any(reach[i][k] and reach[k][j] for k in range(n)) for j in range(n)]
                 for i in range(n)]
        power *= 2
    return all(all(row) for row in reach)


def _det(m: List[List[int]]) -> int:
    """Integer determinant by cofactor expansion (matrices here are at most 3x3)."""
    if len(m) == 1:
        return m[0][0]
    total = 0
    for j, x in enumerate(m[0]):
        if x:
            minor = [row[:j] + row[j + 1:] for row in m[1:]]
            total += (-1) ** j * x * _det(minor)
    return total


def _stationary(p: List[List[Fraction]]) -> List[Fraction]:
    """pi = pi P in integers: with D_i the denominator of row i, M = D (P - I) has zero row
    sums, so its adjugate's rows all equal one left null vector v (the cofactors of column 0),
    and pi_i is proportional to D_i v_i. Same result as generators.linalg.stationary, faster."""
    n = len(p)
    dens = [_lcm(row) for row in p]
    m = [[x.numerator * (d // x.denominator) - (d if i == j else 0) for j, x in enumerate(row)]
         for i, (row, d) in enumerate(zip(p, dens))]
    v = [(-1) ** i * _det([row[1:] for k, row in enumerate(m) if k != i]) for i in range(n)]
    weights = [d * x for d, x in zip(dens, v)]
    total = sum(weights)
    if total == 0:
        raise Singular("stationary distribution is not unique")
    return [Fraction(x, total) for x in weights]


def _lcm(values: List[Fraction]) -> int:
    out = 1
    for x in values:
        out = out * x.denominator // gcd(out, x.denominator)
    return out


def _observe(pi: List[Fraction], e: List[List[Fraction]], o: int) -> Fraction:
    return sum((pi[s] * e[s][o] for s in range(len(pi))), Fraction(0))


def _slot(s: int, o: int) -> str:
    return f"E[s{s + 1}][o{o + 1}]"


class SteadyStateMissingEmission(Family):
    name = "steady_state_missing_emission"
    type = "B"
    answer_type = "fraction"

    def generate(self, rng: random.Random, level: int) -> Latent:
        n, m = _sizes(level)
        p = [_distribution_row(rng, n, 2, _max_p_denominator(level), False) for _ in range(n)]
        if not _primitive(p):
            raise Reject("transition matrix is not ergodic")
        e = [_distribution_row(rng, m, 2, _max_e_denominator(level), True) for _ in range(n)]
        state = rng.randrange(n)
        absent = sorted(rng.sample(range(m), 2))
        target = rng.choice(absent)
        return {"level": level, "P": p, "E": e, "state": state, "absent": absent,
                "target": target}

    def check(self, latent: Latent) -> Optional[str]:
        level = latent["level"]
        n, m = _sizes(level)
        p, e = latent["P"], latent["E"]
        s, absent, target = latent["state"], latent["absent"], latent["target"]
        if len(p) != n or any(len(r) != n for r in p):
            return f"P must be {n}x{n} at level {level}"
        if len(e) != n or any(len(r) != m for r in e):
            return f"E must be {n}x{m} at level {level}"
        for label, rows, limit in (("P", p, _max_p_denominator(level)),
                                   ("E", e, _max_e_denominator(level))):
            for i, row in enumerate(rows):
                if any(Fraction(x) < 0 for x in row) or sum(row) != 1:
                    return f"row s{i + 1} of {label} is not a probability distribution"
                if any(Fraction(x).denominator > limit for x in row):
                    return f"row s{i + 1} of {label} has a denominator above {limit}"
        if not _primitive(p):
            return "transition matrix is not ergodic"
        if not (0 <= s < n and len(absent) == 2 and 0 <= absent[0] < absent[1] < m):
            return "the withheld entries are not two distinct symbols of one state's row"
        if target not in absent:
            return "the target symbol is not one of the withheld entries"
        if e[s][absent[0]] + e[s][absent[1]] == 0:
            return "the withheld entries are both 0: the row sum gives them away"
        pi = _stationary(p)
        if max(x.denominator for x in pi) > _max_pi_denominator(level):
            return f"stationary distribution has a denominator above {_max_pi_denominator(level)}"
        return None

    def render(self, latent: Latent) -> Rendered:
        p, e = latent["P"], latent["E"]
        s, absent, target = latent["state"], latent["absent"], latent["target"]
        n, m = len(p), len(e[0])
        facts = [f"P[s{i + 1}][s{j + 1}] = {frac(p[i][j])}" for i in range(n) for j in range(n)]
        facts += [f"{_slot(i, o)} = {frac(e[i][o])}" for i in range(n) for o in range(m)
                  if not (i == s and o in absent)]
        lines = [f"{_slot(s, o)} = {frac(e[s][o])}" for o in absent]
        states = ", ".join(f"s{i + 1}" for i in range(n))
        symbols = ", ".join(f"o{o + 1}" for o in range(m))
        return Rendered(
            context=f"A hidden Markov model has hidden states {states} and observation symbols "
                    f"{symbols}. P[si][sj] is the probability that the hidden chain moves from "
                    "state si to state sj in one step; E[si][ok] is the probability that state si "
                    "emits symbol ok. Every row of P and every row of E sums to 1. The chain is "
                    "ergodic and runs in its stationary distribution pi (pi = pi P).",
            facts=facts,
            question=f"In the stationary regime, what is the probability that an observation is "
                     f"symbol o{target + 1}, that is, the sum over states s of "
                     f"pi(s) E[s][o{target + 1}]? Give it as a reduced fraction.",
            domain=f"The emission probabilities of row s{s + 1} of E that are not listed are "
                   f"nonnegative, and row s{s + 1} sums to 1.",
            responder=lines,
            hints=[Hint(_slot(s, o), line, frac(e[s][o])) for o, line in zip(absent, lines)],
        )

    def solve(self, latent: Latent) -> Fraction:
        return _observe(_stationary(latent["P"]), latent["E"], latent["target"])

    def known(self, latent: Latent) -> Dict[str, Any]:
        s, absent = latent["state"], latent["absent"]
        e = [[None if (i == s and o in absent) else v for o, v in enumerate(row)]
             for i, row in enumerate(latent["E"])]
        return {"level": latent["level"], "P": [list(r) for r in latent["P"]], "E": e,
                "state": s, "absent": list(absent), "target": latent["target"]}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        match = _SLOT_RE.match(hint.slot)
        if not match:
            raise ValueError(f"unknown slot {hint.slot!r}")
        s, o = int(match.group(1)) - 1, int(match.group(2)) - 1
        absent = list(known["absent"])
        if s != known["state"] or o not in absent:
            raise ValueError(f"{hint.slot} is not an entry the view lacks")
        other = absent[1] if o == absent[0] else absent[0]
        value = Fraction(hint.value)
        rest = 1 - sum((x for x in known["E"][s] if x is not None), Fraction(0)) - value
        if value < 0 or rest < 0:
            raise ValueError(f"{hint.slot} = {hint.value} leaves no valid row s{s + 1}")
        e = [list(r) for r in known["E"]]
        e[s][o], e[s][other] = value, rest
        return {"level": known["level"], "P": [list(r) for r in known["P"]], "E": e,
                "state": s, "absent": absent, "target": known["target"]}

    def witness(self, latent: Latent) -> Optional[Latent]:
        # Same view, another split of the absent mass: swap the two entries, or (when they are
        # equal) put all of it on the non-target symbol. pi(s*) > 0 moves the answer.
        s, (o1, o2), target = latent["state"], latent["absent"], latent["target"]
        e = [list(r) for r in latent["E"]]
        if e[s][o1] != e[s][o2]:
            e[s][o1], e[s][o2] = e[s][o2], e[s][o1]
        else:
            other = o2 if target == o1 else o1
            e[s][other], e[s][target] = e[s][o1] + e[s][o2], Fraction(0)
        return {**latent, "E": e}


FAMILY = SteadyStateMissingEmission()
