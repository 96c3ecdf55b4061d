"""Atomic file output: every file the project writes whole (manifests, scores, rewritten
transcript logs) goes through :func:`atomic_output`, so a kill or a full disk leaves the old
file or the new one, never a torn one."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator


@contextmanager
def atomic_output(path: Path) -> Iterator[BinaryIO]:
    """A binary handle on a temporary file beside ``path``; on success it is fsync'd and
    renamed over ``path``, on any error removed."""
    path = Path(path)
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


def write_atomic(path: Path, data: bytes) -> None:
    with atomic_output(path) as fh:
        fh.write(data)
