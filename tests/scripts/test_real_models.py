"""scripts/real_models.py's bookkeeping: the subset, the per-run figures, kept runs."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _module():
    spec = importlib.util.spec_from_file_location("real_models", ROOT / "scripts" / "real_models.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["real_models"] = module   # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_subset_is_the_first_instance_of_every_family_and_difficulty():
    rm = _module()
    ids = rm.subset_ids(ROOT / "mira-math")
    assert len(ids) == 66 == len(set(ids)) and ids == sorted(ids)
    rows = [json.loads(line) for path in (ROOT / "mira-math" / "data").glob("*/*.jsonl")
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    blocks = {(r["family"], r["difficulty"]) for r in rows if r["id"] in ids}
    assert len(blocks) == 66


def _transcripts(tmp_path: Path) -> Path:
    turns_a = [
        {"role": "solver", "action": "format_error", "raw": "I think\nthe answer",
         "meta": {"latency_s": 2.0, "usage": {"completion_tokens": 40}}},
        {"role": "solver", "action": "request", "raw": "REQUEST: x?",
         "meta": {"latency_s": 1.0, "usage": {"completion_tokens": 10}}},
        {"role": "responder", "raw": '{"type": "decline"}', "errors": ["json parse error: ..."], "meta": {"fallback": True,
                                                                           "latency_s": 0.5}},
    ]
    rows = [{"id": "a", "turns": turns_a, "ended_by": "budget", "verdict": None},
            {"id": "b", "turns": [], "ended_by": "answer",
             "verdict": {"reason": "unreadable answer"}, "error": {"message": "boom"}}]
    run = tmp_path / "run"
    run.mkdir()
    (run / "transcripts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run


def test_figures_count_every_outcome_and_harness_time_depends_on_where_the_model_ran(tmp_path):
    rm = _module()
    run = _transcripts(tmp_path)
    stdout = "noise\nbuild/x: 2 run (0 already finished), 0/2 correct, 1 errors, 2 solver calls, 10.00 s\n"
    local = rm.figures("vllm-x", run, 30.0, 25.0, stdout, remote=False, commit="abc")
    assert (local.instances, local.format_errors, local.no_answer, local.unreadable,
            local.responder_parse_failures, local.responder_fallbacks, local.errors) == (2, 1, 1, 1, 1, 1, 1)
    assert local.completion_tokens == 50 and local.model_s == 3.5 and local.run_s == 10.0
    assert local.harness_s() == 6.5                  # the loop minus model time
    assert local.sample == "I think the answer"
    scripted = rm.figures("reference-x", run, 30.0, 4.0, stdout, remote=True, commit="abc")
    assert scripted.sample == '{"type": "decline"}'   # the model wrote the responder's text
    remote = rm.figures("openai-x", run, 30.0, 4.25, stdout, remote=True, commit="abc")
    assert remote.harness_s() == 4.25                # overlapping calls: the client's CPU
    assert "abc" in remote.row() and "4.2" in remote.row()


def test_a_kept_entry_from_before_cpu_time_was_recorded_still_loads(tmp_path):
    rm = _module()
    old = {"name": "vllm-x", "instances": 1, "wall_s": 1.0, "run_s": 1.0, "model_s": 0.5,
           "completion_tokens": 3, "format_errors": 0, "no_answer": 0, "unreadable": 0,
           "responder_parse_failures": 0, "responder_fallbacks": 0, "errors": 0, "sample": ""}
    figures = rm.RunFigures(**old)
    assert figures.cpu_s is None and figures.commit == "" and figures.harness_s() == 0.5
    assert rm.RunFigures(**dict(old, remote=True)).row().split()[5] == "-"
