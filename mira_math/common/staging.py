"""Build beside, then swap: a command that writes a whole folder of outputs (``report``,
``view``) writes them into a staging folder inside its ``--out`` first and moves them into
place only once every one is written. A full disk or any other failure part way leaves the
previous outputs whole (the staging folder is removed); the swap itself only renames, which
needs no free space."""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

STAGING = ".mira-staging"
RETIRED = ".mira-retired"


NAMES = (STAGING, RETIRED)
"""What a killed build may leave in its ``--out`` (removed by the next build)."""


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


@contextmanager
def staged(out: Path, remove: Iterable[str] = ()) -> Iterator[Path]:
    """An empty folder to write the new outputs into (``OUT/.mira-staging``). On success each
    entry written there replaces ``out``'s entry of the same name (a file by ``os.replace``, a
    folder by two renames), and the names in ``remove`` (outputs the new build no longer has)
    are deleted; on any error the staging folder goes and ``out`` is as it was."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    stage, retired = out / STAGING, out / RETIRED
    for stale in (stage, retired):           # a killed build's leftovers
        _remove(stale)
    stage.mkdir()
    try:
        yield stage
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    retired.mkdir()
    try:
        for entry in sorted(stage.iterdir()):
            target = out / entry.name
            if entry.is_dir() and (target.is_dir() and not target.is_symlink()):
                os.rename(target, retired / entry.name)
            os.replace(entry, target)
        for name in remove:
            target = out / name
            if target.exists() or target.is_symlink():
                os.replace(target, retired / name)
    finally:
        shutil.rmtree(retired, ignore_errors=True)
        shutil.rmtree(stage, ignore_errors=True)
