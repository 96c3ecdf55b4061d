"""Scoring from hand-built transcripts over instances of the committed release: every metric
checked against values worked out by hand below, shard merging and its refusals, deltas,
byte-stable files."""

from __future__ import annotations

import csv
import json
import random
from fractions import Fraction
from pathlib import Path

import pytest

from eval.protocol import DECLINE_TEXT
from eval.runner import load_data
from eval.scoring import (METRICS, ScoringError, bootstrap_ci, fixed, render_table, score,
                          scores_document, write_scores)
from eval.transcript import ResponderTurn, SolverTurn, Transcript
from mira_cli.main import main
from generators.schema import read_jsonl

ROOT = Path(__file__).resolve().parents[2]
FILES = ["mira-math/data/bayes_missing_prior/test.jsonl",
         "mira-math/data/geometry_coordinates/test.jsonl",
         "mira-math/data/discrete_tomography/test.jsonl"]
INSTANCES = {i.id: i for f in FILES for i in read_jsonl(ROOT / f)}
CHECKSUM = load_data([ROOT / f for f in FILES]).checksum


# ------------------------------------------------------------------ building run directories

def ask(text):
    return SolverTurn(raw=f"Let me ask.\nREQUEST: {text}", action="request", content=text, final_turn=False)


def answer(text):
    return SolverTurn(raw=f"ANSWER: {text}", action="answer", content=text, final_turn=False)


def no_action(raw="I am thinking about it."):
    return SolverTurn(raw=raw, action="format_error", content="", final_turn=False)


def offer(request, line, canonical):
    return ResponderTurn(request=request, decision="offer", quoted_constraint=line, canonical=canonical,
                         shown=line, raw=json.dumps({"type": "offer", "quoted_constraint": line}))


def decline(request, errors=()):
    return ResponderTurn(request=request, decision="decline", quoted_constraint=None, canonical=False,
                         shown=DECLINE_TEXT, errors=list(errors))


def transcript(iid, turns, correct, tokens, regime="zs", solver="model-x", error=None):
    inst = INSTANCES[iid]
    return Transcript(
        id=iid, family=inst.family, type=inst.type, difficulty=inst.difficulty, budget=inst.budget,
        solver=solver, responder="rules", regime=regime, condition="standard", turns=turns,
        final_answer=None if error else "x", ended_by=None if error else "answer",
        verdict=None if error else {"correct": correct, "expected": inst.answer.value, "parsed": "x",
                                    "reason": "ok" if correct else "wrong"},
        tokens_est=tokens, error=error)


def write_run(run_dir, transcripts, regime="zs", solver="model-x", run_hash=None, shard=None,
              selected=None, files=FILES):
    run_dir.mkdir(parents=True)
    run_hash = run_hash or f"hash-{solver}-{regime}"
    manifest = {
        "config_hash": run_hash + (f"-shard{shard}" if shard is not None else ""),
        "run_hash": run_hash,
        "config": {"solver": solver, "responder": "rules", "regime": regime, "condition": "standard",
                   "protocol": "paper", "selection": {"shard": shard}},
        "dataset": {"files": list(files), "checksum": CHECKSUM,
                    "instances": len(transcripts) if selected is None else selected},
    }
    (run_dir / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    (run_dir / "transcripts.jsonl").write_text("".join(t.to_json_line() for t in transcripts),
                                               encoding="utf-8")
    return run_dir


def standard_transcripts(regime="zs", solver="model-x"):
    """T1-T6; the metrics these give are worked out by hand in the tests."""
    geo1, geo2 = INSTANCES["geo-000120"], INSTANCES["geo-000140"]
    kw = {"regime": regime, "solver": solver}
    return [
        # T1 bayes d1: no request at all, wrong
        transcript("bay-000000", [answer("1/3")], False, 10.4, **kw),
        # T2 bayes d2: only declines, then a (lucky) correct answer
        transcript("bay-000020", [ask("the likelihood?"), decline("the likelihood?"),
                                  ask("anything?"), decline("anything?"), answer("15/17")], True, 20.8, **kw),
        # T3 geometry d1 (2 candidates): two format errors, the canonical offer, correct
        transcript("geo-000120", [no_action(), no_action("hmm"), ask("line 2?"),
                                  offer("line 2?", geo1.responder[0], True), answer("10")], True, 13.0, **kw),
        # T4 geometry d2 (3 candidates): noncanonical offer, a decline, the canonical offer, wrong
        transcript("geo-000140", [ask("Q?"), offer("Q?", geo2.responder[1], False), ask("P?"), decline("P?"),
                                  ask("line 2?"), offer("line 2?", geo2.responder[0], True), answer("7")],
                   False, 39.0, **kw),
        # T5 tomography d1 (2 candidates): a responder parse error (a decline), then the offer, correct
        transcript("dis-001110", [ask("cell (1,1)?"), decline("cell (1,1)?", ["parse: Expecting value: line 1"]),
                                  ask("cell (1,1) please"), offer("cell (1,1) please", INSTANCES["dis-001110"].responder[0], True),
                                  answer("0")], True, 26.0, **kw),
        # T6 tomography d2: errored (backend failure): excluded from every metric but `errored`
        transcript("dis-001160", [ask("cell (0,2)?"), offer("cell (0,2)?", "cell (0,2) = 0", True)], False, 5.2,
                   error={"where": "solver", "message": "RateLimitError: storm"}, **kw),
    ]


def metrics(doc, kind="all", group="all"):
    return next(g["metrics"] for g in doc["groups"] if g["kind"] == kind and g["group"] == group)


def val(x):
    return float(fixed(Fraction(x)))


@pytest.fixture
def zs_run(tmp_path):
    return write_run(tmp_path / "zs", standard_transcripts())


# ------------------------------------------------------------------ metrics by hand

def test_overall_metrics_match_hand_computation(zs_run):
    (s,) = score([zs_run])
    m = metrics(scores_document(s))
    assert m["n"] == 5 and m["errored"] == 1 and m["correct"] == 3
    assert m["accuracy"] == val("3/5")
    assert m["chance"] == val(Fraction(1, 3) * (Fraction(1, 2) + Fraction(1, 3) + Fraction(1, 2)))  # 4/9
    assert m["chance_n"] == 3
    # per instance offers/requests: T2 0/2, T3 1/1, T4 2/3, T5 1/2; T1 has no request
    assert m["hit_rate"] == val((0 + 1 + Fraction(2, 3) + Fraction(1, 2)) / 4) == 0.5417
    assert m["hit_rate_n"] == 4 and m["no_request"] == 1
    assert m["first_request_success"] == val("2/5")          # T3, T4 (a noncanonical offer counts)
    assert m["avg_requests"] == val("8/5") and m["avg_declines"] == val("4/5") and m["avg_hints"] == val("4/5")
    assert m["requests_before_first_offer"] == val(Fraction(0 + 0 + 1, 3)) and m["first_offer_n"] == 3
    assert m["avg_tokens"] == val(Fraction("109.2") / 5) == 21.84
    assert m["format_errors"] == 2 and m["avg_format_errors"] == val("2/5") and m["format_error_instances"] == 1
    assert m["responder_errors"] == 1
    # trace: T1 no canonical; T4 canonical but wrong; T2, T3, T5 correct (T2 without any hint)
    assert (m["trace_no_canonical"], m["trace_canonical_wrong"], m["trace_correct"]) == (0.2, 0.2, 0.6)
    assert m["noncanonical_offers"] == 1 and m["noncanonical_offer_share"] == 0.2


def test_trace_shares_sum_to_one_exactly(zs_run):
    (s,) = score([zs_run])
    for g in s.groups:
        m = g.metrics
        if m.n:
            assert m.trace_no_canonical + m.trace_canonical_wrong + m.trace_correct == 1
            assert m.trace_correct == m.accuracy


def test_groups_by_type_family_difficulty(zs_run):
    (s,) = score([zs_run])
    doc = scores_document(s)
    assert [(g["kind"], g["group"]) for g in doc["groups"]] == [
        ("all", "all"), ("type", "A"), ("type", "B"),
        ("family", "bayes_missing_prior"), ("family", "discrete_tomography"), ("family", "geometry_coordinates"),
        ("difficulty", "1"), ("difficulty", "2"),
        ("difficulty_type", "1/A"), ("difficulty_type", "1/B"), ("difficulty_type", "2/A"),
        ("difficulty_type", "2/B")]
    a, b = metrics(doc, "type", "A"), metrics(doc, "type", "B")
    assert (a["n"], a["accuracy"], a["errored"]) == (4, 0.5, 0)
    assert (b["n"], b["accuracy"], b["errored"], b["chance"]) == (1, 1.0, 1, 0.5)
    bayes, geo = metrics(doc, "family", "bayes_missing_prior"), metrics(doc, "family", "geometry_coordinates")
    assert (bayes["accuracy"], bayes["chance"], bayes["chance_n"]) == (0.5, None, 0)
    assert (geo["accuracy"], geo["chance"], geo["chance_n"]) == (0.5, val(Fraction(5, 12)), 2)
    assert geo["hit_rate"] == val((1 + Fraction(2, 3)) / 2) and geo["format_errors"] == 2
    assert metrics(doc, "difficulty", "1")["accuracy"] == val("2/3")
    d2 = metrics(doc, "difficulty", "2")
    assert (d2["n"], d2["errored"], d2["accuracy"], d2["requests_before_first_offer"]) == (2, 1, 0.5, 0.0)
    empty = metrics(doc, "difficulty_type", "2/B")                  # only the errored T6
    assert empty["n"] == 0 and empty["errored"] == 1
    assert all(empty[k] is None for k in ("accuracy", "accuracy_ci_low", "hit_rate", "avg_tokens"))


def test_bootstrap_interval_is_the_documented_percentiles(zs_run):
    (s,) = score([zs_run])
    m = s.overall
    outcomes = [0, 1, 1, 0, 1]                                          # T1..T5, dataset order
    rng = random.Random(0)
    sums = sorted(sum(rng.choices(outcomes, k=5)) for _ in range(2000))
    assert (m.accuracy_ci_low, m.accuracy_ci_high) == (Fraction(sums[50], 5), Fraction(sums[1949], 5))
    assert m.accuracy_ci_low <= m.accuracy <= m.accuracy_ci_high
    assert bootstrap_ci([True] * 7) == (1, 1) and bootstrap_ci([]) is None
    assert bootstrap_ci([True, False] * 20) == bootstrap_ci([True, False] * 20)


def test_canonical_offers_are_judged_by_the_dataset_not_the_logged_flag(tmp_path):
    geo = INSTANCES["geo-000140"]
    wrong_flags = [ask("Q?"), offer("Q?", geo.responder[1], True),             # logged canonical: wrong
                   ask("line 2?"), offer("line 2?", geo.responder[0], False), answer("1")]
    (s,) = score([write_run(tmp_path / "r", [transcript("geo-000140", wrong_flags, False, 1.3)])])
    assert s.overall.noncanonical_offers == 1 and s.overall.trace_canonical_wrong == 1


# ------------------------------------------------------------------ regimes, shards, errors

def test_four_shot_minus_zero_shot_per_family(tmp_path):
    zs = write_run(tmp_path / "zs", standard_transcripts())
    better = [transcript(t.id, t.turns, True, t.tokens_est, regime="4s", error=t.error)
              for t in standard_transcripts("4s")]
    fs = write_run(tmp_path / "4s", better, regime="4s")
    other = write_run(tmp_path / "y", standard_transcripts(solver="model-y"), solver="model-y")
    scores = score([zs, fs, other])
    by_label = {s.label: s for s in scores}
    four = by_label["model-x | rules | 4s"]
    assert four.paired_with == "model-x | rules | zs" and by_label["model-y | rules | zs"].deltas == []
    deltas = {(d.kind, d.group): d.delta for d in four.deltas}
    assert deltas == {("all", "all"): Fraction(2, 5), ("family", "bayes_missing_prior"): Fraction(1, 2),
                      ("family", "discrete_tomography"): 0, ("family", "geometry_coordinates"): Fraction(1, 2)}
    assert by_label["model-x | rules | zs"].deltas == four.deltas          # reported beside both runs
    write_scores(scores)
    rows = list(csv.reader((fs / "scores.csv").open(encoding="utf-8")))
    assert ["model-x | rules | 4s", "family", "bayes_missing_prior", "accuracy_delta_4s_minus_zs",
            "0.5000"] in rows
    assert "four-shot minus zero-shot" in render_table(scores)


def test_shards_merge_into_one_run(tmp_path):
    ts = standard_transcripts()
    whole = write_run(tmp_path / "whole", ts)
    a = write_run(tmp_path / "s0", ts[0::2], shard=[0, 2], selected=3)
    b = write_run(tmp_path / "s1", ts[1::2], shard=[1, 2], selected=3)
    (merged,) = score([b, a])                                   # order of the shards does not matter
    (single,) = score([whole])
    assert scores_document(merged)["groups"] == scores_document(single)["groups"]
    assert merged.run.out_dir == b and [d.name for d in merged.run.dirs] == ["s1", "s0"]
    doc = scores_document(merged)["run"]
    assert doc["shards"] == [".", "../s0"] and doc["transcripts"] == 6 and doc["missing"] == 0


def test_incomplete_run_reports_missing(tmp_path):
    (s,) = score([write_run(tmp_path / "r", standard_transcripts()[:4], selected=6)])
    assert scores_document(s)["run"]["missing"] == 2


def test_refuses_shards_with_different_run_hash(tmp_path):
    ts = standard_transcripts()
    a = write_run(tmp_path / "s0", ts[:3], run_hash="aaaa")
    b = write_run(tmp_path / "s1", ts[3:], run_hash="bbbb")
    with pytest.raises(ScoringError, match="run_hash differs"):
        score([a, b])


def test_refuses_overlapping_shards(tmp_path):
    ts = standard_transcripts()
    a = write_run(tmp_path / "s0", ts[:4])
    b = write_run(tmp_path / "s1", ts[3:])
    with pytest.raises(ScoringError, match="geo-000140 appears in two shards"):
        score([a, b])


def test_missing_dataset_file_is_named(tmp_path):
    run = write_run(tmp_path / "r", standard_transcripts(), files=FILES + ["mira-math/data/nope/test.jsonl"])
    with pytest.raises(ScoringError, match="nope/test.jsonl is missing"):
        score([run])


def test_unknown_instance_and_changed_dataset_are_refused(tmp_path):
    run = write_run(tmp_path / "r", standard_transcripts(), files=FILES[:2])
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["dataset"]["checksum"] = ""                       # no checksum recorded: not checked
    (run / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ScoringError, match="dis-001110 is in none of the dataset files"):
        score([run])
    other = write_run(tmp_path / "o", standard_transcripts())
    manifest = json.loads((other / "manifest.json").read_text())
    manifest["dataset"]["checksum"] = "0" * 64
    (other / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ScoringError, match="checksum differs"):
        score([other])


# ------------------------------------------------------------------ files

def test_files_are_byte_stable_and_long_format(zs_run, capsys):
    write_scores(score([zs_run]))
    first = {p: (zs_run / p).read_bytes() for p in ("scores.json", "scores.csv")}
    assert main(["score", str(zs_run)]) == 0
    assert {p: (zs_run / p).read_bytes() for p in first} == first
    out = capsys.readouterr().out
    assert "model-x | rules | zs" in out and "60.0" in out and "44.4 (3)" in out
    rows = list(csv.reader((zs_run / "scores.csv").open(encoding="utf-8")))
    assert rows[0] == ["run", "group_kind", "group", "metric", "value"]
    assert len(rows) == 1 + 12 * len(METRICS)
    assert ["model-x | rules | zs", "all", "all", "accuracy", "0.6000"] in rows
    assert ["model-x | rules | zs", "all", "all", "hit_rate", "0.5417"] in rows
    assert ["model-x | rules | zs", "difficulty_type", "2/B", "accuracy", ""] in rows
    doc = json.loads(first["scores.json"])
    assert doc["run"]["label"] == "model-x | rules | zs" and "errored" in doc["definitions"]


def test_cli_reports_scoring_errors(tmp_path, capsys):
    assert main(["score", str(tmp_path / "nothing")]) == 1
    assert "manifest.json: missing" in capsys.readouterr().err
