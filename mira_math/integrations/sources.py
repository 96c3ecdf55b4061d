"""Where RL episodes come from, kept apart so training cannot leak into a test
(docs/decisions/integrations.md): the committed release, the held-out stream (evaluation), and the ``train`` stream.
A stream is long but finite: a (family, difficulty) block that has no new problem left is
skipped, and the stream ends when every block is spent, with one line naming its capacity
(:func:`capacity`, ``mira-math stream-capacity``; docs/decisions/data-stream-capacity.md).

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
import sys
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
    """The committed release's ``check-disjoint`` keys (complete problems and solver views),
    every part."""
    return _keys_of(None)


@functools.lru_cache(maxsize=8)
def _keys_of(data: Optional[str]) -> FrozenSet[str]:
    """Both keys of every instance of a release folder (every part: ``test.jsonl``,
    ``multi_hint.jsonl`` and ``blind.jsonl`` of every family) or of one JSONL file, read with
    ``eval``'s checks."""
    from mira_math.eval.selection import load_data
    from mira_math.generators.layout import DEFAULT_RELEASE
    from mira_math.generators.release import blind_files, family_files, multi_hint_files

    folder = DEFAULT_RELEASE if data is None else Path(data)
    if folder.is_dir():
        parts = [files for files in (family_files(folder), multi_hint_files(folder), blind_files(folder))
                 if files]
        if not parts:
            raise ValueError(f"{folder}: no data/<family>/test.jsonl or multi_hint.jsonl files")
    elif folder.is_file():
        parts = [[folder]]
    else:
        raise ValueError(f"{folder}: no such file or folder")
    return frozenset(key for files in parts for inst in load_data(files).instances
                     for key in instance_keys(inst))


def excluded_keys(held_out: Iterable[Union[str, Path]] = ()) -> FrozenSet[str]:
    """The keys a stream must avoid: the public release's and those of every held-out split
    given (a release folder, both parts, or a JSONL file each, read with ``mira-math eval``'s
    checks)."""
    keys = set(release_keys())
    for data in held_out:
        keys |= _keys_of(str(data))
    return frozenset(keys)


def exclusion_note(name: str, held_out: Sequence[Union[str, Path]] = ()) -> str:
    """The line a stream prints when it starts: how many keys it avoids, and whose."""
    own = len(release_keys())
    extra = len(excluded_keys(held_out)) - own
    splits = f" and {extra} more of {len(held_out)} held-out split(s) given" if held_out else ""
    return (f"stream {name}: avoiding {own} keys of the committed release (both parts){splits}; "
            f"{own + extra} complete-problem and view keys in all")


def _draw(seed_set: str, families: Optional[Sequence[str]], exclude: Optional[Iterable[str]],
          parts: Sequence[int], keep: Callable[[tuple], bool],
          note: Optional[Callable[[str], None]] = None,
          spent_log: Optional[List[tuple]] = None) -> Iterator[Instance]:
    """Families in turn, difficulties 1-3, index after index (position ``n`` names the item).
    A (family, difficulty) block whose next index finds no new problem in ``MAX_RESEEDS``
    reseeds is *spent*: its later positions are skipped (the others keep their ids and bytes)
    and ``note`` gets one line; when every block is spent the stream ends with one line naming
    its capacity (docs/decisions/data-stream-capacity.md)."""
    say = note or _stderr
    seeds = SeedSet.named(seed_set)
    chosen = [part(k) for k in parts]
    names = [(p, n) for p in chosen for n in p.names() if families is None or n in families]
    if not names:
        raise ValueError(f"no family of part(s) {list(parts)} matches {list(families or [])}")
    seen = set(excluded_keys() if exclude is None else exclude)
    spent: Dict[tuple, int] = {}          # (k, family, difficulty) -> instances it gave
    given: Dict[tuple, int] = {}
    total = 0
    for n in itertools.count():
        p, name = names[n % len(names)]
        difficulty, index = 1 + (n // len(names)) % 3, n // (3 * len(names))
        block = (p.k, name, difficulty)
        if block in spent:
            if len(spent) == 3 * len(names):
                say(f"stream {seed_set}: every (family, difficulty) block is spent; its capacity "
                    f"is {total} instances (`mira-math stream-capacity` lists every stream's)")
                return
            continue
        family = p.family(name)
        for attempt in range(MAX_RESEEDS):
            inst = make_instance(family, difficulty,
                                 instance_seed(seeds, p.seed_key(name), difficulty, index, attempt),
                                 id=p.ident(name, seed_set, n), seed_set=seed_set)
            keys = instance_keys(inst)
            if keep(keys) and not seen.intersection(keys):
                seen.update(keys)
                given[block] = given.get(block, 0) + 1
                total += 1
                yield inst
                break
        else:
            spent[block] = given.get(block, 0)
            label = name if p.k == 1 else f"{name} (k = {p.k})"
            if spent_log is not None:
                spent_log.append((f"{label} d={difficulty}", spent[block], total))
            say(f"stream {seed_set}: {label} d={difficulty} has no more distinct problems after "
                f"{spent[block]} instances; moving on to the blocks that still have some")


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _quiet(line: str) -> None:
    pass


def stream(seed_set: str = STREAM_SEED_SET, families: Optional[Sequence[str]] = None,
           exclude: Optional[Iterable[str]] = None, parts: Sequence[int] = (1,),
           note: Optional[Callable[[str], None]] = None) -> Iterator[Instance]:
    """The held-out stream: families in turn, difficulties 1-3, only instances with no key in
    the train half, reseeded past any key of ``exclude`` (default: the release's) or of the
    stream itself; it ends when every block is spent (:func:`capacity`)."""
    return _draw(seed_set, families, exclude, parts, lambda keys: not any(map(in_train_half, keys)),
                 note)


def train_stream(seed_set: str = TRAIN_SEED_SET, families: Optional[Sequence[str]] = None,
                 exclude: Optional[Iterable[str]] = None, parts: Sequence[int] = (1,),
                 note: Optional[Callable[[str], None]] = None) -> Iterator[Instance]:
    """The train stream: as :func:`stream`, but only instances with both keys in the train
    half, so it never meets the held-out stream; ``exclude`` defaults to the release's keys
    (pass :func:`excluded_keys` of the held-out splits in use to avoid them too)."""
    return _draw(seed_set, families, exclude, parts, lambda keys: all(map(in_train_half, keys)), note)


@dataclass(frozen=True)
class StreamCapacity:
    """What draining a stream for ``horizon`` instances found: ``full_mix`` instances come with
    every (family, difficulty) block in turn (the stream's length before its first block is
    spent), ``spent`` the blocks that ran out (label -> instances each gave), ``open_blocks``
    how many still had problems at the horizon, ``drained`` the instances drawn, ``ended``
    whether every block was spent before the horizon (the stream's end)."""

    name: str
    parts: tuple
    horizon: int
    full_mix: int
    spent: Dict[str, int]
    open_blocks: int
    drained: int
    ended: bool

    def line(self) -> str:
        parts = "+".join(map(str, self.parts))
        head = f"stream {self.name} (part k={parts}): "
        if self.ended:
            return head + (f"capacity {self.drained} instances (every block spent); every block "
                           f"in turn for the first {self.full_mix}")
        spent = "; ".join(f"{label} after {n}" for label, n in self.spent.items()) or "none"
        return head + (f"every block in turn for the first {self.full_mix} instances"
                       if self.spent else f"every block in turn for at least {self.drained} instances") \
            + f"; spent within {self.drained}: {spent}; {self.open_blocks} blocks not spent " \
            f"within {self.drained} (the stream goes on with them)"


def capacity(source: str = "stream", seed_set: Optional[str] = None,
             families: Optional[Sequence[str]] = None, parts: Sequence[int] = (1,),
             held_out: Sequence[str] = (), horizon: int = 5000) -> StreamCapacity:
    """Drain a stream for at most ``horizon`` instances and say what it gives (deterministic:
    the same seeds give the same counts); ``mira-math stream-capacity`` prints it."""
    if source not in ("stream", "train"):
        raise ValueError(f"capacity of a stream: use stream or train, not {source!r}")
    draw = stream if source == "stream" else train_stream
    name = seed_set or (STREAM_SEED_SET if source == "stream" else TRAIN_SEED_SET)
    log: List[tuple] = []
    blocks = 3 * sum(1 for k in parts for n in part(k).names() if families is None or n in families)
    drained = 0
    gen = _draw(name, families, excluded_keys(held_out), parts,
                (lambda keys: all(map(in_train_half, keys))) if draw is train_stream
                else (lambda keys: not any(map(in_train_half, keys))), _quiet, log)
    for _ in itertools.islice(gen, horizon):
        drained += 1
    ended = len(log) == blocks
    return StreamCapacity(name, tuple(parts), horizon, log[0][2] if log else drained,
                          {label: n for label, n, _ in log}, blocks - len(log), drained, ended)


SOURCES = ("release", "stream", "train")


def instances(source: str = "release", *, family: Optional[str] = None, type: Optional[str] = None,
              data: Optional[str] = None, seed_set: Optional[str] = None, parts: Sequence[int] = (1,),
              held_out: Sequence[str] = (), config: Optional[str] = None) -> Iterator[Instance]:
    """The instances of one source: ``release`` (the committed rows, or ``data``, or a dataset
    ``config`` such as ``blind``), ``stream`` (held out, endless) or ``train`` (endless, disjoint
    from both). The streams draw from the one- and two-fact parts only: the blind tier is an
    evaluation tier (docs/decisions/data-blind-tier.md)."""
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}: use {', '.join(SOURCES)}")
    if source == "release":
        return iter(release_instances(family=family, type=type, data=data, config=config))
    if config is not None:
        raise ValueError(f"config {config!r} selects release rows: use source='release'")
    names = [family] if family else (
        [n for k in parts for n in part(k).names() if registry.type_of(n) == type.upper()] if type else None)
    exclude = excluded_keys(held_out)
    name = seed_set or (STREAM_SEED_SET if source == "stream" else TRAIN_SEED_SET)
    _stderr(exclusion_note(name, held_out))
    if source == "stream":
        return stream(name, names, exclude, parts)
    return train_stream(name, names, exclude, parts)
