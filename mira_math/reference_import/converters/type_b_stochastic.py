"""The converters of the Type B families with a probabilistic model: birth-death chains,
Markov chains, portfolio variance, hidden Markov models."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from math import gcd, lcm
from typing import Any, List, Sequence, Tuple

from mira_math.reference_import.converters.common import (Conversion, converter, as_fraction,
                                                           view_determines)
from mira_math.reference_import.record import FormatError, Record
from mira_math.common.text import frac


def _rate_name(c: dict) -> str:
    i, j = int(c["from_state"]), int(c["to_state"])
    if j == i + 1:
        return f"lambda_{i}"
    if j == i - 1:
        return f"mu_{i}"
    raise FormatError(f"rate from {i} to {j} is neither a birth nor a death")


@converter("birth_death_missing_rate")
def _birth_death(rec: Record, level: int) -> Conversion:
    n = int(rec.meta["n_states"])
    target = int(rec.meta["target_state"])
    rates = {_rate_name(c): int(c["value"]) for c in rec.a_machine
             if c.get("type") in ("birth_rate", "death_rate")}
    states = ", ".join(str(i) for i in range(n))
    return Conversion(
        known={"level": level, "n": n, "target": target, "rates": rates},
        slot=_rate_name(rec.hint), value=str(int(rec.hint["value"])),
        context=f"A continuous-time birth-death chain has states {states}. lambda_i is the "
                f"birth rate, the rate of the transition from state i to state i+1; mu_i is the "
                f"death rate, the rate of the transition from state i to state i-1. No other "
                f"transitions occur. pi_k is the stationary probability of state k.",
        question=f"What is pi_{target}, the stationary probability of state {target}? "
                 f"Give it as a reduced fraction.",
        domain="Every rate is a positive integer.",
    )


@converter("markov_missing_transition")
def _markov(rec: Record, level: int) -> Conversion:
    n = int(rec.meta["n_states"])
    p: List[List[Any]] = [[None] * n for _ in range(n)]
    for c in rec.a_of("transition"):
        p[int(c["from_state"])][int(c["to_state"])] = as_fraction(c)
    r = int(rec.hint["from_state"])
    target = int(rec.meta["target_state"])
    findings = []
    absent = [j for j in range(n) if p[r][j] is None]
    if len(absent) == 1:
        findings.append(view_determines(f"row {r} lacks one entry only; the row sum gives it"))
    states = ", ".join(str(i) for i in range(n))
    return Conversion(
        known={"level": level, "n": n, "target": target, "P": p},
        slot=f"P[{r}][{int(rec.hint['to_state'])}]", value=frac(as_fraction(rec.hint)),
        context=f"A discrete-time Markov chain has states {states}. P(i -> j) is the "
                f"probability of moving from state i to state j in one step, and the "
                f"probabilities out of every state sum to 1. pi_k is the stationary probability "
                f"of state k (the chain is ergodic, so the stationary distribution is unique).",
        question=f"What is pi_{target}, the stationary probability of state {target}? Give it "
                 f"as a reduced fraction.",
        domain="Every transition probability is a fraction between 0 and 1.",
        findings=findings,
    )


@converter("portfolio_variance_missing_corr")
def _portfolio(rec: Record, level: int) -> Conversion:
    n = int(rec.meta["n_assets"])
    w: List[Any] = [None] * n
    sigma: List[Any] = [None] * n
    for c in rec.a_of("weight"):
        w[int(c["asset"])] = as_fraction(c)
    for c in rec.a_of("std"):
        sigma[int(c["asset"])] = int(c["value"])
    rho = {}
    for c in rec.a_of("corr"):
        i, j = sorted((int(c["asset_i"]), int(c["asset_j"])))
        rho[f"{i + 1},{j + 1}"] = as_fraction(c)
    a, b = sorted((int(rec.hint["asset_i"]), int(rec.hint["asset_j"])))
    key = f"{a + 1},{b + 1}"
    full = {**rho, key: as_fraction(rec.hint)}
    corr = [[Fraction(1) if i == j else full[f"{min(i, j) + 1},{max(i, j) + 1}"]
             for j in range(n)] for i in range(n)]
    findings = [("setup", f"assets are numbered from 0 in the source and from 1 in our "
                          f"family: their rho({a},{b}) is our rho({key})")]
    bad = [sub for size in range(2, n + 1) for sub in combinations(range(n), size)
           if _det([[corr[i][j] for j in sub] for i in sub]) < 0]
    if bad:
        findings.append(("global_uniqueness", f"the correlation matrix is not positive "
                                              f"semidefinite (the principal minor on assets "
                                              f"{list(bad[0])} is negative): no portfolio has "
                                              f"these correlations"))
    return Conversion(
        known={"level": level, "w": w, "sigma": sigma, "rho": dict(sorted(rho.items())),
               "missing": key},
        slot=f"rho({key})", value=frac(as_fraction(rec.hint)),
        context=f"A portfolio holds {n} assets, numbered 0 to {n - 1}. Asset i has portfolio "
                f"weight w_i (the weights sum to 1) and return standard deviation sigma_i; "
                f"rho(i,j) = rho(j,i) is the correlation between the returns of assets i and j "
                f"(rho(i,i) = 1). The portfolio variance is sigma_p^2 = sum over i and j of "
                f"w_i·w_j·sigma_i·sigma_j·rho(i,j).",
        question="What is the portfolio variance sigma_p^2? Give it as a reduced fraction.",
        domain=f"rho({a},{b}) is a correlation in [-1, 1] for which the correlation matrix is "
               f"positive semidefinite.",
        findings=findings,
    )


def _det(m: List[List[Fraction]]) -> Fraction:
    if len(m) == 1:
        return m[0][0]
    return sum(((-1) ** j * m[0][j] * _det([row[:j] + row[j + 1:] for row in m[1:]])
                for j in range(len(m))), Fraction(0))


def _counts(values: Sequence[Fraction]) -> Tuple[List[int], int]:
    den = lcm(*(v.denominator for v in values))
    nums = [int(v * den) for v in values]
    g = gcd(den, *nums)
    return [k // g for k in nums], den // g


@converter("steady_state_missing_emission")
def _steady_state(rec: Record, level: int) -> Conversion:
    n, m = int(rec.meta["n_states"]), int(rec.meta["n_symbols"])
    p: List[List[Any]] = [[None] * n for _ in range(n)]
    for c in rec.a_of("transition"):
        p[int(c["from_state"])][int(c["to_state"])] = as_fraction(c)
    if any(x is None for row in p for x in row):
        raise FormatError(f"{rec.id}: the solver view lacks a transition probability")
    e: List[List[Any]] = [[None] * m for _ in range(n)]
    for c in rec.a_of("emission"):
        e[int(c["state"])][int(c["symbol"])] = as_fraction(c)
    s, o = int(rec.hint["state"]), int(rec.hint["symbol"])
    target = int(rec.meta["target_symbol"])
    findings = []
    absent = [k for k in range(m) if e[s][k] is None]
    if absent == [o]:
        findings.append(view_determines(f"row {s} of the emission matrix lacks only e({s}, {o}); "
                                         f"the row sum gives it"))
    if len(absent) == 1:
        # Our family withholds two entries of the row: treat one more as withheld.
        other = min(k for k in range(m) if k != o)
        findings.append(("setup", f"the source view withholds only e({s}, {o}); our family "
                                  f"withholds two entries of a row, so the latent state also "
                                  f"treats e({s}, {other}) as withheld (the stored view keeps "
                                  f"its line)"))
        stated = e[s][other]
        e[s][other] = None
        absent = sorted([o, other])
        got = 1 - sum(x for x in e[s] if x is not None) - as_fraction(rec.hint)
        if got != stated:
            findings.append(("global_uniqueness", f"row {s} of the emission matrix does not sum "
                                                  f"to 1: the row sum gives e({s}, {other}) = "
                                                  f"{got}, the view states {stated}"))
    rows = [_counts(row) for row in p]
    states = ", ".join(str(i) for i in range(n))
    symbols = ", ".join(str(k) for k in range(m))
    return Conversion(
        known={"level": level, "P": [r for r, _ in rows], "P_den": [d for _, d in rows],
               "E": e, "state": s, "absent": absent, "target": target},
        slot=f"E[s{s + 1}][o{o + 1}]", value=frac(as_fraction(rec.hint)),
        context=f"A hidden Markov model has hidden states {states} and observation symbols "
                f"{symbols}. The hidden chain moves between states with the transition "
                f"probabilities in the facts; e(s, o) is the probability that state s emits "
                f"symbol o. The transition probabilities out of each state sum to 1, and so do "
                f"each state's emission probabilities. The chain is ergodic and runs in its "
                f"stationary distribution pi (pi = pi·P).",
        question=f"In the stationary regime, what is the probability that an observation is "
                 f"symbol {target}, that is, the sum over states s of pi(s)·e(s, {target})? Give "
                 f"it as a reduced fraction.",
        domain="The emission probabilities not listed are nonnegative, and each state's "
               "emission probabilities sum to 1.",
        findings=findings + [("setup", f"states and symbols are numbered from 0 in the source "
                                       f"and from 1 in our family: their e({s}, {o}) is our "
                                       f"E[s{s + 1}][o{o + 1}]")],
    )

