"""Writing a run directory: its lock (one ``eval`` per folder), its preparation (a new run's
manifest, or the checks that let ``--resume`` continue an old one) and ``transcripts.jsonl``,
appended line by line as episodes finish and repaired when a kill tore its last line."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from mira_math.common.atomic import atomic_output, write_atomic
from mira_math.eval.errors import RunDirError, RunError
from mira_math.eval.rundir.files import LOCK, MANIFEST, TRANSCRIPTS, preview, read_manifest
from mira_math.eval.rundir.manifest import RunConfig, manifest
from mira_math.eval.selection import Selection
from mira_math.generators.schema import DataError, loads_line


def sample_key(tid: str, epoch: int) -> str:
    """The resume key of one (instance, epoch): the id itself for epoch 0."""
    return tid if not epoch else f"{tid}\x00{epoch}"


def sample_of(key: str) -> Tuple[str, int]:
    """The (id, epoch) of a resume key."""
    tid, _, epoch = key.partition("\x00")
    return tid, int(epoch or 0)



def _resume_key_fields(row: Any, path: str, number: int) -> Tuple[str, int]:
    """A transcript line's id and epoch, as ``--resume`` keys it: a string id without NUL
    (the key's separator) and a non-negative integer epoch, else a :class:`DataError`."""
    if not isinstance(row, dict):
        raise DataError(f"not a transcript line (a JSON {type(row).__name__}, not an object)", path, number)
    tid, epoch = row.get("id"), row.get("epoch", 0)
    if not isinstance(tid, str) or not tid or "\x00" in tid:
        raise DataError(f"expected a non-empty string without NUL, got {preview(tid)}", path, number, "id")
    if type(epoch) is not int or epoch < 0:
        raise DataError(f"expected a non-negative integer, got {preview(epoch)}", path, number, "epoch")
    return tid, epoch



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
                    fh.seek(cut)
                    if self._complete(fh.read(size - cut)):   # as score reads it: a finished line
                        fh.seek(size)
                        fh.write(b"\n")
                        self.repaired = f"{self.path}: ended the last line, which lacked only its newline"
                    else:
                        self.repaired = f"{self.path}: removed a torn last line ({size - cut} bytes)"
                        fh.truncate(cut)
            fh.seek(0)
            for number, line in enumerate(fh, start=1):
                if line.isspace():            # as score reads the file: a blank line holds no transcript
                    continue
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
    def _complete(tail: bytes) -> bool:
        """Whether a last line without its newline is a whole transcript line (a JSON object)."""
        try:
            return isinstance(json.loads(tail.decode("utf-8")), dict)
        except (ValueError, RecursionError):
            return False

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
    stray = sorted(sample_of(key)[0] for key in log.finished
                   if not selection.has_id(sample_of(key)[0]) or sample_of(key)[1] >= config.epochs)
    if stray:
        log.close()
        raise RunError(f"{out / TRANSCRIPTS}: {len(stray)} transcript(s) for instances not in this "
                       f"selection (first {stray[0]!r}); refusing to resume into it")
    if retry_errors:
        log.drop_errors()
    return log



__all__ = ["RunLock", "TranscriptLog", "prepare_run_dir", "sample_key", "sample_of"]
