"""Atomic file output: every file the project writes whole (manifests, scores, rewritten
transcript logs) goes through :func:`atomic_output`, so a kill or a full disk leaves the old
file or the new one, never a torn one."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator, List


@contextmanager
def atomic_output(path: Path) -> Iterator[BinaryIO]:
    """A binary handle on a temporary file beside ``path``; on success it is fsync'd and
    renamed over ``path``, on any error removed."""
    path = Path(path)
    remove_stale_temporaries(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with tmp.open("wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True          # it exists (another user's), or we cannot tell: keep its file
    return True


def remove_stale_temporaries(path: Path) -> List[Path]:
    """Remove the temporary files a killed writer of ``path`` left beside it
    (``.NAME.tmp-PID`` of a process that no longer runs); a live writer's stays. Returns
    the files removed."""
    prefix = f".{path.name}.tmp-"
    removed: List[Path] = []
    try:
        entries = list(path.parent.iterdir()) if path.parent.is_dir() else []
    except OSError:
        return removed
    for entry in sorted(entries):
        pid = entry.name[len(prefix):]
        if entry.name.startswith(prefix) and pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            try:
                entry.unlink()
                removed.append(entry)
            except OSError:
                pass
    return removed


def write_atomic(path: Path, data: bytes) -> None:
    with atomic_output(path) as fh:
        fh.write(data)
