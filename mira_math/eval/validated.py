"""Validation once per content: a data file whose exact bytes passed ``eval``'s first pass (schema
and the validator's checks) is recorded by its sha256, under the generator and package versions
that checked it, in a small cache folder; the next run over the same bytes skips the validator.

Why this cannot let a corrupted or edited file through: the key is the sha256 of the bytes read
now, so any edited byte is a different key (a miss, and the file is validated in full); the
stamp is written only after this code validated those bytes itself, never by ``generate`` or a
CHECKSUMS file anyone can rewrite; the first pass hashes the bytes it parses and refuses the file
if they differ from the bytes the key was computed on (a file changed mid-read); and a new
generator or package version is a new key. A file with no checksums (``--data``) is validated on
its first run like any other. ``MIRA_MATH_CACHE=off`` turns the cache off; an unwritable cache
folder only costs the speed.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Optional

from mira_math._version import __version__
from mira_math.common.atomic import write_atomic
from mira_math.generators.build import GENERATOR_VERSION

CACHE_ENV = "MIRA_MATH_CACHE"
VALIDATION_VERSION = "1"          # bump when the first pass's checks change


def cache_dir() -> Optional[Path]:
    """``$MIRA_MATH_CACHE`` (``off``: none), else ``$XDG_CACHE_HOME/mira-math``, else ``~/.cache/mira-math``."""
    value = os.environ.get(CACHE_ENV)
    if value is not None:
        return None if value.strip().lower() in ("", "off", "0", "none") else Path(value)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mira-math"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _stamp(sha256: str) -> Optional[Path]:
    folder = cache_dir()
    if folder is None:
        return None
    return folder / "validated" / f"{sha256}-g{GENERATOR_VERSION}-p{__version__}-v{VALIDATION_VERSION}"


def is_validated(sha256: str) -> bool:
    """Whether these exact bytes passed the first pass under the current versions."""
    stamp = _stamp(sha256)
    return stamp is not None and stamp.is_file()


def mark_validated(sha256: str) -> None:
    """Record that these bytes passed (best effort: a read-only cache only costs the speed)."""
    stamp = _stamp(sha256)
    if stamp is None:
        return
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(stamp, f"{sha256}\n".encode("ascii"))
    except OSError:
        pass
