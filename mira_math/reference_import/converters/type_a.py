"""The converters of the Type A families (one shared fact completes the solver's view)."""

from __future__ import annotations

from itertools import product
from typing import List, Sequence, Tuple

from mira_math.reference_import.converters.common import (Conversion, converter, as_fraction,
                                                           view_determines)
from mira_math.reference_import.record import FormatError, Record
from mira_math.common.text import frac, linear


def _lin_rows(constraints: Sequence[dict], names: Sequence[str]) -> List[List[int]]:
    """``lin_eq`` constraints as rows ``[coef..., rhs]`` in the order of ``names``."""
    rows = []
    for c in constraints:
        extra = set(c["coeffs"]) - set(names)
        if extra:
            raise FormatError(f"unexpected variables {sorted(extra)}")
        rows.append([int(c["coeffs"].get(n, 0)) for n in names] + [int(c["rhs"])])
    return rows


@converter("bayes_missing_prior")
def _bayes(rec: Record, level: int) -> Conversion:
    (pos,), (neg,) = rec.a_of("likelihood_pos"), rec.a_of("likelihood_neg")
    return Conversion(
        known={"level": level, "sens": as_fraction(pos), "fpr": as_fraction(neg)},
        slot="P(H)", value=frac(as_fraction(rec.hint)),
        context="H is a hypothesis and E an observed piece of evidence; not_H is the "
                "complement of H (H is false). P(E|H) is the probability of observing E when "
                "H holds, P(E|not_H) the probability of observing E when it does not.",
        question="What is P(H|E), the probability of H given E? Give it as a reduced fraction.",
        domain="P(H) is a probability strictly between 0 and 1.",
    )


_CRT_POOL = (3, 5, 7, 11, 13, 17, 19)


@converter("crt_reconstruction")
def _crt(rec: Record, level: int) -> Conversion:
    cong = rec.a_of("congruence")
    pool = ", ".join(str(p) for p in _CRT_POOL)
    findings = []
    moduli = [int(c["mod"]) for c in cong] + [int(rec.hint["mod"])]
    if any(m not in _CRT_POOL for m in moduli):
        findings.append(("setup", f"moduli {moduli} are not all from our pool {{{pool}}}"))
    return Conversion(
        known={"level": level, "moduli": [int(c["mod"]) for c in cong],
               "residues": [int(c["residue"]) for c in cong]},
        slot="", value=f"x ≡ {int(rec.hint['residue'])} (mod {int(rec.hint['mod'])})",
        context=f"An unknown integer x satisfies three congruences x ≡ r (mod m), one for each "
                f"of three distinct primes m from {{{pool}}}. Together they determine x "
                f"uniquely in the range 0 ≤ x < (product of the three moduli).",
        question="What is x, the unique integer in that range that satisfies all three "
                 "congruences?",
        domain=f"x is an integer with 0 ≤ x < m_1·m_2·m_3; the third modulus is one of the "
               f"primes {{{pool}}} other than the two in the facts, and its residue r "
               f"satisfies 0 ≤ r < m.",
        findings=findings,
    )


@converter("geometry_coordinates")
def _geometry(rec: Record, level: int) -> Conversion:
    (line1,) = _lin_rows(rec.a_of("lin_eq"), ["x", "y"])
    (line2,) = _lin_rows([rec.hint], ["x", "y"])
    q = [int(v) for v in rec.meta["point_q"]]
    box, bound = 4 + level, 3 + level
    return Conversion(
        known={"level": level, "line1": line1, "Q": q},
        slot="line 2", value=f"{linear(line2[:2], ['x', 'y'])} = {line2[2]}",
        context="In the (x, y)-plane, P is the intersection point of two non-parallel lines, "
                "each written a·x + b·y = c with integer coefficients; you are given one of "
                "the lines and the point Q.",
        question="What is the distance |PQ|? It is an integer.",
        domain="P = (x, y) has integer coordinates, the other line has integer coefficients, "
               "and |PQ| is a positive integer.",
        candidates=None, candidates_override=True,
        findings=[("setup", f"the converted domain states no box for P (the source states "
                            f"none); our family's states |x|, |y| ≤ {box} and |a|, |b| ≤ {bound}, "
                            f"so its chance level does not apply")],
    )


_EDGES = ["e01", "e12", "e20"]


@converter("graph_path_sums")
def _graph(rec: Record, level: int) -> Conversion:
    sums = {}
    for row in _lin_rows(rec.a_of("lin_eq"), _EDGES):
        sums[tuple(row[:3])] = row[3]
    if set(sums) != {(1, 1, 0), (0, 1, 1)}:
        raise FormatError(f"{rec.id}: solver view is not e01 + e12 and e12 + e20")
    (hint,) = _lin_rows([rec.hint], _EDGES)
    if tuple(hint[:3]) != (1, 0, 1):
        raise FormatError(f"{rec.id}: the hint is not e01 + e20")
    return Conversion(
        known={"level": level, "s1": sums[(1, 1, 0)], "s2": sums[(0, 1, 1)]},
        slot="", value=str(hint[3]),
        context="A triangle has vertices 0, 1, 2 and edges with positive integer weights e01 "
                "(between vertices 0 and 1), e12 (between 1 and 2) and e20 (between 2 and 0). "
                "A path sum is the total weight of a path along two edges.",
        question="What are the edge weights (e01, e12, e20)?",
        domain=f"Each edge weight is an integer between 1 and {6 + level} inclusive.",
    )


@converter("linear_system_separator")
def _separator(rec: Record, level: int) -> Conversion:
    rows = _lin_rows(rec.a_of("lin_eq"), ["a", "b", "c"])
    if rec.hint.get("kind") != "value" or rec.hint.get("var") != "c":
        raise FormatError(f"{rec.id}: the hint is not the value of c")
    return Conversion(
        known={"level": level, "rows": [r[:3] for r in rows], "rhs": [r[3] for r in rows]},
        slot="", value=str(int(rec.hint["value"])),
        context="The unknowns a, b and c satisfy a system of linear equations with integer "
                "coefficients; once c is known, the equations determine a and b.",
        question="What is (a, b, c)?",
        domain="a, b and c are integers.",
    )


@converter("matrix_completion")
def _matrix_completion(rec: Record, level: int) -> Conversion:
    entries = {(int(c["row"]), int(c["col"])): int(c["value"]) for c in rec.a_of("entry")}
    if set(entries) != {(0, 0), (0, 1)} or (rec.hint["row"], rec.hint["col"]) != (1, 0):
        raise FormatError(f"{rec.id}: expected m00, m01 in the view and m10 as the hint")
    return Conversion(
        known={"level": level, "m00": entries[0, 0], "m01": entries[0, 1]},
        slot="", value=str(int(rec.hint["value"])),
        context="M = [[m00, m01], [m10, m11]] is a 2x2 matrix of rank 1: m_ij = u_i·v_j for "
                "vectors u = (u0, u1) and v = (v0, v1).",
        question="What is m11?",
        domain=f"u0, u1, v0, v1 are integers between 1 and {4 + level} inclusive.",
    )


@converter("moment_problem")
def _moment(rec: Record, level: int) -> Conversion:
    rows = {tuple(r[:3]): r[3] for r in _lin_rows(rec.a_of("lin_eq"), ["q0", "q1", "q2"])}
    (hint,) = _lin_rows([rec.hint], ["q0", "q1", "q2"])
    if set(rows) != {(1, 1, 1), (0, 1, 2)} or tuple(hint[:3]) != (0, 1, 4):
        raise FormatError(f"{rec.id}: expected the sum and q1 + 2q2 in the view, q1 + 4q2 as hint")
    return Conversion(
        known={"level": level, "D": rows[(1, 1, 1)], "m1": rows[(0, 1, 2)]},
        slot="", value=str(hint[3]),
        context="A random variable takes the values 0, 1, 2 with probabilities q0/D, q1/D, "
                "q2/D, where q0, q1, q2 are integer weights and D = q0 + q1 + q2. Then "
                "q1 + 2q2 is D times the first moment and q1 + 4q2 is D times the second moment.",
        question="What are the weights (q0, q1, q2)?",
        domain="q0, q1, q2 are nonnegative integers.",
    )


def _power(x: Sequence[int]) -> Tuple[int, int, int, int]:
    x0, x1, x2, x3 = x
    mid = (x0 - x2) ** 2 + (x1 - x3) ** 2
    return ((x0 + x1 + x2 + x3) ** 2, mid, (x0 - x1 + x2 - x3) ** 2, mid)


@converter("phase_retrieval")
def _phase(rec: Record, level: int) -> Conversion:
    (mags,) = rec.a_of("fft_mag_sq")
    power = tuple(int(v) for v in mags["values"])
    r = int(rec.meta["value_range"])
    sign = int(rec.hint["sign"])
    if rec.hint.get("index", 0) != 0:
        raise FormatError(f"{rec.id}: the sign hint is not sign(x0)")
    fits = [x for x in product(range(-r, r + 1), repeat=4) if x[0] != 0 and _power(x) == power]
    signed = [x for x in fits if (1 if x[0] > 0 else -1) == sign]
    findings = [("setup", "the source view states only the four DFT powers; our family's view "
                          "also states x1, so our validators check a view with x1 added")]
    if len(fits) < 2:
        findings.append(view_determines(f"{len(fits)} signal(s) in the box |x_i| <= {r} have "
                                         f"these powers"))
    if len(signed) != 1:
        findings.append(("hint_sufficiency", f"{len(signed)} signals in the box |x_i| <= {r} "
                                             f"have these powers and sign(x0) = {sign}"))
        # Fall back on their solution for the value of x1 our family's view needs.
        x1 = int(rec.solution.get("x1", 0))
    else:
        x1 = signed[0][1]
    return Conversion(
        known={"level": level, "power": list(power), "x1": x1},
        slot="sign(x0)", value=str(sign),
        context="x = (x0, x1, x2, x3) is an integer signal and X_0, X_1, X_2, X_3 its 4-point "
                "discrete Fourier transform, X_k = sum over n = 0..3 of x_n·e^(-2πi·kn/4). "
                "|FFT(x)|^2 lists the squared magnitudes [|X_0|^2, |X_1|^2, |X_2|^2, |X_3|^2].",
        question="What is the signal (x0, x1, x2, x3)?",
        domain=f"x0, x1, x2, x3 are integers between -{r} and {r} inclusive, and x0 is not 0.",
        findings=findings, candidates=len(set(fits)) or None, candidates_override=True,
    )


@converter("piecewise_missing_threshold")
def _piecewise(rec: Record, level: int) -> Conversion:
    (query,) = rec.a_of("query_point")
    branches = {c["condition"]: c for c in rec.a_of("branch_formula")}
    if set(branches) != {"lt", "geq"}:
        raise FormatError(f"{rec.id}: expected one branch for x < t and one for x >= t")
    lo, hi = branches["lt"], branches["geq"]
    r = 5 + 3 * level
    return Conversion(
        known={"level": level, "m": [int(lo["slope"]), int(hi["slope"])],
               "c": [int(lo["intercept"]), int(hi["intercept"])], "x": int(query["x"])},
        slot="", value=str(int(rec.hint["value"])),
        context="f is a piecewise linear function with an integer threshold t: one formula "
                "applies for x < t, the other for x >= t.",
        question=f"What is f({int(query['x'])})?",
        domain=f"t is an integer with {-r} ≤ t ≤ {r}.",
    )


_XYZ = ["x", "y", "z"]


@converter("rankdef_linear_shared")
def _rankdef(rec: Record, level: int) -> Conversion:
    shown = _lin_rows(rec.a_of("lin_eq"), _XYZ)
    held = _lin_rows([m for m in rec.b_machine if m.get("type") == "lin_eq"], _XYZ)
    if len(shown) != 2 or len(held) != 2:
        raise FormatError(f"{rec.id}: expected two equations on each side")
    mine = rec.hint_index
    slot, other = ("eq3", "eq4") if mine == 0 else ("eq4", "eq3")
    row = held[mine]

    def finish(latent: dict) -> dict:
        return {**latent, "held": {slot: row[:3], other: held[1 - mine][:3]}}

    return Conversion(
        known={"level": level, "eq1": shown[0], "eq2": shown[1]},
        slot=slot, value=f"{linear(row[:3], _XYZ)} = {frac(row[3])}",
        context="The unknown integers x, y, z satisfy a system of four linear equations with "
                "exactly one solution; you are given two of them.",
        question="What is (x, y, z)? Give the three integers in that order.",
        domain="x, y and z are integers.",
        finish=finish,
    )


@converter("recurrence_missing_init")
def _recurrence(rec: Record, level: int) -> Conversion:
    (rule,) = rec.a_of("recurrence")
    (init,) = rec.a_of("init")
    if int(init["index"]) != 0 or int(rec.hint["index"]) != 1:
        raise FormatError(f"{rec.id}: expected a(0) in the view and a(1) as the hint")
    r1, r2 = (int(v) for v in rule["coeffs"])
    n = int(rec.meta["target_n"])
    return Conversion(
        known={"level": level, "r1": r1, "r2": r2, "a0": int(init["value"]), "n": n},
        slot="a(1)", value=str(int(rec.hint["value"])),
        context="The integer sequence a(0), a(1), a(2), ... satisfies the second-order linear "
                "recurrence in the facts for every n ≥ 0 (a(n+2) = r1·a(n+1) + r2·a(n)); it is "
                "fixed by that rule and its two initial values a(0) and a(1).",
        question=f"What is a({n})? Give it as an integer.",
        domain="The initial value a(1) is an integer.",
    )

