"""The viewer's working store: what lets a build of a million transcripts hold none of them.

- Dataset lines are found by id as scoring's ``Dataset.lookup`` finds them (the first line per
  seed set in the run's file order; an id without a seed set must name one seed set only). A run
  whose files hold few lines (:data:`MEMORY_LINES` in all, e.g. the release or a held-out split,
  however many transcripts refer to it) is matched from a dict in memory (:class:`IdIndex`).
  Larger datasets go into an on-disk SQLite table and are matched by :class:`Matcher`, which
  reads the lines back in file order beside the transcripts (they usually follow the dataset)
  and costs an indexed query only for a transcript the stream does not find.
- Transcript rows are put in table order (instance, run, position) by an external merge sort
  (:class:`RowSorter`): sorted runs of at most :data:`SORT_ROWS` rows spilled to a temporary
  file, merged with ``heapq.merge`` one small block per run at a time.

Why each piece: docs/decisions.md, "The viewer where runs share a dataset".
"""

from __future__ import annotations

import hashlib
import heapq
import json
import marshal
import sqlite3
from collections import deque
from pathlib import Path
from typing import Any, Deque, Dict, Iterator, List, Optional, Sequence, Tuple

from mira_math.eval.rundir.dataset import InstanceInfo

CACHE_KIB = 8 * 1024            # SQLite's page cache: the store's memory, whatever the run size
BATCH = 4_096                   # lines per executemany / fetchmany
SEEN_BITS = 1 << 25             # the "maybe seen" filter of instance digests: 4 MiB, whatever the run size
MEMORY_LINES = 25_000           # dataset lines a build may index in memory (a 10x held-out split: 23,100)
WINDOW = 8_192                  # dataset lines a run's transcripts may be ahead of or behind the stream
READ_AHEAD_MISSES = 32          # misses of the stream after which a run dir is matched by query only
SORT_ROWS = 10_000              # rows sorted in memory before they are spilled as one sorted run
BLOCK_ROWS = 100                # rows per spilled block: the merge holds one block per sorted run

_SCHEMA = """
CREATE TABLE line (id TEXT, seed_set TEXT, inst INTEGER, family TEXT, type TEXT, difficulty INTEGER,
                   cand INTEGER, hints TEXT);
CREATE TABLE inst (digest INTEGER PRIMARY KEY, idx INTEGER);
"""
_SEP = "\x1f"

# A dataset line as the table needs it: its instance's index and scoring's record of the instance.
Entry = Tuple[int, InstanceInfo]


def line_digest(raw: bytes) -> int:
    """A dataset line's identity (its bytes), as a signed 64-bit integer SQLite can key on: a
    blake2b digest, the same in every process (never ``hash()``, which is salted per process), so
    a build is the same on every run; two distinct lines collide with probability ~n^2 / 2^65."""
    return int.from_bytes(hashlib.blake2b(raw.rstrip(b"\r\n"), digest_size=8).digest(), "big", signed=True)


def encode_hints(hints: Sequence[str]) -> str:
    """Hint constraints as one column: unit-separated, or JSON (starts with "[") if one holds the separator."""
    text = _SEP + _SEP.join(hints) if hints else ""
    if text.count(_SEP) != len(hints):
        return json.dumps(list(hints))
    return text


def decode_hints(text: str) -> Tuple[str, ...]:
    return tuple(json.loads(text)) if text.startswith("[") else tuple(text.split(_SEP)[1:])


class IdIndex:
    """Dataset lines by id, in memory: an id maps to its entry, or (an id in several seed sets)
    to a dict of the first entry per seed set."""

    def __init__(self) -> None:
        self.by_id: Dict[str, Any] = {}
        self.lines = 0

    def add(self, tid: str, entry: Entry) -> None:
        self.lines += 1
        found = self.by_id.get(tid)
        if found is None:
            self.by_id[tid] = entry
        elif type(found) is tuple:
            if found[1].seed_set != entry[1].seed_set:
                self.by_id[tid] = {found[1].seed_set: found, entry[1].seed_set: entry}
        else:
            found.setdefault(entry[1].seed_set, entry)

    @classmethod
    def merged(cls, indexes: Sequence["IdIndex"]) -> "IdIndex":
        """One index over several files, in their order (first entry per seed set wins)."""
        out = cls()
        for index in indexes:
            for tid, found in index.by_id.items():
                for entry in (found,) if type(found) is tuple else found.values():
                    out.add(tid, entry)
        return out

    def find(self, tid: str, seed_set: Optional[str]) -> Optional[Entry]:
        """The entry a transcript names; ``None`` when none is, or when an id without a seed set
        names several seed sets (:meth:`seed_sets` tells which)."""
        found = self.by_id.get(tid)
        if type(found) is tuple:
            return found if seed_set is None or found[1].seed_set == seed_set else None
        if found is None or seed_set is None:
            return None
        return found.get(seed_set)

    def seed_sets(self, tid: str) -> int:
        found = self.by_id.get(tid)
        return 0 if found is None else 1 if type(found) is tuple else len(found)


class RowStore:
    """Dataset lines and distinct instances of one viewer build, in SQLite."""

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

    def add_line(self, index: int, info: InstanceInfo) -> int:
        """Record a dataset line; returns its line number in the store (files are contiguous)."""
        self._lines.append((info.id, info.seed_set, index, info.family, info.type, info.difficulty,
                            info.candidate_answers, encode_hints(list(info.canonical))))
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

    def batches(self, first: int, last: int) -> Iterator[List[Tuple[Any, ...]]]:
        """Lines ``first``..``last`` in order, :data:`BATCH` at a time: (id, seed set, index,
        family, type, difficulty, cand, hints)."""
        self._flush_lines()
        cursor = self.db.execute("SELECT * FROM line WHERE rowid BETWEEN ? AND ?", (first, last))
        while True:
            batch = cursor.fetchmany(BATCH)
            if not batch:
                return
            yield batch

    def candidates(self, tid: str, spans: Sequence[Tuple[int, int]]) -> List[Tuple[Any, ...]]:
        """Lines with id ``tid`` within ``spans``, in the spans' order, then file order."""
        self._flush_lines()
        if not self._indexed:
            self.db.execute("CREATE INDEX line_id ON line (id)")
            self._indexed = True
        out = []
        for rowid, *line in self.db.execute("SELECT rowid, * FROM line WHERE id = ?", (tid,)):
            for n, (first, last) in enumerate(spans):
                if first <= rowid <= last:
                    out.append(((n, rowid), tuple(line)))
        return [line for _, line in sorted(out, key=lambda c: c[0])]

    def close(self) -> None:
        self.db.close()


def _entry(line: Tuple[Any, ...]) -> Entry:
    tid, seed_set, index, family, type_, difficulty, cand, hints = line
    return index, InstanceInfo(seed_set, tid, family, type_, difficulty, cand, frozenset(decode_hints(hints)))


class Matcher:
    """Finds a run dir's transcripts among its dataset lines in the store. When no id repeats in
    the run's files, a line found by id alone is the answer, so the lines are read back in file
    order beside the transcripts, a batch at a time, and the last :data:`WINDOW` lines are kept
    by id; a transcript outside them reads further ahead (once past the end, from the start
    again: epochs) and, failing that, costs one indexed query."""

    def __init__(self, store: RowStore, spans: Sequence[Tuple[int, int]]):
        self.store, self.spans = store, list(spans)
        self.streaming = bool(spans) and store.unique_ids(spans)
        self.window: Deque[Dict[str, Tuple[Any, ...]]] = deque(maxlen=max(1, WINDOW // BATCH))
        self.misses = 0
        self._stream = self._batches()

    def _batches(self) -> Iterator[List[Tuple[Any, ...]]]:
        for first, last in self.spans:
            yield from self.store.batches(first, last)

    def _read_ahead(self, tid: str) -> Optional[Tuple[Any, ...]]:
        restarted = False
        for _ in range(max(1, WINDOW // BATCH) + 1):
            batch = next(self._stream, None)
            if batch is None:
                if restarted:
                    return None
                self._stream, restarted = self._batches(), True
                continue
            by_id = {line[0]: line for line in batch}
            self.window.append(by_id)
            line = by_id.get(tid)
            if line is not None:
                return line
        return None

    def find(self, tid: str, seed_set: Optional[str]) -> Optional[Entry]:
        """The entry a transcript names; ``None`` when none is, or when its id without a seed set
        names several seed sets (the caller words the error: :meth:`seed_sets` tells which)."""
        if self.streaming:
            line = None
            for by_id in reversed(self.window):
                line = by_id.get(tid)
                if line is not None:
                    break
            if line is None and self.misses < READ_AHEAD_MISSES:
                line = self._read_ahead(tid)
                if line is None:
                    self.misses += 1
            if line is not None and (seed_set is None or line[1] == seed_set):
                return _entry(line)
        first = self.first_by_seed_set(tid)
        if seed_set is not None:
            found = first.get(seed_set)
        elif len(first) == 1:
            found = next(iter(first.values()))
        else:
            found = None
        return None if found is None else _entry(found)

    def seed_sets(self, tid: str) -> int:
        return len(self.first_by_seed_set(tid))

    def first_by_seed_set(self, tid: str) -> Dict[str, Tuple[Any, ...]]:
        """The first line (in the run's file order, then position) of each seed set with id ``tid``."""
        first: Dict[str, Tuple[Any, ...]] = {}
        for line in self.store.candidates(tid, self.spans):
            first.setdefault(line[1], line)
        return first


class RowSorter:
    """Table rows (tuples that start with instance, run, position: unique, so tuple order is
    table order) sorted in bounded memory. Rows gather in a list; every :data:`SORT_ROWS` rows
    the list is sorted and spilled to a temporary file as marshal blocks of :data:`BLOCK_ROWS`.
    :meth:`ordered` merges the sorted runs, reading one block of each at a time."""

    def __init__(self, path: Path):
        self.path = path
        self._file: Optional[Any] = None
        self._rows: List[Tuple[Any, ...]] = []
        self._runs: List[List[Tuple[int, int]]] = []     # each sorted run: its blocks' (offset, length)

    def add(self, row: Tuple[Any, ...]) -> None:
        self._rows.append(row)
        if len(self._rows) >= SORT_ROWS:
            self._spill()

    def _spill(self) -> None:
        if self._file is None:
            self._file = self.path.open("w+b")
        self._rows.sort()
        blocks = []
        for start in range(0, len(self._rows), BLOCK_ROWS):
            data = marshal.dumps(self._rows[start:start + BLOCK_ROWS])
            blocks.append((self._file.tell(), len(data)))
            self._file.write(data)
        self._runs.append(blocks)
        self._rows = []

    def _read(self, blocks: List[Tuple[int, int]]) -> Iterator[Tuple[Any, ...]]:
        fh = self._file
        if fh is None:
            return
        for offset, length in blocks:
            fh.seek(offset)
            yield from marshal.loads(fh.read(length))

    def ordered(self, size: int) -> Iterator[List[Tuple[Any, ...]]]:
        """Every row in table order, in lists of ``size`` rows."""
        rows: Iterator[Tuple[Any, ...]]
        if self._runs:
            self._spill()
            rows = heapq.merge(*(self._read(blocks) for blocks in self._runs))
        else:
            self._rows.sort()
            rows = iter(self._rows)
        batch: List[Tuple[Any, ...]] = []
        for row in rows:
            batch.append(row)
            if len(batch) >= size:
                yield batch
                batch = []
        if batch:
            yield batch

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
