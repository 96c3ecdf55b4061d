"""Where RL episodes come from, kept apart so training cannot leak into a test
(docs/decisions/integrations.md): the committed release, the endless held-out stream (evaluation), and the endless
``train`` stream.

Both streams draw instances procedurally, each from its own named seed set, and both skip
(reseed) any instance whose ``check-disjoint`` keys (complete problem, solver view) the public
release, a given held-out split, or the stream itself already holds. On top of that a fixed
hash partition of the keys splits every possible instance three ways: the train stream takes
only instances whose *both* keys fall in the train half, the held-out stream only those with
*neither* key there. A train instance and a held-out instance therefore never share a key, however
long either stream runs, and without either stream knowing the other's seeds.

The streams are generic over the release's *parts*: ``k`` withheld facts per instance
(:data:`PARTS`, one entry per part; k = 1 is the v1.1 families)."""

from __future__ import annotations

import functools
import hashlib
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Union

from mira_math.generators import registry
from mira_math.generators.build import instance_keys, make_instance
from mira_math.generators.family import Family
from mira_math.generators.schema import Instance
from mira_math.generators.seeds import SeedSet, instance_seed
from mira_math.integrations.common import release_instances

STREAM_SEED_SET = "rl-stream-1"   # the held-out stream (evaluation)
TRAIN_SEED_SET = "rl-train-1"     # the train stream
MAX_RESEEDS = 200
PARTITION_SALT = "mira-math/rl-train-partition/v1"


@dataclass(frozen=True)
class Part:
    """One part of the release: instances with ``k`` withheld facts, from these families."""

    k: int
    names: Callable[[], List[str]]
    family: Callable[[str], Family]

    def seed_key(self, name: str) -> str:
        """The family's name in seed derivation: bare for k = 1 (the v1.1 convention), else
        suffixed so a k-fact family never reuses its one-fact sibling's seeds."""
        return name if self.k == 1 else f"{name}/k{self.k}"

    def ident(self, name: str, seed_set: str, n: int) -> str:
        tag = "" if self.k == 1 else f"k{self.k}-"
        return f"{registry.prefix(name)}-{seed_set}-{tag}{n:08d}"


PARTS: Dict[int, Part] = {1: Part(1, registry.names, registry.get),
                          2: Part(2, registry.multi_hint_names, lambda name: registry.get(name, 2))}
"""The parts the streams can draw from, by k (a later part registers itself here)."""


def part(k: int) -> Part:
    try:
        return PARTS[k]
    except KeyError:
        raise ValueError(f"no part with k = {k}; known: {', '.join(map(str, sorted(PARTS)))}") from None


def in_train_half(key: str) -> bool:
    """The fixed partition: a key's salted SHA-256 decides its half, never ``hash()``."""
    return hashlib.sha256(f"{PARTITION_SALT}|{key}".encode("utf-8")).digest()[0] < 128


def release_keys() -> FrozenSet[str]:
    """The committed release's ``check-disjoint`` keys (complete problems and solver views)."""
    return _keys_of(None)


@functools.lru_cache(maxsize=8)
def _keys_of(data: Optional[str]) -> FrozenSet[str]:
    keys = {key for inst in release_instances(data=data) for key in instance_keys(inst)}
    if data is None:      # the committed release's two-fact part too
        from mira_math.eval.selection import data_files, load_data
        from mira_math.generators.layout import DEFAULT_RELEASE

        two_fact = load_data(data_files("multi_hint", None, DEFAULT_RELEASE)).instances
        keys |= {key for inst in two_fact for key in instance_keys(inst)}
    return frozenset(keys)


def excluded_keys(held_out: Iterable[Union[str, Path]] = ()) -> FrozenSet[str]:
    """The keys a stream must avoid: the public release's and those of every held-out split
    given (a release folder or JSONL file each, read with ``mira-math eval``'s checks)."""
    keys = set(release_keys())
    for data in held_out:
        keys |= _keys_of(str(data))
    return frozenset(keys)


def _draw(seed_set: str, families: Optional[Sequence[str]], exclude: Optional[Iterable[str]],
          parts: Sequence[int], keep: Callable[[tuple], bool]) -> Iterator[Instance]:
    seeds = SeedSet.named(seed_set)
    chosen = [part(k) for k in parts]
    names = [(p, n) for p in chosen for n in p.names() if families is None or n in families]
    if not names:
        raise ValueError(f"no family of part(s) {list(parts)} matches {list(families or [])}")
    seen = set(excluded_keys() if exclude is None else exclude)
    for n in itertools.count():
        p, name = names[n % len(names)]
        family = p.family(name)
        difficulty, index = 1 + (n // len(names)) % 3, n // (3 * len(names))
        for attempt in range(MAX_RESEEDS):
            inst = make_instance(family, difficulty,
                                 instance_seed(seeds, p.seed_key(name), difficulty, index, attempt),
                                 id=p.ident(name, seed_set, n), seed_set=seed_set)
            keys = instance_keys(inst)
            if keep(keys) and not seen.intersection(keys):
                seen.update(keys)
                yield inst
                break
        else:
            raise RuntimeError(f"stream {seed_set}: {MAX_RESEEDS} reseeds of item {n} all collided")


def stream(seed_set: str = STREAM_SEED_SET, families: Optional[Sequence[str]] = None,
           exclude: Optional[Iterable[str]] = None, parts: Sequence[int] = (1,)) -> Iterator[Instance]:
    """The held-out stream, forever: families in turn, difficulties 1-3, only instances with no
    key in the train half, reseeded past any key of ``exclude`` (default: the release's) or of
    the stream itself."""
    return _draw(seed_set, families, exclude, parts, lambda keys: not any(map(in_train_half, keys)))


def train_stream(seed_set: str = TRAIN_SEED_SET, families: Optional[Sequence[str]] = None,
                 exclude: Optional[Iterable[str]] = None, parts: Sequence[int] = (1,)) -> Iterator[Instance]:
    """The train stream, forever: as :func:`stream`, but only instances with both keys in the
    train half, so it never meets the held-out stream; ``exclude`` defaults to the release's keys
    (pass :func:`excluded_keys` of the held-out splits in use to avoid them too)."""
    return _draw(seed_set, families, exclude, parts, lambda keys: all(map(in_train_half, keys)))


SOURCES = ("release", "stream", "train")


def instances(source: str = "release", *, family: Optional[str] = None, type: Optional[str] = None,
              data: Optional[str] = None, seed_set: Optional[str] = None, parts: Sequence[int] = (1,),
              held_out: Sequence[str] = ()) -> Iterator[Instance]:
    """The instances of one source: ``release`` (the committed rows, or ``data``), ``stream``
    (held out, endless) or ``train`` (endless, disjoint from both)."""
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}: use {', '.join(SOURCES)}")
    if source == "release":
        return iter(release_instances(family=family, type=type, data=data))
    names = [family] if family else (
        [n for k in parts for n in part(k).names() if registry.type_of(n) == type.upper()] if type else None)
    exclude = excluded_keys(held_out)
    if source == "stream":
        return stream(seed_set or STREAM_SEED_SET, names, exclude, parts)
    return train_stream(seed_set or TRAIN_SEED_SET, names, exclude, parts)
