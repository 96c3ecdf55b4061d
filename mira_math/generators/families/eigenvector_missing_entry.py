"""An integer matrix with a known eigenvector; one entry withheld; the answer is an entry of M².

The missing entry M[i*][j*] sits in a column j* with v[j*] = 0, so the eigen-equation
Mv = λv never involves it and cannot give it away. The target (M²)[i*][t*] is chosen so that
it really changes with the missing entry but also uses the solver's facts (it is not a·x²
alone), and is nonzero (zero products were the one value that clustered at n = 2).

Entries of M and λ are bounded by 7+d, i.e. |M_ij| <= 8, 9, 10 and λ in [1, 7+d] (the original specification said
3+2(d-1) = 3, 5, 7; see docs/decisions.md). At n = 2, v is (1, 0) or (0, 1), and only the
off-diagonal entry of v's zero column can usefully be missing; the view is then v, the
diagonal entry λ, a 0 and the other diagonal entry s with λ + s != 0, so bound B gives 4B²
distinct solver views: 36 at B = 3, too few for the release and its held-out splits, and 256
at B = 8. The higher levels' bounds rise with it so that the bound still grows with d.
"""

from __future__ import annotations

import random
import re
from math import gcd
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from mira_math.generators.family import Family, Latent, Reject, Rendered
from mira_math.generators.schema import Hint

_V_BOUND = 2          # decided here: eigenvector components lie in [-2, 2]
_ROW_TRIES = 40       # bounded retries per row when fitting Mv = λv
_SLOT_RE = re.compile(r"^M\[(\d+)\]\[(\d+)\]$")


def _bound(level: int) -> int:
    return 7 + level


def _size(level: int) -> int:
    return level + 1


def _square_entry(m: Sequence[Sequence[int]], i: int, t: int) -> int:
    return sum(m[i][k] * m[k][t] for k in range(len(m)))


def _with_entry(m: Sequence[Sequence[int]], i: int, j: int, x: int) -> List[List[int]]:
    out = [list(r) for r in m]
    out[i][j] = x
    return out


def _coefficients(m: Sequence[Sequence[int]], i: int, j: int, t: int) -> Tuple[int, int, int]:
    """(a, b, c) with (M²)[i][t] = a·x² + b·x + c for x = M[i][j] (degree <= 2 in x)."""
    f0, f1, f2 = (_square_entry(_with_entry(m, i, j, x), i, t) for x in (0, 1, 2))
    a = (f2 - 2 * f1 + f0) // 2
    return a, f1 - f0 - a, f0


def _target_problem(m: Sequence[Sequence[int]], i: int, j: int, t: int) -> Optional[str]:
    """Why (M²)[i][t] is not a usable target for the missing entry M[i][j], or None."""
    a, b, c = _coefficients(m, i, j, t)
    if a == 0 and b == 0:
        return "the target entry of M² does not depend on the missing entry"
    if b == 0 and c == 0:
        return "the target entry of M² is a function of the missing entry alone"
    if _square_entry(m, i, t) == 0:
        return "the target entry of M² is 0 (filtered: the most common, degenerate value)"
    return None


def _eigenvalue(m: Sequence[Sequence[int]], v: Sequence[int]) -> Optional[int]:
    """The integer λ with Mv = λv, or None."""
    mv = [sum(a * b for a, b in zip(row, v)) for row in m]
    k = next((i for i, c in enumerate(v) if c != 0), None)
    if k is None or mv[k] % v[k]:
        return None
    lam = mv[k] // v[k]
    return lam if all(mv[i] == lam * v[i] for i in range(len(v))) else None


def _slot(i: int, j: int) -> str:
    return f"M[{i}][{j}]"


class EigenvectorMissingEntry(Family):
    name = "eigenvector_missing_entry"
    type = "B"
    answer_type = "int"
    slot_fields = ("missing",)

    def generate(self, rng: random.Random, level: int) -> Latent:
        n, bound = _size(level), _bound(level)
        v = self._draw_vector(rng, n)
        lam = rng.randint(1, bound)
        nonzero = [k for k in range(n) if v[k] != 0]
        units = [k for k in nonzero if abs(v[k]) == 1]
        p = rng.choice(units or nonzero)       # the column that absorbs each row's equation
        m: List[List[int]] = []
        for i in range(n):
            for _ in range(_ROW_TRIES):
                row = [rng.randint(-bound, bound) for _ in range(n)]
                rest = lam * v[i] - sum(row[j] * v[j] for j in range(n) if j != p)
                if rest % v[p] == 0 and abs(rest // v[p]) <= bound:
                    row[p] = rest // v[p]
                    break
            else:
                raise Reject("no row with bounded entries fits Mv = λv")
            m.append(row)
        j = rng.choice([k for k in range(n) if v[k] == 0])
        i = rng.randrange(n)
        targets = [t for t in range(n) if _target_problem(m, i, j, t) is None]
        if not targets:
            raise Reject("no entry of row i* of M² is a usable target")
        t = rng.choice(targets)
        return {"level": level, "M": m, "v": v, "missing": [i, j], "target": [i, t]}

    @staticmethod
    def _draw_vector(rng: random.Random, n: int) -> List[int]:
        """A primitive integer vector with at least one zero, first nonzero component positive."""
        zeros = set(rng.sample(range(n), rng.randint(1, n - 1)))
        v = [0 if k in zeros else rng.choice((-2, -1, 1, 2)) for k in range(n)]
        g = 0
        for c in v:
            g = gcd(g, c)
        v = [c // g for c in v]
        first = next(c for c in v if c != 0)
        return [-c for c in v] if first < 0 else v

    def check(self, latent: Latent) -> Optional[str]:
        level = latent["level"]
        n, bound = _size(level), _bound(level)
        m, v = latent["M"], latent["v"]
        if len(m) != n or any(len(r) != n for r in m) or len(v) != n:
            return f"M must be {n}×{n} and v of length {n} at level {level}"
        if any(not isinstance(x, int) or abs(x) > bound for r in m for x in r):
            return f"an entry of M is not an integer in [-{bound}, {bound}]"
        if any(not isinstance(c, int) or abs(c) > _V_BOUND for c in v) or not any(v):
            return f"v is not a nonzero integer vector with components in [-{_V_BOUND}, {_V_BOUND}]"
        lam = _eigenvalue(m, v)
        if lam is None or not 1 <= lam <= bound:
            return f"v is not an eigenvector of M with an integer eigenvalue in [1, {bound}]"
        i, j = latent["missing"]
        ti, t = latent["target"]
        if not (0 <= i < n and 0 <= j < n and 0 <= t < n) or ti != i:
            return "missing or target entry out of range, or not in the same row"
        if v[j] != 0:
            return "the missing entry's column has v[j*] != 0: Mv = λv would give it away"
        return _target_problem(m, i, j, t)

    def render(self, latent: Latent) -> Rendered:
        m, v = latent["M"], latent["v"]
        n = len(m)
        bound = _bound(latent["level"])
        i, j = latent["missing"]
        t = latent["target"][1]
        line = f"{_slot(i, j)} = {m[i][j]}"
        return Rendered(
            context=f"M is a {n}×{n} matrix with integer entries; rows and columns are numbered "
                    f"0 to {n - 1}, and M[r][c] is the entry in row r, column c. "
                    f"v = (v[0], ..., v[{n - 1}]) is an eigenvector of M: Mv = λv for some number "
                    f"λ. M² is the matrix product M·M, and (M²)[r][c] is its entry in row r, "
                    f"column c.",
            facts=[f"{_slot(r, c)} = {m[r][c]}" for r in range(n) for c in range(n)
                   if (r, c) != (i, j)]
                  + ["v = (" + ", ".join(str(c) for c in v) + ")"],
            question=f"What is (M²)[{i}][{t}]? Give its exact integer value.",
            domain=f"Every entry of M is an integer between -{bound} and {bound}.",
            responder=[line],
            hints=[Hint(_slot(i, j), line, str(m[i][j]))],
        )

    def solve(self, latent: Latent) -> int:
        i, t = latent["target"]
        return _square_entry(latent["M"], i, t)

    def known(self, latent: Latent) -> Dict[str, Any]:
        i, j = latent["missing"]
        shown: List[List[Any]] = [list(r) for r in latent["M"]]
        shown[i][j] = None
        return {"level": latent["level"], "M": shown, "v": list(latent["v"]),
                "missing": [i, j], "target": list(latent["target"])}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        found = _SLOT_RE.match(hint.slot)
        if not found or [int(found.group(1)), int(found.group(2))] != list(known["missing"]):
            raise ValueError(f"{hint.slot} is not the entry missing from the view")
        i, j = known["missing"]
        return {"level": known["level"], "M": _with_entry(known["M"], i, j, int(hint.value)),
                "v": list(known["v"]), "missing": [i, j], "target": list(known["target"])}

    def candidates(self, known: Dict[str, Any]) -> Optional[Set[int]]:
        """(M²)[i*][t*] for every value of the missing entry in the stated integer range (any
        value keeps Mv = λv when v[j*] = 0; values that break it are left out): the blind-guess
        floor of the family."""
        bound = _bound(known["level"])
        i, j = known["missing"]
        t = known["target"][1]
        v = known["v"]
        out = set()
        for y in range(-bound, bound + 1):
            m = _with_entry(known["M"], i, j, y)
            mv = [sum(a * b for a, b in zip(row, v)) for row in m]
            k = next(r for r, c in enumerate(v) if c != 0)
            if all(mv[r] * v[k] == mv[k] * v[r] for r in range(len(v))):  # Mv parallel to v
                out.add(_square_entry(m, i, t))
        return out

    def witness(self, latent: Latent) -> Optional[Latent]:
        # v[j*] = 0, so any other entry value keeps Mv = λv; the answer is a nonconstant
        # polynomial of degree <= 2 in it, so at most one other value repeats the answer and
        # at most two make it 0: a nearby value is a valid state with another answer.
        bound = _bound(latent["level"])
        i, j = latent["missing"]
        x, answer = latent["M"][i][j], self.solve(latent)
        for y in sorted(range(-bound, bound + 1), key=lambda y: (abs(y - x), y)):
            alt = {**latent, "M": _with_entry(latent["M"], i, j, y)}
            if y != x and self.solve(alt) != answer and self.check(alt) is None:
                return alt
        return None


FAMILY = EigenvectorMissingEntry()
