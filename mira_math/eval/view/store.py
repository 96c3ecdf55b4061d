"""The viewer's working store: an on-disk SQLite table of every dataset line and one small row per
transcript, so that building a viewer of a million transcripts holds none of them in memory
(SQLite's page cache is the only buffer, and it is capped). The table's order (instance, then run)
is the row table's primary key, read back in key order, not a sort in Python.

Speed (docs/decisions.md, "The viewer at a million"): lines and rows go in by ``executemany``; a
run's transcripts are matched to its dataset by reading the dataset's lines back in file order
beside them (:class:`Matcher`: the transcripts usually follow the dataset), and only a transcript
the stream does not find costs an indexed query.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

CACHE_KIB = 8 * 1024            # SQLite's page cache: the store's memory, whatever the run size
BATCH = 5_000                   # rows per executemany / fetchmany
SEEN_BITS = 1 << 25             # the "maybe seen" filter of instance digests: 4 MiB, whatever the run size
WINDOW = 8_192                  # dataset lines a run's transcripts may be ahead of or behind the stream
READ_AHEAD_MISSES = 32          # misses of the stream after which a run dir is matched by query only

_SCHEMA = """
CREATE TABLE line (id TEXT, seed_set TEXT, inst INTEGER, family TEXT, type TEXT, difficulty INTEGER,
                   cand INTEGER, hints TEXT);
CREATE TABLE inst (digest INTEGER PRIMARY KEY, idx INTEGER);
CREATE TABLE row (inst INTEGER, run INTEGER, t INTEGER, trace INTEGER, unreadable INTEGER, fmt INTEGER,
                  nonc INTEGER, req INTEGER, off INTEGER, ans TEXT, reason TEXT, id TEXT, family TEXT,
                  type TEXT, difficulty INTEGER, PRIMARY KEY (inst, run, t)) WITHOUT ROWID;
"""
_SEP = "\x1f"

# (instance index, family, type, difficulty, seed set, candidates, hint constraints): a dataset line
Found = Tuple[int, str, str, int, str, Optional[int], Tuple[str, ...]]


def line_digest(raw: bytes) -> int:
    """A dataset line's identity (its bytes), as a signed 64-bit integer SQLite can key on: a
    blake2b digest, the same in every process (never ``hash()``, which is salted per process), so
    a build is the same on every run; two distinct lines collide with probability ~n^2 / 2^65."""
    return int.from_bytes(hashlib.blake2b(raw.rstrip(b"\r\n"), digest_size=8).digest(), "big", signed=True)


def encode_hints(hints: Sequence[str]) -> str:
    """Hint constraints as one column: unit-separated, or JSON (starts with "[") if one holds the separator."""
    if any(_SEP in h for h in hints):
        return json.dumps(list(hints))
    return "".join(_SEP + h for h in hints)


def decode_hints(text: str) -> Tuple[str, ...]:
    return tuple(json.loads(text)) if text.startswith("[") else tuple(text.split(_SEP)[1:])


class RowStore:
    """Dataset lines, instances and transcript rows of one viewer build."""

    def __init__(self, path: Path):
        self.db = sqlite3.connect(str(path), isolation_level=None)
        for pragma in ("journal_mode=OFF", "synchronous=OFF", "temp_store=FILE", f"cache_size=-{CACHE_KIB}"):
            self.db.execute(f"PRAGMA {pragma}")
        self.db.executescript(_SCHEMA)
        self.db.execute("BEGIN")
        self.instances = 0
        self.lines = 0                                 # rowids of `line` are 1..lines, in insertion order
        self._seen = bytearray(SEEN_BITS // 8)
        self._new_insts: List[Tuple[int, int]] = []
        self._lines: List[Tuple[Any, ...]] = []
        self._rows: List[Tuple[Any, ...]] = []
        self._indexed = False

    # ------------------------------------------------------------ dataset lines
    def add_instance(self, digest: int) -> Tuple[int, bool]:
        """(index, new?) of the instance whose line has ``digest``: the same bytes in two files
        (two runs over one dataset) are one instance; indices follow first appearance. A digest
        the bit filter has not seen is new without a query."""
        bit = digest & (SEEN_BITS - 1)
        byte, mask = bit >> 3, 1 << (bit & 7)
        if self._seen[byte] & mask:
            self._flush_insts()
            found = self.db.execute("SELECT idx FROM inst WHERE digest = ?", (digest,)).fetchone()
            if found is not None:
                return found[0], False
        self._seen[byte] |= mask
        self._new_insts.append((digest, self.instances))
        if len(self._new_insts) >= BATCH:
            self._flush_insts()
        self.instances += 1
        return self.instances - 1, True

    def add_line(self, tid: str, seed_set: str, index: int, family: str, type_: str, difficulty: int,
                 cand: Optional[int], hints: Sequence[str]) -> int:
        """Record a dataset line; returns its line number in the store (files are contiguous)."""
        self._lines.append((tid, seed_set, index, family, type_, difficulty, cand, encode_hints(hints)))
        if len(self._lines) >= BATCH:
            self._flush_lines()
        self.lines += 1
        return self.lines

    def _flush_insts(self) -> None:
        if self._new_insts:
            self.db.executemany("INSERT INTO inst VALUES (?,?)", self._new_insts)
            self._new_insts.clear()

    def _flush_lines(self) -> None:
        self._flush_insts()
        if self._lines:
            self.db.executemany("INSERT INTO line VALUES (?,?,?,?,?,?,?,?)", self._lines)
            self._lines.clear()

    def unique_ids(self, spans: Sequence[Tuple[int, int]]) -> bool:
        """Whether no id occurs twice among the lines in ``spans`` (first, last line number)."""
        self._flush_lines()
        where = " OR ".join("rowid BETWEEN ? AND ?" for _ in spans)
        args = [x for span in spans for x in span]
        return self.db.execute(f"SELECT 1 FROM line WHERE {where} GROUP BY id HAVING count(*) > 1 LIMIT 1",
                               args).fetchone() is None

    def stream(self, first: int, last: int) -> Iterator[Tuple[Any, ...]]:
        """Lines ``first``..``last`` in order: (id, seed set, index, family, type, difficulty, cand, hints)."""
        self._flush_lines()
        cursor = self.db.execute("SELECT * FROM line WHERE rowid BETWEEN ? AND ?", (first, last))
        while True:
            batch = cursor.fetchmany(BATCH)
            if not batch:
                return
            yield from batch

    def candidates(self, tid: str, spans: Sequence[Tuple[int, int]]) -> List[Tuple[int, Tuple[Any, ...]]]:
        """Lines with id ``tid`` within ``spans``, each with the position of its span: (span, line)."""
        self._flush_lines()
        if not self._indexed:
            self.db.execute("CREATE INDEX line_id ON line (id)")
            self._indexed = True
        out = []
        for rowid, *line in self.db.execute("SELECT rowid, * FROM line WHERE id = ?", (tid,)):
            for n, (first, last) in enumerate(spans):
                if first <= rowid <= last:
                    out.append(((n, rowid), tuple(line)))
        return [(n, line) for (n, _), line in sorted(out, key=lambda c: c[0])]

    # ------------------------------------------------------------ transcript rows
    def add_row(self, row: Tuple[Any, ...]) -> None:
        """(instance, run, position, trace, unreadable, fmt, nonc, req, off, ans, reason, id, family,
        type, difficulty)."""
        self._rows.append(row)
        if len(self._rows) >= BATCH:
            self._flush_rows()

    def _flush_rows(self) -> None:
        self.db.executemany("INSERT INTO row VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", self._rows)
        self._rows.clear()

    def ordered_rows(self, size: int) -> Iterator[List[Tuple[Any, ...]]]:
        """Every row in table order (instance, run, position): the primary key's order, streamed
        in batches of ``size`` rows."""
        self._flush_rows()
        cursor = self.db.execute("SELECT * FROM row ORDER BY inst, run, t")
        while True:
            batch = cursor.fetchmany(size)
            if not batch:
                return
            yield batch

    def close(self) -> None:
        self.db.close()


def _found(line: Tuple[Any, ...]) -> Found:
    tid, seed_set, index, family, type_, difficulty, cand, hints = line
    return index, family, type_, difficulty, seed_set, cand, decode_hints(hints)


class Matcher:
    """Finds a run dir's transcripts in its dataset as scoring's ``Dataset.lookup`` does (the
    first line of the id in file order per seed set; an id without a seed set must name one seed
    set only). When no id repeats in the run's files, a line found by id alone is the answer, so
    the dataset's lines are streamed back in order beside the transcripts and kept in a window of
    :data:`WINDOW` ids; a transcript outside the window reads further ahead (once past the end,
    from the start again: epochs) and, failing that, costs one indexed query."""

    def __init__(self, store: RowStore, spans: Sequence[Tuple[int, int]]):
        self.store, self.spans = store, list(spans)
        self.streaming = bool(spans) and store.unique_ids(spans)
        self.window: Dict[str, Tuple[Any, ...]] = {}
        self.misses = 0
        self._stream = self._lines()

    def _lines(self) -> Iterator[Tuple[Any, ...]]:
        for first, last in self.spans:
            yield from self.store.stream(first, last)

    def _read_ahead(self, tid: str) -> Optional[Tuple[Any, ...]]:
        window = self.window
        restarted = False
        for _ in range(WINDOW):
            line = next(self._stream, None)
            if line is None:
                if restarted:
                    return None
                self._stream, restarted = self._lines(), True
                continue
            window[line[0]] = line
            if len(window) > WINDOW:
                del window[next(iter(window))]
            if line[0] == tid:
                return line
        return None

    def find(self, tid: str, seed_set: Optional[str]) -> Optional[Found]:
        """The line a transcript names; ``None`` when none is, or when its id without a seed set
        names several seed sets (the caller words the error: :meth:`candidates` tells which)."""
        if self.streaming:
            line = self.window.get(tid)
            if line is None and self.misses < READ_AHEAD_MISSES:
                line = self._read_ahead(tid)
                if line is None:
                    self.misses += 1
            if line is not None and (seed_set is None or line[1] == seed_set):
                return _found(line)
        first = self.first_by_seed_set(tid)
        if seed_set is not None:
            line = first.get(seed_set)
        elif len(first) == 1:
            line = next(iter(first.values()))
        else:
            line = None
        return None if line is None else _found(line)

    def first_by_seed_set(self, tid: str) -> Dict[str, Tuple[Any, ...]]:
        """The first line (in the run's file order, then position) of each seed set with id ``tid``."""
        first: Dict[str, Tuple[Any, ...]] = {}
        for _, line in self.store.candidates(tid, self.spans):
            first.setdefault(line[1], line)
        return first
