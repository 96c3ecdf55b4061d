"""Chinese remainder reconstruction: two congruences known, the third (modulus too) held back.

The solver does not know the third modulus m_3, only that it is one of the pool's primes not
already used; x is the unique solution in [0, m_1·m_2·m_3). The answers the view leaves open
are x_0 + k·m_1·m_2 for 0 <= k < (largest unused prime), a finite set (the chance level).
"""

from __future__ import annotations

import random
import re
from typing import Any, Dict, List, Optional, Sequence, Set

from mira_math.generators.family import Family, Latent, Rendered
from mira_math.generators.schema import Hint

PRIMES = (3, 5, 7, 11, 13, 17, 19)
_HINT_RE = re.compile(r"^x ≡ (\d+) \(mod (\d+)\)$")


def _congruence(x: int, m: int) -> str:
    return f"x ≡ {x % m} (mod {m})"


def _crt(residues: List[int], moduli: List[int]) -> int:
    """The least non-negative x with x ≡ r_i (mod m_i), moduli pairwise coprime."""
    x, m = 0, 1
    for r, mi in zip(residues, moduli):
        # x + m*t ≡ r (mod mi)  ->  t ≡ (r - x) * m^-1 (mod mi)
        t = ((r - x) * pow(m, -1, mi)) % mi
        x, m = x + m * t, m * mi
    return x


def _unused(moduli: List[int]) -> List[int]:
    return [p for p in PRIMES if p not in moduli]


class CrtReconstruction(Family):
    name = "crt_reconstruction"
    type = "A"
    answer_type = "int"
    scales_with_difficulty = False

    def generate(self, rng: random.Random, level: int) -> Latent:
        moduli = rng.sample(PRIMES, 3)
        x = rng.randrange(moduli[0] * moduli[1] * moduli[2])
        return {"level": level, "moduli": moduli, "x": x}

    def check(self, latent: Latent) -> Optional[str]:
        moduli, x = latent["moduli"], latent["x"]
        if latent["level"] != 1:
            return "crt_reconstruction is always generated at level 1"
        if len(moduli) != 3 or len(set(moduli)) != 3 or any(m not in PRIMES for m in moduli):
            return f"moduli {moduli} are not three distinct primes from {PRIMES}"
        if not (isinstance(x, int) and 0 <= x < moduli[0] * moduli[1] * moduli[2]):
            return f"x = {x} is not in [0, m_1·m_2·m_3)"
        return None

    def render(self, latent: Latent) -> Rendered:
        m, x = latent["moduli"], latent["x"]
        third = f"congruence 3: {_congruence(x, m[2])}"
        pool = ", ".join(str(p) for p in PRIMES)
        return Rendered(
            context=f"An unknown integer x satisfies three congruences, congruence i being "
                    f"x ≡ r_i (mod m_i) for i = 1, 2, 3, where the moduli m_1, m_2, m_3 are three "
                    f"distinct primes from {{{pool}}}. Together they determine x uniquely in "
                    f"the range 0 ≤ x < m_1·m_2·m_3.",
            facts=[f"congruence 1: {_congruence(x, m[0])}", f"congruence 2: {_congruence(x, m[1])}"],
            question="What is x, the unique integer with 0 ≤ x < m_1·m_2·m_3 that satisfies all "
                     "three congruences?",
            domain=f"x is an integer with 0 ≤ x < m_1·m_2·m_3; the third modulus m_3 is one of the "
                   f"primes {{{pool}}} other than m_1 and m_2, and 0 ≤ r_3 < m_3.",
            responder=[third],
            hints=[Hint("congruence 3", third, _congruence(x, m[2]))],
        )

    def solve(self, latent: Latent) -> int:
        return latent["x"]

    def known(self, latent: Latent) -> Dict[str, Any]:
        m, x = latent["moduli"], latent["x"]
        return {"level": latent["level"], "moduli": m[:2], "residues": [x % m[0], x % m[1]]}

    def complete(self, known: Dict[str, Any], hint: Hint) -> Latent:
        match = _HINT_RE.match(hint.value)
        if not match:
            raise ValueError(f"cannot read congruence {hint.value!r}")
        r3, m3 = int(match.group(1)), int(match.group(2))
        moduli = list(known["moduli"]) + [m3]
        if m3 not in _unused(known["moduli"]) or not 0 <= r3 < m3:
            raise ValueError(f"{hint.value!r} is not a congruence modulo an unused pool prime")
        x = _crt(list(known["residues"]) + [r3], moduli)
        return {"level": known["level"], "moduli": moduli, "x": x}

    def candidates(self, known: Dict[str, Any]) -> Optional[Set[int]]:
        # For each admissible m_3 the solutions in [0, m_1·m_2·m_3) are x_0 + k·m_1·m_2,
        # k < m_3 (every residue r_3 is possible); the union is governed by the largest m_3.
        m1, m2 = known["moduli"]
        x0 = _crt(list(known["residues"]), [m1, m2])
        return {x0 + k * m1 * m2 for k in range(max(_unused([m1, m2])))}


FAMILY = CrtReconstruction()



def _product(values: List[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


class CrtTwoFacts(CrtReconstruction):
    """Four congruences, two withheld (the third and the fourth, moduli included); the solver has
    congruences 1 and 2. (With three congruences the view would be one congruence: 75 views in
    all, too few for the release and its held-out splits.) The view alone leaves
    x ≡ x_0 (mod m_1·m_2) below m_1·m_2 times the largest product of two unused pool primes;
    with one more congruence x ≡ x_1 (mod m_1·m_2·m_i) below that times the largest unused prime:
    finite sets, enumerated (the chance level)."""

    k = 2

    def generate(self, rng: random.Random, level: int) -> Latent:
        moduli = rng.sample(PRIMES, 4)
        return {"level": level, "moduli": moduli, "x": rng.randrange(_product(moduli))}

    def check(self, latent: Latent) -> Optional[str]:
        moduli, x = latent["moduli"], latent["x"]
        if latent["level"] != 1:
            return "crt_reconstruction is always generated at level 1"
        if len(moduli) != 4 or len(set(moduli)) != 4 or any(m not in PRIMES for m in moduli):
            return f"moduli {moduli} are not four distinct primes from {PRIMES}"
        if not (isinstance(x, int) and 0 <= x < _product(moduli)):
            return f"x = {x} is not in [0, m_1·m_2·m_3·m_4)"
        return None

    def render(self, latent: Latent) -> Rendered:
        m, x = latent["moduli"], latent["x"]
        lines = [f"congruence {i + 1}: {_congruence(x, m[i])}" for i in range(4)]
        pool = ", ".join(str(p) for p in PRIMES)
        return Rendered(
            context=f"An unknown integer x satisfies four congruences, congruence i being "
                    f"x ≡ r_i (mod m_i) for i = 1, 2, 3, 4, where the moduli m_1, ..., m_4 are four "
                    f"distinct primes from {{{pool}}}. Together they determine x uniquely in "
                    f"the range 0 ≤ x < m_1·m_2·m_3·m_4.",
            facts=lines[:2],
            question="What is x, the unique integer with 0 ≤ x < m_1·m_2·m_3·m_4 that satisfies "
                     "all four congruences?",
            domain=f"x is an integer with 0 ≤ x < m_1·m_2·m_3·m_4; m_3 and m_4 are distinct primes "
                   f"from {{{pool}}} other than m_1 and m_2, and 0 ≤ r_i < m_i.",
            responder=lines[2:],
            hints=[Hint(f"congruence {i + 1}", lines[i], _congruence(x, m[i])) for i in (2, 3)],
            hint_groups=[["congruence 3"], ["congruence 4"]],
        )

    def known(self, latent: Latent) -> Dict[str, Any]:
        m, x = latent["moduli"], latent["x"]
        return {"level": latent["level"], "moduli": m[:2], "residues": [x % m[0], x % m[1]]}

    @staticmethod
    def _read(hint: Hint) -> List[int]:
        match = _HINT_RE.match(hint.value)
        if not match or hint.slot not in ("congruence 3", "congruence 4"):
            raise ValueError(f"cannot read congruence {hint.value!r}")
        return [int(match.group(1)), int(match.group(2))]

    def complete_many(self, known: Dict[str, Any], hints: Sequence[Hint]) -> Latent:
        if sorted(h.slot for h in hints) != ["congruence 3", "congruence 4"]:
            raise ValueError("needs congruences 3 and 4")
        (r3, m3), (r4, m4) = (self._read(h) for h in sorted(hints, key=lambda h: h.slot))
        moduli = list(known["moduli"]) + [m3, m4]
        if len(set(moduli)) != 4 or any(p not in PRIMES for p in moduli) \
                or not (0 <= r3 < m3 and 0 <= r4 < m4):
            raise ValueError("the congruences are not modulo distinct unused pool primes")
        return {"level": known["level"], "moduli": moduli,
                "x": _crt(list(known["residues"]) + [r3, r4], moduli)}

    def candidates_given(self, known: Dict[str, Any], given: Sequence[Hint]) -> Optional[Set[int]]:
        moduli, residues = list(known["moduli"]), list(known["residues"])
        for hint in given:
            r, m = self._read(hint)
            if m not in _unused(moduli):
                raise ValueError(f"modulus {m} is not an unused pool prime")
            moduli, residues = moduli + [m], residues + [r]
        free = _unused(moduli)
        top = max(free) if given else max(p * q for p in free for q in free if p != q)
        x0, step = _crt(residues, moduli), _product(moduli)
        return {x0 + k * step for k in range(top)}

    def candidates(self, known: Dict[str, Any]) -> Optional[Set[int]]:
        return self.candidates_given(known, [])


FAMILY_K2 = CrtTwoFacts()
