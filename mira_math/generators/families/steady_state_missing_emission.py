"""HMM observation probability with two emission entries of one row withheld.

n = d+1 hidden states, m = min(d+1, 3) symbols, ergodic transition matrix P, emission matrix E.
The solver knows P and all of E but two entries of row s*: if only one were missing, the row sum
would give it away (docs/benchmark.md §9), so the responder holds both, each on its own line, and either one
fixes the other through the row sum. The target P(observe o*) = sum_s pi(s) E[s][o*] uses one of
the two absent entries; pi(s*) > 0, so it moves with E[s*][o*] whenever the two absent entries
do not both vanish.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction
from math import gcd
from typing import Any, Dict, List, Optional, Tuple

from mira_math.generators.family import Family, Latent, Reject, Rendered
from mira_math.generators.linalg import Singular
from mira_math.generators.schema import Hint

_SLOT_RE = re.compile(r"^E\[s(\d+)\]\[o(\d+)\]$")
_EMISSION_TRIES = 8


def _sizes(level: int) -> Tuple[int, int]:
    return level + 1, min(level + 1, 3)


def _max_p_denominator(level: int) -> int:
    return 3 + level


def _max_e_denominator(level: int) -> int:
    return 5


def _max_pi_denominator(level: int) -> int:
    return 60 * level


def _max_answer_denominator(level: int) -> int:
    return 100 * level


def _compositions(total: int, width: int, positive: bool) -> List[Tuple[int, ...]]:
    """All ordered splits of ``total`` into ``width`` parts (> 0, or >= 0), in a fixed order."""
    low = 1 if positive else 0
    if width == 1:
        return [(total,)] if total >= low else []
    return [(k,) + rest for k in range(low, total + 1)
            for rest in _compositions(total - k, width - 1, positive)]


_COMPOSITIONS: Dict[Tuple[int, int], List[Tuple[int, ...]]] = {}
_ROWS: Dict[Tuple[int, int], List[Tuple[int, ...]]] = {}


def _draw_row(rng: random.Random, width: int, high: int) -> Tuple[List[int], int]:
    """A transition row k_j / D: D uniform in [2, high], then a uniform ordered split of D into
    nonnegative parts (zeros allowed: sparse chains); returned in lowest terms."""
    denom = rng.randint(2, high)
    if (denom, width) not in _COMPOSITIONS:
        _COMPOSITIONS[denom, width] = _compositions(denom, width, False)
    return _reduced(list(rng.choice(_COMPOSITIONS[denom, width])), denom)


def _draw_positive_row(rng: random.Random, width: int, high: int) -> Tuple[List[int], int]:
    """An emission row: uniform over the distinct positive distributions with denominator
    <= high (uniform over rows, not over D, so that (1/3, 1/3, 1/3) is not a third of them)."""
    key = (width, high)
    if key not in _ROWS:
        rows = {tuple(_reduced(list(c), d)[0]) for d in range(width, high + 1)
                for c in _compositions(d, width, True)}
        _ROWS[key] = sorted(rows)
    nums = rng.choice(_ROWS[key])
    return list(nums), sum(nums)


def _reduced(nums: List[int], den: int) -> Tuple[List[int], int]:
    g = den
    for k in nums:
        g = gcd(g, k)
    return [k // g for k in nums], den // g


def _from_values(values: List[Fraction]) -> Tuple[List[int], int]:
    """Canonical integer row of fractions: numerators over their least common denominator."""
    den = 1
    for x in values:
        den = den * x.denominator // gcd(den, x.denominator)
    return [x.numerator * (den // x.denominator) for x in values], den


def _ratio(k: int, den: int) -> str:
    """The canonical string of k/den (same as mira_math.common.text.frac), without building a Fraction."""
    g = gcd(k, den)
    return str(k // g) if den == g else f"{k // g}/{den // g}"


def _row_problem(nums: List[Any], den: Any, limit: int) -> Optional[str]:
    """Why nums/den is not a canonical distribution row with denominator <= limit."""
    if not (isinstance(den, int) and all(isinstance(k, int) for k in nums)):
        return "has a non-integer count"
    if not 1 <= den <= limit:
        return f"has denominator {den} outside [1, {limit}]"
    if any(k < 0 for k in nums):
        return "has a negative entry"
    if sum(nums) != den:
        return "does not sum to 1"
    if _reduced(nums, den)[1] != den:
        return "is not in lowest terms"
    return None


def _ergodic(p: List[List[int]]) -> bool:
    """Irreducible and aperiodic: some power of P is entrywise positive. Wielandt's bound says
    the power (n-1)^2 + 1 suffices; boolean rows as bitmasks, squared repeatedly."""
    n = len(p)
    full = (1 << n) - 1
    reach = [sum(1 << j for j, k in enumerate(row) if k > 0) for row in p]
    power = 1
    while power < (n - 1) ** 2 + 1:
        squared = []
        for mask in reach:
            acc = 0
            for k in range(n):
                if mask >> k & 1:
                    acc |= reach[k]
            squared.append(acc)
        reach, power = squared, power * 2
    return all(mask == full for mask in reach)


def _det(m: List[List[int]]) -> int:
    """Integer determinant of a 1x1, 2x2 or 3x3 matrix, written out (this is the hot path)."""
    if len(m) == 1:
        return m[0][0]
    if len(m) == 2:
        return m[0][0] * m[1][1] - m[0][1] * m[1][0]
    (a, b, c), (d, e, f), (g, h, i) = m
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)


def _stationary(p: List[List[int]], dens: List[int]) -> Tuple[List[int], int]:
    """pi = pi P in integers, as weights over their total: M = D (P - I) (row i scaled by its
    denominator D_i) has zero row sums, so every row of its adjugate is one left null vector v
    (the cofactors of column 0), and pi_i is proportional to D_i v_i. Equals
    mira_math.generators.linalg.stationary (see the family's tests), without any Fraction."""
    m = [[k - (d if i == j else 0) for j, k in enumerate(row)]
         for i, (row, d) in enumerate(zip(p, dens))]
    weights = [d * (-1) ** i * _det([row[1:] for k, row in enumerate(m) if k != i])
               for i, d in enumerate(dens)]
    total = sum(weights)
    if total == 0:
        raise Singular("stationary distribution is not unique")
    return weights, total


def _pi_denominator(weights: List[int], total: int) -> int:
    return max(total // gcd(total, x) for x in weights)


def _observe(latent: Latent) -> Fraction:
    """sum_s pi(s) E[s][o*], over one common denominator."""
    weights, total = _stationary(latent["P"], latent["P_den"])
    e, dens, o = latent["E"], latent["E_den"], latent["target"]
    common = 1
    for d in dens:
        common = common * d // gcd(common, d)
    num = sum(w * row[o] * (common // d) for w, row, d in zip(weights, e, dens))
    return Fraction(num, total * common)


def _slot(s: int, o: int) -> str:
    return f"E[s{s + 1}][o{o + 1}]"


class SteadyStateMissingEmission(Family):
    name = "steady_state_missing_emission"
    type = "B"
    answer_type = "fraction"
    slot_fields = ("state", "absent")

    # Latent: row i of P is P[i][j] / P_den[i] and row i of E is E[i][o] / E_den[i], integer
    # counts in lowest terms (one canonical form per matrix, cheap to store and to check).

    def generate(self, rng: random.Random, level: int) -> Latent:
        n, m = _sizes(level)
        p_rows = [_draw_row(rng, n, _max_p_denominator(level)) for _ in range(n)]
        p, p_den = [r for r, _ in p_rows], [d for _, d in p_rows]
        if not _ergodic(p):
            raise Reject("transition matrix is not ergodic")
        if _pi_denominator(*_stationary(p, p_den)) > _max_pi_denominator(level):
            raise Reject("stationary distribution has large denominators")
        state = rng.randrange(n)
        absent = sorted(rng.sample(range(m), 2))
        target = rng.choice(absent)
        for _ in range(_EMISSION_TRIES):  # redraw E alone: cheaper than a whole new draw
            e_rows = [_draw_positive_row(rng, m, _max_e_denominator(level)) for _ in range(n)]
            e, e_den = [r for r, _ in e_rows], [d for _, d in e_rows]
            if len({Fraction(row[target], d) for row, d in e_rows}) == 1:
                continue  # column o* of E constant: P would play no part
            latent = {"level": level, "P": p, "P_den": p_den, "E": e, "E_den": e_den,
                      "state": state, "absent": absent, "target": target}
            if _observe(latent).denominator <= _max_answer_denominator(level):
                return latent
        raise Reject("no emission matrix with a varying column o* and a modest answer")

    def check(self, latent: Latent) -> Optional[str]:
        level = latent["level"]
        n, m = _sizes(level)
        p, e = latent["P"], latent["E"]
        s, absent, target = latent["state"], latent["absent"], latent["target"]
        if len(p) != n or len(latent["P_den"]) != n or any(len(r) != n for r in p):
            return f"P must be {n}x{n} at level {level}"
        if len(e) != n or len(latent["E_den"]) != n or any(len(r) != m for r in e):
            return f"E must be {n}x{m} at level {level}"
        for label, rows, dens, limit in (
                ("P", p, latent["P_den"], _max_p_denominator(level)),
                ("E", e, latent["E_den"], _max_e_denominator(level))):
            for i, (row, den) in enumerate(zip(rows, dens)):
                problem = _row_problem(row, den, limit)
                if problem:
                    return f"row s{i + 1} of {label} {problem}"
        if not _ergodic(p):
            return "transition matrix is not ergodic"
        if not (0 <= s < n and len(absent) == 2 and 0 <= absent[0] < absent[1] < m):
            return "the withheld entries are not two distinct symbols of one state's row"
        if target not in absent:
            return "the target symbol is not one of the withheld entries"
        if e[s][absent[0]] == 0 and e[s][absent[1]] == 0:
            return "the withheld entries are both 0: the row sum gives them away"
        if _pi_denominator(*_stationary(p, latent["P_den"])) > _max_pi_denominator(level):
            return f"stationary distribution has a denominator above {_max_pi_denominator(level)}"
        return None

    def render(self, latent: Latent) -> Rendered:
        p, p_den, e, e_den = latent["P"], latent["P_den"], latent["E"], latent["E_den"]
        s, absent, target = latent["state"], latent["absent"], latent["target"]
        n, m = len(p), len(e[0])
        facts = [f"P[s{i + 1}][s{j + 1}] = {_ratio(p[i][j], p_den[i])}"
                 for i in range(n) for j in range(n)]
        facts += [f"{_slot(i, o)} = {_ratio(e[i][o], e_den[i])}" for i in range(n)
                  for o in range(m) if not (i == s and o in absent)]
        values = [_ratio(e[s][o], e_den[s]) for o in absent]
        lines = [f"{_slot(s, o)} = {v}" for o, v in zip(absent, values)]
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
            domain=f"The entries of row s{s + 1} of E that are not listed are nonnegative, and "
                   f"row s{s + 1} of E sums to 1.",
            responder=lines,
            hints=[Hint(_slot(s, o), line, v) for o, line, v in zip(absent, lines, values)],
        )

    def solve(self, latent: Latent) -> Fraction:
        return _observe(latent)

    def known(self, latent: Latent) -> Dict[str, Any]:
        # Values, not counts: a witness may put row s* of E over another denominator.
        s, absent = latent["state"], latent["absent"]
        e = [[None if (i == s and o in absent) else Fraction(k, d) for o, k in enumerate(row)]
             for i, (row, d) in enumerate(zip(latent["E"], latent["E_den"]))]
        return {"level": latent["level"], "P": [list(r) for r in latent["P"]],
                "P_den": list(latent["P_den"]), "E": e, "state": s, "absent": list(absent),
                "target": latent["target"]}

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
        rows = [list(r) for r in known["E"]]
        rows[s][o], rows[s][other] = value, rest
        e_rows = [_from_values(r) for r in rows]
        return {"level": known["level"], "P": [list(r) for r in known["P"]],
                "P_den": list(known["P_den"]), "E": [r for r, _ in e_rows],
                "E_den": [d for _, d in e_rows], "state": s, "absent": absent,
                "target": known["target"]}

    def witness(self, latent: Latent) -> Optional[Latent]:
        # Same view, another split of the absent mass of row s*: swap the two entries, or (when
        # they are equal) move all of it to the non-target symbol. pi(s*) > 0 moves the answer.
        s, (o1, o2), target = latent["state"], latent["absent"], latent["target"]
        row = list(latent["E"][s])
        if row[o1] != row[o2]:
            row[o1], row[o2] = row[o2], row[o1]
        else:
            other = o2 if target == o1 else o1
            row[other], row[target] = row[o1] + row[o2], 0
        row, den = _reduced(row, latent["E_den"][s])
        e = [list(r) for r in latent["E"]]
        e_den = list(latent["E_den"])
        e[s], e_den[s] = row, den
        return {**latent, "E": e, "E_den": e_den}


FAMILY = SteadyStateMissingEmission()
