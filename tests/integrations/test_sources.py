"""The RL sources: the train stream shares no ``check-disjoint`` key with the release, with any
held-out split it is given, or with the held-out stream (by the key partition, however long both
run); both streams are generic over the release's parts."""

from __future__ import annotations

import itertools

import pytest

from mira_math.generators import registry
from mira_math.generators.build import instance_keys
from mira_math.integrations import sources


def _take(it, n):
    return list(itertools.islice(it, n))


@pytest.fixture(scope="module")
def train():
    return _take(sources.train_stream(), 66)


def test_train_stream_is_disjoint_from_the_release_and_the_held_out_stream(train):
    held = _take(sources.stream(), 66)
    train_keys = [k for inst in train for k in instance_keys(inst)]
    held_keys = [k for inst in held for k in instance_keys(inst)]
    assert len(set(train_keys)) == len(train_keys)             # no repeats within the stream
    assert not set(train_keys) & sources.release_keys()
    assert not set(train_keys) & set(held_keys)
    assert all(map(sources.in_train_half, train_keys))
    assert not any(map(sources.in_train_half, held_keys))
    assert {i.seed_set for i in train} == {sources.TRAIN_SEED_SET}
    assert {i.family for i in train} == set(registry.names())     # 22 families, three difficulties
    assert {i.difficulty for i in train} == {1, 2, 3}


def test_the_partition_is_a_fixed_hash_half():
    keys = [f"family|problem|{n}" for n in range(2000)]
    share = sum(map(sources.in_train_half, keys)) / len(keys)
    assert 0.45 < share < 0.55
    assert [sources.in_train_half(k) for k in keys[:50]] == [sources.in_train_half(k) for k in keys[:50]]


def test_a_held_out_split_is_avoided(tmp_path, train):
    split = tmp_path / "heldout.jsonl"
    split.write_text("".join(inst.to_json_line() for inst in train[:5]), encoding="utf-8")
    keys = sources.excluded_keys([split])
    assert keys > sources.release_keys()
    again = _take(sources.train_stream(exclude=keys), 5)
    assert not {k for i in again for k in instance_keys(i)} & keys
    assert [i.seed for i in again] != [i.seed for i in train[:5]]


def test_sources_are_generic_over_parts():
    assert sources.part(1).names() == registry.names()
    with pytest.raises(ValueError, match="no part with k = 9"):
        sources.part(9)
    k1 = sources.Part(1, registry.names, registry.get)
    k2 = sources.Part(2, registry.names, registry.get)
    assert k1.ident("bayes_missing_prior", "rl-train-1", 7) == "bay-rl-train-1-00000007"
    assert k2.ident("bayes_missing_prior", "rl-train-1", 7) == "bay-rl-train-1-k2-00000007"
    assert k1.seed_key("bayes_missing_prior") != k2.seed_key("bayes_missing_prior")
    with pytest.raises(ValueError, match="unknown source"):
        sources.instances("test")
    first = next(sources.instances("train", family="crt_reconstruction"))
    assert first.family == "crt_reconstruction" and first.seed_set == sources.TRAIN_SEED_SET
