"""Validation once per content: a data file whose exact bytes passed ``eval``'s first pass (schema
and the validator's checks) is recorded by its sha256, under the generator and package versions
that checked it, in a small cache folder; the next run over the same bytes skips the validator.

Why this cannot let a corrupted or edited file through: the key is the sha256 of the bytes read
now, so any edited byte is a different key (a miss, and the file is validated in full); the
stamp is written only after this code validated those bytes itself, never from a CHECKSUMS
file anyone can rewrite: by ``eval``'s first pass, or by ``generate`` for the files it has just
written (:func:`mark_generated`: every instance passed the validator as it was built, and each
line is read back through the schema, as the first pass would); the first pass hashes the bytes
it parses and refuses the file if they differ from the bytes the key was computed on (a file
changed mid-read); and a new generator or package version is a new key. A file with no
checksums (``--data``) is validated on its first run like any other. ``MIRA_MATH_CACHE=off``
turns the cache off; an unwritable cache folder only costs the speed.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Mapping, Optional

from mira_math._version import __version__
from mira_math.common.atomic import write_atomic
from mira_math.generators.build import GENERATOR_VERSION
from mira_math.generators.schema import DataError, instance_from_dict, loads_line

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


def mark_generated(files: Mapping[str, bytes]) -> int:
    """Stamp the data files (``data/<family>/test.jsonl`` -> bytes) that ``generate`` has just
    built from validated instances, so that the first ``eval`` over them skips the validator
    (it spent 44% of that run's CPU re-validating bytes generated a moment before).
    The bytes are, by construction, the canonical lines of instances the validator passed
    (``build.make_instance``); what ``eval``'s first pass adds, reading each line back through
    the schema, is done here: a file with a line that fails it is left unstamped (``eval`` then
    validates it in full and names the line).
    Returns the number of files stamped."""
    stamped = 0
    if cache_dir() is None:
        return 0                                    # no cache: nothing to stamp, skip the reading
    for rel, data in files.items():
        if not (rel.startswith("data/") and rel.endswith(".jsonl")) or not data.endswith(b"\n"):
            continue
        try:
            for n, line in enumerate(data.split(b"\n")[:-1], start=1):
                instance_from_dict(loads_line(line, rel, n), rel, n)
        except DataError:
            continue
        mark_validated(hashlib.sha256(data).hexdigest())
        stamped += 1
    return stamped


def mark_verified(folder: Path) -> int:
    """After ``mira-math verify`` has regenerated ``folder`` byte for byte (so every data file
    is what ``generate`` writes): stamp its data files as :func:`mark_generated` does, each only
    if the bytes read now still have the sha256 its ``CHECKSUMS.sha256`` line gives (the one
    verify checked), so a file changed since is not stamped. A fresh clone that runs ``verify``
    does not pay the validator again on its first ``eval``. Returns the number stamped."""
    manifest = folder / "CHECKSUMS.sha256"
    if cache_dir() is None or not manifest.is_file():
        return 0
    files = {}
    for raw in manifest.read_bytes().splitlines():
        digest, sep, rel = raw.decode("utf-8", errors="replace").partition("  ")
        if not sep or not (rel.startswith("data/") and rel.endswith(".jsonl")) or ".." in rel.split("/"):
            continue
        try:
            data = (folder / rel).read_bytes()
        except OSError:
            continue
        if hashlib.sha256(data).hexdigest() == digest:
            files[rel] = data
    return mark_generated(files)
