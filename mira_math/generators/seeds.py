"""Per-instance seeds from a stable hash; never ``hash()``, never the global ``random``."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass


@dataclass(frozen=True)
class SeedSet:
    """A named seed set: the public release is one, each held-out split another."""

    name: str
    master_seed: int

    @classmethod
    def named(cls, name: str) -> "SeedSet":
        """A held-out seed set whose master seed is derived from its name alone."""
        return cls(name, int.from_bytes(hashlib.sha256(f"mira-math/seed-set/{name}".encode()).digest()[:4], "big"))


PUBLIC = SeedSet("public-20-50", 20260101)


def instance_seed(seed_set: SeedSet, family: str, difficulty: int, index: int, attempt: int = 0) -> int:
    """63-bit seed of the ``index``-th instance of ``family`` at ``difficulty``.

    ``attempt`` > 0 is used only when an earlier seed produced a problem or view that the split
    (or an excluded split) already holds, or, for two-valued answers, missed the balanced
    answer of its slot; the seed actually used is stored in the instance.
    """
    key = f"mira-math|{seed_set.name}|{seed_set.master_seed}|{family}|{difficulty}|{index}|{attempt}"
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big") >> 1


def rng_for(seed: int) -> random.Random:
    """The generator's only source of randomness (integer seeding is stable across Pythons)."""
    return random.Random(seed)
