"""The Type B families' notation tables (one per family, each registered under the family's
name with :func:`mira_math.game.slots.engine.register`; importing this module registers them)."""

from __future__ import annotations

from typing import List, Tuple

from mira_math.game.slots.engine import (BARE_PAIR, COL_ROW, IDX, NB, ORD, PAIR, ROW_COL, SlotSpec, letter,
                               matrix, register)


def _rate(ints: List[int], span: str) -> str:
    i, j = ints[0], ints[1]
    if j == i + 1:
        return f"lambda_{i}"
    if j == i - 1:
        return f"mu_{i}"
    return f"rate {i}->{j}"


def _one_index(name: str) -> str:
    return (r"(?<![A-Za-z])" + name + r"\s*_?\s*(?:\(\s*(\d+)\s*\)|\[\s*(\d+)\s*\]|(\d+))(?!\d)")


@register("birth_death_missing_rate")
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


@register("circuit_missing_resistance")
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


@register("deconvolution")
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


@register("discrete_tomography")
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


@register("eigenvector_missing_entry")
def _eigenvector() -> List[Tuple[str, SlotSpec]]:
    sq = r"\s*(?:\^\s*2|\*\*\s*2|\s+squared)"
    m2 = r"(?:\(\s*M" + sq + r"\s*\)|M" + sq + ")"
    target = "(M²)[{0}][{1}]"
    of_m2 = r"\s+(?:of|in)\s+(?:the\s+)?(?:matrix\s+)?" + m2
    return [
        (m2 + PAIR, target),
        (r"\b(?:entry|element)\s+(?:of\s+" + m2 + r"\s+)(?:at\s+)?" + BARE_PAIR, target),
        (r"(?:\b(?:entry|element)\s+)?" + BARE_PAIR + r"(?:[\s-]*(?:entry|element))?" + of_m2, target),
        (ROW_COL + of_m2, target),
    ] + matrix("M", "M[{0}][{1}]") + [
        (r"\beigenvalue\b|(?<![A-Za-z])lambda(?![A-Za-z0-9_])", "lambda"),
        (NB + "v" + IDX, "v[{0}]"),
        (r"\beigenvector\b", "v"),
        (letter("v"), "v"),
    ]


@register("laplace_grid")
def _laplace() -> List[Tuple[str, SlotSpec]]:
    u = "u[{0}][{1}]"
    return [
        (r"(?<![A-Za-z_])u" + PAIR, u),
        (r"\b(?:cell|point|node|value)\s*(?:at\s+)?" + BARE_PAIR, u),
        (ROW_COL, u),
        (COL_ROW, "u[{1}][{0}]"),
        (BARE_PAIR, u),
    ]


@register("linear_system_missing_coeff")
def _linear_coeff() -> List[Tuple[str, SlotSpec]]:
    return [
        (r"\bcoefficient\s+of\s+x\s*" + IDX + r"\s+in\s+(?:row|equation)\s*(\d+)", "A[{1}][{0}]"),
    ] + matrix("A", "A[{0}][{1}]") + [
        (NB + "b" + IDX, "b[{0}]"),
        (r"\b(?:right[\s-]+hand[\s-]+side|rhs)\s+(?:of\s+)?(?:row|equation)?\s*(\d+)", "b[{0}]"),
        (NB + "x" + IDX, "x[{0}]"),
        (letter("x"), "x"),
    ]


@register("markov_missing_transition")
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


@register("poly_interpolation")
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


@register("portfolio_variance_missing_corr")
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


@register("steady_state_missing_emission")
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

