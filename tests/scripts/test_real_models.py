"""scripts/real_models.py's bookkeeping: the subset, the per-run figures, kept runs."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from mira_math.generators.layout import DEFAULT_RELEASE as RELEASE

ROOT = Path(__file__).resolve().parents[2]


def _module():
    spec = importlib.util.spec_from_file_location("real_models", ROOT / "scripts" / "real_models.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["real_models"] = module   # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _release_rows() -> dict:
    return {json.loads(line)["id"]: json.loads(line) for path in (RELEASE / "data").glob("*/test.jsonl")
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


def test_subset_is_the_first_instance_of_every_family_and_difficulty(release_info):
    rm = _module()
    ids = rm.subset_ids(RELEASE)
    n_blocks = len(release_info["families"]) * len(release_info["difficulties"])
    assert len(ids) == n_blocks == len(set(ids)) and ids == sorted(ids)
    rows = _release_rows()
    blocks = {(rows[i]["family"], rows[i]["difficulty"]) for i in ids}
    assert len(blocks) == n_blocks
    for i in ids:   # the first of its block
        assert i == min(k for k, r in rows.items()
                        if (r["family"], r["difficulty"]) == (rows[i]["family"], rows[i]["difficulty"]))


def _transcripts(tmp_path: Path) -> Path:
    turns_a = [
        {"role": "solver", "action": "format_error", "raw": "I think\nthe answer",
         "meta": {"latency_s": 2.0, "usage": {"completion_tokens": 40}}},
        {"role": "solver", "action": "request", "raw": "REQUEST: x?",
         "speaker_cut": {"line": 2, "speaker": "Information holder: x = 1", "dropped": "..."},
         "meta": {"latency_s": 1.0, "usage": {"completion_tokens": 10}}},
        {"role": "solver", "action": "request", "raw": "REQUEST: y?",
         "meta": {"latency_s": 0.0, "stop_reason": "\nInformation holder:"}},
        {"role": "solver", "action": "request", "raw": "REQUEST: z?", "meta": {"stop_reason": 7}},
        {"role": "responder", "raw": '{"type": "decline"}', "errors": ["json parse error: ..."],
         "meta": {"fallback": True, "latency_s": 0.5}},
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
    assert local.other_speaker == 2                  # cut once, stopped at the holder's turn once
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


def test_the_qwen_subset_is_one_instance_of_each_familys_lowest_difficulty_and_a_handful_spreads(counts):
    rm = _module()
    ids = rm.family_subset(RELEASE)
    rows = _release_rows()
    assert len(ids) == len(counts.families) == len({rows[i]["family"] for i in ids}) and ids == sorted(ids)
    assert {rows[i]["difficulty"] for i in ids} == {1}
    assert len(rm.family_subset(RELEASE, 2)) == 2 * len(counts.families)
    few = rm.handful(ids, 4)
    assert len(few) == 4 and few[0] == ids[0] and few == sorted(set(few)) and set(few) <= set(ids)
    assert rm.handful(ids[:3], 4) == ids[:3]
    # evenly spread: 22 ids, 4 picks -> every 5.5th
    assert rm.handful([f"{k:02d}" for k in range(22)], 4) == ["00", "05", "11", "16"]


def test_the_plan_runs_each_model_once_per_path_with_transformers_on_the_handful(tmp_path):
    rm = _module()
    plan = rm.build_plan({"smollm2": tmp_path / "s", "qwen": tmp_path / "q"}, 4096)
    names = [name for name, _, _, _ in plan]
    assert len(names) == len(set(names)) == 14
    qwen = {name: (subset, extra) for name, key, subset, extra in plan if key == "qwen"}
    assert set(qwen) == {"qwen-vllm-rules-zs", "qwen-vllm-llmsame-zs", "qwen-vllm-rules-4s",
                         "qwen-vllm-llmsame-4s", "qwen-openai-llmopenai-zs", "qwen-transformers-rules-zs"}
    assert qwen["qwen-transformers-rules-zs"][0] == "families-handful"
    assert qwen["qwen-openai-llmopenai-zs"][1]("http://h/v1")[:2] == ["--solver", "openai:qwen@http://h/v1"]
    assert [key for _, key, _, _ in plan] == ["smollm2"] * 8 + ["qwen"] * 6   # one server at a time
    # SmolLM2 shares Qwen's 22 by default (the target's time); --smollm2-blocks gives the 66
    assert {sub for _, key, sub, _ in plan if key == "smollm2"} == {"families", "families-handful"}
    blocks = rm.build_plan({"smollm2": tmp_path / "s"}, 4096, smollm2_subset="blocks")
    assert {sub for _, _, sub, _ in blocks} == {"blocks", "blocks-handful"}
    # every in-process engine runs float32 and eager (bf16 is emulated on this CPU, compiling
    # takes minutes per start); transformers gets the dtype only
    for name, _, _, extra in plan:
        if callable(extra):
            continue
        engine = extra[extra.index("--dtype"):extra.index("--dtype") + 2] == ["--dtype", "float32"]
        assert engine, name
        assert ("--enforce-eager" in extra) == ("transformers" not in name), name
    compiled = rm.build_plan({"qwen": tmp_path / "q"}, 4096, rm.engine_arguments("bfloat16", eager=False))
    assert all("--enforce-eager" not in extra and "bfloat16" in extra
               for _, _, _, extra in compiled if not callable(extra))


def _records(requests_and_decisions):
    from mira_math.generators.schema import read_jsonl

    inst = next(iter(read_jsonl(RELEASE / "data" / "bayes_missing_prior" / "test.jsonl")))
    assert "P(H) = 1/2" in inst.responder      # the first bayes instance holds this line
    turns = []
    for request, decision in requests_and_decisions:
        turns += [{"role": "solver", "action": "request", "raw": f"REQUEST: {request}"},
                  {"role": "responder", "request": request, "decision": decision,
                   "quoted_constraint": "P(H) = 1/2" if decision == "offer" else None}]
    return [({"id": inst.id, "turns": turns}, inst)]


def test_request_rows_judge_each_request_by_the_slot_reader_beside_both_decisions():
    rm = _module()
    from mira_math.game.responders.rules import decide
    from mira_math.game.slots import line_slot, read_request

    rows = rm.request_rows(_records([
        ("What is P(H)?", "decline"),                 # precise, but the logged responder declined
        ("What is P(H)?", "offer"),
        ("What are P(H) and P(E|H)?", "offer"),       # names the slot and another one
        ("What is the missing value?", "decline"),
    ]), decide, read_request, line_slot)
    assert [(r["names_missing"], r["precise"]) for r in rows] == [
        (True, True), (True, True), (True, False), (False, False)]
    assert [r["rules"] for r in rows] == ["offer", "offer", "decline", "decline"]
    assert [r["logged"] for r in rows] == ["decline", "offer", "offer", "decline"]
    assert [r["canonical_offer"] for r in rows] == [False, True, True, False]
    assert rows[0]["missing"] == ["P(H)"] and rows[0]["rules_line"] == "P(H) = 1/2"
    assert rows[3]["rules_reason"] == "names no quantity" and rows[3]["turn"] == 3
    text = rm.requests_markdown({"run-x": rows, "empty": []})
    assert "## run-x (4 requests)" in text and "empty" not in text
    assert "| `What are P(H) and P(E\\|H)?` |" in text and "| precise | decline | offer (names its slot) |" in text


def test_measure_requests_counts_a_real_run_and_writes_every_request(tmp_path):
    rm = _module()
    from mira_math.cli.main import main

    run = tmp_path / "ref"
    first = [json.loads((RELEASE / "data" / f / "test.jsonl").read_text(encoding="utf-8").split("\n", 1)[0])["id"]
             for f in ("bayes_missing_prior", "circuit_missing_resistance")]
    assert main(["eval", "--solver", "reference", "--responder", "rules", "--data", str(RELEASE),
                 "--ids", *first, "--out", str(run)]) == 0
    counts, rows = rm.measure_requests(run)
    assert counts["requests"] == len(rows) >= 2
    assert counts["requests"] == counts["canonical_offers"] == counts["precise"] == counts["offers"]
    assert counts["precise_declined"] == 0 and counts["correct"] == 2
    written = [json.loads(line) for line in (run / "requests.jsonl").read_text().splitlines()]
    assert written == rows


def test_harness_share_is_harness_time_over_loop_time():
    rm = _module()
    base = {"name": "x", "instances": 1, "wall_s": 9.0, "run_s": 8.0, "model_s": 6.0,
            "completion_tokens": 12, "format_errors": 0, "no_answer": 0, "unreadable": 0,
            "responder_parse_failures": 0, "responder_fallbacks": 0, "errors": 0, "sample": ""}
    assert rm.RunFigures(**base).harness_share() == 0.25
    assert rm.RunFigures(**dict(base, remote=True, cpu_s=2.0)).harness_share() == 0.25
    assert rm.RunFigures(**dict(base, remote=True)).harness_share() is None
    row = rm.RunFigures(**dict(base, requests=5, precise_declined=2)).measured_row().split()
    assert row[2] == "5" and row[-1] == "25.0%" and row[-2] == "2.0"


def test_only_an_all_failed_responder_with_no_instance_error_is_an_accepted_exit():
    rm = _module()
    every = "mira-math eval: 3 of 3 responder replies logged an error (every one: is the responder working?)"
    assert rm.accepted(0, "") and rm.accepted(3, every)
    assert not rm.accepted(3, every + "\nmira-math eval: 1 instance(s) ended in an error: rerun")
    assert not rm.accepted(3, "mira-math eval: 2 instance(s) ended in an error: rerun with --retry-errors")
    assert not rm.accepted(1, every) and not rm.accepted(2, "")
