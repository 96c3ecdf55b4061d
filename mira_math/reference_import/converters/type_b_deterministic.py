"""The converters of the Type B families with a deterministic model: resistor networks,
convolution, tomography, eigenvectors, Laplace grids, linear systems, interpolation."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Sequence

from mira_math.reference_import.converters.common import (Conversion, converter, determined,
                                                           view_determines)
from mira_math.reference_import.record import FormatError, Record

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

        def part(name: str, s: str = s) -> Any:
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


@converter("circuit_missing_resistance")
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


@converter("deconvolution")
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
        findings.append(view_determines("the source equations fix every x_i"))
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


@converter("discrete_tomography")
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


@converter("eigenvector_missing_entry")
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


@converter("laplace_grid")
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
        findings.append(view_determines(f"u_{ti}_{tj} follows from the stencils and the given "
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


@converter("linear_system_missing_coeff")
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


@converter("poly_interpolation")
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

