"""Episodes, both schedulers, the run directory, resume and retry, with scripted backends."""

from __future__ import annotations

import json

import pytest

from mira_math.eval.backends.base import Completion
from mira_math.game.episode import Episode
from mira_math.game.responders.base import ResponderResult, decline
from mira_math.eval.runner import RunConfig, RunError, TRANSCRIPTS, data_files, load_data, run
from mira_math.eval.solvers import NoAskSolver, ReferenceSolver
from mira_math.common.errors import MiraError
from mira_math.generators.layout import DEFAULT_RELEASE

RELEASE = DEFAULT_RELEASE


class SlotResponder:
    """Offers the canonical line when the request contains its slot verbatim (no game.slots)."""

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


# ------------------------------------------------------------------ runs that cannot lie

def test_transcripts_without_a_manifest_are_not_adopted(tmp_path):
    out = tmp_path / "r"
    run(out, _selection(6), RunConfig(solver="noask", responder="slot"), NoAskSolver(),
        SlotResponder(), progress=False)
    (out / "manifest.json").unlink()
    with pytest.raises(RunError, match="no manifest.json"):
        run(out, _selection(6), _config(), CountingSolver(), SlotResponder(), progress=False)


def test_the_run_directory_is_locked_for_the_runs_lifetime(tmp_path):
    from mira_math.eval.rundir import RunLock

    out = tmp_path / "r"
    out.mkdir()
    held = RunLock(out)
    try:
        with pytest.raises(RunError, match="in use by another"):
            run(out, _selection(4), _config(), CountingSolver(), SlotResponder(), progress=False)
        assert not (out / TRANSCRIPTS).exists()
    finally:
        held.release()
    assert run(out, _selection(4), _config(), CountingSolver(), SlotResponder(), progress=False).ran == 4


def test_resume_refuses_transcript_ids_not_in_the_dataset(tmp_path):
    out = tmp_path / "r"
    run(out, _selection(4), _config(), CountingSolver(), SlotResponder(), progress=False)
    rows = _rows(out)
    rows[0]["id"] = "not-an-instance"
    (out / TRANSCRIPTS).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(RunError, match="not in this selection"):
        run(out, _selection(4), _config(), CountingSolver(), SlotResponder(), resume=True, progress=False)


def test_an_unreadable_manifest_is_one_clear_error(tmp_path):
    out = tmp_path / "r"
    run(out, _selection(2), _config(), CountingSolver(), SlotResponder(), progress=False)
    (out / "manifest.json").write_text("", encoding="utf-8")   # what a full disk left
    with pytest.raises(RunError, match="manifest.json: not a readable run manifest"):
        run(out, _selection(2), _config(), CountingSolver(), SlotResponder(), resume=True, progress=False)


class _ScriptedText(ReferenceSolver):
    def __init__(self, completion):
        self.completion = completion

    def generate(self, calls):
        return [self.completion for _ in calls]


def test_a_turn_cut_off_by_the_token_limit_is_never_sent_as_a_request(tmp_path):
    responder = SlotResponder()
    solver = _ScriptedText(Completion(text="REQUEST: What is the value of", finish_reason="length"))
    run(tmp_path / "r", _selection(2), _config(), solver, responder, progress=False)
    turns = _rows(tmp_path / "r")[0]["turns"]
    assert responder.calls == 0
    assert all(t["action"] == "format_error" and t["format_error"] == "truncated" for t in turns)


def test_a_refusal_is_recorded_as_a_refusal(tmp_path):
    solver = _ScriptedText(Completion(text="", refusal="I can't help with that", finish_reason="stop"))
    run(tmp_path / "r", _selection(1), _config(), solver, SlotResponder(), progress=False)
    turn = _rows(tmp_path / "r")[0]["turns"][0]
    assert turn["format_error"] == "refusal" and turn["refusal"] == "I can't help with that"


def test_an_unknown_family_in_data_fails_before_any_call(tmp_path):
    src = RELEASE / "data" / "bayes_missing_prior" / "test.jsonl"
    row = json.loads(src.read_text(encoding="utf-8").splitlines()[0])
    row["family"] = "no_such_family"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(MiraError, match=r"bad.jsonl:1: field 'family'"):
        load_data([bad])


@pytest.mark.parametrize("payload", ["[" * 200_000, '{"id": ' + "7" * 5000 + "}"],
                         ids=["deep_nesting", "huge_int"])
def test_hostile_json_lines_are_one_line_errors(tmp_path, payload):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(payload + "\n", encoding="utf-8")
    with pytest.raises(MiraError, match=r"bad.jsonl:1: not valid JSON"):
        load_data([bad])


def test_eval_exits_non_zero_when_an_instance_errored(tmp_path, monkeypatch, capsys):
    from mira_math.cli.main import main
    import mira_math.eval.solvers as solvers
    monkeypatch.setattr(solvers, "NoAskSolver", lambda: _ScriptedText(Completion(error="Boom: x")))
    code = main(["eval", "--solver", "noask", "--limit", "2", "--out", str(tmp_path / "r")])
    assert code == 3 and "--retry-errors" in capsys.readouterr().err


def test_ctrl_c_says_how_to_resume(tmp_path, monkeypatch, capsys):
    from mira_math.cli.main import main
    import mira_math.eval.runner as runner
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run", interrupted)
    code = main(["eval", "--solver", "noask", "--limit", "2", "--out", str(tmp_path / "r")])
    assert code == 130 and "--resume" in capsys.readouterr().err


def test_out_naming_a_file_is_refused(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(RunError, match="not a folder"):
        run(f, _selection(1), _config(), CountingSolver(), SlotResponder(), progress=False)


class _SlowAPIBackend:
    """An API responder backend: the first call waits until the other episodes are on disk."""

    model, concurrency = "slow-api", 8

    def __init__(self, out, others):
        self.out, self.others, self.first, self.seen_on_disk = out, others, True, None

    async def acomplete(self, request, params):
        import asyncio

        if self.first:
            self.first = False
            for _ in range(300):   # bounded: 3 s at most
                path = self.out / TRANSCRIPTS
                lines = path.read_text().count("\n") if path.exists() else 0
                if lines >= self.others:
                    break
                await asyncio.sleep(0.01)
            self.seen_on_disk = lines
        return Completion(text=json.dumps({"type": "decline", "has_exact_match": False,
                                           "quoted_constraint": None, "hint": None}),
                          finish_reason="stop")

    def complete(self, requests, params):
        import asyncio

        return [asyncio.run(self.acomplete(r, params)) for r in requests]

    def describe(self):
        return {"backend": "slow-api"}


def test_offline_solver_with_an_api_responder_writes_episodes_as_they_finish(tmp_path):
    from mira_math.eval.backends.base import GenParams
    from mira_math.eval.llm_responder import LLMResponder

    out, n = tmp_path / "r", 5
    backend = _SlowAPIBackend(out, n - 1)
    responder = LLMResponder(backend, GenParams(max_tokens=64))
    run(out, _selection(n), RunConfig(solver="reference", responder="llm:slow"), ReferenceSolver(),
        responder, progress=False, concurrency=8)
    # while the first responder call was in flight, the other episodes were already written
    assert backend.seen_on_disk == n - 1 and len(_rows(out)) == n


def test_progress_lines_when_stderr_is_not_a_terminal(tmp_path, monkeypatch, capsys):
    import mira_math.eval.runner as runner
    monkeypatch.setattr(runner, "PROGRESS_EVERY_S", 0.01)

    class Slow(ReferenceSolver):
        def generate(self, calls):
            import time as _t

            _t.sleep(0.05)
            return super().generate(calls)

    run(tmp_path / "r", _selection(3), _config(), Slow(), SlotResponder(), progress=True)
    err = capsys.readouterr().err
    assert "eval: " in err and "/3 done," in err


def test_the_selection_streams_the_same_instances_as_the_files(tmp_path):
    """load_data keeps offsets, not instances: iterating, indexing and slicing read the lines
    again and give exactly what read_jsonl gives, in the same order."""
    from mira_math.eval.selection import InstanceStream
    from mira_math.generators.schema import read_jsonl

    files = data_files("all", None, RELEASE)[:2]
    sel = load_data(files)
    expected = [inst for path in files for inst in read_jsonl(path)]
    assert isinstance(sel.instances, InstanceStream)
    assert len(sel.instances) == len(expected) and list(sel.instances) == expected
    assert sel.instances[-1] == expected[-1] and sel.instances[3] == expected[3]
    assert list(sel.instances[5:40:7]) == expected[5:40:7]
    assert sel.has_id(expected[17].id) and not sel.has_id(expected[17].id + "-x")
    shard = load_data(files, shard=(1, 3), limit=4)
    assert list(shard.instances) == expected[1::3][:4]
    assert [shard.has_id(i.id) for i in expected[:5]] == [False, True, False, False, True]


def test_resume_skips_finished_ids_with_the_streamed_selection(tmp_path):
    sel = _selection(12)
    other = tmp_path / "run"
    run(other, sel, _config(), ReferenceSolver(), SlotResponder(), progress=False)
    lines = (other / TRANSCRIPTS).read_text(encoding="utf-8").splitlines(keepends=True)
    (other / TRANSCRIPTS).write_text("".join(lines[:7]) + lines[7][:20], encoding="utf-8")  # torn line
    again = run(other, sel, _config(), ReferenceSolver(), SlotResponder(), resume=True, progress=False)
    assert (again.skipped, again.ran, again.total) == (7, 5, 12) and again.repaired
    ids = [json.loads(line)["id"] for line in (other / TRANSCRIPTS).read_text(encoding="utf-8").splitlines()]
    assert sorted(ids) == sorted(i.id for i in sel.instances) and len(set(ids)) == 12


def test_a_data_file_edited_after_the_check_is_refused_not_run(tmp_path):
    from mira_math.generators.schema import read_jsonl

    source = data_files("all", None, RELEASE)[0]
    path = tmp_path / "data.jsonl"
    path.write_bytes(source.read_bytes())
    sel = load_data([path])
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[1] + lines[0] + b"".join(lines[2:]))   # same bytes, two lines swapped
    assert sel.instances[2] == list(read_jsonl(path))[2]
    with pytest.raises(RunError, match="changed since it was checked"):
        list(sel.instances)
