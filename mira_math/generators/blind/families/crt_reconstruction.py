"""Chinese remainder reconstruction with a congruence the question's modulus does not involve:
the question asks x mod M for M the product of some of the (stated, pairwise distinct prime)
moduli, and the residue of x modulo any other modulus m_j is irrelevant: x mod M is determined
by the residues modulo the primes dividing M alone (CRT), whatever r_j is.

The latent state is the moduli (stated in the view's structure line), the residues, and the
indices whose moduli make up M. Needed facts are congruences whose modulus divides M: by the
CRT, x mod M is a bijection of those residues, so any other residue gives another answer.
Every residue r_i has the finite stated domain 0 ≤ r_i < m_i, so each proof enumerates it.
"""

from __future__ import annotations

import random
from typing import List, Mapping, Optional

from mira_math.generators.blind.contract import BlindFamily, Domain, Finite, Latent, Reject, Setting
from mira_math.generators.families.crt_reconstruction import _crt

PRIMES = (3, 5, 7, 11, 13, 17, 19)
_WORDS = {3: "three", 4: "four", 5: "five"}


def _product(values: List[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def _slot(i: int) -> str:
    return f"congruence {i + 1}"


def _index(slot: str) -> int:
    return int(slot.split()[1]) - 1


class CrtBlind(BlindFamily):
    name = "crt_reconstruction"
    type = "A"
    answer_type = "int"

    def generate(self, rng: random.Random, level: int) -> Latent:
        n = level + 2
        moduli = rng.sample(PRIMES, n)
        size = 2 if level < 3 else rng.choice((2, 3))
        used = sorted(rng.sample(range(n), size))
        x = rng.randrange(_product(moduli))
        if _product([moduli[i] for i in used]) < 15:
            raise Reject("the question's modulus is too small for a spread of answers")
        return {"level": level, "moduli": moduli, "used": used,
                "residues": [x % m for m in moduli]}

    def setting(self, latent: Latent) -> Setting:
        moduli, used = latent["moduli"], latent["used"]
        n = len(moduli)
        names = ", ".join(_slot(i) for i in range(n - 1)) + f" and {_slot(n - 1)}"
        big = _product([moduli[i] for i in used])
        factors = "·".join(str(moduli[i]) for i in used)
        context = (f"An unknown integer x satisfies {_WORDS[n]} congruences, {names}, congruence i "
                   f"being x ≡ r_i (mod m_i) for i = 1, ..., {n}, where the moduli m_1, ..., m_{n} "
                   "are the distinct primes listed below.")
        moduli_line = "Moduli: " + ", ".join(f"m_{i + 1} = {m}" for i, m in enumerate(moduli))
        question = (f"What is the remainder of x on division by {big} = {factors}, an integer from "
                    f"0 to {big - 1}?")
        return Setting(context, question, "Each residue r_i is an integer with 0 ≤ r_i < m_i.",
                       structure=[moduli_line])

    def slots(self, latent: Latent) -> List[str]:
        return [_slot(i) for i in range(len(latent["moduli"]))]

    def value(self, latent: Latent, slot: str) -> str:
        return str(latent["residues"][_index(slot)])

    def line(self, latent: Latent, slot: str, value: str) -> str:
        return f"{slot}: x ≡ {value} (mod {latent['moduli'][_index(slot)]})"

    def answer(self, latent: Latent, values: Mapping[str, str]) -> Optional[int]:
        moduli = latent["moduli"]
        residues = []
        for i, m in enumerate(moduli):
            text = values[_slot(i)]
            if not text.lstrip("-").isdigit():
                return None
            r = int(text)
            if not 0 <= r < m:
                return None
            residues.append(r)
        used = latent["used"]
        return _crt([residues[i] for i in used], [moduli[i] for i in used])

    def needable(self, latent: Latent) -> List[str]:
        return [_slot(i) for i in latent["used"]]

    def irrelevant(self, latent: Latent) -> List[str]:
        return [_slot(i) for i in range(len(latent["moduli"])) if i not in latent["used"]]

    def domain(self, latent: Latent, slot: str) -> Domain:
        return Finite([str(r) for r in range(latent["moduli"][_index(slot)])])

    def alternatives(self, latent: Latent, slot: str) -> List[str]:
        r, m = latent["residues"][_index(slot)], latent["moduli"][_index(slot)]
        return [str((r + 1) % m)]


FAMILY = CrtBlind()
