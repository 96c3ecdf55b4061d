"""Importing the paper authors' released instances (``mira-math import-reference``).

The authors' reference implementation (public repository ``cedar-lau/mira-math``, MIT
licence) publishes its 2,310 instances as JSON lines (``datasets/family_types_20_50.jsonl``
and ``..._few_shot.jsonl``). This module reads that format and writes the same instances in
our schema, as a release folder our runner, scorer and report take unchanged
(``mira-math eval --data DIR``). Nothing here is derived from their code: the format was
learnt from the data, and every computation is this project's own family code.

What a converted instance keeps from the source, verbatim: the id, the difficulty, the solver's
fact lines (agent ``A``'s ``constraints_text``), the responder's lines (agent ``B``'s) and the
hint line (the ``B`` line that states their ``minimal_hint_spec`` atomic hint). What it gets from
here: a short context, question and domain in their notation (their file has none), the
canonical hint's slot identifier and value in our family's form, the answer (their
``global_solution``) as our exact answer type, and a latent state in our family's format built
from their facts, so that our ``known``/``complete``/``solve``/``check`` and validators run on it.

One converter per family (:data:`CONVERTERS`) maps a source record to our family's ``known``
(what their solver view states, read from ``constraints_machine`` and ``global_metadata``) and
the hint's slot and value; the complete latent state is then ``family.complete(known, hint)``.
Where their setup differs from ours (phase retrieval's view has no x1, the HMM withholds one
emission entry instead of two, Laplace grids may withhold a corner, ...), the converter records
a per-instance finding instead of dropping anything.

``--check`` (:func:`check_instance`) recomputes every answer with our family code from the
converted solver view plus the canonical hint and compares it with their ``global_solution``,
and runs our validators; see ``docs/reference_import.md``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import combinations, product
from math import gcd, lcm
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from generators import registry
from generators.family import Family
from generators.linalg import rank
from generators.release import CHECKSUMS, README, RELEASE_INFO, SPLIT, data_path, manifest
from generators.schema import (Answer, Hint, Instance, View, decode_latent, encode_latent)
from generators.text import frac, linear
from generators.validate import validate_instance
from verifiers.exact import Value, canonical, equal

IMPORT_VERSION = "reference-import-1"
SOURCE_REPOSITORY = "https://github.com/cedar-lau/mira-math"
SOURCE_LICENSE = "code MIT, data CC BY 4.0"
SOURCE_COPYRIGHT = "Copyright (c) 2026 MIRA-Math contributors"
CHECK_REPORT = "import_check.json"

# sha256 of the files the source repository lists in its datasets/CHECKSUMS.txt.
PUBLISHED = {
    "78a021526f9457af6e3776ac470c4ef1202d18fd9a19539e7e289294997b2ad0":
        "datasets/family_types_20_50.jsonl",
    "0f7f24a7a178ea4817867b9648908af1d9fd09c4fd53a5e79416e9fc868d6e0f":
        "datasets/family_types_20_50_few_shot.jsonl",
}

# Finding properties. ``consistency`` always fails for imported data (the stored lines are
# their text, not our rendering); the other informational ones say where their setup or ranges
# differ from our family's. Only the REAL properties are findings about the source data.
EXPECTED = {
    "consistency": "the stored fact, responder and hint lines are the source's verbatim text, "
                   "not our family's rendering of the latent state, so the validator's "
                   "byte-for-byte rendering comparison always differs for imported data",
    "setup": "the source family's setup differs from ours here (recorded so that the "
             "conversion loses nothing silently); a validator result that depends on the part "
             "of the view that differs is filed here, prefixed with our family's setup",
    "range": "a value lies outside the range our generator draws from (our check() rejects "
             "it); the source draws from other ranges, so this is no defect of the source data",
    "degenerate": "the state fails one of our generator's non-degeneracy filters (a purely "
                  "series or parallel network, a constant signal, a kernel with a zero last "
                  "tap): a valid but easier instance than ours",
    "unverified": "our validator could not decide the property: its witness search stays "
                  "within our family's ranges and conditions, which this state fails",
}
REAL = ("schema", "global_uniqueness", "local_underdetermination", "hint_sufficiency",
        "chance_level")

_RANGE = re.compile(r"outside \[|denominator above|has denominator|not an integer in \[|"
                    r"must lie in \[|lies outside|does not match level|is not in \[")
_DEGENERATE = re.compile(r"purely series or purely parallel|signal is constant|single spike|"
                         r"last tap is zero")
_UNDECIDED = re.compile(r"^the witness is not valid|^no second completion|^KeyError|^IndexError")

# Families whose converted state is checked by our validators under a view that differs from
# the source's (the twin's view is our family's): what differs.
VIEW_DIFFERS = {
    "geometry_coordinates": "its domain bounds P to a box and the line coefficients; the "
                            "converted instance states no box, as the source states none",
    "phase_retrieval": "its view also states x1",
    "poly_interpolation": "its view also lists the nodes",
    "deconvolution": "its view omits the full convolution's tail outputs",
    "steady_state_missing_emission": "it withholds a second emission entry of the row",
}

_HINT_KEYS = ("hint_id", "kind", "providers", "consumers")


class FormatError(ValueError):
    """A source line that is not a record of the reference release format."""


# ------------------------------------------------------------------ the source record

class Record:
    """One source line, with the accessors the converters need."""

    def __init__(self, raw: Any, line: int = 0):
        self.raw, self.line = raw, line
        if not isinstance(raw, dict):
            raise FormatError(f"line {line}: not a JSON object")
        for key in ("id", "family", "difficulty", "answer_type", "global_solution",
                    "global_metadata", "agent_views", "minimal_hint_spec"):
            if key not in raw:
                raise FormatError(f"line {line}: field {key!r} missing")
        self.id: str = raw["id"]
        self.family: str = raw["family"]
        self.difficulty: int = raw["difficulty"]
        if not isinstance(self.id, str) or not isinstance(self.family, str):
            raise FormatError(f"line {line}: id and family must be strings")
        if self.difficulty not in (1, 2, 3) or isinstance(self.difficulty, bool):
            raise FormatError(f"{self.id}: difficulty {self.difficulty!r} is not 1, 2 or 3")
        views = {v.get("agent_id"): v.get("private_data", {}) for v in raw["agent_views"]}
        if set(views) != {"A", "B"}:
            raise FormatError(f"{self.id}: expected agent views A and B, got {sorted(views)}")
        self.a_text: List[str] = list(views["A"]["constraints_text"])
        self.a_machine: List[dict] = list(views["A"]["constraints_machine"])
        self.b_text: List[str] = list(views["B"]["constraints_text"])
        self.b_machine: List[dict] = list(views["B"]["constraints_machine"])
        if len(self.b_text) < len(self.b_machine):
            raise FormatError(f"{self.id}: agent B has {len(self.b_text)} text lines but "
                              f"{len(self.b_machine)} machine constraints")
        self.meta: Dict[str, Any] = raw["global_metadata"]
        self.solution: Dict[str, Any] = raw["global_solution"]
        hints = raw["minimal_hint_spec"].get("atomic_hints") or []
        if not hints:
            raise FormatError(f"{self.id}: minimal_hint_spec has no atomic hint")
        self.hint: dict = hints[0]
        self.extra_hints: List[dict] = hints[1:]
        self.hint_index = self._hint_index()
        self.hint_line: str = self.b_text[self.hint_index]

    def _hint_index(self) -> int:
        """Index of the B line stating the hint: machine constraint i is text line i (B may
        add lines without a machine form after them, such as geometry's ``Q = (7, 15)``)."""
        want = {k: v for k, v in self.hint.items() if k not in _HINT_KEYS}
        for i, m in enumerate(self.b_machine):
            if m.get("type") == self.hint.get("kind") and \
                    {k: v for k, v in m.items() if k != "type"} == want:
                value = next((want[k] for k in ("rhs", "value", "residue", "num", "y", "sign")
                              if k in want), None)
                if value is not None and str(value) not in self.b_text[i]:
                    raise FormatError(f"{self.id}: B line {self.b_text[i]!r} does not state "
                                      f"the atomic hint {want}")
                return i
        raise FormatError(f"{self.id}: no line of agent B states the atomic hint {self.hint}")

    def a_of(self, kind: str) -> List[dict]:
        return [m for m in self.a_machine if m.get("type") == kind]


@dataclass
class Conversion:
    """What a family converter derives from a record."""

    known: Dict[str, Any]          # our family's `known`, from their solver view + metadata
    slot: str                      # canonical hint slot identifier
    value: str                     # canonical hint value, in our family's form
    context: str
    question: str
    domain: str
    findings: List[Tuple[str, str]] = field(default_factory=list)   # (property, detail)
    finish: Optional[Callable[[dict], dict]] = None   # adds what complete() leaves out
    candidates: Optional[int] = None                  # chance level of THEIR view, if it differs
    candidates_override: bool = False
    expressible: bool = True       # False: our family's latent format cannot hold this state


# ------------------------------------------------------------------ shared helpers

def _q(c: dict) -> Fraction:
    return Fraction(c["num"], c["denom"])


def _lin_rows(constraints: Sequence[dict], names: Sequence[str]) -> List[List[int]]:
    """``lin_eq`` constraints as rows ``[coef..., rhs]`` in the order of ``names``."""
    rows = []
    for c in constraints:
        extra = set(c["coeffs"]) - set(names)
        if extra:
            raise FormatError(f"unexpected variables {sorted(extra)}")
        rows.append([int(c["coeffs"].get(n, 0)) for n in names] + [int(c["rhs"])])
    return rows


def determined(rows: Sequence[Sequence[object]], target: Sequence[object]) -> bool:
    """Whether the linear functional ``target`` is fixed by the (consistent) linear system
    with coefficient rows ``rows``: it lies in their row space."""
    if not rows:
        return not any(target)
    return rank(list(rows)) == rank(list(rows) + [list(target)])


def _view_determines(detail: str) -> Tuple[str, str]:
    return ("local_underdetermination", "source view already determines the answer: " + detail)


# ------------------------------------------------------------------ converters, Type A

def _bayes(rec: Record, level: int) -> Conversion:
    (pos,), (neg,) = rec.a_of("likelihood_pos"), rec.a_of("likelihood_neg")
    return Conversion(
        known={"level": level, "sens": _q(pos), "fpr": _q(neg)},
        slot="P(H)", value=frac(_q(rec.hint)),
        context="H is a hypothesis and E an observed piece of evidence; not_H is the "
                "complement of H (H is false). P(E|H) is the probability of observing E when "
                "H holds, P(E|not_H) the probability of observing E when it does not.",
        question="What is P(H|E), the probability of H given E? Give it as a reduced fraction.",
        domain="P(H) is a probability strictly between 0 and 1.",
    )


_CRT_POOL = (3, 5, 7, 11, 13, 17, 19)


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
        findings.append(_view_determines(f"{len(fits)} signal(s) in the box |x_i| <= {r} have "
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


# ------------------------------------------------------------------ converters, Type B

def _rate_name(c: dict) -> str:
    i, j = int(c["from_state"]), int(c["to_state"])
    if j == i + 1:
        return f"lambda_{i}"
    if j == i - 1:
        return f"mu_{i}"
    raise FormatError(f"rate from {i} to {j} is neither a birth nor a death")


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


_GROUP_RE = re.compile(r"^(\S+) and (\S+) are connected in (series|parallel), forming "
                       r"(?:group (G\d+)|the total equivalent resistance)\.$")


def _tree_from_metadata(node: Any) -> Any:
    kind = node[0]
    if kind == "leaf":
        return int(node[1]) + 1
    op = {"series": "+", "parallel": "||"}[kind]
    return [op, _tree_from_metadata(node[1]), _tree_from_metadata(node[2])]


def _tree_from_text(sentences: Sequence[str]) -> Any:
    """The network from its step-by-step description (``R1 and R2 are connected in series,
    forming group G1.`` ... ``..., forming the total equivalent resistance.``)."""
    groups: Dict[str, Any] = {}
    total = None
    for s in sentences:
        m = _GROUP_RE.match(s)
        if not m:
            raise FormatError(f"cannot read topology sentence {s!r}")

        def part(name: str) -> Any:
            if name in groups:
                return groups.pop(name)
            if re.fullmatch(r"R\d+", name):
                return int(name[1:])
            raise FormatError(f"unknown part {name!r} in {s!r}")

        node = ["+" if m.group(3) == "series" else "||", part(m.group(1)), part(m.group(2))]
        if m.group(4):
            groups[m.group(4)] = node
        else:
            total = node
    if total is None or groups:
        raise FormatError("the topology does not end in one total network")
    return total


def _same_tree(a: Any, b: Any) -> bool:
    if isinstance(a, int) or isinstance(b, int):
        return a == b
    return a[0] == b[0] and ((_same_tree(a[1], b[1]) and _same_tree(a[2], b[2]))
                             or (_same_tree(a[1], b[2]) and _same_tree(a[2], b[1])))


def _circuit(rec: Record, level: int) -> Conversion:
    (topology,) = rec.a_of("topology")
    tree = _tree_from_text(topology["description"])
    findings = []
    if "tree" in rec.meta and not _same_tree(tree, _tree_from_metadata(rec.meta["tree"])):
        findings.append(("global_uniqueness", "the topology sentences do not describe the "
                                              "network of global_metadata.tree"))
    values = {f"R{int(c['resistor']) + 1}": int(c["value"]) for c in rec.a_of("resistance")}
    n = int(rec.meta.get("n_resistors", len(values) + 1))
    return Conversion(
        known={"level": level, "tree": tree, "values": values},
        slot=f"R{int(rec.hint['resistor']) + 1}", value=str(int(rec.hint["value"])),
        context=f"Resistors R1, ..., R{n} (resistances in ohms) form a series-parallel network "
                f"between two terminals, built step by step as the facts describe: each step "
                f"connects two resistors or groups in series or in parallel, forming a new group, "
                f"and the last step forms the whole network. R_eq is its total equivalent "
                f"resistance.",
        question="What is R_eq, the total equivalent resistance in ohms? Give it as a reduced "
                 "fraction.",
        domain="Every resistance is a positive integer number of ohms.",
        findings=findings,
    )


def _deconvolution(rec: Record, level: int) -> Conversion:
    h = [int(v) for v in rec.meta["kernel"]]
    n = int(rec.meta["length_x"])
    k = int(rec.hint["index"])
    ys = {int(c["index"]): int(c["value"]) for c in rec.a_of("conv_eq")}
    findings = []
    if k >= n:
        raise FormatError(f"{rec.id}: the withheld output y{k} lies beyond our truncated model "
                          f"(outputs 0..{n - 1})")
    tail = sorted(i for i in ys if i >= n)
    if tail:
        findings.append(("setup", f"the source view also states the full convolution's tail "
                                  f"outputs {tail}; our family's model is truncated to n outputs"))
    rows = []
    for i in sorted(ys):
        row = [0] * n
        for j, hj in enumerate(h):
            if 0 <= i - j < n:
                row[i - j] += hj
        rows.append(row)
    undetermined = [f"x{i}" for i in range(n)
                    if not determined(rows, [1 if c == i else 0 for c in range(n)])]
    if not undetermined:
        findings.append(_view_determines("the source equations fix every x_i"))
    signal = ", ".join(f"x{i}" for i in range(n))
    return Conversion(
        known={"level": level, "h": h, "n": n, "missing": k,
               "y": [ys[i] for i in range(n) if i != k]},
        slot=f"y{k}", value=str(int(rec.hint["value"])),
        context=f"An unknown integer signal ({signal}) is convolved with a fixed kernel; each "
                f"fact is one output of the convolution, written as the weighted sum of the "
                f"signal samples it involves (for example 2x1 + 3x0 = 7 means 2·x1 + 3·x0 = 7).",
        question=f"What is the signal ({signal})? Give the {n} integers in that order.",
        domain=f"{signal} are integers.",
        findings=findings,
    )


def _tomography(rec: Record, level: int) -> Conversion:
    rows = [0, 0, 0]
    cols = [0, 0, 0]
    for c in rec.a_of("row_sum"):
        rows[int(c["row"])] = int(c["value"])
    for c in rec.a_of("col_sum"):
        cols[int(c["col"])] = int(c["value"])
    ti, tj = (int(v) for v in rec.meta["target_cell"])
    hi, hj = int(rec.hint["row"]), int(rec.hint["col"])
    return Conversion(
        known={"level": level, "rows": rows, "cols": cols, "target": [ti, tj]},
        slot=f"cell ({hi},{hj})", value=str(int(rec.hint["value"])),
        context="A 3×3 grid has cells that each hold 0 or 1. Rows and columns are numbered "
                "0, 1, 2 from the top left; cell(i,j) is the cell in row i and column j. A row "
                "sum is the sum of the three cells of that row, a column (col) sum the sum of "
                "the three cells of that column.",
        question=f"What is the value of cell({ti},{tj})? Answer 0 or 1.",
        domain="Every cell holds 0 or 1.",
    )


def _eigenvector(rec: Record, level: int) -> Conversion:
    n = int(rec.meta["n"])
    m: List[List[Any]] = [[None] * n for _ in range(n)]
    for c in rec.a_of("matrix_entry"):
        m[int(c["row"])][int(c["col"])] = int(c["value"])
    v: List[Any] = [None] * n
    for c in rec.a_of("eigvec"):
        v[int(c["index"])] = int(c["value"])
    i, j = int(rec.hint["row"]), int(rec.hint["col"])
    t = int(rec.meta["target_col"])
    return Conversion(
        known={"level": level, "M": m, "v": v, "missing": [i, j], "target": [i, t]},
        slot=f"M[{i}][{j}]", value=str(int(rec.hint["value"])),
        context=f"M is a {n}×{n} matrix with integer entries; rows and columns are numbered 0 "
                f"to {n - 1}, and M[r][c], the (r,c) entry, is the entry in row r, column c. v "
                f"is an eigenvector of M (Mv = λv for some number λ), and v[k] is its k-th "
                f"component. M^2 is the matrix product M·M.",
        question=f"What is (M^2)[{i}][{t}]? Give its exact integer value.",
        domain="Every entry of M is an integer.",
    )


def _laplace(rec: Record, level: int) -> Conversion:
    n = int(rec.meta["grid_size"])
    corners = {(0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1)}
    values = {}
    for c in rec.a_of("value"):
        i, j = (int(p) for p in c["var"].split("_")[1:])
        values[i, j] = int(c["value"])
    mi, mj = (int(p) for p in rec.hint["var"].split("_")[1:])
    ti, tj = (int(v) for v in rec.meta["target_cell"])
    findings = []
    if (mi, mj) in corners:
        findings.append(("setup", f"the withheld cell u_{mi}_{mj} is a corner; corners enter "
                                  f"no Laplace equation and our family never withholds one"))
    # Does their solver view (stencils and given values) fix the target on its own?
    names = [f"u_{i}_{j}" for i in range(n) for j in range(n)]
    rows = [[int(c["coeffs"].get(x, 0)) for x in names] for c in rec.a_of("lin_eq")]
    rows += [[1 if x == c["var"] else 0 for x in names] for c in rec.a_of("value")]
    if determined(rows, [1 if x == f"u_{ti}_{tj}" else 0 for x in names]):
        findings.append(_view_determines(f"u_{ti}_{tj} follows from the stencils and the given "
                                         f"values without u_{mi}_{mj}"))
    boundary = {f"{i},{j}": v for (i, j), v in sorted(values.items()) if (i, j) not in corners}
    return Conversion(
        expressible=(mi, mj) not in corners,
        known={"level": level, "n": n, "boundary": boundary, "missing": [mi, mj],
               "target": [ti, tj]},
        slot=f"u[{mi}][{mj}]", value=str(int(rec.hint["value"])),
        context=f"u assigns a number to every cell of a {n}×{n} grid; u_i_j is the value in row "
                f"i, column j (rows and columns numbered 0 to {n - 1}). Every interior cell "
                f"(1 ≤ i, j ≤ {n - 2}) obeys the discrete Laplace equation given in the facts: "
                f"four times its value is the sum of its four neighbours. The cells on the border "
                f"are boundary cells with fixed values.",
        question=f"What is u_{ti}_{tj}? Give its exact value (an integer).",
        domain="Every boundary value is an integer.",
        findings=findings,
    )


def _linear_coeff(rec: Record, level: int) -> Conversion:
    n = int(rec.meta["n"])
    a: List[List[Any]] = [[None] * n for _ in range(n)]
    for c in rec.a_of("coeff"):
        a[int(c["row"])][int(c["col"])] = int(c["value"])
    b: List[Any] = [None] * n
    for c in rec.a_of("rhs"):
        b[int(c["row"])] = int(c["value"])
    i, j = int(rec.hint["row"]), int(rec.hint["col"])
    k = int(rec.meta["target_k"])
    xs = ", ".join(f"x{c}" for c in range(n))
    return Conversion(
        known={"level": level, "A": a, "b": b, "missing": [i, j], "target": k},
        slot=f"A[{i}][{j}]", value=str(int(rec.hint["value"])),
        context=f"A is an invertible {n}×{n} matrix and b a vector of length {n}; equations "
                f"(rows) and variables (columns) are numbered from 0. A[r][c] is the coefficient "
                f"of x{{c}} in equation r (row r, column c), and b[r] is the right-hand side "
                f"(constant term) of equation r. ({xs}) is the unique solution of Ax = b.",
        question=f"What is x{k}? Give it as a reduced fraction.",
        domain="Every coefficient of A is an integer, and A is invertible.",
    )


def _markov(rec: Record, level: int) -> Conversion:
    n = int(rec.meta["n_states"])
    p: List[List[Any]] = [[None] * n for _ in range(n)]
    for c in rec.a_of("transition"):
        p[int(c["from_state"])][int(c["to_state"])] = _q(c)
    r = int(rec.hint["from_state"])
    target = int(rec.meta["target_state"])
    findings = []
    absent = [j for j in range(n) if p[r][j] is None]
    if len(absent) == 1:
        findings.append(_view_determines(f"row {r} lacks one entry only; the row sum gives it"))
    states = ", ".join(str(i) for i in range(n))
    return Conversion(
        known={"level": level, "n": n, "target": target, "P": p},
        slot=f"P[{r}][{int(rec.hint['to_state'])}]", value=frac(_q(rec.hint)),
        context=f"A discrete-time Markov chain has states {states}. P(i -> j) is the "
                f"probability of moving from state i to state j in one step, and the "
                f"probabilities out of every state sum to 1. pi_k is the stationary probability "
                f"of state k (the chain is ergodic, so the stationary distribution is unique).",
        question=f"What is pi_{target}, the stationary probability of state {target}? Give it "
                 f"as a reduced fraction.",
        domain="Every transition probability is a fraction between 0 and 1.",
        findings=findings,
    )


def _poly(rec: Record, level: int) -> Conversion:
    points = sorted([int(c["x"]), int(c["y"])] for c in rec.a_of("point"))
    held = int(rec.hint["x"])
    deg = int(rec.meta["degree"])
    query = int(rec.meta["target_x"])
    return Conversion(
        known={"level": level, "nodes": sorted([x for x, _ in points] + [held]), "query": query,
               "points": points},
        slot=f"p({held})", value=str(int(rec.hint["y"])),
        context=f"p is a polynomial of degree {deg} with integer coefficients; p(x) denotes its "
                f"value at x. Its values were recorded at {deg + 1} distinct integer points.",
        question=f"What is p({query})? Give it as an integer.",
        domain=f"p is a polynomial of degree exactly {deg} with integer coefficients.",
        findings=[("setup", "the source view does not say at which x the withheld point lies; "
                            "our family's view lists every node, so our validators check a view "
                            "with the nodes added")],
    )


def _portfolio(rec: Record, level: int) -> Conversion:
    n = int(rec.meta["n_assets"])
    w: List[Any] = [None] * n
    sigma: List[Any] = [None] * n
    for c in rec.a_of("weight"):
        w[int(c["asset"])] = _q(c)
    for c in rec.a_of("std"):
        sigma[int(c["asset"])] = int(c["value"])
    rho = {}
    for c in rec.a_of("corr"):
        i, j = sorted((int(c["asset_i"]), int(c["asset_j"])))
        rho[f"{i + 1},{j + 1}"] = _q(c)
    a, b = sorted((int(rec.hint["asset_i"]), int(rec.hint["asset_j"])))
    key = f"{a + 1},{b + 1}"
    full = {**rho, key: _q(rec.hint)}
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
        slot=f"rho({key})", value=frac(_q(rec.hint)),
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


def _steady_state(rec: Record, level: int) -> Conversion:
    n, m = int(rec.meta["n_states"]), int(rec.meta["n_symbols"])
    p: List[List[Any]] = [[None] * n for _ in range(n)]
    for c in rec.a_of("transition"):
        p[int(c["from_state"])][int(c["to_state"])] = _q(c)
    if any(x is None for row in p for x in row):
        raise FormatError(f"{rec.id}: the solver view lacks a transition probability")
    e: List[List[Any]] = [[None] * m for _ in range(n)]
    for c in rec.a_of("emission"):
        e[int(c["state"])][int(c["symbol"])] = _q(c)
    s, o = int(rec.hint["state"]), int(rec.hint["symbol"])
    target = int(rec.meta["target_symbol"])
    findings = []
    absent = [k for k in range(m) if e[s][k] is None]
    if absent == [o]:
        findings.append(_view_determines(f"row {s} of the emission matrix lacks only e({s}, {o}); "
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
        got = 1 - sum(x for x in e[s] if x is not None) - _q(rec.hint)
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
        slot=f"E[s{s + 1}][o{o + 1}]", value=frac(_q(rec.hint)),
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


CONVERTERS: Dict[str, Callable[[Record, int], Conversion]] = {
    "bayes_missing_prior": _bayes,
    "crt_reconstruction": _crt,
    "geometry_coordinates": _geometry,
    "graph_path_sums": _graph,
    "linear_system_separator": _separator,
    "matrix_completion": _matrix_completion,
    "moment_problem": _moment,
    "phase_retrieval": _phase,
    "piecewise_missing_threshold": _piecewise,
    "rankdef_linear_shared": _rankdef,
    "recurrence_missing_init": _recurrence,
    "birth_death_missing_rate": _birth_death,
    "circuit_missing_resistance": _circuit,
    "deconvolution": _deconvolution,
    "discrete_tomography": _tomography,
    "eigenvector_missing_entry": _eigenvector,
    "laplace_grid": _laplace,
    "linear_system_missing_coeff": _linear_coeff,
    "markov_missing_transition": _markov,
    "poly_interpolation": _poly,
    "portfolio_variance_missing_corr": _portfolio,
    "steady_state_missing_emission": _steady_state,
}


# ------------------------------------------------------------------ answers

def their_answer(rec: Record, family: Family, components: Sequence[str]) -> Value:
    """Their ``global_solution`` as a value of our family's answer type."""
    sol = rec.solution
    if not isinstance(sol, dict) or not sol:
        raise FormatError(f"{rec.id}: global_solution is not a non-empty object")
    if family.answer_type == "tuple":
        if set(sol) != set(components):
            raise FormatError(f"{rec.id}: global_solution names {sorted(sol)}, our answer "
                              f"components are {list(components)}")
        return tuple(_scalar(sol[c], rec.id) for c in components)
    if set(sol) == {"numerator", "denominator"}:
        value: Value = Fraction(_scalar(sol["numerator"], rec.id), _scalar(sol["denominator"], rec.id))
        if value.denominator == 1:
            value = value.numerator
        return value
    if len(sol) == 1:
        return _scalar(next(iter(sol.values())), rec.id)
    raise FormatError(f"{rec.id}: cannot read global_solution {sol} as one {family.answer_type}")


def _scalar(v: Any, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise FormatError(f"{where}: answer value {v!r} is not an integer")
    return v


# ------------------------------------------------------------------ conversion

@dataclass
class Converted:
    record: Record
    conversion: Conversion
    instance: Instance
    hint: Hint


def _slot_for(family: Family, rec: Record, ours: str) -> str:
    """The canonical slot id: our family's where its ``complete`` reads the slot, else the id
    the rules responder reads from their hint line (so the scripted reference solver's request
    names it), else our family's slot name."""
    if ours:
        return ours
    from eval.slots import UNPARSED, line_slot

    read = line_slot(family.name, rec.hint_line)
    if not read.startswith(UNPARSED):
        return read
    rendered_slot = {"crt_reconstruction": "congruence 3", "graph_path_sums": "s3",
                     "linear_system_separator": "c", "matrix_completion": "m10",
                     "moment_problem": "q1 + 4q2", "piecewise_missing_threshold": "t"}
    return rendered_slot.get(family.name, "")


def convert_record(rec: Record, seed_set: str) -> Converted:
    """Our instance for one source record (answer = their global_solution)."""
    try:
        family = registry.get(rec.family)
    except KeyError as err:
        raise FormatError(f"{rec.id}: {err}") from None
    level = family.level(rec.difficulty)
    try:
        conv = CONVERTERS[family.name](rec, level)
    except FormatError:
        raise
    except (KeyError, TypeError, ValueError, IndexError) as err:
        raise FormatError(f"{rec.id}: cannot read the record: {type(err).__name__}: {err}") from None
    if rec.extra_hints:
        conv.findings.append(("setup", f"{len(rec.extra_hints)} further atomic hint(s) not "
                                       f"converted; the first one is the canonical hint"))
    slot = _slot_for(family, rec, conv.slot)
    hint = Hint(slot, rec.hint_line, conv.value)
    try:
        latent = family.complete(conv.known, hint)
        if conv.finish:
            latent = conv.finish(latent)
        latent = decode_latent(encode_latent(latent))
    except Exception as err:
        raise FormatError(f"{rec.id}: our {family.name} code cannot rebuild the state from the "
                          f"solver view and the hint: {type(err).__name__}: {err}") from None
    try:
        components = family.render(latent).components
    except Exception:
        components = list(rec.solution) if family.answer_type == "tuple" else []
    value = their_answer(rec, family, components)
    try:
        answer_text = canonical(family.answer_type, value)
    except (TypeError, ValueError) as err:
        raise FormatError(f"{rec.id}: global_solution {rec.solution} is not a "
                          f"{family.answer_type} answer: {err}") from None
    if conv.candidates_override:
        cands = conv.candidates
    else:
        try:
            found = family.candidates(conv.known)
            cands = len(found) if found is not None else None
        except Exception:
            cands = None
    inst = Instance(
        id=rec.id, family=family.name, type=family.type, difficulty=rec.difficulty,
        level=level, seed=0, seed_set=seed_set, generator_version=IMPORT_VERSION,
        view=View(conv.context, list(rec.a_text), conv.question, conv.domain),
        responder=list(rec.b_text), hints=[hint],
        answer=Answer(family.answer_type, answer_text, list(components)),
        candidate_answers=cands, latent=encode_latent(latent),
    )
    return Converted(rec, conv, inst, hint)


def read_source(path: Path) -> List[Record]:
    """Every record of a source file, checked for the format and for duplicate ids."""
    data = path.read_bytes()
    records: List[Record] = []
    seen: Dict[str, int] = {}
    for number, raw_line in enumerate(data.splitlines(), start=1):
        if not raw_line.strip():
            continue
        try:
            raw = json.loads(raw_line.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise FormatError(f"{path}:{number}: not valid JSON: {err}") from None
        try:
            rec = Record(raw, number)
        except (KeyError, TypeError, AttributeError) as err:
            raise FormatError(f"{path}:{number}: not a reference record: "
                              f"{type(err).__name__}: {err}") from None
        if rec.id in seen:
            raise FormatError(f"{path}:{number}: duplicate id {rec.id!r} (first on line "
                              f"{seen[rec.id]})")
        seen[rec.id] = number
        records.append(rec)
    return records


# ------------------------------------------------------------------ checking

def _rendered_twin(inst: Instance, family: Family) -> Instance:
    """The instance as our generator would write it from the same latent state: the
    validators' semantic checks (uniqueness, underdetermination, hint sufficiency, chance
    level) compare rendered text, so they run on this twin; only the consistency of the stored
    text with that rendering is checked on the stored record itself."""
    latent = inst.latent_state()
    r = family.render(latent)
    try:
        found = family.candidates(family.known(latent))
        cands = len(found) if found is not None else None
    except Exception:
        cands = None
    return replace(inst, view=View(r.context, r.facts, r.question, r.domain),
                   responder=list(r.responder), hints=list(r.hints),
                   answer=Answer(inst.answer.type, inst.answer.value, list(r.components)),
                   candidate_answers=cands)


def check_instance(conv: Converted) -> dict:
    """The cross-check and the validator findings of one converted instance."""
    inst = conv.instance
    family = registry.get(inst.family)
    from verifiers.exact import from_canonical

    theirs = inst.answer.value
    try:
        latent = family.complete(conv.conversion.known, conv.hint)
        if conv.conversion.finish:
            latent = conv.conversion.finish(latent)
        ours_value = family.solve(latent)
        ours = canonical(inst.answer.type, ours_value)
        status = "agree" if equal(ours_value, from_canonical(inst.answer.type, theirs)) \
            else "disagree"
        why = None
    except Exception as err:
        ours, status, why = None, "error", f"{type(err).__name__}: {err}"
    findings = [{"property": p, "source": "import", "detail": d}
                for p, d in conv.conversion.findings]
    for f in validate_instance(inst, family):
        if f.property in ("consistency", "schema"):
            findings.append({"property": f.property, "source": "validator (stored record)",
                             "detail": f.detail})
    try:
        twin = _rendered_twin(inst, family)
        try:
            problem = family.check(inst.latent_state())
        except Exception as err:
            problem = f"{type(err).__name__}: {err}"
        for f in validate_instance(twin, family):
            if f.property != "consistency":
                prop, detail = classify(inst.family, f.property, f.detail, problem,
                                        conv.conversion.expressible)
                findings.append({"property": prop, "source": "validator", "detail": detail})
    except Exception as err:
        findings.append({"property": "schema", "source": "validator",
                         "detail": f"our family cannot render the latent state: "
                                   f"{type(err).__name__}: {err}"})
    from eval.slots import line_slot, mentioned_slots

    slot = conv.hint.slot
    readable = (line_slot(inst.family, conv.hint.constraint) == slot
                and mentioned_slots(inst.family, f"What is the value of {slot}?") == {slot})
    out = {"id": inst.id, "family": inst.family, "difficulty": inst.difficulty,
           "answer": {"status": status, "theirs": theirs, "ours": ours},
           "hint": {"slot": slot, "line": conv.hint.constraint, "value": conv.hint.value,
                    "rules_responder_reads_it": readable},
           "findings": findings}
    if why:
        out["answer"]["detail"] = why
    return out


def classify(family: str, prop: str, detail: str, problem: Optional[str],
             expressible: bool = True) -> Tuple[str, str]:
    """File one finding of our validators (run on the rendered twin) under the property that
    says what it means for imported data (see :data:`EXPECTED`)."""
    if prop == "global_uniqueness":
        if not expressible:
            return "setup", f"our family cannot hold this state exactly; its check says: {detail}"
        if _RANGE.search(detail):
            return "range", detail
        if _DEGENERATE.search(detail):
            return "degenerate", detail
        return prop, detail
    if prop in ("local_underdetermination", "hint_sufficiency", "chance_level"):
        if not expressible:
            return "setup", f"our family cannot hold this state exactly; its validator says: {detail}"
        if family in VIEW_DIFFERS:
            return "setup", f"in our family's setup ({VIEW_DIFFERS[family]}): {detail}"
        if problem and _UNDECIDED.search(detail):
            return "unverified", f"{detail} (the state fails our check: {problem})"
    return prop, detail


def summarise(checks: Sequence[dict], failures: Sequence[dict] = ()) -> dict:
    """Per family: answer agreement, instances per finding property, responder readability."""
    families: Dict[str, dict] = {}
    for name in registry.names():
        rows = [c for c in checks if c["family"] == name]
        lost = [f for f in failures if f.get("family") == name]
        if not rows and not lost:
            continue
        status = Counter(c["answer"]["status"] for c in rows)
        props: Dict[str, int] = {}
        for p in sorted({f["property"] for c in rows for f in c["findings"]}):
            props[p] = sum(1 for c in rows if any(f["property"] == p for f in c["findings"]))
        families[name] = {
            "instances": len(rows), "not_converted": len(lost),
            "agree": status.get("agree", 0), "disagree": status.get("disagree", 0),
            "unchecked": status.get("error", 0),
            "rules_responder_reads_hint": sum(1 for c in rows if c["hint"]["rules_responder_reads_it"]),
            "instances_with_finding": props,
            "instances_with_real_finding": sum(
                1 for c in rows if any(f["property"] in REAL for f in c["findings"])),
        }
    total = {k: sum(f[k] for f in families.values())
             for k in ("instances", "not_converted", "agree", "disagree", "unchecked",
                       "rules_responder_reads_hint", "instances_with_real_finding")}
    return {"families": families, "total": total}


# ------------------------------------------------------------------ the release folder

@dataclass
class ImportResult:
    files: Dict[str, bytes]
    converted: List[Converted]
    failures: List[dict]           # records that could not be converted: id, family, line, error
    checks: List[dict]
    summary: Optional[dict]
    source: dict

    @property
    def disagreements(self) -> List[dict]:
        return [c for c in self.checks if c["answer"]["status"] == "disagree"]

    @property
    def unchecked(self) -> List[dict]:
        return [c for c in self.checks if c["answer"]["status"] == "error"]

    @property
    def real_findings(self) -> List[Tuple[str, dict]]:
        return [(c["id"], f) for c in self.checks for f in c["findings"] if f["property"] in REAL]


def _readme(info: dict, files: Dict[str, bytes], summary: Optional[dict]) -> str:
    import mira_math

    src = info["source"]
    counts = info["counts"]
    rows = "\n".join(f"| `{name}` | {registry.type_of(name)} | {counts[name]} |" for name in counts)
    published = f" (the published `{src['published_as']}`)" if src.get("published_as") else ""
    head = (
        f"# MIRA-Math — the reference release, imported\n\n"
        f"This folder holds {info['total']} instances converted from `{src['file']}`{published}, "
        f"sha256 `{src['sha256']}`, released by the paper's authors in {src['repository']} "
        f"under the {src['license']} licence ({src['copyright']}). The conversion "
        f"(`mira-math import-reference`, {info['generator_version']}) keeps their ids, "
        f"difficulties and constraint text verbatim; it is not regenerable from seeds, so "
        f"`mira-math verify` does not apply: check the bytes with `sha256sum -c "
        f"CHECKSUMS.sha256`.\n\n"
        f"| config / family | type | instances |\n|---|---|---|\n{rows}\n\n"
    )
    card = (
        "## Source and licence\n\n"
        f"The instances (ids, difficulties, constraint text, hints and answers) come from "
        f"{src['repository']} and are redistributed under its terms (the repository is MIT "
        f"licensed, its released data CC BY 4.0), with attribution:\n\n"
        f"> {src['copyright']}. The full licence text is at "
        f"{src['repository']}/blob/main/LICENSE.\n\n"
        "The context, question and domain sentences, the slot identifiers and the latent states "
        "in our families' formats were written by the importer.\n\n"
        "## What was converted\n\n"
        "Each line is one instance of the MIRA-Math schema (see the main dataset card): the "
        "solver's facts are the source's agent A lines, the responder's lines are its agent B "
        "lines, the canonical hint is the B line that states the source's atomic hint, and the "
        "answer is the source's `global_solution` as an exact value. The source's few-shot "
        "examples are not carried over (our four-shot regime uses its own examples).\n\n"
        "## Evaluating\n\n"
        "    mira-math eval --solver MODEL --data THIS_FOLDER --out RUN_DIR\n"
        "    mira-math score RUN_DIR\n\n"
        "The `rules` responder offers a line only when the request names the line's quantity "
        "as our notation reads it. It reads the source's hint line for 16 of the 22 families; "
        "for geometry_coordinates, rankdef_linear_shared, deconvolution and laplace_grid it "
        "cannot read the source's unlabelled lines, and for portfolio_variance_missing_corr and "
        "steady_state_missing_emission the source numbers assets, states and symbols from 0 "
        "where our slots count from 1, so it never offers there: evaluate those families with "
        "an LLM responder (`--responder llm:...`) or the `oracle-hint` condition.\n\n"
        "`docs/reference_import.md` in the MIRA-Math repository lists, per family, how the "
        "source maps to our families and where the two setups differ.\n"
    )
    if summary:
        t = summary["total"]
        card += (
            "\n## Cross-check\n\n"
            f"`{CHECK_REPORT}` holds the import check: our family code recomputed every answer "
            f"from the solver view plus the canonical hint ({t['agree']} agree, "
            f"{t['disagree']} disagree, {t['unchecked']} could not be recomputed), and our "
            f"validators' findings per instance and per family "
            f"({t['instances_with_real_finding']} instances with a finding about the source "
            f"data).\n"
        )
    return mira_math.render_readme(info, files, card=card, summary=head)


def import_reference(path: Path, check: bool = False,
                     progress: Optional[Callable[[], None]] = None) -> ImportResult:
    """Convert a source file in memory: every file of the output folder, plus the check."""
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    records = read_source(path)
    seed_set = f"reference:{path.stem}"
    converted: List[Converted] = []
    failures: List[dict] = []
    for rec in records:
        try:
            converted.append(convert_record(rec, seed_set))
        except FormatError as err:
            failures.append({"id": rec.id, "family": rec.family, "line": rec.line,
                             "error": str(err)})
        if progress:
            progress()
    order = {name: i for i, name in enumerate(registry.names())}
    ordered = sorted(converted, key=lambda c: order[c.instance.family])   # stable: source order
    files: Dict[str, List[str]] = defaultdict(list)
    for c in ordered:
        files[data_path(c.instance.family)].append(c.instance.to_json_line())
    out: Dict[str, bytes] = {p: "".join(lines).encode("utf-8") for p, lines in files.items()}
    families = [n for n in registry.names() if data_path(n) in out]
    counts = {n: out[data_path(n)].count(b"\n") for n in families}
    source = {"repository": SOURCE_REPOSITORY, "license": SOURCE_LICENSE,
              "copyright": SOURCE_COPYRIGHT, "file": path.name, "sha256": digest,
              "published_as": PUBLISHED.get(digest), "records": len(records)}
    checks = [check_instance(c) for c in ordered] if check else []
    summary = summarise(checks, failures) if check else None
    info = {
        "generator_version": IMPORT_VERSION,
        "seed_set": seed_set,
        "master_seed": 0,              # no seed: the fields keep read_release_info's shape
        "regenerable": False,
        "verify": "sha256sum -c CHECKSUMS.sha256 (an imported folder is not regenerable: "
                  "mira-math verify does not apply)",
        "pretty_name": "MIRA-Math (reference release, imported)",
        "license": "cc-by-4.0",
        "source": source,
        "per_type": {"A": 0, "B": 0},
        "families": families,
        "difficulties": sorted({c.instance.difficulty for c in converted}),
        "counts": counts,
        "total": sum(counts.values()),
        "not_converted": failures,
    }
    out[RELEASE_INFO] = (json.dumps(info, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    if check:
        report = {"source": source, "import_version": IMPORT_VERSION,
                  "properties": {"expected_for_imported_data": EXPECTED,
                                 "findings_about_the_source_data": list(REAL)},
                  **summary, "not_converted": failures, "instances": checks}
        out[CHECK_REPORT] = (json.dumps(report, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    out[README] = _readme(info, out, summary).encode("utf-8")
    out[CHECKSUMS] = manifest(out)
    return ImportResult(out, ordered, failures, checks, summary, source)


def prepare_folder(out: Path) -> None:
    """Refuse to mix an import into a folder holding something else; clear a previous import."""
    if not out.exists():
        return
    if not out.is_dir():
        raise FormatError(f"{out} exists and is not a folder")
    entries = [p for p in out.rglob("*") if p.is_file()]
    if not entries:
        return
    info = out / RELEASE_INFO
    try:
        previous = json.loads(info.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        previous = None
    if not isinstance(previous, dict) or previous.get("generator_version") != IMPORT_VERSION:
        raise FormatError(f"{out} is not empty and holds no earlier import; choose another --out")
    for p in entries:
        rel = p.relative_to(out).as_posix()
        if rel in (RELEASE_INFO, README, CHECKSUMS, CHECK_REPORT) or \
                (rel.startswith("data/") and rel.endswith(f"/{SPLIT}.jsonl")):
            p.unlink()


def render_text_summary(result: ImportResult) -> str:
    """The per-family table the command prints (instances per finding property)."""
    if not result.summary:
        return ""
    lines = [f"{'family':32} {'inst':>4} {'agree':>5} {'disag':>5} {'unchk':>5} {'reads':>5}  "
             f"findings about the source data | informational"]
    for name, f in result.summary["families"].items():
        props = f["instances_with_finding"]
        real = ", ".join(f"{p} {n}" for p, n in props.items() if p in REAL) or "-"
        info = ", ".join(f"{p} {n}" for p, n in props.items()
                         if p not in REAL and p != "consistency") or "-"
        lines.append(f"{name:32} {f['instances']:>4} {f['agree']:>5} {f['disagree']:>5} "
                     f"{f['unchecked']:>5} {f['rules_responder_reads_hint']:>5}  {real} | {info}")
    t = result.summary["total"]
    lines.append(f"{'total':32} {t['instances']:>4} {t['agree']:>5} {t['disagree']:>5} "
                 f"{t['unchecked']:>5} {t['rules_responder_reads_hint']:>5}  "
                 f"{t['instances_with_real_finding']} instance(s) with a finding about the source "
                 f"data")
    lines.append("(reads: instances whose hint line the rules responder reads as the hint's slot; "
                 "every instance also fails 'consistency', expected for imported text)")
    return "\n".join(lines) + "\n"


__all__ = ["CONVERTERS", "CHECK_REPORT", "FormatError", "ImportResult", "Record",
           "check_instance", "convert_record", "import_reference", "prepare_folder",
           "read_source", "render_text_summary", "summarise", "their_answer"]
