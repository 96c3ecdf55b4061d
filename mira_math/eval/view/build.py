"""``mira-math view``: a static, self-contained HTML transcript viewer.

The output folder holds ``index.html`` (the page, its CSS and JS inlined) and ``data/``: one
``index.js`` with a compact, column-wise table of every transcript (run, instance, trace
class, flags) and pages of full transcripts (``t-NNNN.js``) and instances (``i-NNNN.js``)
that the page loads on demand with ``<script>`` tags, since browsers refuse ``fetch`` of
local files opened from ``file://``. Nothing is fetched from the network; every string is
data, rendered with ``textContent`` by the page.

Per-instance facts (trace class, format errors, noncanonical offers) come from
:func:`eval.scoring.instance_stats`, so the viewer and ``score`` agree by construction.
"""

from __future__ import annotations

import gc
import hashlib
import json
import re
import shutil
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from mira_math.eval.scoring import (MANIFEST, InstanceInfo, RunInfo, ScoringError, assign_labels, group_runs,
                                    instance_stats, iter_transcripts, resolve_data_file)
from mira_math.eval.view.store import BATCH, RowStore, first_by_seed_set, line_digest
from mira_math.generators.errors import MiraError
from mira_math.generators.schema import instance_from_dict, loads_line

VIEW_VERSION = "2"
DATA_DIR = "data"
DEFAULT_PAGE_SIZE = 100          # transcripts (or instances) per lazily loaded data file
DEFAULT_CHUNK_ROWS = 5_000       # table rows per chunk: the page opens on the first one
ROW_COLUMNS = ("run", "inst", "t", "trace", "unreadable", "fmt", "nonc", "req", "off", "ans", "reason",
               "id", "fam", "type", "diff")
TRACE_CODES = {"no_canonical": 0, "canonical_wrong": 1, "correct": 2, "errored": 3}
_KEYWORD_RE = re.compile(r"(REQUEST|ANSWER)\s*(?:\*\*|__)?\s*[:：]", re.IGNORECASE)
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


def _utf16(text: str, index: int) -> int:
    """A Python (code point) offset as a JavaScript (UTF-16) offset."""
    return len(text[:index].encode("utf-16-le")) // 2


def action_span(raw: Any, action: str, content: str) -> Optional[List[int]]:
    """Where the parsed action sits in the solver's raw text, as UTF-16 [start, end): from
    the last ``REQUEST:``/``ANSWER:`` keyword through the action text after it. ``None`` for a
    format error or when the text cannot be located (the page then highlights nothing)."""
    if not isinstance(raw, str) or action not in ("request", "answer") or not content:
        return None
    keywords = list(_KEYWORD_RE.finditer(raw))
    start = keywords[-1].start() if keywords else 0
    pos = raw.find(content, start)
    if pos < 0:
        pos = raw.rfind(content)
        if pos < 0:
            return None
        start = raw.rfind("\n", 0, pos) + 1
    return [_utf16(raw, start), _utf16(raw, pos + len(content))]


def _annotations(transcript: Mapping[str, Any], canonical_lines: Sequence[str]) -> List[Any]:
    """Display hints, one per turn: a solver turn's action span, a responder turn's "the quoted
    line is canonical by the dataset" (as scoring decides). The page sets them on the turns as
    ``_span`` and ``_canonical``; the transcript itself is written as read."""
    out: List[Any] = []
    for turn in transcript.get("turns") or []:
        role = turn.get("role") if isinstance(turn, dict) else None
        if role == "solver":
            out.append(action_span(turn.get("raw"), str(turn.get("action")), str(turn.get("content") or "")))
        elif role == "responder":
            out.append(turn.get("decision") == "offer" and turn.get("quoted_constraint") in canonical_lines)
        else:
            out.append(None)
    return out


def _raw_instance_doc(raw: Mapping[str, Any]) -> Dict[str, Any]:
    """An instance line as the page shows it, straight from its JSON (the run's dataset checksum
    vouches for the record; a line without these fields is named by ``instance_from_dict``)."""
    view, answer = raw["view"], raw["answer"]
    return {
        "id": raw["id"], "family": raw["family"], "type": raw["type"], "difficulty": raw["difficulty"],
        "level": raw["level"], "seed_set": raw["seed_set"], "generator_version": raw["generator_version"],
        "budget": 3 * raw["difficulty"],
        "view": {"context": view["context"], "facts": list(view["facts"]),
                 "question": view["question"], "domain": view["domain"]},
        "responder": list(raw["responder"]),
        "hints": [{"slot": h["slot"], "constraint": h["constraint"], "value": h["value"]} for h in raw["hints"]],
        "answer": {"type": answer["type"], "value": answer["value"], "components": list(answer["components"])},
        "candidate_answers": raw["candidate_answers"],
        "latent": raw["latent"],
    }


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

def _prepare_out(out: Path) -> Path:
    """``out`` is created, or is a previous viewer folder whose data files are replaced."""
    if out.exists() and not out.is_dir():
        raise ViewError(f"{out}: exists and is not a folder")
    data = out / DATA_DIR
    if out.is_dir():
        foreign = [p.name for p in out.iterdir() if p.name not in ("index.html", DATA_DIR)]
        if data.exists():
            foreign += [f"{DATA_DIR}/{p.name}" for p in data.iterdir() if not _OWN_FILES.match(p.name)]
        if foreign:
            raise ViewError(f"{out}: holds {sorted(foreign)[0]}, which the viewer did not write; "
                            "choose an empty or new --out")
        if data.exists():
            shutil.rmtree(data)
    data.mkdir(parents=True)
    return data


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
    page is in memory. A record is its JSON line as read (it parsed as JSON, and JSON is a
    JavaScript expression; these files are loaded by ``<script src>``, never inlined, so no text
    in them can close a script element), plus an encoded annotation, if any."""

    def __init__(self, data: Path, kind: str, size: int):
        self.data, self.kind, self.size = data, kind, size
        self.pages = 0
        self.items: List[str] = []
        self.notes: List[Any] = []

    def add(self, raw: bytes, note: Any = None) -> None:
        self.items.append(raw.decode("utf-8").strip())
        self.notes.append(note)
        if len(self.items) >= self.size:
            self.flush()

    def flush(self) -> None:
        if self.items:
            path = self.data / f"{self.kind}-{self.pages:04d}.js"
            path.write_text(f"MIRA.page({js_literal(self.kind)},{self.pages},[{','.join(self.items)}],"
                            f"{js_literal(self.notes)});\n", encoding="utf-8")
            self.pages += 1
            self.items, self.notes = [], []


class _LastLine:
    """Passed to scoring's ``iter_transcripts`` as its digest: it is handed each raw line just
    before that line is yielded, so the page can carry the line as read."""

    raw = b""

    def update(self, raw: bytes) -> None:
        self.raw = raw


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class _Builder:
    """One pass over every run's transcripts: transcript and instance pages are written as they
    come, one small row per transcript goes to the :class:`RowStore`, and the per-family summary
    is a handful of counters."""

    def __init__(self, data: Path, store: RowStore, page_size: int, chunk_rows: int):
        self.data, self.store, self.chunk_rows = data, store, chunk_rows
        self.transcripts = _Pager(data, "t", page_size)
        self.instances = _Pager(data, "i", page_size)
        self.files: Dict[Tuple[str, str], int] = {}        # (resolved path, sha256) -> file number
        self.paths: List[Path] = []
        self.summary: Dict[Tuple[str, int], List[int]] = {}  # (family, run) -> n, t0..t3, fmt, nonc, req
        self.difficulties: set = set()
        self.position = 0                                    # transcripts written so far

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
            hexdigest = _sha256(path)
            digest.update(bytes.fromhex(hexdigest))
            key = (str(path.resolve()), hexdigest)
            if key not in self.files:
                self.files[key] = len(self.paths)
                self.paths.append(path)
                self._index(path, self.files[key])
            numbers.append(self.files[key])
        expected = dataset.get("checksum")
        if expected and digest.hexdigest() != expected:
            raise ScoringError(f"{run_dir / MANIFEST}: the dataset files {', '.join(names)} are not the "
                               "ones this run used (checksum differs)")
        return numbers

    def _index(self, path: Path, number: int) -> None:
        """Every line of a dataset file: its instance (new ones written to the instance pages, in
        dataset order) and where its id is found."""
        batch = []
        with path.open("rb") as fh:
            for pos, raw in enumerate(fh):
                if not raw.strip():
                    continue
                row = loads_line(raw, str(path), pos + 1)
                try:
                    doc = _raw_instance_doc(row)
                except (KeyError, TypeError, AttributeError):
                    instance_from_dict(row, str(path), pos + 1)        # names the field
                    raise ScoringError(f"{path}:{pos + 1}: not an instance line") from None
                index, new = self.store.add_instance(
                    line_digest(raw), doc["id"], doc["family"], doc["type"], doc["difficulty"], doc["seed_set"],
                    doc["candidate_answers"], [h["constraint"] for h in doc["hints"]])
                if new:
                    self.instances.add(raw)
                batch.append((number, pos, doc["seed_set"], doc["id"], index))
                if len(batch) >= BATCH:
                    self.store.add_lines(batch)
                    batch = []
        self.store.add_lines(batch)

    def lookup(self, tid: str, seed_set: Optional[str], files: List[int], where: str) -> Tuple[Any, ...]:
        """The instance a transcript names, found as scoring's ``Dataset.lookup`` finds it:
        (index, family, type, difficulty, seed set, candidates, hints)."""
        first = first_by_seed_set(self.store.candidates(tid, files), files)
        if seed_set is not None:
            found = first.get(seed_set)
        elif len(first) > 1:
            raise ScoringError(f"{where}: field 'seed_set': id {tid} names instances of several seed sets "
                               "in this run's dataset; the transcript must say which")
        else:
            found = next(iter(first.values()), None)
        if found is None:
            names = ", ".join(str(self.paths[f]) for f in files[:3]) + (
                f" and {len(files) - 3} more" if len(files) > 3 else "")
            raise ScoringError(f"{where}: instance {tid} is in none of the dataset files {names}")
        _, _, seed, index, family, type_, difficulty, cand, hints = found
        return index, family, type_, difficulty, seed, cand, json.loads(hints)

    # ------------------------------------------------------------ transcripts
    def add_run(self, r: int, info: RunInfo) -> None:
        count = 0
        seed_sets: Dict[str, None] = {}
        for run_dir, manifest in zip(info.dirs, info.manifests, strict=True):
            files = self.dataset(manifest, run_dir)
            line = _LastLine()
            for where, transcript in iter_transcripts(run_dir, manifest, line):
                index, family, type_, difficulty, seed_set, cand, hints = self.lookup(
                    transcript["id"], transcript.get("seed_set"), files, where)
                seed_sets[seed_set] = None
                stats = instance_stats(transcript, InstanceInfo(seed_set, transcript["id"], family, type_, difficulty,
                                                                cand or None, frozenset(hints)), where)
                trace = TRACE_CODES["errored" if stats.errored else stats.trace_class]
                reason = "error" if stats.errored else str((transcript.get("verdict") or {}).get("reason") or "")
                self.store.add_row((index, r, self.position, trace, 1 if stats.unreadable else 0,
                                    stats.format_errors, stats.noncanonical_offers, stats.requests, stats.offers,
                                    _short(transcript.get("final_answer")), reason))
                self.transcripts.add(line.raw, _annotations(transcript, hints))
                self.position += 1
                count += 1
                acc = self.summary.setdefault((family, r), [0] * 8)
                acc[1 + trace] += 1
                if trace != TRACE_CODES["errored"]:
                    acc[0] += 1
                    acc[5] += stats.format_errors > 0
                    acc[6] += stats.noncanonical_offers > 0
                    acc[7] += stats.requests
                self.difficulties.add(difficulty)
        info.transcripts = count
        info.seed_sets = list(seed_sets)

    # ------------------------------------------------------------ the table
    def _chunk(self, number: int, columns: Dict[str, List[Any]]) -> int:
        _write_js(self.data / f"r-{number:04d}.js", "MIRA.page", "r", number, columns)
        return number + 1

    def finish(self, runs: Sequence[RunInfo], page_size: int) -> Dict[str, Any]:
        """Write the last pages, the table's row chunks (table order) and return the index."""
        self.transcripts.flush()
        self.instances.flush()
        families = sorted({family for family, _ in self.summary})
        fam_index = {f: n for n, f in enumerate(families)}
        chunks = 0
        columns: Dict[str, List[Any]] = {c: [] for c in ROW_COLUMNS}
        rows = 0
        for row in self.store.ordered_rows():
            inst, run, t, trace, unreadable, fmt, nonc, req, off, ans, reason, tid, family, type_, difficulty = row
            for name, value in zip(ROW_COLUMNS, (run, inst, t, trace, unreadable, fmt, nonc, req, off, ans, reason,
                                                 tid, fam_index[family], type_, difficulty), strict=True):
                columns[name].append(value)
            rows += 1
            if rows % self.chunk_rows == 0:
                chunks = self._chunk(chunks, columns)
                columns = {c: [] for c in ROW_COLUMNS}
        if columns["run"]:
            chunks = self._chunk(chunks, columns)
        summary = sorted([fam_index[family], r, *acc] for (family, r), acc in self.summary.items())
        return {
            "version": VIEW_VERSION, "page_size": page_size, "chunk_rows": self.chunk_rows,
            "rows": rows, "chunks": chunks, "instances": self.store.instances,
            "runs": [_run_doc(info) for info in runs], "families": families,
            "trace_classes": list(TRACE_CODES), "difficulties": sorted(self.difficulties),
            "summary": summary,
        }


def build_view(run_dirs: Sequence[Path], out: Path, page_size: int = DEFAULT_PAGE_SIZE,
               chunk_rows: int = DEFAULT_CHUNK_ROWS) -> ViewResult:
    """Write the viewer of ``run_dirs`` (shards of one run merged, as in ``score``) into ``out``,
    streaming: memory does not grow with the number of transcripts."""
    if page_size < 1:
        raise ViewError(f"page size must be >= 1, got {page_size}")
    if chunk_rows < 1:
        raise ViewError(f"rows per table chunk must be >= 1, got {chunk_rows}")
    runs = group_runs(run_dirs)
    assign_labels(runs)
    data = _prepare_out(Path(out))
    enabled = gc.isenabled()
    gc.disable()        # nothing built here holds a cycle; the collector's passes cost more than the work
    try:
        index, pages = _build(runs, data, page_size, chunk_rows)
    finally:
        if enabled:
            gc.enable()
    _write_js(data / "index.js", "MIRA.index", index)
    labels = ", ".join(r.label for r in runs)
    html = Path(out) / "index.html"
    html.write_text(render_index_html(f"MIRA-Math transcripts: {labels}"), encoding="utf-8")
    return ViewResult(html, len(runs), index["rows"], index["instances"], pages)


def _build(runs: Sequence[RunInfo], data: Path, page_size: int, chunk_rows: int) -> Tuple[Dict[str, Any], int]:
    with tempfile.TemporaryDirectory(prefix="mira-view-") as tmp:
        store = RowStore(Path(tmp) / "view.sqlite")
        try:
            builder = _Builder(data, store, page_size, chunk_rows)
            for r, info in enumerate(runs):
                builder.add_run(r, info)
            index = builder.finish(runs, page_size)
        finally:
            store.close()
    return index, builder.transcripts.pages + builder.instances.pages + index["chunks"]


__all__ = ["DEFAULT_PAGE_SIZE", "TRACE_CODES", "ViewError", "ViewResult", "action_span", "build_view",
           "js_literal", "render_index_html"]
