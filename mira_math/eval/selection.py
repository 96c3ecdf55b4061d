"""Which instances a run reads: the data files of a config or of ``--data``, every line checked
before any model call (checksums, JSON, schema, duplicate ids, the validators), then filtered,
sampled, sharded and limited into a :class:`Selection` whose instances are read back lazily."""

from __future__ import annotations

import bisect
import hashlib
import json
import os
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Set

from mira_math.eval.errors import RunError
from mira_math.eval.validated import file_sha256, is_validated, mark_validated
from mira_math.generators.layout import RESOURCE_ROOT
from mira_math.generators.schema import DataError, Instance, instance_from_checked_dict, instance_from_dict, loads_line


class InstanceStream(Sequence[Instance]):
    """The selected instances, read lazily from the data files: only each one's file, byte
    offset and 8-byte id digest is held (about 20 bytes), so a run's memory does not grow with
    the dataset. Reading checks the line's bytes against the 8-byte digest taken when
    :func:`load_data` checked them, so a file edited after the check is refused, not run, and
    the checked line is built again without repeating its checks (one strict parse per instance)."""

    def __init__(self, paths: Sequence[Path], where: "array[int]", offsets: "array[int]",
                 keys: "array[int]", lines: Optional["array[int]"] = None):
        self.paths = [Path(p) for p in paths]
        self.where, self.offsets, self.keys, self.lines = where, offsets, keys, lines
        self._sorted: Optional["array[int]"] = None

    def __len__(self) -> int:
        return len(self.offsets)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return InstanceStream(self.paths, self.where[index], self.offsets[index], self.keys[index],
                                  None if self.lines is None else self.lines[index])
        n = range(len(self))[index]
        with self.paths[self.where[n]].open("rb") as fh:
            return self._read(fh, n)

    def __iter__(self) -> Iterator[Instance]:
        handles: Dict[int, Any] = {}
        try:
            for n in range(len(self)):
                w = self.where[n]
                if w not in handles:
                    handles[w] = self.paths[w].open("rb")
                yield self._read(handles[w], n)
        finally:
            for fh in handles.values():
                fh.close()

    def _read(self, fh: Any, n: int) -> Instance:
        fh.seek(self.offsets[n])
        path = str(self.paths[self.where[n]])
        raw = fh.readline().rstrip(b"\r\n")
        inst: Optional[Instance] = None
        if self.lines is not None:
            if _line_key(raw) == self.lines[n]:
                inst = instance_from_checked_dict(json.loads(raw))
        else:
            try:
                inst = instance_from_dict(loads_line(raw, path, 0), path, 0)
            except DataError:
                inst = None
        if inst is None or _id_key(inst.id) != self.keys[n]:
            raise RunError(f"{path}: changed since it was checked (at byte {self.offsets[n]}); "
                           "a data file must not change while a run reads it")
        return inst

    def has_id(self, tid: str) -> bool:
        """Whether ``tid`` is selected (a binary search over the sorted id digests)."""
        if self._sorted is None:
            self._sorted = array("Q", sorted(self.keys))
        key = _id_key(tid)
        at = bisect.bisect_left(self._sorted, key)
        return at < len(self._sorted) and self._sorted[at] == key


def _id_key(tid: str) -> int:
    return int.from_bytes(hashlib.blake2b(tid.encode("utf-8"), digest_size=8).digest(), "big")


def _line_key(raw: bytes) -> int:
    """A checked line's bytes (newline excluded), as the first pass saw them."""
    return int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "big")


@dataclass
class Selection:
    instances: Sequence[Instance]   # an InstanceStream from load_data; a list also works
    files: List[str]
    checksum: str          # sha256 over the data files' bytes, in order

    def has_id(self, tid: str) -> bool:
        if isinstance(self.instances, InstanceStream):
            return self.instances.has_id(tid)
        return any(inst.id == tid for inst in self.instances)


def _scan_file(files: Sequence[Path], index: int, seen: Dict[str, int],
               sink: Callable[[str, str, int, bytes], None], file_digests: List[bytes],
               validate: bool = True) -> None:
    """Check one data file line by line (as ``read_jsonl`` does, without holding it): its
    bytes' sha256, a torn last line, JSON, schema, duplicate ids, the validator's checks.
    Bytes that passed before (:mod:`mira_math.eval.validated`, keyed by their sha256) skip the schema and
    the validator; the sha256 of the bytes parsed must then equal the key's."""
    path = files[index]
    sha = file_sha256(path) if validate else None
    trusted = sha is not None and is_validated(sha)
    with path.open("rb") as fh:
        fh.seek(0, os.SEEK_END)
        if fh.tell():
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) != b"\n":
                fh.seek(0)
                last = sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b"")) + 1
                raise DataError("last line is not newline-terminated (truncated file?)", str(path), last)
        fh.seek(0)
        digest = hashlib.sha256()
        offset = 0
        for number, raw in enumerate(fh, start=1):
            digest.update(raw)
            line = raw.rstrip(b"\r\n")
            record = loads_line(line, str(path), number)
            if trusted:                        # these bytes passed every check before
                tid, family = record["id"], record["family"]
            else:                              # the validator decodes the latent state: once
                inst = instance_from_dict(record, str(path), number, check_latent=not validate)
                tid, family = inst.id, inst.family
            first = seen.get(tid)
            if first is not None:
                where, line_no = divmod(first, 1 << 32)
                if where == index:
                    raise DataError(f"duplicate id {tid!r} (first on line {line_no})", str(path), number, "id")
                raise DataError(f"duplicate id {tid!r} (first in {files[where]}:{line_no})", str(path),
                                number, "id")
            seen[tid] = (index << 32) | number
            if not trusted:
                _check_record(inst, path, number, validate)
            sink(tid, family, offset, line)
            offset += len(raw)
        file_digests.append(digest.digest())
    if sha is not None:
        if digest.hexdigest() != sha:
            raise RunError(f"{path}: changed while it was checked; a data file must not change while a run reads it")
        if not trusted:
            mark_validated(sha)


def load_data(files: Sequence[Path], families: Optional[Sequence[str]] = None,
              ids: Optional[Sequence[str]] = None, limit: Optional[int] = None,
              shard: Optional[tuple] = None, sample: Optional[tuple] = None) -> Selection:
    """Read and check every line before any model call; then filter, sample, shard and limit.
    ``sample`` = (N, seed): N instances drawn without replacement, kept in dataset order.

    One streaming pass: what is kept per instance is its file and byte offset (the instances
    themselves are read again, lazily, by the run: :class:`InstanceStream`)."""
    from mira_math.generators.release import CHECKSUMS, check_manifest, is_imported

    files = [Path(p) for p in files]
    folders = sorted({_release_folder(p) for p in files if p.parent.parent.name == "data"})
    for folder in folders:    # checksums first where present: an edited byte is named as such
        if (folder / CHECKSUMS).is_file():
            problems = check_manifest(folder)
            if problems:
                raise RunError("the release fails its checksums: " + "; ".join(problems[:3]))
    # An imported reference folder is read strictly, but not held to our validators: its
    # findings are the source data's (docs/reference_import.md), reported by import --check.
    imported = {f for f in folders if is_imported(f)}
    wanted_families = set(families) if families else None
    wanted = set(ids) if ids else None
    found: Set[str] = set()
    where, offsets, keys, lines = array("I"), array("Q"), array("Q"), array("Q")
    seen: Dict[str, int] = {}
    file_digests: List[bytes] = []
    for index in range(len(files)):
        def keep(tid: str, family: str, offset: int, line: bytes, index: int = index) -> None:
            if wanted_families is not None and family not in wanted_families:
                return
            if wanted is not None:
                if tid not in wanted:
                    return
                found.add(tid)
            where.append(index)
            offsets.append(offset)
            keys.append(_id_key(tid))
            lines.append(_line_key(line))

        _scan_file(files, index, seen, keep, file_digests,
                   validate=_release_folder(files[index]) not in imported)
    seen.clear()
    for folder in sorted(folders):   # a release whose CHECKSUMS was deleted is not run either
        if not (folder / CHECKSUMS).is_file() and (folder / "release_info.json").is_file():
            raise RunError(f"the release fails its checksums: {folder / CHECKSUMS}: manifest missing")
    if wanted is not None:
        missing = wanted - found
        if missing:
            raise RunError(f"unknown ids: {', '.join(sorted(missing)[:5])}")
    positions: Sequence[int] = range(len(offsets))
    if sample:
        import random

        size, seed = sample
        positions = sorted(random.Random(seed).sample(range(len(offsets)), min(size, len(offsets))))
    if shard:
        index, count = shard
        positions = positions[index::count]
    if limit is not None:
        positions = positions[:limit]
    if not isinstance(positions, range) or positions != range(len(offsets)):
        where = array("I", (where[n] for n in positions))
        offsets = array("Q", (offsets[n] for n in positions))
        keys = array("Q", (keys[n] for n in positions))
        lines = array("Q", (lines[n] for n in positions))
    digest = hashlib.sha256()
    for d in file_digests:
        digest.update(d)
    return Selection(InstanceStream(files, where, offsets, keys, lines), [_portable(p) for p in files],
                     digest.hexdigest())


def _portable(path: Path) -> str:
    """A dataset path ``score`` resolves from any directory: relative to the resource root (the
    checkout, or an installed wheel's bundle: see :mod:`mira_math.generators.layout`) when
    inside it (so a run directory moves between clones), else absolute."""
    full = Path(path).resolve()
    try:
        return full.relative_to(RESOURCE_ROOT).as_posix()
    except ValueError:
        return str(full)


def _release_folder(path: Path) -> Path:
    return path.parent.parent.parent      # FOLDER/data/<family>/test.jsonl


def _check_record(inst: Instance, path: Path, number: int, validate: bool = True) -> None:
    """The validator's checks on one record (fast), so a bad record stops the run before
    any model call instead of after it."""
    from mira_math.generators import registry
    from mira_math.generators.validate import validate_instance

    if inst.family not in registry.names():
        raise DataError(f"unknown family {inst.family!r}", str(path), number, "family")
    if not validate:
        return
    if inst.blind:      # the blind tier's proofs, redone from the record
        from mira_math.generators.blind.validate import prove_instance

        try:
            family = registry.get_blind(inst.family)
        except KeyError as err:
            raise DataError(str(err.args[0]), str(path), number, "family") from None
        problems = prove_instance(inst, family)[0]
        if problems:
            raise DataError(f"fails validation: {inst.id}: blind_proof: {problems[0]}", str(path), number)
        return
    failures = validate_instance(inst, registry.get(inst.family, inst.k))
    if failures:
        raise DataError(f"fails validation: {failures[0]}", str(path), number)


def data_files(config: Optional[str], data: Optional[Path], release: Path) -> List[Path]:
    """``--config NAME`` over a release folder, or ``--data FILE|DIR``."""
    if data is not None:
        if data.is_dir():
            from mira_math.generators.release import family_files

            files = family_files(data)
            if not files:
                raise RunError(f"{data}: no data/<family>/test.jsonl files")
            return files
        if not data.is_file():
            raise RunError(f"{data}: no such file")
        return [data]
    from mira_math.generators.card import DEFAULT_CONFIG, configs

    name = config or DEFAULT_CONFIG
    if name not in configs():
        raise RunError(f"unknown config {name!r}")
    files = [release / rel for rel in configs()[name]]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise RunError(f"missing data file {missing[0]}")
    return files



__all__ = ["InstanceStream", "RunError", "Selection", "data_files", "load_data"]
