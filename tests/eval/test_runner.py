"""Episodes, both schedulers, the run directory, resume and retry, with scripted backends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.backends.base import Completion
from eval.episode import Episode
from eval.responders.base import ResponderResult, decline
from eval.runner import RunConfig, RunError, TRANSCRIPTS, data_files, load_data, run
from eval.solvers import NoAskSolver, ReferenceSolver

RELEASE = Path(__file__).resolve().parents[2] / "mira-math"


class SlotResponder:
    """Offers the canonical line when the request contains its slot verbatim (no eval.slots)."""

    name = "slot"

    def __init__(self):
        self.calls = 0

    def respond(self, turns):
        self.calls += 1
        out = []
        for t in turns:
            line = next((c for c in t.constraints if c.split(" = ")[0].split(":")[0] in t.request), None)
            out.append(ResponderResult("offer", line) if line else decline())
        return out

    def describe(self):
        return {"spec": self.name}


class CountingSolver(ReferenceSolver):
    def __init__(self, fail_ids=(), crash_after=None):
        self.calls, self.fail_ids, self.crash_after, self.seen = 0, set(fail_ids), crash_after, 0

    def generate(self, calls):
        self.calls += 1
        out = super().generate(calls)
        for n, c in enumerate(calls):
            if c.instance.id in self.fail_ids:
                out[n] = Completion(error="RateLimitError: storm")
        return out


def _selection(n=30, families=("bayes_missing_prior", "matrix_completion", "crt_reconstruction")):
    files = data_files("all", None, RELEASE)
    return load_data(files, families=list(families), limit=n)


def _config(**kw):
    return RunConfig(solver="reference", responder="slot", **kw)


def _rows(out):
    return [json.loads(line) for line in (out / TRANSCRIPTS).read_text(encoding="utf-8").splitlines()]


def test_reference_run_is_all_correct_in_two_batched_calls(tmp_path):
    solver, responder = CountingSolver(), SlotResponder()
    result = run(tmp_path / "r", _selection(), _config(), solver, responder, progress=False)
    rows = _rows(tmp_path / "r")
    assert result.ran == len(rows) == 30 and result.correct == 30 and result.errors == 0
    assert solver.calls == 2 and responder.calls == 1       # one call per turn, not per instance
    first = rows[0]
    assert [t["role"] for t in first["turns"]] == ["solver", "responder", "solver"]
    assert first["turns"][1]["canonical"] and first["turns"][1]["decision"] == "offer"
    assert first["verdict"]["correct"] and first["ended_by"] == "answer"
    assert first["tokens_est"] > 0
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["config"]["prompt_hash"] == manifest["prompt_hash"] and len(manifest["config_hash"]) == 64
    assert manifest["dataset"]["instances"] == 30 and "versions" in manifest and "git" in manifest


def test_noask_answers_at_once(tmp_path):
    result = run(tmp_path / "r", _selection(), RunConfig(solver="noask", responder="slot"),
                 NoAskSolver(), SlotResponder(), progress=False)
    rows = _rows(tmp_path / "r")
    assert all(len(r["turns"]) == 1 and r["turns"][0]["action"] == "answer" for r in rows)
    assert result.correct < 3


def test_resume_after_interruption_loses_and_repeats_nothing(tmp_path):
    out = tmp_path / "r"
    sel = _selection()

    class Interrupt(Exception):
        pass

    written = []

    class Crashing(SlotResponder):
        def respond(self, turns):
            if written:
                raise Interrupt()
            return super().respond(turns)

    # a run whose responder dies on its second call; the window of 7 finishes 7 first
    with pytest.raises(Interrupt):
        run(out, sel, _config(), _FirstWindow(written), Crashing(), window=7,
            progress=False)
    partial = {r["id"] for r in _rows(out)}
    assert 0 < len(partial) < 30
    result = run(out, sel, _config(), CountingSolver(), SlotResponder(), resume=True, progress=False)
    ids = [r["id"] for r in _rows(out)]
    assert sorted(ids) == sorted(i.id for i in sel.instances) and len(ids) == len(set(ids)) == 30
    assert result.skipped == len(partial)


class _FirstWindow(ReferenceSolver):
    def __init__(self, written):
        self.written = written

    def generate(self, calls):
        out = super().generate(calls)
        if any("Information holder" in c.conversation[-1]["content"] for c in calls):
            self.written.append(True)
        return out


def test_resume_refuses_another_configuration(tmp_path):
    out = tmp_path / "r"
    run(out, _selection(5), _config(), CountingSolver(), SlotResponder(), progress=False)
    with pytest.raises(RunError, match="another configuration"):
        run(out, _selection(5), _config(regime="4s"), CountingSolver(), SlotResponder(), resume=True,
            progress=False)
    with pytest.raises(RunError, match="--resume"):
        run(out, _selection(5), _config(), CountingSolver(), SlotResponder(), progress=False)


def test_torn_last_line_is_repaired_on_resume(tmp_path):
    out = tmp_path / "r"
    run(out, _selection(6), _config(), CountingSolver(), SlotResponder(), progress=False)
    path = out / TRANSCRIPTS
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:-1]) + lines[-1][:25], encoding="utf-8")
    result = run(out, _selection(6), _config(), CountingSolver(), SlotResponder(), resume=True,
                 progress=False)
    assert result.repaired and result.ran == 1
    assert len(_rows(out)) == 6


def test_malformed_middle_line_is_an_error_naming_the_line(tmp_path):
    out = tmp_path / "r"
    run(out, _selection(4), _config(), CountingSolver(), SlotResponder(), progress=False)
    path = out / TRANSCRIPTS
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = "{broken\n"
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(RunError, match=f"{TRANSCRIPTS}:2"):
        run(out, _selection(4), _config(), CountingSolver(), SlotResponder(), resume=True, progress=False)


def test_errors_are_recorded_then_retried(tmp_path):
    out = tmp_path / "r"
    sel = _selection(10)
    bad = {sel.instances[2].id, sel.instances[5].id}
    result = run(out, sel, _config(), CountingSolver(fail_ids=bad), SlotResponder(), progress=False)
    assert result.errors == 2
    rows = {r["id"]: r for r in _rows(out)}
    assert {i for i, r in rows.items() if r["error"]} == bad
    assert rows[sorted(bad)[0]]["verdict"] is None and "storm" in rows[sorted(bad)[0]]["error"]["message"]
    again = run(out, sel, _config(), CountingSolver(), SlotResponder(), retry_errors=True, progress=False)
    assert again.ran == 2 and again.errors == 0
    rows = _rows(out)
    assert len(rows) == 10 and not any(r["error"] for r in rows)


def test_async_scheduler_matches_the_batched_one(tmp_path):
    class AsyncReference(ReferenceSolver):
        is_async = True

        async def agenerate(self, call):
            return self.generate([call])[0]

    sel = _selection(12)
    run(tmp_path / "a", sel, _config(), AsyncReference(), SlotResponder(), concurrency=4, progress=False)
    run(tmp_path / "b", sel, _config(), CountingSolver(), SlotResponder(), progress=False)

    def strip(rows):
        return sorted((r["id"], r["final_answer"], r["verdict"]["correct"], len(r["turns"])) for r in rows)

    assert strip(_rows(tmp_path / "a")) == strip(_rows(tmp_path / "b"))


def test_format_errors_are_reminded_and_cost_requests(tmp_path):
    class Mumbler:
        name, is_async = "mumble", False

        def generate(self, calls):
            return [Completion(text="I am thinking...") for _ in calls]

        def describe(self):
            return {}

    run(tmp_path / "r", _selection(3), RunConfig(solver="mumble", responder="slot"), Mumbler(),
        SlotResponder(), progress=False)
    for row in _rows(tmp_path / "r"):
        assert [t["action"] for t in row["turns"]] == ["format_error"] * (row["budget"] + 1)
        assert row["final_answer"] is None and row["verdict"]["reason"] == "no answer"


def test_oracle_hint_gives_the_fact_up_front(tmp_path):
    run(tmp_path / "r", _selection(5), _config(condition="oracle_hint"), CountingSolver(), SlotResponder(),
        progress=False)
    rows = _rows(tmp_path / "r")
    assert all(r["budget"] == 0 and len(r["turns"]) == 1 and r["verdict"]["correct"] for r in rows)


def test_ask_first_protocol_ends_after_the_first_offer():
    inst = _selection(1).instances[0]
    ep = Episode(inst, solver="x", responder="y", regime="zs", ask_first=True)
    assert ep.on_solver(Completion(text="ANSWER: 1")) is None       # too early: a format error
    assert ep.on_solver(Completion(text=f"REQUEST: {inst.hints[0].slot}")) is not None
    ep.on_responder(ResponderResult("offer", inst.hints[0].constraint))
    assert ep.state.final_turn


def test_episode_ids_and_seeds_are_stable():
    inst = _selection(1).instances[0]
    a = Episode(inst, solver="x", responder="y", regime="zs").solver_call().seed
    b = Episode(inst, solver="x", responder="y", regime="zs").solver_call().seed
    assert a == b and 0 <= a < 2 ** 31
