"""Run folders for the viewer tests: the demo runs, and a synthetic 10,000-transcript run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mira_math.cli.main import main

XSS = '<img src="http://example.invalid/x.png" onerror="window.__xss=1"></script><script>window.__xss=2</script>'


@pytest.fixture(scope="session")
def demo_runs(tmp_path_factory) -> dict:
    """The reference and noask demo runs; noask's first transcript is given hostile text."""
    root = tmp_path_factory.mktemp("runs")
    for solver in ("reference", "noask"):
        assert main(["eval", "--solver", solver, "--out", str(root / solver)]) == 0
    path = root / "noask" / "transcripts.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows[0]["turns"][0]["raw"] = XSS + "\nANSWER: 0"
    rows[1]["turns"] = [   # a format error, then an offer of a line that is no canonical hint
        {"raw": "Thinking...", "action": "format_error", "content": "", "final_turn": False,
         "finish_reason": "length", "meta": {}, "role": "solver"},
        {"raw": "REQUEST: the evidence?", "action": "request", "content": "the evidence?", "final_turn": False,
         "finish_reason": "stop", "meta": {}, "role": "solver"},
        {"request": "the evidence?", "decision": "offer", "quoted_constraint": "P(E) = 1/3", "canonical": False,
         "shown": "P(E) = 1/3", "raw": None, "parsed": None, "hint": None, "errors": [], "meta": {},
         "role": "responder"}] + rows[1]["turns"]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return {"root": root, "reference": root / "reference", "noask": root / "noask", "first": rows[0]["id"]}


def synthetic_run(source: Path, out: Path, total: int) -> Path:
    """A run of ``total`` transcripts: the source run's transcripts and instances repeated under
    new ids (``ID~k``), with a dataset file of its own; every third copy fails to ask."""
    manifest = json.loads((source / "manifest.json").read_text(encoding="utf-8"))
    instances = []
    for name in manifest["dataset"]["files"]:
        instances += [json.loads(line) for line in Path(name).read_text(encoding="utf-8").splitlines()]
    by_id = {i["id"]: i for i in instances}
    transcripts = [json.loads(line) for line in (source / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()]
    out.mkdir(parents=True)
    data, rows = [], []
    for n in range(total):
        t = dict(transcripts[n % len(transcripts)])
        copy = n // len(transcripts)
        new_id = f"{t['id']}~{copy}"
        data.append(json.dumps({**by_id[t["id"]], "id": new_id}, ensure_ascii=False))
        t["id"] = new_id
        t["solver"] = "synthetic"   # the manifest says so (scoring checks each line against it)
        if n % 3 == 2:
            t["turns"] = [{"raw": "I think it is\nANSWER: ???", "action": "answer", "content": "???",
                           "final_turn": False, "finish_reason": "stop", "meta": {}, "role": "solver"}]
            t["final_answer"] = "???"
            t["verdict"] = {**t["verdict"], "correct": False, "parsed": None, "reason": "unreadable: no number"}
        rows.append(json.dumps(t, ensure_ascii=False))
    (out / "data.jsonl").write_text("\n".join(data) + "\n", encoding="utf-8")
    manifest["dataset"] = {"files": [str(out / "data.jsonl")], "instances": total}
    manifest["config"] = {**manifest["config"], "solver": "synthetic"}
    manifest["run_hash"] = "synthetic-" + manifest["run_hash"]
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (out / "transcripts.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return out


@pytest.fixture(scope="session")
def big_run(demo_runs, tmp_path_factory) -> Path:
    return synthetic_run(demo_runs["reference"], tmp_path_factory.mktemp("big") / "run", 10_000)


