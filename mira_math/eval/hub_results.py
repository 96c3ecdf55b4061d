"""The Hub's evaluation results: ``eval.yaml`` (the dataset repository's benchmark
registration, written by ``publish``) and the ``.eval_results/*.yaml`` files a model repository
carries (``mira-math score --eval-results DIR``), so scores can feed the dataset's leaderboard.

The ``.eval_results`` entry is huggingface_hub's ``EvalResultEntry`` as its
``eval_result_entries_to_yaml`` writes it (``dataset: {id, task_id[, revision]}``, ``value``,
``date``, ``source: {url, name}``, ``notes``); tests parse these files back with
``parse_eval_result_entries``. Task ids are the tasks ``eval.yaml`` declares
(:data:`mira_math.generators.publish.EVAL_TASKS`: the configs ``all``, ``type_a``,
``type_b``); the value is accuracy in [0, 1], 4 places.
Only complete runs over a whole config of the public release qualify: a sample, a limit, an id
list or a held-out split is not the benchmark's number (docs/decisions.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from mira_math.eval.metrics import fixed
from mira_math.eval.scoring import RunScores
from mira_math.common.atomic import write_atomic
from mira_math.generators.card import configs
from mira_math.generators.publish import EVAL_TASKS
from mira_math.generators.seeds import PUBLIC

EVAL_RESULTS_FOLDER = ".eval_results"
HARNESS_NAME = "mira-math"


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def task_id(run: Any) -> Tuple[Optional[str], str]:
    """(the config a run scored in full, else None; the reason it does not qualify)."""
    if not run.complete:
        return None, f"incomplete ({run.missing} missing)"
    selection = run.get("selection") or {}
    if selection.get("ids") or selection.get("limit") or selection.get("sample"):
        return None, "a subset (--ids, --limit or --sample), not a whole config"
    if run.seed_sets != [PUBLIC.name]:
        return None, f"split {run.split}, not the public release {PUBLIC.name}"
    if run.condition != "standard" or run.get("protocol", "paper") != "paper":
        return None, "not the standard condition and paper protocol"
    files = sorted({f for m in run.manifests for f in (m.get("dataset") or {}).get("files", [])})
    families = set(selection.get("families") or [])
    wanted = {f.split("/")[-2] for f in files}
    if families:
        wanted &= families
    for name in EVAL_TASKS:
        if {p.split("/")[-2] for p in configs()[name]} == wanted:
            return name, ""
    return None, f"its families are none of the tasks eval.yaml declares ({', '.join(EVAL_TASKS)})"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:80] or "run"


def entry(scores: RunScores, dataset_id: str, task: str, source_url: Optional[str] = None,
          revision: Optional[str] = None) -> Dict[str, Any]:
    """One ``.eval_results`` entry (the dict ``eval_result_entries_to_yaml`` would produce)."""
    run = scores.run
    accuracy = scores.group("all", "all").accuracy  # type: ignore[union-attr]
    dataset: Dict[str, Any] = {"id": dataset_id, "task_id": task}
    if revision:
        dataset["revision"] = revision
    out: Dict[str, Any] = {"dataset": dataset, "value": fixed(accuracy) if accuracy is not None else "0"}
    started = run.manifests[0].get("started_at")
    if started:
        out["date"] = started
    if source_url:
        out["source"] = {"url": source_url, "name": HARNESS_NAME}
    out["notes"] = (f"solver {run.get('solver')}; responder {run.responder_label}; regime "
                    f"{run.regime}; decoding {run.decoding}")
    return out


def render(entries: Sequence[Dict[str, Any]]) -> str:
    """Block YAML for entries; the value is written as a plain decimal (a YAML float)."""
    lines: List[str] = []
    for e in entries:
        lines.append("- dataset:")
        lines += [f"    {k}: {_q(v)}" for k, v in e["dataset"].items()]
        lines.append(f"  value: {e['value']}")
        if "date" in e:
            lines.append(f"  date: {_q(e['date'])}")
        if "source" in e:
            lines.append("  source:")
            lines += [f"    {k}: {_q(v)}" for k, v in e["source"].items()]
        lines.append(f"  notes: {_q(e['notes'])}")
    return "\n".join(lines) + "\n"


def write_eval_results(scores: Sequence[RunScores], out: Path, dataset_id: str,
                       source_url: Optional[str] = None, revision: Optional[str] = None
                       ) -> Tuple[List[Path], List[str]]:
    """One ``OUT/.eval_results/mira-math-<task>-<run>.yaml`` per qualifying run; returns the
    files written and a line per run left out, with its reason."""
    folder = out / EVAL_RESULTS_FOLDER
    written: List[Path] = []
    skipped: List[str] = []
    for s in scores:
        task, why = task_id(s.run)
        if task is None:
            skipped.append(f"{s.label}: {why}")
            continue
        folder.mkdir(parents=True, exist_ok=True)
        name = f"mira-math-{task}-{_slug(s.run.get('solver', ''))}-{s.run.regime}-{s.run.run_hash[:8]}"
        path = folder / f"{name}.yaml"
        write_atomic(path, render([entry(s, dataset_id, task, source_url, revision)]).encode("utf-8"))
        written.append(path)
    return written, skipped
