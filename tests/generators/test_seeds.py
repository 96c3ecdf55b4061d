from __future__ import annotations

import hashlib

from mira_math.generators.seeds import PUBLIC, SeedSet, instance_seed


def test_seed_is_the_documented_sha256():
    key = f"mira-math|{PUBLIC.name}|{PUBLIC.master_seed}|moment_problem|3|4|0"
    expected = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") >> 1
    assert instance_seed(PUBLIC, "moment_problem", 3, 4) == expected
    assert 0 <= expected < 2 ** 63


def test_seeds_differ_by_every_coordinate():
    base = instance_seed(PUBLIC, "bayes_missing_prior", 1, 0)
    others = {
        instance_seed(PUBLIC, "bayes_missing_prior", 1, 1),
        instance_seed(PUBLIC, "bayes_missing_prior", 2, 0),
        instance_seed(PUBLIC, "crt_reconstruction", 1, 0),
        instance_seed(PUBLIC, "bayes_missing_prior", 1, 0, attempt=1),
        instance_seed(SeedSet.named("heldout-1"), "bayes_missing_prior", 1, 0),
    }
    assert base not in others and len(others) == 5
    assert instance_seed(PUBLIC, "bayes_missing_prior", 1, 1) != base + 1


def test_named_seed_sets_are_stable_and_distinct():
    assert SeedSet.named("heldout-1") == SeedSet.named("heldout-1")
    assert SeedSet.named("heldout-1").master_seed != SeedSet.named("heldout-2").master_seed
