"""The viewer's working store: an on-disk SQLite table of every dataset line, every instance the
transcripts name, and one small row per transcript, so that building a viewer of a million
transcripts holds none of them in memory (SQLite's page cache is the only buffer, and it is
capped). The table's order (instance, then run) is SQLite's ``ORDER BY`` over the row table's
primary key, not a sort in Python.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

CACHE_KIB = 8 * 1024            # SQLite's page cache: the store's memory, whatever the run size
BATCH = 5_000                   # rows per executemany

_SCHEMA = """
CREATE TABLE line (file INTEGER, pos INTEGER, seed_set TEXT, id TEXT, inst INTEGER);
CREATE INDEX line_id ON line (id);
CREATE TABLE inst (idx INTEGER PRIMARY KEY, digest INTEGER UNIQUE, id TEXT, family TEXT, type TEXT,
                   difficulty INTEGER, seed_set TEXT, cand INTEGER, hints TEXT);
CREATE TABLE row (inst INTEGER, run INTEGER, t INTEGER, trace INTEGER, unreadable INTEGER, fmt INTEGER,
                  nonc INTEGER, req INTEGER, off INTEGER, ans TEXT, reason TEXT,
                  PRIMARY KEY (inst, run, t)) WITHOUT ROWID;
"""


def line_digest(raw: bytes) -> int:
    """A dataset line's identity (its bytes), as a signed 64-bit integer SQLite can key on."""
    return int.from_bytes(hashlib.blake2b(raw.rstrip(b"\r\n"), digest_size=8).digest(), "big", signed=True)


class RowStore:
    """Dataset lines, instances and transcript rows of one viewer build."""

    def __init__(self, path: Path):
        self.db = sqlite3.connect(str(path), isolation_level=None)
        for pragma in ("journal_mode=OFF", "synchronous=OFF", "temp_store=FILE", f"cache_size=-{CACHE_KIB}"):
            self.db.execute(f"PRAGMA {pragma}")
        self.db.executescript(_SCHEMA)
        self.db.execute("BEGIN")
        self.instances = 0
        self._rows: List[Tuple[Any, ...]] = []

    # ------------------------------------------------------------ dataset lines
    def add_lines(self, lines: Sequence[Tuple[int, int, str, str, int]]) -> None:
        """(file, position, seed set, id, instance index) of dataset lines."""
        self.db.executemany("INSERT INTO line VALUES (?,?,?,?,?)", lines)

    def add_instance(self, digest: int, tid: str, family: str, type_: str, difficulty: int, seed_set: str,
                     cand: Optional[int], hints: Sequence[str]) -> Tuple[int, bool]:
        """(index, new?) of the instance whose line has ``digest``: the same bytes in two files
        (two runs over one dataset) are one instance; indices follow first appearance."""
        cursor = self.db.execute("INSERT OR IGNORE INTO inst VALUES (?,?,?,?,?,?,?,?,?)",
                                 (self.instances, digest, tid, family, type_, difficulty, seed_set, cand,
                                  json.dumps(list(hints))))
        if cursor.rowcount == 1:
            self.instances += 1
            return self.instances - 1, True
        return self.db.execute("SELECT idx FROM inst WHERE digest = ?", (digest,)).fetchone()[0], False

    def candidates(self, tid: str, files: Sequence[int]) -> List[Tuple[Any, ...]]:
        """Lines with id ``tid`` in ``files``, with their instance: (file, position, seed set,
        index, family, type, difficulty, candidates, hints as JSON)."""
        marks = ",".join("?" * len(files))
        return self.db.execute(f"SELECT l.file, l.pos, l.seed_set, i.idx, i.family, i.type, i.difficulty, i.cand, "
                               f"i.hints FROM line l JOIN inst i ON i.idx = l.inst WHERE l.id = ? "
                               f"AND l.file IN ({marks})", (tid, *files)).fetchall()

    # ------------------------------------------------------------ transcript rows
    def add_row(self, row: Tuple[Any, ...]) -> None:
        """(instance, run, transcript position, trace, unreadable, fmt, nonc, req, off, ans, reason)."""
        self._rows.append(row)
        if len(self._rows) >= BATCH:
            self._flush()

    def _flush(self) -> None:
        self.db.executemany("INSERT INTO row VALUES (?,?,?,?,?,?,?,?,?,?,?)", self._rows)
        self._rows.clear()

    def ordered_rows(self) -> Iterator[Tuple[Any, ...]]:
        """Every row in table order (instance, run, position), with its instance's id, family,
        type and difficulty appended; streamed."""
        self._flush()
        cursor = self.db.execute(
            "SELECT r.inst, r.run, r.t, r.trace, r.unreadable, r.fmt, r.nonc, r.req, r.off, r.ans, r.reason, "
            "i.id, i.family, i.type, i.difficulty FROM row r JOIN inst i ON i.idx = r.inst "
            "ORDER BY r.inst, r.run, r.t")
        while True:
            batch = cursor.fetchmany(BATCH)
            if not batch:
                return
            yield from batch

    def close(self) -> None:
        self.db.close()


def first_by_seed_set(candidates: Sequence[Tuple[Any, ...]], files: Sequence[int]) -> Dict[str, Tuple[Any, ...]]:
    """The first line (in the run's file order, then position) of each seed set among ``candidates``."""
    first: Dict[str, Tuple[Any, ...]] = {}
    for c in sorted(candidates, key=lambda c: (files.index(c[0]), c[1])):
        first.setdefault(c[2], c)
    return first
