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

import json
import re
import shutil
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from mira_math.eval.rundir import RunRecords
from mira_math.eval.scoring import (InstanceInfo, assign_labels, group_runs, instance_stats, iter_transcripts,
                          load_dataset, resolve_data_file)
from mira_math.generators.errors import MiraError
from mira_math.generators.schema import Instance, read_jsonl

VIEW_VERSION = "1"
DATA_DIR = "data"
DEFAULT_PAGE_SIZE = 100          # transcripts (or instances) per lazily loaded data file
TRACE_CODES = {"no_canonical": 0, "canonical_wrong": 1, "correct": 2, "errored": 3}
_KEYWORD_RE = re.compile(r"(REQUEST|ANSWER)\s*(?:\*\*|__)?\s*[:：]", re.IGNORECASE)
_OWN_FILES = re.compile(r"^(index|[ti]-\d{4,})\.js$")


def load_runs(run_dirs: Sequence[Path]) -> List[RunRecords]:
    """Every transcript of every run, with its instance; the checks are scoring's own
    (manifest, dataset checksum, transcript fields), so the viewer shows what ``score`` scores."""
    infos = group_runs(run_dirs)
    assign_labels(infos)
    runs = []
    for info in infos:
        records: List[Tuple[Dict[str, Any], Instance]] = []
        for run_dir, manifest in zip(info.dirs, info.manifests):
            dataset = load_dataset(manifest, run_dir)
            full: Dict[Tuple[str, str], Instance] = {}
            for name in (manifest.get("dataset") or {}).get("files") or []:
                for inst in read_jsonl(resolve_data_file(name, run_dir)):
                    full.setdefault((inst.seed_set, inst.id), inst)
            for where, row in iter_transcripts(run_dir, manifest):
                key = dataset.lookup(row["id"], row.get("seed_set"), where).key
                records.append((row, full[key]))
                if key[0] not in info.seed_sets:
                    info.seed_sets.append(key[0])
        info.transcripts = len(records)
        runs.append(RunRecords(info, records))
    return runs


def _stats(transcript: Mapping[str, Any], inst: Instance):
    """Scoring's per-transcript summary of one transcript."""
    info = InstanceInfo(inst.seed_set, inst.id, inst.family, inst.type, inst.difficulty,
                        inst.candidate_answers, frozenset(h.constraint for h in inst.hints))
    return instance_stats(transcript, info)



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


def _annotated(transcript: Mapping[str, Any], canonical_lines: Sequence[str]) -> Dict[str, Any]:
    """The transcript with display hints: the action's span in each solver turn and, per
    responder turn, whether the quoted line is canonical by the dataset (as scoring decides)."""
    out = dict(transcript)
    turns = []
    for turn in transcript.get("turns") or []:
        turn = dict(turn)
        if turn.get("role") == "solver":
            turn["_span"] = action_span(turn.get("raw"), str(turn.get("action")), str(turn.get("content") or ""))
        elif turn.get("role") == "responder":
            turn["_canonical"] = turn.get("decision") == "offer" and turn.get("quoted_constraint") in canonical_lines
        turns.append(turn)
    out["turns"] = turns
    return out


def _instance_doc(inst: Instance) -> Dict[str, Any]:
    return {
        "id": inst.id, "family": inst.family, "type": inst.type, "difficulty": inst.difficulty,
        "level": inst.level, "seed_set": inst.seed_set, "generator_version": inst.generator_version,
        "budget": inst.budget,
        "view": {"context": inst.view.context, "facts": list(inst.view.facts),
                 "question": inst.view.question, "domain": inst.view.domain},
        "responder": list(inst.responder),
        "hints": [{"slot": h.slot, "constraint": h.constraint, "value": h.value} for h in inst.hints],
        "answer": {"type": inst.answer.type, "value": inst.answer.value,
                   "components": list(inst.answer.components)},
        "candidate_answers": inst.candidate_answers,
        "latent": inst.latent,
    }


def _short(text: Any, limit: int = 48) -> str:
    if text is None:
        return ""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _run_doc(run: RunRecords) -> Dict[str, Any]:
    info = run.info
    models = (info.manifests[0].get("models") or {}) if info.manifests else {}
    return {"label": info.label, "solver": info.get("solver"), "responder": info.get("responder"),
            "regime": info.regime, "condition": info.condition, "protocol": info.get("protocol"),
            "split": info.split, "decoding": info.decoding, "run_hash": info.run_hash,
            "dirs": [str(d) for d in info.dirs], "expected": info.expected,
            "transcripts": len(run.records), "models": models}


# ------------------------------------------------------------------ building

@dataclass
class _Tables:
    """Column-wise rows (one per transcript) and the deduplicated instances they point to."""

    instances: List[Instance]
    rows: Dict[str, List[Any]]
    transcripts: List[Dict[str, Any]]


def _collect(runs: Sequence[RunRecords]) -> _Tables:
    inst_index: Dict[str, int] = {}            # canonical line -> position
    instances: List[Instance] = []
    entries: List[Tuple[int, int, Dict[str, Any], Instance]] = []
    for r, run in enumerate(runs):
        for transcript, inst in run.records:
            line = inst.to_json_line()
            if line not in inst_index:
                inst_index[line] = len(instances)
                instances.append(inst)
            entries.append((inst_index[line], r, transcript, inst))
    entries.sort(key=lambda e: (e[0], e[1]))   # instance order (first run's dataset order), then run
    columns = ("run", "inst", "trace", "unreadable", "fmt", "nonc", "req", "off", "ans", "reason")
    rows: Dict[str, List[Any]] = {c: [] for c in columns}
    transcripts = []
    for i, r, transcript, inst in entries:
        stats = _stats(transcript, inst)
        verdict = transcript.get("verdict") or {}
        reason = str(verdict.get("reason") or "")
        rows["run"].append(r)
        rows["inst"].append(i)
        rows["trace"].append(TRACE_CODES["errored" if stats.errored else stats.trace_class])
        rows["unreadable"].append(1 if stats.unreadable else 0)
        rows["fmt"].append(stats.format_errors)
        rows["nonc"].append(stats.noncanonical_offers)
        rows["req"].append(stats.requests)
        rows["off"].append(stats.offers)
        rows["ans"].append(_short(transcript.get("final_answer")))
        rows["reason"].append("error" if stats.errored else reason)
        transcripts.append(_annotated(transcript, [h.constraint for h in inst.hints]))
    return _Tables(instances, rows, transcripts)


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
    return resources.files("mira_math.eval.view").joinpath("assets", name).read_text(encoding="utf-8")


def render_index_html(title: str) -> str:
    """The page: the template with its stylesheet and script inlined (no external asset)."""
    html = _asset("index.html")
    from html import escape

    return (html.replace("{{TITLE}}", escape(title))
                .replace("/*{{CSS}}*/", _asset("viewer.css"))
                .replace("/*{{JS}}*/", _asset("viewer.js")))


def _write_js(path: Path, call: str, *args: Any) -> None:
    path.write_text(f"{call}({','.join(js_literal(a) for a in args)});\n", encoding="utf-8")


def build_view(run_dirs: Sequence[Path], out: Path, page_size: int = DEFAULT_PAGE_SIZE) -> ViewResult:
    """Write the viewer of ``run_dirs`` (shards of one run merged, as in ``score``) into ``out``."""
    if page_size < 1:
        raise ViewError(f"page size must be >= 1, got {page_size}")
    runs = load_runs(run_dirs)
    tables = _collect(runs)
    data = _prepare_out(Path(out))
    t_pages = (len(tables.transcripts) + page_size - 1) // page_size
    i_pages = (len(tables.instances) + page_size - 1) // page_size
    for p in range(t_pages):
        _write_js(data / f"t-{p:04d}.js", "MIRA.page", "t", p,
                  tables.transcripts[p * page_size:(p + 1) * page_size])
    for p in range(i_pages):
        _write_js(data / f"i-{p:04d}.js", "MIRA.page", "i", p,
                  [_instance_doc(i) for i in tables.instances[p * page_size:(p + 1) * page_size]])
    families = sorted({i.family for i in tables.instances})
    fam_index = {f: n for n, f in enumerate(families)}
    index = {
        "version": VIEW_VERSION,
        "page_size": page_size,
        "runs": [_run_doc(r) for r in runs],
        "families": families,
        "trace_classes": list(TRACE_CODES),
        "instances": {"id": [i.id for i in tables.instances],
                      "family": [fam_index[i.family] for i in tables.instances],
                      "type": [i.type for i in tables.instances],
                      "difficulty": [i.difficulty for i in tables.instances]},
        "rows": tables.rows,
    }
    _write_js(data / "index.js", "MIRA.index", index)
    labels = ", ".join(r.info.label for r in runs)
    html = Path(out) / "index.html"
    html.write_text(render_index_html(f"MIRA-Math transcripts: {labels}"), encoding="utf-8")
    return ViewResult(html, len(runs), len(tables.transcripts), len(tables.instances), t_pages + i_pages)


__all__ = ["DEFAULT_PAGE_SIZE", "TRACE_CODES", "ViewError", "ViewResult", "action_span", "build_view",
           "js_literal", "render_index_html"]
