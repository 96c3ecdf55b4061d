"""``mira-math view``: a static, self-contained HTML transcript viewer.

The output folder holds ``index.html`` (the page, its CSS and JS inlined) and ``data/``: one
``index.js`` with a compact, column-wise table of every transcript (run, instance, trace
class, flags) and pages of full transcripts (``t-NNNN.js``) and instances (``i-NNNN.js``)
that the page loads on demand with ``<script>`` tags, since browsers refuse ``fetch`` of
local files opened from ``file://``. Nothing is fetched from the network; every string is
data, rendered with ``textContent`` by the page.

Per-instance facts (trace class, format errors, noncanonical offers) come from
:func:`mira_math.eval.rundir.transcripts.instance_stats`, so the viewer and ``score`` agree by construction.
"""

from __future__ import annotations

import gc
import hashlib
import json
import re
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from mira_math.eval.metrics import FACT_SCALE
from mira_math.eval.rundir.dataset import InstanceInfo, read_instance_info, resolve_data_file
from mira_math.eval.rundir.files import MANIFEST, ScoringError
from mira_math.eval.rundir.runs import RunInfo, assign_labels, group_runs
from mira_math.eval.rundir.transcripts import instance_stats, iter_transcripts
from mira_math.eval.tables import name_runs
from mira_math.eval.view import store as _store
from mira_math.eval.view.store import Entry, IdIndex, Matcher, RowSorter, RowStore, line_digest
from mira_math.common.errors import MiraError
from mira_math.common.staging import NAMES as STAGING_NAMES, staged
from mira_math.generators.schema import instance_from_dict, loads_line

VIEW_VERSION = "4"
DATA_DIR = "data"
DEFAULT_PAGE_SIZE = 1_000        # at most this many transcripts (or instances) per lazily loaded data file,
PAGE_BYTES = 1 << 20             # and a page is closed once it holds this many bytes (long dialogues)
DEFAULT_CHUNK_ROWS = 5_000       # table rows per chunk: the page opens on the first one
ROW_COLUMNS = ("run", "inst", "t", "trace", "unreadable", "fmt", "nonc", "req", "off", "ans", "reason",
               "id", "fam", "type", "diff", "ep", "k", "facts", "newf", "over")
# a summary entry: family, run, then these counters (errored transcripts only in "errored")
SUMMARY_COUNTERS = ("n", "no_canonical", "canonical_wrong", "correct", "errored", "format_error_instances",
                    "noncanonical_instances", "requests", "all_facts", "fact_credit", "new_fact_offers",
                    "two_fact")
TRACE_CODES = {"no_canonical": 0, "canonical_wrong": 1, "correct": 2, "errored": 3}
_OWN_FILES = re.compile(r"^(index|[tir]-\d{4,})\.js$")


class ViewError(MiraError, RuntimeError):
    """An output folder the viewer may not write into."""


@dataclass(frozen=True)
class ViewResult:
    index_html: Path
    runs: int
    transcripts: int
    instances: int
    pages: int


# ------------------------------------------------------------------ encoding

def js_literal(value: Any) -> str:
    """JSON as a JavaScript literal that cannot close a surrounding ``<script>`` element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


_INSTANCE_KEYS = ("id", "family", "type", "difficulty", "level", "seed_set", "generator_version", "view",
                  "responder", "hints", "answer", "candidate_answers", "latent")


def _check_instance_keys(row: Any) -> None:
    """A KeyError or TypeError when an instance line lacks a field the page shows."""
    for key in _INSTANCE_KEYS:
        row[key]


def _short(text: Any, limit: int = 48) -> str:
    if text is None:
        return ""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _run_doc(info: RunInfo) -> Dict[str, Any]:
    models = (info.manifests[0].get("models") or {}) if info.manifests else {}
    return {"label": info.label, "solver": info.get("solver"), "responder": info.get("responder"),
            "regime": info.regime, "condition": info.condition, "protocol": info.get("protocol"),
            "split": info.split, "decoding": info.decoding, "run_hash": info.run_hash,
            "dirs": [Path(d).name for d in info.dirs],   # by name: no machine path in a shared page
            "expected": info.expected,
            "transcripts": info.transcripts, "models": models}


# ------------------------------------------------------------------ building

LOCK_NAME = ".mira-view.lock"


@contextmanager
def _locked(out: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``OUT/.mira-view.lock`` for the whole build: a second
    ``view`` into the same folder is refused (one line, exit 1) instead of mixing its pages
    with the first's. The kernel drops the lock when a killed build's process ends."""
    if out.exists() and not out.is_dir():
        raise ViewError(f"{out}: exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    fh = (out / LOCK_NAME).open("a+")
    try:
        try:
            import fcntl
        except ImportError:        # no flock on this platform: build unlocked
            yield
            return
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise ViewError(f"{out}: another mira-math view is writing this folder (locked "
                            f"{out / LOCK_NAME}); wait for it or choose another --out") from None
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
    finally:
        fh.close()


def _prepare_out(out: Path) -> None:
    """``out`` is new, or a previous viewer folder whose files the new build replaces."""
    if out.exists() and not out.is_dir():
        raise ViewError(f"{out}: exists and is not a folder")
    data = out / DATA_DIR
    if out.is_dir():
        own = ("index.html", DATA_DIR, LOCK_NAME, *STAGING_NAMES)
        foreign = [p.name for p in out.iterdir() if p.name not in own]
        if data.exists():
            foreign += [f"{DATA_DIR}/{p.name}" for p in data.iterdir() if not _OWN_FILES.match(p.name)]
        if foreign:
            raise ViewError(f"{out}: holds {sorted(foreign)[0]}, which the viewer did not write; "
                            "choose an empty or new --out")


def _asset(name: str) -> str:
    return resources.files("mira_math.eval.view").joinpath("assets").joinpath(name).read_text(encoding="utf-8")


def render_index_html(title: str) -> str:
    """The page: the template with its stylesheet and script inlined (no external asset)."""
    html = _asset("index.html")
    from html import escape

    return (html.replace("{{TITLE}}", escape(title))
                .replace("/*{{CSS}}*/", _asset("viewer.css"))
                .replace("/*{{JS}}*/", _asset("viewer.js")))


def _write_js(path: Path, call: str, *args: Any) -> None:
    path.write_text(f"{call}({','.join(js_literal(a) for a in args)});\n", encoding="utf-8")


class _Pager:
    """Records written into numbered page files (``KIND-NNNN.js``) as they come: at most one
    page is in memory. A record is its JSON line as read, bytes untouched (it parsed as JSON, and
    JSON is a JavaScript expression; these files are loaded by ``<script src>``, never inlined, so
    no text in them can close a script element). A page ends at ``size`` records or
    :data:`PAGE_BYTES` bytes, so ``starts`` (each page's first record, in the index) tells the
    page which file holds a record: few files for short dialogues, small ones for long."""

    def __init__(self, data: Path, kind: str, size: int):
        self.data, self.kind, self.size = data, kind, size
        self.pages = self.count = self.bytes = 0
        self.items: List[bytes] = []
        self.starts: List[int] = []

    def add(self, raw: bytes) -> None:
        item = raw.strip()
        self.items.append(item)
        self.count += 1
        self.bytes += len(item)
        if len(self.items) >= self.size or self.bytes >= PAGE_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.items:
            path = self.data / f"{self.kind}-{self.pages:04d}.js"
            path.write_bytes(b"MIRA.page(%s,%d,[%s]);\n" % (js_literal(self.kind).encode("utf-8"), self.pages,
                                                              b",".join(self.items)))
            self.starts.append(self.count - len(self.items))
            self.pages += 1
            self.items, self.bytes = [], 0


class _LastLine:
    """Passed to scoring's ``iter_transcripts`` as its digest: it is handed each raw line just
    before that line is yielded, so the page can carry the line as read."""

    raw = b""

    def update(self, raw: bytes) -> None:
        self.raw = raw


def _digest_and_lines(path: Path) -> Tuple[str, int]:
    """A file's sha256 and its number of newlines (one less than an upper bound of its lines), in one read."""
    digest, lines = hashlib.sha256(), 0
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
            lines += block.count(b"\n")
    return digest.hexdigest(), lines


class _Builder:
    """One pass over every run's transcripts: transcript and instance pages are written as they
    come, one small row per transcript goes to the :class:`RowSorter`, and the per-family
    summary is a handful of counters."""

    def __init__(self, data: Path, store: RowStore, rows: RowSorter, page_size: int, chunk_rows: int):
        self.data, self.store, self.rows, self.chunk_rows = data, store, rows, chunk_rows
        self.transcripts = _Pager(data, "t", page_size)
        self.instances = _Pager(data, "i", page_size)
        self.files: Dict[Tuple[str, str], int] = {}        # (resolved path, sha256) -> file number
        self.paths: List[Path] = []
        self.digests: Dict[Tuple[str, int, int, int], Tuple[str, int]] = {}   # file as it stands -> sha256, lines
        self.spans: List[Optional[Tuple[int, int]]] = []    # file number -> its lines in the store, if there
        self.memory: List[Optional[IdIndex]] = []           # file number -> its lines by id, if kept
        self.memory_lines = 0                               # lines kept in memory (at most MEMORY_LINES)
        self.merged: Dict[Tuple[int, ...], IdIndex] = {}     # several files' in-memory indexes, as one
        self.summary: Dict[Tuple[str, int], List[int]] = {}  # (family, run) -> n, t0..t3, fmt, nonc, req
        self.difficulties: set = set()
        self.position = 0                                    # transcripts written so far
        self.covered = bytearray()                           # instance index -> in some run's rows
        self.id_chars = 0                                    # the longest id: the table's id column fits it

    # ------------------------------------------------------------ datasets
    def dataset(self, manifest: Mapping[str, Any], run_dir: Path) -> List[int]:
        """The manifest's dataset files (checked against its checksum, as scoring does), indexed."""
        dataset = manifest.get("dataset") or {}
        names = dataset.get("files") or []
        if not names:
            raise ScoringError(f"{run_dir / MANIFEST}: names no dataset files")
        digest = hashlib.sha256()
        numbers = []
        for name in names:
            path = resolve_data_file(name, run_dir)
            hexdigest, lines = self._digest(path)
            digest.update(bytes.fromhex(hexdigest))
            key = (str(path.resolve()), hexdigest)
            if key not in self.files:
                self.files[key] = len(self.paths)
                self.paths.append(path)
                self._index(path, in_memory=self.memory_lines + lines + 1 <= _store.MEMORY_LINES)
            numbers.append(self.files[key])
        expected = dataset.get("checksum")
        if expected and digest.hexdigest() != expected:
            raise ScoringError(f"{run_dir / MANIFEST}: the dataset files {', '.join(names)} are not the "
                               "ones this run used (checksum differs)")
        return numbers

    def _digest(self, path: Path) -> Tuple[str, int]:
        """A data file's sha256 and newline count, computed once per build for the same file
        unchanged (same inode, size and modification time): 43 runs over one 25 MB split read
        it once."""
        stat = path.stat()
        key = (str(path.resolve()), stat.st_ino, stat.st_size, stat.st_mtime_ns)
        if key not in self.digests:
            self.digests[key] = _digest_and_lines(path)
        return self.digests[key]

    def _lines(self, path: Path) -> Iterator[Tuple[bytes, InstanceInfo]]:
        """(raw line, scoring's record) of each instance line of a data file, checked."""
        name = str(path)
        with path.open("rb") as fh:
            for pos, raw in enumerate(fh):
                if not raw.strip():
                    continue
                row = loads_line(raw, name, pos + 1)
                try:
                    _check_instance_keys(row)
                except (KeyError, TypeError, AttributeError):
                    instance_from_dict(row, name, pos + 1)            # names the field
                    raise ScoringError(f"{path}:{pos + 1}: not an instance line") from None
                yield raw, read_instance_info(row, lambda: f"{name}:{pos + 1}")   # noqa: B023 - at once

    def _index(self, path: Path, in_memory: bool) -> None:
        """A data file's new instances into the instance pages (dataset order), and its lines
        into an in-memory :class:`IdIndex` (when the build's budget of :data:`MEMORY_LINES`
        holds the file) or into the store."""
        memory, first = IdIndex() if in_memory else None, self.store.lines + 1
        for raw, info in self._lines(path):
            index, new = self.store.add_instance(line_digest(raw))
            if new:
                self.instances.add(raw)
            if memory is None:
                self.store.add_line(index, info)
            else:
                memory.add(info.id, (index, info))
        if memory is not None:
            self.memory_lines += memory.lines
        self.memory.append(memory)
        self.spans.append(None if memory is not None else (first, self.store.lines))

    def _span(self, number: int) -> Tuple[int, int]:
        """A file's lines in the store, put there now if it was indexed in memory only (a run
        that mixes it with a file over the budget)."""
        span = self.spans[number]
        if span is None:
            first = self.store.lines + 1
            for raw, info in self._lines(self.paths[number]):
                self.store.add_line(self.store.add_instance(line_digest(raw))[0], info)
            span = self.spans[number] = (first, self.store.lines)
        return span

    def _finder(self, files: List[int]) -> Union[IdIndex, Matcher]:
        """What finds a run dir's transcripts in its files: an in-memory index when every file
        has one, else a :class:`Matcher` over the store."""
        indexes = [index for index in (self.memory[f] for f in files) if index is not None]
        if len(indexes) < len(files):
            return Matcher(self.store, [self._span(f) for f in files])
        if len(indexes) == 1:
            return indexes[0]
        key = tuple(files)
        if key not in self.merged:
            if len(self.merged) >= 4:                   # runs over other file lists: bounded memory
                self.merged.clear()
            self.merged[key] = IdIndex.merged(indexes)
        return self.merged[key]

    # ------------------------------------------------------------ transcripts
    def add_run(self, r: int, info: RunInfo) -> None:
        """Every transcript of a run (its shards in order): a row, its page, the summary. The
        loop is the build's hot path: locals, no property calls (the trace class inline)."""
        count, position = 0, self.position
        seed_sets: Dict[str, None] = {}
        errored, correct, canonical_wrong, no_canonical = (TRACE_CODES[k] for k in (
            "errored", "correct", "canonical_wrong", "no_canonical"))
        accs: Dict[str, List[int]] = {}                    # family -> this run's summary counters
        difficulties, covered = self.difficulties, self.covered
        add_row, add_page = self.rows.add, self.transcripts.add
        for run_dir, manifest in zip(info.dirs, info.manifests, strict=True):
            files = self.dataset(manifest, run_dir)
            finder = self._finder(files)
            find = finder.find
            line = _LastLine()
            for where, transcript in iter_transcripts(run_dir, manifest, line):
                tid = transcript["id"]
                found: Optional[Entry] = find(tid, transcript.get("seed_set"))
                if found is None:
                    self._not_found(tid, transcript.get("seed_set"), finder, files, where)
                index, instance = found                               # type: ignore[misc]
                stats = instance_stats(transcript, instance, where)
                if stats.errored:
                    trace, reason = errored, "error"
                else:                                       # InstanceStats.trace_class, as a code
                    trace = correct if stats.correct else canonical_wrong if stats.canonical_offers else no_canonical
                    reason = str((transcript.get("verdict") or {}).get("reason") or "")
                family, difficulty = instance.family, instance.difficulty
                fmt, nonc, req = stats.format_errors, stats.offers - stats.canonical_offers, stats.requests
                epoch = transcript.get("epoch", 0)
                k, facts = stats.facts_needed, stats.facts_acquired
                add_row((index, r, position, trace, 1 if stats.unreadable else 0, fmt, nonc, req, stats.offers,
                         _short(transcript.get("final_answer")), reason, tid, family, instance.type, difficulty,
                         epoch if type(epoch) is int and epoch >= 0 else 0, k, facts, stats.new_fact_offers,
                         stats.over_asks if stats.blind else 0))
                if index >= len(covered):
                    covered.extend(bytes(max(index + 1 - len(covered), len(covered))))
                covered[index] = 1
                add_page(line.raw)
                position += 1
                count += 1
                seed_sets[instance.seed_set] = None
                acc = accs.get(family)
                if acc is None:
                    acc = accs[family] = self.summary.setdefault((family, r), [0] * len(SUMMARY_COUNTERS))
                acc[1 + trace] += 1
                if trace != errored:
                    acc[0] += 1
                    acc[5] += fmt > 0
                    acc[6] += nonc > 0
                    acc[7] += req
                    acc[8] += facts >= k                     # the k-fact metrics, as score counts them
                    acc[9] += facts * (FACT_SCALE // k) if k else 0   # a blind control needs none
                    acc[10] += stats.new_fact_offers
                    acc[11] += k > 1
                if len(tid) > self.id_chars:
                    self.id_chars = len(tid)
                difficulties.add(difficulty)
        self.position = position
        info.transcripts = count
        info.seed_sets = list(seed_sets)

    def _not_found(self, tid: str, seed_set: Optional[str], finder: Union[IdIndex, Matcher], files: List[int],
                   where: str) -> None:
        """The error scoring's ``Dataset.lookup`` gives for a transcript naming no single instance."""
        if seed_set is None and finder.seed_sets(tid) > 1:
            raise ScoringError(f"{where}: field 'seed_set': id {tid} names instances of several seed sets "
                               "in this run's dataset; the transcript must say which")
        names = ", ".join(str(self.paths[f]) for f in files[:3]) + (
            f" and {len(files) - 3} more" if len(files) > 3 else "")
        raise ScoringError(f"{where}: instance {tid} is in none of the dataset files {names}")

    # ------------------------------------------------------------ the table
    def _chunk(self, number: int, columns: Dict[str, Sequence[Any]]) -> int:
        _write_js(self.data / f"r-{number:04d}.js", "MIRA.page", "r", number, columns)
        return number + 1

    def finish(self, runs: Sequence[RunInfo], page_size: int) -> Dict[str, Any]:
        """Write the last pages, the table's row chunks (table order) and return the index."""
        self.memory.clear()                             # the in-memory indexes are done with
        self.merged.clear()
        self.transcripts.flush()
        self.instances.flush()
        families = sorted({family for family, _ in self.summary})
        fam_index = {f: n for n, f in enumerate(families)}
        chunks = rows = 0
        for batch in self.rows.ordered(self.chunk_rows):             # one chunk per batch
            (inst, run, t, trace, unreadable, fmt, nonc, req, off, ans, reason, tid, family, type_, diff,
             ep, k, facts, newf, over) = zip(*batch)
            columns = dict(zip(ROW_COLUMNS, (run, inst, t, trace, unreadable, fmt, nonc, req, off, ans, reason, tid,
                                             [fam_index[f] for f in family], type_, diff, ep, k, facts, newf,
                                             over),
                               strict=True))
            chunks = self._chunk(chunks, columns)
            rows += len(batch)
        summary = sorted([fam_index[family], r, *acc] for (family, r), acc in self.summary.items())
        return {
            "version": VIEW_VERSION, "page_size": page_size, "chunk_rows": self.chunk_rows,
            "page_starts": {"t": self.transcripts.starts, "i": self.instances.starts},
            "rows": rows, "chunks": chunks, "instances": self.store.instances,
            "run_instances": self.covered.count(1),   # the runs' distinct instances (the header's count)
            "runs": [_run_doc(info) for info in runs], "families": families,
            "trace_classes": list(TRACE_CODES), "difficulties": sorted(self.difficulties),
            "summary": summary, "summary_counters": list(SUMMARY_COUNTERS), "fact_scale": FACT_SCALE,
            "two_fact": any(acc[11] for acc in self.summary.values()), "id_chars": self.id_chars,
        }


def build_view(run_dirs: Sequence[Path], out: Path, page_size: int = DEFAULT_PAGE_SIZE,
               chunk_rows: int = DEFAULT_CHUNK_ROWS, names: Optional[Sequence[str]] = None) -> ViewResult:
    """Write the viewer of ``run_dirs`` (shards of one run merged, as in ``score``) into ``out``,
    streaming: memory does not grow with the number of transcripts. ``names``: ``--name``, as
    ``score`` and ``report`` take it (the same labels in all three)."""
    if page_size < 1:
        raise ViewError(f"page size must be >= 1, got {page_size}")
    if chunk_rows < 1:
        raise ViewError(f"rows per table chunk must be >= 1, got {chunk_rows}")
    runs = group_runs(run_dirs)
    assign_labels(runs)
    name_runs(runs, names)
    with _locked(Path(out)):
        return _build_locked(runs, Path(out), page_size, chunk_rows)


def _build_locked(runs: List[RunInfo], out: Path, page_size: int, chunk_rows: int) -> ViewResult:
    """The only step that writes into ``out`` (under the lock): the data pages as they are
    built, then ``data/index.js`` and ``index.html``, all beside the previous viewer and swapped
    in whole; the runs are grouped and named before it."""
    _prepare_out(out)
    with staged(out) as stage:      # built beside the previous viewer, which a failure keeps whole
        data = stage / DATA_DIR
        data.mkdir()
        enabled = gc.isenabled()
        gc.disable()    # nothing built here holds a cycle; the collector's passes cost more than the work
        try:
            index, pages = _build(runs, data, page_size, chunk_rows)
        finally:
            if enabled:
                gc.enable()
        _write_js(data / "index.js", "MIRA.index", index)
        labels = ", ".join(r.label for r in runs)
        (stage / "index.html").write_text(render_index_html(f"MIRA-Math transcripts: {labels}"), encoding="utf-8")
    html = Path(out) / "index.html"
    return ViewResult(html, len(runs), index["rows"], index["run_instances"], pages)


def _build(runs: Sequence[RunInfo], data: Path, page_size: int, chunk_rows: int) -> Tuple[Dict[str, Any], int]:
    with tempfile.TemporaryDirectory(prefix="mira-view-") as tmp:
        store, rows = RowStore(Path(tmp) / "view.sqlite"), RowSorter(Path(tmp) / "rows.bin")
        try:
            builder = _Builder(data, store, rows, page_size, chunk_rows)
            for r, info in enumerate(runs):
                builder.add_run(r, info)
            index = builder.finish(runs, page_size)
        finally:
            store.close()
            rows.close()
    return index, builder.transcripts.pages + builder.instances.pages + index["chunks"]


__all__ = ["DEFAULT_PAGE_SIZE", "TRACE_CODES", "ViewError", "ViewResult", "build_view",
           "js_literal", "render_index_html"]
