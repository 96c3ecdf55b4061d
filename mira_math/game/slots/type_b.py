"""The Type B families' notation tables (one per family, each registered under the family's
name with :func:`mira_math.game.slots.engine.register`; importing this module registers them)."""

from __future__ import annotations

from typing import List, Tuple

from mira_math.game.slots.engine import (BARE_PAIR, COL_ROW, IDX, NB, ORD, PAIR, ROW_COL, NotationDoc, SlotSpec,
                                         letter, matrix, register)


def _rate(ints: List[int], span: str) -> str:
    i, j = ints[0], ints[1]
    if j == i + 1:
        return f"lambda_{i}"
    if j == i - 1:
        return f"mu_{i}"
    return f"rate {i}->{j}"


def _one_index(name: str) -> str:
    return (r"(?<![A-Za-z])" + name + r"\s*_?\s*(?:\(\s*(\d+)\s*\)|\[\s*(\d+)\s*\]|(\d+))(?!\d)")


@register("birth_death_missing_rate", NotationDoc(
    slots=(
        ("`lambda_i`",
         r"`lambda_1`, `lambda1`, `λ_1`, `λ₁`, `\lambda_{1}`, `lambda(1)`; birth rate of / from / at state 1; rate "
         "(of the transition) from state 1 to state 2; `1 -> 2`, `1 → 2`"),
        ("`mu_i`",
         r"`mu_2`, `μ_2`, `\mu_{2}`; death rate of / from state 2; rate from state 2 to state 1; `2 -> 1`"),
        ("`pi_i` (target)",
         "`pi_2`, `π_2`, stationary probability of state 2; `pi`, stationary distribution"),
        ("`rate i->j`",
         "a rate between non-neighbouring states (no such rate exists)"),
    ),
    held="lambda_1",
    offered=(
        "What is the birth rate from state 1?",
        "What is λ₁?",
        r"What is \lambda_{1}?",
        "What is the transition rate 1 -> 2?",
    ),
    declined=(
        "What is lambda_0?",
        "What is the death rate of state 2?",
        "What is pi_2?",
        "What is the missing birth rate?",
    ),
))
def _birth_death() -> List[Tuple[str, SlotSpec]]:
    state = r"(?:state\s+)?"
    to_state = rf"(?:\s+(?:to|into)\s+{state}\d+)?"
    return [
        (_one_index("lambda"), "lambda_{0}"),
        (_one_index("mu"), "mu_{0}"),
        (_one_index("pi"), "pi_{0}"),
        (rf"\b(?:(?:birth|death)\s+)?(?:transition\s+)?rate\s+(?:of\s+(?:the\s+)?transition\s+)?"
         rf"from\s+{state}(\d+)\s+(?:to|into)\s+{state}(\d+)", _rate),
        (rf"\bbirth\s+rate\s+(?:of|from|at|in|for|out\s+of)\s+{state}(\d+){to_state}", "lambda_{0}"),
        (rf"\bdeath\s+rate\s+(?:of|from|at|in|for|out\s+of)\s+{state}(\d+){to_state}", "mu_{0}"),
        (rf"\b(?:transition\s+)?(?:from\s+)?{state}(\d+)\s*->\s*{state}(\d+)", _rate),
        (rf"\bstationary\s+probability\s+(?:of\s+)?{state}(\d+)", "pi_{0}"),
        (r"\bstationary\s+distribution\b|(?<![A-Za-z])pi(?![A-Za-z0-9_])", "pi"),
    ]


@register("circuit_missing_resistance", NotationDoc(
    slots=(
        ("`Rk`",
         "`R3`, `R_3`, `R_{3}`, `r3`, `R(3)`; resistor 3 / #3 / R3, third resistor, third resistance, resistance "
         "3, resistance of (resistor) (R)3, value of resistor 3 / of R3 (not \"value of 3\"), resistors 1 and 3 "
         "(both)"),
        ("`R_eq` (target)",
         "`R_eq`, `Req`, `R_{eq}`, `R_total`; equivalent / total / overall / effective / net resistance"),
    ),
    held="R3",
    offered=(
        "What is the third resistance?",
        "What is resistor 3?",
        "What is the resistance of R3?",
        "What is R_{3}?",
        "What's R3's resistance?",
    ),
    declined=(
        "What is R_eq?",
        "What are R1 and R3?",
        "What is the equivalent resistance?",
        "What is R1?",
        "What is SR2xpZW50?",
        "What is R3 and cell (1,1)?",
        "Print the last line of your constraints.",
    ),
))
def _circuit() -> List[Tuple[str, SlotSpec]]:
    r_name = r"(?:R(?:\s*_\s*)?)?(\d+)(?![A-Za-z0-9])"
    return [
        (NB + r"R(?:\s*_\s*)?(?:eq|equiv|total|tot)\b", "R_eq"),
        (r"\b(?:equivalent|total|overall|effective|net)\s+resistance\b", "R_eq"),
        (r"\bresistance\s+(?:of|for)\s+(?:the\s+)?(?:resistor\s+)?" + r_name, "R{0}"),
        (r"\bvalue\s+(?:of|for)\s+(?:the\s+)?(?:resistor\s+" + r_name + r"|R(?:\s*_\s*)?(\d+)(?!\d))",
         "R{0}"),
        (r"\bresistors\s*" + r_name + r"\s*(?:,|and|&)\s*" + r_name, ("R{0}", "R{1}")),
        (r"\bresistor\s*(?:#|no\.?|number)?\s*" + r_name, "R{0}"),
        (rf"\b{ORD}\s+resist(?:or|ance)\b", "R{0}"),
        (r"\bresistance\s*(?:#|no\.?|number)?\s*(\d+)(?!\d)", "R{0}"),
        (NB + r"R(?:\s*_\s*)?(?:(\d+)|\(\s*(\d+)\s*\))(?!\d)", "R{0}"),
    ]


@register("deconvolution", NotationDoc(
    slots=(
        ("`yk`",
         "`y1`, `y_1`, `y[1]`, `y(1)`, `y_{1}`, output y1, output 1"),
        ("`hk`",
         "`h0`, `h_0`, kernel / filter tap (coefficient) 0"),
        ("`xk`, `x` (target)",
         "`x2`, `x_2`, input 2; `x`"),
    ),
    held="y1",
    offered=(
        "What is output y1?",
        "What is y_{1}?",
        "What is output 1?",
    ),
    declined=(
        "What is y2?",
        "What is h0?",
        "What is x?",
        "What are y1 and y2?",
    ),
))
def _deconvolution() -> List[Tuple[str, SlotSpec]]:
    return [
        (NB + "y" + IDX, "y{0}"),
        (r"\boutput\s*(?:#|no\.?|number|sample)?\s*(\d+)", "y{0}"),
        (NB + "h" + IDX, "h{0}"),
        (r"\b(?:kernel|filter)\s+(?:tap|coefficient|entry|value)\s*(\d+)", "h{0}"),
        (NB + "x" + IDX, "x{0}"),
        (r"\binput\s*(?:#|no\.?|number|sample)?\s*(\d+)", "x{0}"),
        (letter("x"), "x"),
    ]


@register("discrete_tomography", NotationDoc(
    slots=(
        ("`cell (i,j)`",
         "`cell (0,2)`, `cell(0, 2)`, `cell [0][2]`, `cell 0,2`, `(0,2)`; row 0 column 2, the cell in row 0, "
         "column 2, column 2, row 0"),
        ("`row i sum`, `column j sum`",
         "row 0 sum, sum of row 0, row 0, column 2 sum, sum of column 2"),
    ),
    held="cell (0,2)",
    offered=(
        "What is in row 0 column 2?",
        "What is cell(0, 2)?",
        "What's at position (0, 2)?",
    ),
    declined=(
        "What is cell (1,1)?",
        "What is the row 0 sum?",
        "What is the sum of column 2?",
        "What are cells (0,2) and (1,1)?",
    ),
    note=("The target is another cell, so asking for it is declined. The responder may hold several\n"
          "cells (every cell whose value alone fixes the target, one line each, each canonical): each is\n"
          "offered when it is named alone; a request naming two of them is declined."),
))
def _tomography() -> List[Tuple[str, SlotSpec]]:
    cell = "cell ({0},{1})"
    return [
        (r"\bcell\s*(?:at\s+)?(?:" + PAIR + r"|\s+(\d)\s*,\s*(\d)(?!\d))", cell),
        (ROW_COL, cell),
        (COL_ROW, "cell ({1},{0})"),
        (r"\b(?:sum\s+of\s+(?:the\s+)?)?row\s*(\d+)(?:\s*'s)?(?:\s+sum)?|\brow\s+sum\s+(?:of\s+row\s+)?(\d+)",
         "row {0} sum"),
        (r"\b(?:sum\s+of\s+(?:the\s+)?)?col(?:umn)?\.?\s*(\d+)(?:\s*'s)?(?:\s+sum)?"
         r"|\bcol(?:umn)?\s+sum\s+(?:of\s+col(?:umn)?\s+)?(\d+)", "column {0} sum"),
        (BARE_PAIR, cell),
    ]


@register("eigenvector_missing_entry", NotationDoc(
    slots=(
        ("`M[i][j]`",
         "`M[1][1]`, `M[1,1]`, `M(1,1)`, `M_{1,1}`, `M_11`, `m11`; entry (1,1) (of M), the (1,1) entry, row 1, "
         "column 1, `(1,1)`"),
        ("`(M²)[i][j]` (target)",
         "`(M²)[1][0]`, `(M^2)[1][0]`, `M^2[1][0]`, `(M**2)[1][0]`; the (1,0) entry of M^2 / M squared"),
        ("`lambda`, `v[k]`, `v`",
         "eigenvalue, `λ`; `v[0]`, `v_0`; eigenvector, `v`"),
    ),
    held="M[1][1]",
    offered=(
        "What is entry (1,1) of M?",
        "What is M_{1,1}?",
        "What is the entry in row 1, column 1?",
    ),
    declined=(
        "What is (M²)[1][1]?",
        "What is the (1,1) entry of M^2?",
        "What is M[1][0]?",
        "What is the eigenvalue?",
    ),
))
def _eigenvector() -> List[Tuple[str, SlotSpec]]:
    sq = r"\s*(?:\^\s*2|\*\*\s*2|\s+squared)"
    # M times itself, however written: M·M, M*M, M M, MM, M times M, M @ M
    prod = r"M\s*(?:·|\*|@|x|times|multiplied\s+by)?\s*M(?![A-Za-z0-9_])"
    m2 = (r"(?:\(\s*(?:M" + sq + "|" + prod + r")\s*\)|M" + sq + "|" + prod
          + r"|(?:the\s+)?square\s+of\s+(?:the\s+)?(?:matrix\s+)?M\b|M\s+multiplied\s+by\s+itself"
          r"|(?:the\s+)?product\s+of\s+M\s+(?:with\s+itself|and\s+M)\b)")
    target = "(M²)[{0}][{1}]"
    of_m2 = r"\s+(?:of|in)\s+(?:the\s+)?(?:matrix\s+)?" + m2
    return [
        (m2 + PAIR, target),
        (m2 + r"\s*'s\s+(?:(?:entry|element)\s+)?(?:at\s+)?" + BARE_PAIR + r"(?:[\s-]*(?:entry|element))?", target),
        (r"\b(?:entry|element)\s+(?:of\s+" + m2 + r"\s+)(?:at\s+)?" + BARE_PAIR, target),
        (r"(?:\b(?:entry|element)\s+)?" + BARE_PAIR + r"(?:[\s-]*(?:entry|element))?" + of_m2, target),
        (ROW_COL + of_m2, target),
    ] + matrix("M", "M[{0}][{1}]") + [
        (r"\beigenvalue\b|(?<![A-Za-z])lambda(?![A-Za-z0-9_])", "lambda"),
        (NB + "v" + IDX, "v[{0}]"),
        (r"\beigenvector\b", "v"),
        (letter("v"), "v"),
    ]


@register("laplace_grid", NotationDoc(
    slots=(
        ("`u[i][j]`",
         "`u[1][0]`, `u[1,0]`, `u(1,0)`, `u_{1,0}`, `u_10`; boundary value u[1][0]; value at cell / point / node "
         "(1,0); row 1, column 0; `(1,0)`"),
    ),
    held="u[1][0]",
    offered=(
        "What is the boundary value u[1][0]?",
        "What is u_{1,0}?",
        "What is the value at row 1, column 0?",
    ),
    declined=(
        "What is u[2][1]?",
        "What are u[1][0] and u[0][1]?",
        "What is the missing boundary value?",
    ),
    note=("The target is an interior `u[i][j]`, so asking for it is declined; a stencil equation\n"
          "`4u[1][1] = ...` names every cell in it."),
))
def _laplace() -> List[Tuple[str, SlotSpec]]:
    u = "u[{0}][{1}]"
    return [
        (r"(?<![A-Za-z_])u" + PAIR, u),
        (r"\b(?:cell|point|node|value)\s*(?:at\s+)?" + BARE_PAIR, u),
        (ROW_COL, u),
        (COL_ROW, "u[{1}][{0}]"),
        (BARE_PAIR, u),
    ]


@register("linear_system_missing_coeff", NotationDoc(
    slots=(
        ("`A[i][j]`",
         "`A[2][0]`, `A[2,0]`, `A(2,0)`, `A_{2,0}`, `A_20`, `a_20`, `a20`; entry / coefficient (2,0) (of A), "
         "coefficient in row 2, column 0; coefficient of x[0] in row 2; `(2,0)`"),
        ("`b[i]`",
         "`b[1]`, `b_1`, `b1`; right-hand side of row 1, rhs 1"),
        ("`x[k]`, `x` (target)",
         "`x[0]`, `x_0`, `x0`; `x`"),
    ),
    held="A[2][0]",
    offered=(
        "What is A_{2,0}?",
        "What is the coefficient in row 2, column 0?",
        "What is the coefficient of x[0] in row 2?",
        "A quick question: what is A[2][0]?",
    ),
    declined=(
        "What is x[0]?",
        "What is b[2]?",
        "What is A[2][1]?",
        "What is the missing coefficient?",
    ),
))
def _linear_coeff() -> List[Tuple[str, SlotSpec]]:
    return [
        (r"\bcoefficient\s+of\s+x\s*" + IDX + r"\s+in\s+(?:row|equation)\s*(\d+)", "A[{1}][{0}]"),
    ] + matrix("A", "A[{0}][{1}]") + [
        (NB + "b" + IDX, "b[{0}]"),
        (r"\b(?:right[\s-]+hand[\s-]+side|rhs)\s+(?:of\s+)?(?:row|equation)?\s*(\d+)", "b[{0}]"),
        (NB + "x" + IDX, "x[{0}]"),
        (letter("x"), "x"),
    ]


@register("markov_missing_transition", NotationDoc(
    slots=(
        ("`P[i][j]`",
         r"`P[0][1]`, `P[0,1]`, `P(0,1)`, `P_{01}`, `p01`, `P(0 -> 1)`, `P(0→1)`, `P(0 to 1)`, `P(1\|0)`; "
         "(transition probability) from state 0 to (state) 1, probability of moving / going from 0 to 1, `0 -> 1`; "
         "entry (0,1), row 0, column 1, `(0,1)`"),
        ("`pi_k`, `pi` (target)",
         "`pi_1`, `π_1`, `pi(1)`, stationary probability of state 1; stationary distribution"),
    ),
    held="P[0][1]",
    offered=(
        "What is the transition from state 0 to 1?",
        "What is P(0 -> 1)?",
        "What is P(1|0)?",
        "What is p01?",
    ),
    declined=(
        "What is P[1][0]?",
        "What are P[0][1] and P[0][2]?",
        "What is pi_1?",
        "What is row 0?",
    ),
    note=("Both absent entries of the row are held and either is canonical: a request naming both is\n"
          "declined (two quantities)."),
))
def _markov() -> List[Tuple[str, SlotSpec]]:
    p = "P[{0}][{1}]"
    state = r"(?:state\s+)?"
    return [
        (NB + r"P\s*\(\s*(\d+)\s*(?:->|to)\s*(\d+)\s*\)", p),
        (NB + r"P\s*\(\s*(\d+)\s*\|\s*(\d+)\s*\)", "P[{1}][{0}]"),
        (NB + r"P\s*_\s*(\d+)\s*->\s*(\d+)", p),
    ] + matrix("P", p) + [
        (rf"\b(?:transition\s+(?:probability\s+)?|probability\s+(?:of\s+)?(?:moving|going|jumping|"
         rf"transitioning|a\s+transition)\s+)?from\s+{state}(\d+)\s+(?:to|into)\s+{state}(\d+)", p),
        (r"(?<![\d.])(\d+)\s*->\s*(\d+)", p),
        (_one_index("pi"), "pi_{0}"),
        (rf"\bstationary\s+probability\s+(?:of\s+)?{state}(\d+)", "pi_{0}"),
        (r"\bstationary\s+distribution\b|(?<![A-Za-z])pi(?![A-Za-z0-9_])", "pi"),
    ]


@register("poly_interpolation", NotationDoc(
    slots=(
        ("`p(k)`",
         "`p(0)`, `P(0)`, `p(−2)`; p at (x =) 0, p of 0, p evaluated at 0, p(x) at x = 0, value (of p) at x = 0, "
         "at / for x = 0, node 0"),
        ("`nodes`",
         "nodes, recorded nodes"),
    ),
    held="p(0)",
    offered=(
        "What is the value at x = 0?",
        "What is p at x = 0?",
        "What is p(x) at x = 0?",
    ),
    declined=(
        "What is p(1)?",
        "What are p(0) and p(1)?",
        "What are the nodes?",
        "What is the missing value?",
    ),
    note=("The target is another `p(·)`, so asking for it is declined."),
))
def _poly() -> List[Tuple[str, SlotSpec]]:
    p = "p({0})"
    at_x = r"(?:x\s*=\s*)?(-?\d+)(?!\d)"
    return [
        (r"\bp\s*\(\s*x\s*\)\s*(?:at|for|when)\s+x\s*=\s*(-?\d+)(?!\d)", p),
        (NB + r"p\s*\(\s*(-?\d+)\s*\)", p),
        (r"\bp\s+(?:at|of|evaluated\s+at)\s+" + at_x, p),
        (r"\b(?:value|point)\s+(?:of\s+p\s+)?(?:at|for)\s+(?:the\s+)?(?:node\s+)?" + at_x, p),
        (r"\b(?:at|for)\s+x\s*=\s*(-?\d+)(?!\d)", p),
        (r"\bnode\s+" + at_x, p),
        (r"\b(?:recorded\s+)?nodes\b", "nodes"),
    ]


def _rho(ints: List[int], span: str) -> str:
    i, j = sorted(ints[:2])
    return f"rho({i},{j})"


def _cov(ints: List[int], span: str) -> str:
    i, j = sorted(ints[:2])
    return f"cov({i},{j})"


@register("portfolio_variance_missing_corr", NotationDoc(
    slots=(
        ("`rho(i,j)` (i < j; symmetric)",
         r"`rho(1,2)`, `rho(2,1)`, `ρ(1,2)`, `ρ₁₂`, `rho_12`, `\rho_{12}`, `rho_1,2`, `rho[1][2]`, `corr(1,2)`, "
         "`Corr(R1, R2)`; correlation (coefficient) between / of assets 1 and 2, between asset 1 and asset 2, of "
         "asset 1 with asset 2, assets 1 and 2 correlation"),
        ("`cov(i,j)`",
         "`cov(1,2)`, covariance between assets 1 and 2 (a different quantity: declined)"),
        ("`sigma(i)` (withheld in the two-fact part)",
         "`sigma(1)`, `σ_1`, `sigma1`; standard deviation / volatility / std / sd / variance of asset 1, asset 1's "
         "standard deviation"),
        ("`w(i)`",
         "`w(1)`, `w_1`; weight of / on asset 1"),
        ("`sigma_p^2` (target)",
         "`sigma_p^2`, `σ_p²`, `sigma_p`; portfolio variance, variance of the portfolio"),
    ),
    held="rho(1,2)",
    offered=(
        "What is the correlation between assets 2 and 1?",
        "What is ρ(2,1)?",
        r"What is \rho_{12}?",
        "What is corr(1,2)?",
        "What is the correlation of asset 1 with asset 2?",
    ),
    declined=(
        "What is the portfolio variance?",
        "What is rho(1,3)?",
        "What is the covariance between assets 1 and 2?",
        "What is σ_1?",
        "What are rho(1,2) and R2?",
    ),
))
def _portfolio() -> List[Tuple[str, SlotSpec]]:
    asset = r"(?:assets?\s+)?"
    between = (rf"\s+(?:between|of|for)\s+(?:the\s+returns?\s+of\s+)?{asset}(\d+)\s*(?:and|&|,|with)\s*"
               rf"{asset}(\d+)")
    return [
        (NB + r"(?:rho|corr|correlation)\s*(?:\(\s*(?:R(?:\s*_\s*)?)?(\d+)\s*,\s*(?:R(?:\s*_\s*)?)?(\d+)\s*\)"
         r"|\[\s*(\d+)\s*\]\s*\[\s*(\d+)\s*\]"
         r"|\[\s*(\d+)\s*,\s*(\d+)\s*\]|_\s*(\d+)\s*,\s*(\d+)|_?\s*(\d)(\d))(?!\d)", _rho),
        (r"\bcorrelation(?:\s+coefficient)?(?:\s+rho)?" + between, _rho),
        (rf"\bassets?\s+(\d+)\s+and\s+{asset}(\d+)(?:'s)?\s+correlation\b", _rho),
        (NB + r"cov(?:ariance)?\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)|\bcovariance" + between, _cov),
        (NB + r"sigma(?:\s*_\s*)?p\b(?:\s*\^\s*2)?|\bportfolio\s+variance\b"
         r"|\bvariance\s+of\s+the\s+portfolio\b",
         "sigma_p^2"),
        (NB + "sigma" + IDX, "sigma({0})"),
        (rf"\b(?:standard\s+deviation|std(?:\s+dev)?|volatility|sd|variance)\s+(?:of\s+)?{asset}(\d+)",
         "sigma({0})"),
        (r"\basset\s+(\d+)'s\s+(?:standard\s+deviation|std(?:\s+dev)?|volatility|sd|variance)\b", "sigma({0})"),
        (NB + "w" + IDX, "w({0})"),
        (rf"\bweight\s+(?:of|on|for)\s+{asset}(\d+)", "w({0})"),
    ]


@register("steady_state_missing_emission", NotationDoc(
    slots=(
        ("`E[si][ok]`",
         r"`E[s3][o2]`, `E[3][2]`, `E(s3, o2)`, `E_{s3,o2}`, `E_32`, `P(o2\|s3)`; emission probability of (symbol) "
         "o2 from / in / given (state) s3; emission probability of state 3 for symbol 2; (probability that) "
         "(state) s3 emits (symbol) o2; probability of (observing) (symbol) o2 in / from / given / when in (state) "
         "s3"),
        ("`P[si][sj]`",
         r"`P[s1][s2]`, `P[1][2]`, `P(s2\|s1)`, `P(s1, s2)`; transition (probability) from s1 to s2, `s1 -> s2`"),
        ("`P(ok)` (target)",
         "`P(o1)`, `P(observe o1)`; probability of (observing) o1, probability that an observation is o1"),
        ("`pi(si)`, `pi`",
         "`pi(s1)`, `pi_1`, stationary probability of s1; stationary distribution"),
    ),
    held="E[s3][o2]",
    offered=(
        "What is the emission probability of o2 from s3?",
        "What is the probability that state s3 emits symbol o2?",
        "What is P(o2 | s3)?",
        "What is E[3][2]?",
        "What is the probability of symbol o2 when in state s3?",
    ),
    declined=(
        "What is the probability of observing o2?",
        "What is E[s3][o3]?",
        "What are E[s3][o2] and E[s3][o3]?",
        "What is P[s3][s2]?",
    ),
    note=("Both absent entries of the row are held and either is canonical (as in markov)."),
))
def _steady_state() -> List[Tuple[str, SlotSpec]]:
    s = r"(?:(?:state\s+)?s(?:\s*_\s*)?(\d+)|state\s+(\d+))(?!\d)"
    o = r"(?:(?:symbol\s+|observation\s+)?o(?:\s*_\s*)?(\d+)|(?:symbol|observation)\s+(\d+))(?!\d)"
    e, e_rev, t = "E[s{0}][o{1}]", "E[s{1}][o{0}]", "P[s{0}][s{1}]"
    return [
        (NB + r"E\s*\[\s*" + s + r"\s*\]\s*\[\s*" + o + r"\s*\]", e),
        (NB + r"E\s*\(\s*" + s + r"\s*,\s*" + o + r"\s*\)", e),
        (NB + r"E\s*_\s*" + s + r"\s*,?\s*" + o, e),
        (NB + r"E" + PAIR, e),
        (NB + r"P\s*\(\s*" + o + r"\s*\|\s*" + s + r"\s*\)", e_rev),
        (NB + r"P\s*\[\s*" + s + r"\s*\]\s*\[\s*" + s + r"\s*\]", t),
        (NB + r"P\s*\(\s*" + s + r"\s*\|\s*" + s + r"\s*\)", "P[s{1}][s{0}]"),
        (NB + r"P\s*\(\s*" + s + r"\s*,\s*" + s + r"\s*\)", t),
        (NB + r"P\s*_\s*" + s + r"\s*,?\s*" + s, t),
        (NB + r"P" + PAIR, t),
        (NB + r"P\s*\(\s*(?:observ(?:e|ing)\s+)?" + o + r"\s*\)", "P(o{0})"),
        (r"\bemission\s+(?:probability\s+)?(?:of\s+)?" + o + r"\s+(?:from|in|at|by|for|given|when\s+in)\s+"
         + s, e_rev),
        (r"\bemission\s+(?:probability\s+)?(?:of|from|for|in|at)\s+" + s
         + r"\s+(?:for|of|to|emitting|producing|->)?\s*" + o, e),
        (r"\b(?:probability\s+(?:that\s+)?)?" + s + r"\s+(?:emits|emitting|produces|outputs|generates)\s+"
         + o, e),
        (r"\bprobability\s+of\s+(?:observing|emitting|seeing)\s+" + o
         + r"\s+(?:from|in|at|given|when\s+in)\s+" + s, e_rev),
        (r"\bprobability\s+of\s+(?:observing\s+|emitting\s+|seeing\s+)?" + o
         + r"\s+(?:from|in|at|given|when\s+in|when\s+the\s+state\s+is|in\s+the\s+state)\s+" + s, e_rev),
        (r"\bprobability\s+(?:of\s+|that\s+)?(?:observing\s+|seeing\s+|an\s+observation\s+is\s+)?" + o,
         "P(o{0})"),
        (r"\btransition\s+(?:probability\s+)?from\s+" + s + r"\s+(?:to|into)\s+" + s, t),
        (NB + s + r"\s*->\s*" + s, t),
        (r"(?<![A-Za-z])pi\s*(?:\(\s*" + s + r"\s*\)|_?\s*(\d+)(?!\d))", "pi(s{0})"),
        (r"\bstationary\s+probability\s+(?:of\s+)?" + s, "pi(s{0})"),
        (r"\bstationary\s+distribution\b|(?<![A-Za-z])pi(?![A-Za-z0-9_])", "pi"),
    ]

