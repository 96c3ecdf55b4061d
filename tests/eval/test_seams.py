"""Seams: the composition root (eval.assemble), the scripted-solver table, the one
read of what a solver and a responder can do, the runner's single-episode step reused by the
integrations, the metric-aware scores cache, rows built from COLUMNS by name, and the packages a
manifest records."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from mira_math.eval import metrics, scores_file
from mira_math.eval.assemble import RESPONDER_PARAMS, RunSpec, assemble, make_responder, parse_responder
from mira_math.eval.backends.base import Completion, GenParams
from mira_math.eval.llm_responder import LLMResponder
from mira_math.eval.rundir import RECORDED_PACKAGES, group_runs, package_versions
from mira_math.eval.runner import play_episode, responder_step, run
from mira_math.eval.scoring import COLUMN_VALUES, SCORES_VERSION, Scales, score, stats_row
from mira_math.eval.seams import AsyncSolver, Solver, read_seats
from mira_math.eval.selection import data_files, load_data
from mira_math.eval.solver_kinds import SCRIPTED
from mira_math.eval.solvers import (AskAllSolver, FirstFactSolver, ModelSolver, NoAskSolver, ReferenceSolver,
                                    SamplerSolver, make_solver)
from mira_math.game.episode import Episode
from mira_math.game.messages import SolverCall
from mira_math.game.responders.rules import RulesResponder
from mira_math.integrations.common import play, transcript_stats

ROOT = Path(__file__).resolve().parents[2]


class _AsyncBackend:
    model, concurrency = "m", 2

    def complete(self, requests, params):
        return [Completion(text="ANSWER: 0", finish_reason="stop") for _ in requests]

    async def acomplete(self, request, params):
        return Completion(text="ANSWER: 0", finish_reason="stop")

    def describe(self):
        return {"kind": "fake"}


class _BatchBackend(_AsyncBackend):
    acomplete = None                # type: ignore[assignment]   # a batch engine: no one-chat call


@pytest.fixture(scope="module")
def selection():
    full = load_data(data_files("all", None, ROOT / "mira-math"))
    return full


def test_scripted_solvers_come_from_one_table():
    assert {k: type(make_solver(k, GenParams(temperature=0.5))) for k in SCRIPTED} == {
        "reference": ReferenceSolver, "noask": NoAskSolver, "sampler": SamplerSolver,
        "first-fact": FirstFactSolver, "ask-all": AskAllSolver}
    assert make_solver("sampler", GenParams(temperature=0.5)).temperature == 0.5   # type: ignore[attr-defined]
    assert [k for k, kind in SCRIPTED.items() if kind.samples] == ["sampler"]


def test_the_responder_spec_is_decoded_in_one_place():
    assert parse_responder("rules").recorded == {}
    assert parse_responder("llm:same").backend == "same"
    assert parse_responder("llm:openai:m@http://h:1/v1").backend == "openai:m@http://h:1/v1"
    for bad in ("llm", "llm:", "oracle"):
        with pytest.raises(ValueError, match="use rules, llm:same or llm:KIND:MODEL"):
            parse_responder(bad)
    with pytest.raises(ValueError, match="llm:same needs a model solver"):
        make_responder("llm:same", NoAskSolver())
    solver = ModelSolver("fake:m", _AsyncBackend(), GenParams())
    same = make_responder("llm:same", solver)
    assert isinstance(same, LLMResponder) and same.backend is solver.backend and same.params == RESPONDER_PARAMS


def test_assemble_records_what_the_command_line_recorded():
    """The config the composition root builds is the one ``cmd_eval`` built before it moved."""
    sampler = assemble(RunSpec("sampler", params=GenParams(temperature=0.7), epochs=3, run_seed=1))
    assert sampler.config.solver_params == {"temperature": 0.7} and sampler.config.responder_params == {}
    assert sampler.config.as_dict()["epochs"] == 3 and isinstance(sampler.responder, RulesResponder)
    ref = assemble(RunSpec("reference", params=GenParams(temperature=0.7)), solver_spec="reference")
    assert ref.config.solver_params == {} and ref.config.hash() == assemble(RunSpec("reference")).config.hash()


def test_what_each_side_can_do_is_read_once_into_the_scheduler():
    rules = RulesResponder()
    assert read_seats(ReferenceSolver(), rules).scheduler == "batched"
    api = ModelSolver("fake:m", _AsyncBackend(), GenParams())
    seats = read_seats(api, rules)
    assert seats.scheduler == "async" and seats.async_solver is api and isinstance(api, AsyncSolver)
    batch = ModelSolver("fake:m", _BatchBackend(), GenParams())
    assert read_seats(batch, rules).scheduler == "batched" and isinstance(batch, Solver)
    # an offline solver with an API responder: the sliding window, each episode written as it ends
    seats = read_seats(NoAskSolver(), LLMResponder(_AsyncBackend()))
    assert seats.scheduler == "async" and seats.async_solver is None and seats.api_responder


def test_the_integrations_play_with_the_runners_single_episode_step(selection):
    """``integrations.common.play`` is the runner's step with the integration's model call: the
    same episode, turn for turn, as the runner's step driving the reference solver directly."""
    inst = selection.instances[0]
    solver = ReferenceSolver()

    async def reply(conversation, seed):
        return solver.generate([SolverCall(inst, conversation, seed)])[0]

    async def generate(call):
        return solver.generate([call])[0]

    played = asyncio.run(play(Episode(inst, solver="reference", responder="rules", regime="zs"), reply))
    direct = asyncio.run(play_episode(Episode(inst, solver="reference", responder="rules", regime="zs"),
                                      generate, responder_step(RulesResponder())))
    same = [t.transcript.to_json_line().split('"wall_s"')[0] for t in (played, direct)]
    assert same[0] == same[1]
    assert played.transcript.verdict["correct"] is True and transcript_stats(played).requests == 1


def test_epoch_is_a_field_of_the_episode_and_its_transcript(selection, tmp_path):
    episode = Episode(selection.instances[0], solver="s", responder="rules", regime="zs", epoch=2)
    assert episode.epoch == 2 and json.loads(episode.transcript.to_json_line())["epoch"] == 2
    sel = type(selection)(selection.instances[:3], selection.files, selection.checksum)
    spec = assemble(RunSpec("sampler", params=GenParams(temperature=0.7), epochs=2))
    run(tmp_path / "r", sel, spec.config, spec.solver, spec.responder, progress=False)
    rows = [json.loads(line) for line in (tmp_path / "r" / "transcripts.jsonl").read_text().splitlines()]
    assert sorted(r.get("epoch", 0) for r in rows) == [0, 0, 0, 1, 1, 1]
    assert all(list(r)[-1] == "epoch" for r in rows if "epoch" in r)      # written last, as before


def test_every_column_has_its_value_by_name():
    assert set(COLUMN_VALUES) == set(metrics.COLUMNS)
    row = stats_row(_stats(), Scales())
    assert dict(zip(metrics.COLUMNS, row))["correct"] == 1 and len(row) == len(metrics.COLUMNS)


def _stats():
    from mira_math.eval.rundir import InstanceStats

    return InstanceStats(("s", "i"), "f", "A", 1, False, True, 1, 1, 1, True, True, 0, 0, 0, 10, 1,
                         True, False, False, 4)


def test_a_new_metric_row_makes_the_scores_cache_stale(selection, tmp_path, monkeypatch):
    sel = type(selection)(selection.instances[:4], selection.files, selection.checksum)
    spec = assemble(RunSpec("reference"))
    run(tmp_path / "r", sel, spec.config, spec.solver, spec.responder, progress=False)
    scores_file.write_scores(score([tmp_path / "r"]))
    (info,) = group_runs([tmp_path / "r"])
    assert scores_file.cached_scores(info) is not None        # same files, same rows: reused
    row = metrics.Metric("new_row", lambda t: 1, "a metric added after the cache was written")
    monkeypatch.setattr(metrics, "METRICS", metrics.METRICS + ("new_row",))
    monkeypatch.setattr(scores_file, "METRICS", metrics.METRICS)
    monkeypatch.setitem(metrics.DEFINITIONS, row.name, row.definition)
    (info,) = group_runs([tmp_path / "r"])
    assert scores_file.cached_scores(info) is None and SCORES_VERSION == "3"   # stale without a bump


def test_a_manifest_records_the_declared_packages(selection, tmp_path):
    sel = type(selection)(selection.instances[:1], selection.files, selection.checksum)
    spec = assemble(RunSpec("noask"))
    run(tmp_path / "r", sel, spec.config, spec.solver, spec.responder, progress=False)
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert tuple(manifest["versions"]) == RECORDED_PACKAGES == tuple(package_versions())


def test_epoch_refusals_and_warnings_come_from_the_solver_table():
    from mira_math.eval.assemble import epochs_problem

    assert epochs_problem("reference", 1, 0.0) == ("", "")
    refused, _ = epochs_problem("noask", 2, 0.7)
    assert "scripted solver 'noask' is deterministic" in refused
    assert "the sampler at --temperature 0" in epochs_problem("sampler", 2, 0.0)[0]
    assert epochs_problem("sampler", 2, 0.7) == ("", "")
    refused, warning = epochs_problem("openai:m", 3, 0.0)
    assert refused == "" and warning.startswith("--epochs 3 at --temperature 0: greedy decoding")


def test_only_an_imported_folder_is_checked_for_unreadable_families(selection):
    from mira_math.eval.assemble import unreadable_families

    assert unreadable_families(None, selection.instances[:5]) == []
    assert unreadable_families(ROOT / "mira-math", selection.instances[:5]) == []   # our own release
