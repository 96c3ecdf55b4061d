"""Scoring from hand-built transcripts over instances of the committed release: every metric
checked against values worked out by hand below, shard merging and its refusals, deltas,
byte-stable files."""

from __future__ import annotations

import csv
import hashlib
import json
import math
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from mira_math.game.protocol import DECLINE_TEXT
from mira_math.eval.runner import load_data
from mira_math.eval.scores_file import scores_csv, scores_document, write_scores
from mira_math.eval.metrics import ALL_COLUMNS
from mira_math.eval.tables import render_table
from mira_math.eval.stats import wilson
from mira_math.eval.rundir import short_spec
from mira_math.eval.scoring import METRICS, ScoringError, binomial_quantiles, bootstrap_ci, fixed, score
from mira_math.game.transcript import ResponderTurn, SolverTurn, Transcript
from mira_math.cli.main import main
from mira_math.generators.schema import read_jsonl

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
        final_answer=None if error else _last_answer(turns),   # score re-reads it from the turns
        ended_by=None if error else "answer",
        verdict=None if error else {"correct": correct, "expected": inst.answer.value, "parsed": "x",
                                    "reason": "ok" if correct else "wrong"},
        tokens_est=tokens, error=error)


def _last_answer(turns):
    solver = [turn for turn in turns if isinstance(turn, SolverTurn)]
    return solver[-1].content if solver and solver[-1].action == "answer" else None


def write_run(run_dir, transcripts, regime="zs", solver="model-x", run_hash=None, shard=None,
              selected=None, files=FILES, checksum=CHECKSUM, **config):
    run_dir.mkdir(parents=True)
    run_hash = run_hash or f"hash-{solver}-{regime}"
    selection = {"shard": shard, **_selected_ids(transcripts, shard, selected)}
    if selected is None:
        selected = _selected_count(files, selection, shard)
    manifest = {
        "config_hash": run_hash + (f"-shard{shard}" if shard is not None else ""),
        "run_hash": run_hash,
        "config": {"solver": solver, "responder": "rules", "regime": regime, "condition": "standard",
                   "protocol": "paper", "selection": selection,
                   **config},
        "dataset": {"files": [str(f) for f in files], "checksum": checksum,
                    "instances": selected},
    }
    (run_dir / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    (run_dir / "transcripts.jsonl").write_text(
        "".join(t if isinstance(t, str) else t.to_json_line() for t in transcripts), encoding="utf-8")
    return run_dir


STANDARD_IDS = ["bay-000000", "bay-000020", "geo-000120", "geo-000140", "dis-001110", "dis-001160"]


def _selected_ids(transcripts, shard, selected):
    """A selection by ids that holds the written transcripts (score checks every id against it):
    the six standard instances when the transcripts are among them, else the transcripts' ids."""
    ids = [json.loads(t)["id"] if isinstance(t, str) else t.id for t in transcripts]
    if not all(isinstance(i, str) for i in ids):
        return {}
    return {"ids": STANDARD_IDS if set(ids) <= set(STANDARD_IDS) else ids}


def _selected_count(files, selection, shard):
    from mira_math.eval.integrity import selected_keys
    paths = [Path(f) if Path(f).is_absolute() else ROOT / f for f in files]
    if not all(p.is_file() for p in paths):
        return 0                              # a run of a missing dataset: score refuses it first
    rows = [json.loads(line) for p in paths for line in p.read_text(encoding="utf-8").splitlines() if line]
    keys = list(dict.fromkeys((r["seed_set"], r["id"]) for r in rows))
    families = {(r["seed_set"], r["id"]): r["family"] for r in rows}
    return len(selected_keys(keys, families, selection, tuple(shard) if shard else None))


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
                                  ask("cell (1,1) please"),
                                  offer("cell (1,1) please", INSTANCES["dis-001110"].responder[0], True),
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
    # canonical offers/requests: T2 0/2, T3 1/1, T4 1/3 (its first offer is noncanonical), T5 1/2
    assert m["hit_rate"] == val((0 + 1 + Fraction(1, 3) + Fraction(1, 2)) / 4) == 0.4583
    # the paper's any-offer version: T4 2/3
    assert m["offer_rate"] == val((0 + 1 + Fraction(2, 3) + Fraction(1, 2)) / 4) == 0.5417
    assert m["hit_rate_n"] == 4 and m["no_request"] == 1
    assert m["first_request_success"] == val("1/5")          # T3 only: T4's first offer is noncanonical
    assert m["first_request_offer"] == val("2/5")            # T3, T4
    assert m["avg_requests"] == val("8/5") and m["avg_declines"] == val("4/5") and m["avg_hints"] == val("4/5")
    assert m["requests_before_first_offer"] == val(Fraction(0 + 0 + 1, 3)) and m["first_offer_n"] == 3
    assert m["avg_tokens"] == val(Fraction("109.2") / 5) == 21.84
    assert m["format_errors"] == 2 and m["avg_format_errors"] == val("2/5") and m["format_error_instances"] == 1
    assert m["responder_errors"] == 1
    assert m["answered"] == 5 and m["unreadable"] == 0 and m["fallback_answers"] == 0
    assert m["fallback_share"] == 0
    # trace: T1 no canonical; T4 canonical but wrong; T2, T3, T5 correct (T2 without any hint)
    assert (m["trace_no_canonical"], m["trace_canonical_wrong"], m["trace_correct"]) == (0.2, 0.2, 0.6)
    assert m["noncanonical_offers"] == 1 and m["noncanonical_offer_share"] == 0.2


def test_noncanonical_offers_are_not_successes(tmp_path):
    """Asking for a fact the solver holds (geometry's Q) is an offer, not a first-request success."""
    geo = INSTANCES["geo-000140"]
    turns = [ask("Q?"), offer("Q?", geo.responder[1], True), answer("1")]
    (s,) = score([write_run(tmp_path / "r", [transcript("geo-000140", turns, False, 1.3)])])
    m = s.overall
    assert (m.first_request_success, m.first_request_offer) == (0, 1)
    assert (m.hit_rate, m.offer_rate) == (0, 1)
    assert m.trace_no_canonical == 1 and m.noncanonical_offers == 1


def verdict_run(tmp_path, rows):
    """rows: [(id, final answer, parsed, correct, answer_source)]"""
    out = []
    for iid, final, parsed, correct, source in rows:
        t = transcript(iid, [answer(final or "")], correct, 1.3)
        t.final_answer = final
        t.verdict = {"correct": correct, "expected": "?", "parsed": parsed,
                     "reason": "unreadable: x" if final is not None and parsed is None else "r"}
        line = json.loads(t.to_json_line())
        if source is not None:
            line["turns"][-1]["answer_source"] = source
        out.append(json.dumps(line) + "\n")
    return write_run(tmp_path / "v", out)


def test_unreadable_answers_and_format_compliance(tmp_path, capsys):
    geo = INSTANCES["geo-000140"]
    run = verdict_run(tmp_path, [
        ("bay-000000", "The answer is 9/59.", None, False, "marker"),   # unreadable, no hint
        ("bay-000020", "15/17", "15/17", True, "fallback"),            # correct, by the fallback
        ("geo-000120", None, None, False, None),                       # no answer at all: not unreadable
        ("dis-001110", "1", "1", False, None),                         # readable and wrong
    ])
    # geo-000140: canonical hint acquired, then an unreadable answer
    t = transcript("geo-000140", [ask("line 2?"), offer("line 2?", geo.responder[0], True),
                                  answer("hmm")], False, 1.3)
    t.verdict["parsed"] = None
    with (run / "transcripts.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(t.to_json_line())
    (s,) = score([run])
    m = s.overall
    assert m.n == 5 and m.answered == 4 and m.unreadable_n == 2 and m.unreadable == Fraction(2, 5)
    assert m.trace_no_canonical_unreadable == 1 and m.trace_canonical_wrong_unreadable == 1
    assert m.fallback_answers == 1 and m.fallback_share == Fraction(1, 4)
    rows = list(csv.reader(io_lines(scores_csv(s))))
    assert ["model-x | rules | zs", "all", "all", "unreadable", "0.4000"] in rows
    assert ["model-x | rules | zs", "all", "all", "fallback_share", "0.2500"] in rows
    assert ["model-x | rules | zs", "all", "all", "trace_canonical_wrong_unreadable", "1"] in rows
    table = render_table([s], columns=list(ALL_COLUMNS))     # the default table leaves these out
    assert "40.0 (2)" in table and "25.0 (1)" in table and "60.0 (1)/20.0 (1)/20.0" in table


def io_lines(text):
    return text.splitlines()


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
    assert geo["hit_rate"] == val((1 + Fraction(1, 3)) / 2) and geo["offer_rate"] == val((1 + Fraction(2, 3)) / 2)
    assert geo["format_errors"] == 2
    assert metrics(doc, "difficulty", "1")["accuracy"] == val("2/3")
    d2 = metrics(doc, "difficulty", "2")
    assert (d2["n"], d2["errored"], d2["accuracy"], d2["requests_before_first_offer"]) == (2, 1, 0.5, 0.0)
    empty = metrics(doc, "difficulty_type", "2/B")                  # only the errored T6
    assert empty["n"] == 0 and empty["errored"] == 1
    assert all(empty[k] is None for k in ("accuracy", "accuracy_ci_low", "hit_rate", "avg_tokens"))
    exact = next(g["exact"] for g in doc["groups"] if g["kind"] == "all")
    assert exact["hit_rate"] == "11/24" and exact["chance"] == "4/9"   # unrounded, for reuse


# ------------------------------------------------------------------ the bootstrap interval

def exact_quantiles(k, n):
    """Slow reference: the exact Binomial(n, k/n) CDF in fractions, full range."""
    p = Fraction(k, n)
    out, cdf, levels = [], Fraction(0), [Fraction(1, 40), Fraction(39, 40)]
    for s in range(n + 1):
        cdf += math.comb(n, s) * p ** s * (1 - p) ** (n - s)
        while levels and cdf >= levels[0]:
            out.append(s)
            levels.pop(0)
    return out


def resampled_ci(k, n, resamples=20000, seed=7):
    """Slow reference: the classic Monte Carlo percentile bootstrap."""
    values = [1] * k + [0] * (n - k)
    rng = random.Random(seed)
    sums = sorted(sum(rng.choices(values, k=n)) for _ in range(resamples))
    return sums[resamples * 25 // 1000], sums[resamples * 975 // 1000 - 1]


def test_bootstrap_equals_the_exact_binomial_reference():
    for n in range(1, 41):
        for k in range(n + 1):
            assert binomial_quantiles(k, n) == exact_quantiles(k, n), (k, n)


def test_bootstrap_agrees_with_resampling_on_small_inputs():
    for k, n in [(3, 5), (7, 20), (13, 40), (50, 120), (1, 30)]:
        low, high = bootstrap_ci(k, n)
        ref_low, ref_high = resampled_ci(k, n)
        assert abs(low * n - ref_low) <= 1 and abs(high * n - ref_high) <= 1, (k, n)


def test_wilson_interval_in_the_scores(zs_run):
    (s,) = score([zs_run])
    m = s.overall
    assert (m.accuracy_ci_low, m.accuracy_ci_high) == wilson(3, 5)      # T1..T5: 3 of 5 correct
    assert round(float(m.accuracy_ci_low), 4) == 0.2307 and round(float(m.accuracy_ci_high), 4) == 0.8824
    assert m.accuracy_ci_low <= m.accuracy <= m.accuracy_ci_high
    assert bootstrap_ci(7, 7) == (1, 1) and bootstrap_ci(0, 0) is None and bootstrap_ci(0, 9) == (0, 0)
    big = bootstrap_ci(41_000, 100_000)                                # fast at scale, sane width
    assert Fraction(40_600, 100_000) < big[0] < Fraction(41, 100) < big[1] < Fraction(41_400, 100_000)


def test_canonical_offers_are_judged_by_the_dataset_not_the_logged_flag(tmp_path):
    geo = INSTANCES["geo-000140"]
    wrong_flags = [ask("Q?"), offer("Q?", geo.responder[1], True),             # logged canonical: wrong
                   ask("line 2?"), offer("line 2?", geo.responder[0], False), answer("1")]
    (s,) = score([write_run(tmp_path / "r", [transcript("geo-000140", wrong_flags, False, 1.3)])])
    assert s.overall.noncanonical_offers == 1 and s.overall.trace_canonical_wrong == 1


# ------------------------------------------------------------------ regimes, runs, shards

def test_four_shot_minus_zero_shot_per_family(tmp_path):
    zs = write_run(tmp_path / "zs", standard_transcripts())
    better = [transcript(t.id, t.turns if t.error else t.turns[:-1] + [answer(INSTANCES[t.id].answer.value)],
                         True, t.tokens_est, regime="4s", error=t.error)
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


def test_runs_of_one_label_on_other_splits_or_decoding_are_compared_not_refused(tmp_path):
    ts = standard_transcripts()
    cold = write_run(tmp_path / "t0", ts, run_hash="aaaa", solver_params={"temperature": 0.0})
    warm = write_run(tmp_path / "t7", ts[:3], run_hash="bbbb", solver_params={"temperature": 0.7})
    warm4 = write_run(tmp_path / "t7-4s", standard_transcripts("4s")[:3], regime="4s", run_hash="cccc",
                      solver_params={"temperature": 0.7})
    scores = score([cold, warm, warm4])
    labels = [s.label for s in scores]
    assert labels == ["model-x | rules | zs [temperature=0.0]", "model-x | rules | zs [temperature=0.7]",
                      "model-x | rules | 4s"]
    assert [s.overall.n for s in scores] == [5, 3, 3]
    assert scores[1].paired_with == "model-x | rules | 4s" and scores[0].deltas == []  # same decoding only
    table = render_table(scores)
    assert "temperature=0.7" in table and "split" in table


def test_short_labels_and_oracle_hint(tmp_path):
    url = "openai:Qwen/Qwen2.5-7B-Instruct@http://gpu-node-17.cluster.example.org:8000/v1"
    assert short_spec(url) == "openai:Qwen2.5-7B-Instruct@gpu-node-17:8000"
    assert short_spec("openai:gpt-4o@http://127.0.0.1:8000/v1") == "openai:gpt-4o@127.0.0.1:8000"
    assert short_spec("transformers:/models/ckpt/step-1000") == "transformers:step-1000"
    assert short_spec("llm:vllm:meta-llama/Llama-3.1-8B-Instruct") == "llm:vllm:Llama-3.1-8B-Instruct"
    assert len(short_spec("openai:" + "m" * 80)) == 44 and "…" in short_spec("openai:" + "m" * 80)
    rows = []
    for t in standard_transcripts(solver=url):
        t.condition = "oracle_hint"
        rows.append(t)
    run = write_run(tmp_path / "o", rows, solver=url, condition="oracle_hint")
    (s,) = score([run])
    assert s.label == "openai:Qwen2.5-7B-Instruct@gpu-node-17:8000 | oracle hint | zs"
    assert scores_document(s)["run"]["solver"] == url                   # the full spec is kept


def test_declared_shards_merge_into_one_run(tmp_path):
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
    assert doc["status"] == "complete" and doc["shard_count"] == 2


def test_incomplete_shard_sets_are_marked_with_their_missing_count(tmp_path, capsys):
    ts = standard_transcripts()              # the 6 standard instances over the 3 files
    files = FILES
    s0 = write_run(tmp_path / "s0of4", ts[0::4], shard=[0, 4], selected=2, files=files)
    s1 = write_run(tmp_path / "s1of4", ts[1::4], shard=[1, 4], selected=2, files=files)
    (run,) = score([s0, s1])
    total = len(STANDARD_IDS)                # the selection: the six standard ids
    shard_sizes = [len(range(i, total, 4)) for i in range(4)]
    assert run.run.expected == 2 + 2 + shard_sizes[2] + shard_sizes[3]
    assert not run.run.complete and run.run.missing == run.run.expected - 4
    assert f"INCOMPLETE ({run.run.missing} missing)" in render_table([run])
    rows = list(csv.reader(io_lines(scores_csv(run))))
    assert rows[1][3:] == ["status", "INCOMPLETE"] and rows[2][3:] == ["missing", str(run.run.missing)]
    # a shard of a 2-way split beside shards of a 4-way split: other runs, each incomplete
    t0of2 = write_run(tmp_path / "s0of2", ts[0::2], shard=[0, 2], selected=3)
    runs = score([t0of2, s1])
    assert len(runs) == 2 and not any(r.run.complete for r in runs)
    assert main(["score", str(t0of2), str(s1)]) == 3                  # exit 3: incomplete
    assert "INCOMPLETE" in capsys.readouterr().out


def test_killed_run_is_incomplete(tmp_path):
    (s,) = score([write_run(tmp_path / "r", standard_transcripts()[:4], selected=6)])
    doc = scores_document(s)["run"]
    assert doc["missing"] == 2 and doc["status"] == "INCOMPLETE (2 missing)"


def test_refuses_duplicate_shards_and_overlapping_ids(tmp_path):
    ts = standard_transcripts()
    a = write_run(tmp_path / "s0", ts[:4], shard=[0, 2])
    b = write_run(tmp_path / "s1", ts[3:], shard=[1, 2])
    overlap = "geo-000140 appears in two shards|bay-000020 is not in this run's selection"
    with pytest.raises(ScoringError, match=overlap):
        score([a, b])
    c = write_run(tmp_path / "s0bis", ts[4:], shard=[0, 2])
    with pytest.raises(ScoringError, match="are both shard 0/2"):
        score([a, c])


def test_refuses_transcripts_of_another_run(tmp_path):
    rows = standard_transcripts()
    rows[2].solver = "noask"
    run = write_run(tmp_path / "r", rows, solver="model-x")
    with pytest.raises(ScoringError, match=r"transcripts.jsonl:3: field 'solver': 'noask' but .*manifest"):
        score([run])


def test_held_out_splits_reusing_public_ids_join_on_seed_set_and_id(tmp_path):
    """A held-out split reuses the public ids: every join is on (seed set, id)."""
    held = tmp_path / "heldout.jsonl"
    lines = []
    for line in (ROOT / FILES[1]).read_text(encoding="utf-8").splitlines():   # geometry
        row = json.loads(line)
        row["seed_set"], row["candidate_answers"] = "heldout-x", 7
        lines.append(json.dumps(row))
    held.write_text("\n".join(lines) + "\n", encoding="utf-8")
    # eval would refuse this file (its chance level is not the instances' own); scoring only joins
    held_sum = hashlib.sha256(hashlib.sha256(held.read_bytes()).digest()).hexdigest()
    geo = [t for t in standard_transcripts() if t.family == "geometry_coordinates"]
    public = write_run(tmp_path / "pub", geo, files=[ROOT / FILES[1]], checksum=load_data([ROOT / FILES[1]]).checksum,
                       run_hash="p")
    private = write_run(tmp_path / "held", geo, files=[held], checksum=held_sum, run_hash="h")
    p, h = score([public, private])
    assert p.overall.chance == Fraction(5, 12) and h.overall.chance == Fraction(1, 7)
    assert (p.run.split, h.run.split) == ("public-20-50", "heldout-x")
    assert p.label.endswith("[public-20-50]") and h.label.endswith("[heldout-x]")
    # one dataset holding both splits: the transcript names its seed set, else it is ambiguous
    both = [ROOT / FILES[1], held]
    rows = [json.loads(t.to_json_line()) for t in geo]
    rows[0]["seed_set"] = "heldout-x"
    rows[1]["seed_set"] = "public-20-50"
    mixed = write_run(tmp_path / "mixed", [json.dumps(r) + "\n" for r in rows], files=both,
                      checksum=load_data([ROOT / FILES[1]]).checksum and "")
    (m,) = score([mixed])
    assert m.overall.chance == (Fraction(1, 7) + Fraction(1, 3)) / 2
    del rows[1]["seed_set"]
    ambiguous = write_run(tmp_path / "amb", [json.dumps(r) + "\n" for r in rows], files=both, checksum="")
    with pytest.raises(ScoringError, match="field 'seed_set'"):
        score([ambiguous])


# ------------------------------------------------------------------ bad input: one line each

BAD_FIELDS = [
    ("verdict", lambda r: r.update(verdict="yes"), "field 'verdict'"),
    ("tokens", lambda r: r.update(tokens_est="12"), "field 'tokens_est'"),
    ("turns", lambda r: r.update(turns=5), "field 'turns'"),
    ("correct", lambda r: r["verdict"].update(correct="false"), "field 'verdict.correct'"),
    ("decision", lambda r: r["turns"][1].update(decision="maybe"), r"field 'turns\[1\].decision'"),
    ("huge", lambda r: r.update(tokens_est=10 ** 40), "field 'tokens_est'"),
]


@pytest.mark.parametrize("name,spoil,message", BAD_FIELDS, ids=[b[0] for b in BAD_FIELDS])
def test_malformed_fields_name_file_line_and_field(tmp_path, capsys, name, spoil, message):
    rows = [json.loads(t.to_json_line()) for t in standard_transcripts()]
    spoil(rows[1])
    run = write_run(tmp_path / "r", [json.dumps(r) + "\n" for r in rows])
    with pytest.raises(ScoringError, match=r"transcripts.jsonl:2: " + message):
        score([run])
    assert main(["score", str(run)]) == 1
    err = capsys.readouterr().err
    assert "transcripts.jsonl:2" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("raw,message", [
    (b'{"id": "bay-000000", "x": "\xff\xfe"}\n', "not UTF-8"),
    (b"[" * 200_000 + b"]" * 200_000 + b"\n", "JSON nested too deeply|not JSON"),
    (b'{"id": "bay-000000", "tokens_est": ' + b"9" * 5000 + b"}\n", "not JSON"),
], ids=["utf8", "deep", "digits"])
def test_unreadable_lines_name_file_and_line(tmp_path, capsys, raw, message):
    run = write_run(tmp_path / "r", standard_transcripts()[:1])
    with (run / "transcripts.jsonl").open("ab") as fh:
        fh.write(raw)
    with pytest.raises(ScoringError, match=r"transcripts.jsonl:2: not a transcript line \((" + message + ")"):
        score([run])
    assert main(["score", str(run)]) == 1
    assert "Traceback" not in capsys.readouterr().err


def test_missing_dataset_file_is_named(tmp_path):
    run = write_run(tmp_path / "r", standard_transcripts(), files=FILES + ["mira-math/data/nope/test.jsonl"])
    with pytest.raises(ScoringError, match="nope/test.jsonl is missing"):
        score([run])


def test_unknown_instance_and_changed_dataset_are_refused(tmp_path):
    run = write_run(tmp_path / "r", standard_transcripts(), files=FILES[:2], checksum="")
    with pytest.raises(ScoringError, match="dis-001110 is in none of the dataset files"):
        score([run])
    other = write_run(tmp_path / "o", standard_transcripts(), checksum="0" * 64)
    with pytest.raises(ScoringError, match="checksum differs"):
        score([other])


# ------------------------------------------------------------------ files and structure

def test_files_are_byte_stable_and_long_format(zs_run, capsys):
    write_scores(score([zs_run]))
    first = {p: (zs_run / p).read_bytes() for p in ("scores.json", "scores.csv")}
    assert main(["score", str(zs_run)]) == 0
    assert {p: (zs_run / p).read_bytes() for p in first} == first
    out = capsys.readouterr().out
    assert "model-x | rules | zs" in out and "60.0" in out and "45.8" in out   # hit% (canonical)
    rows = list(csv.reader((zs_run / "scores.csv").open(encoding="utf-8")))
    assert rows[0] == ["run", "group_kind", "group", "metric", "value"]
    assert len(rows) == 1 + 2 + 12 * len(METRICS)
    assert ["model-x | rules | zs", "all", "all", "accuracy", "0.6000"] in rows
    assert ["model-x | rules | zs", "all", "all", "hit_rate", "0.4583"] in rows
    assert ["model-x | rules | zs", "all", "all", "offer_rate", "0.5417"] in rows
    assert ["model-x | rules | zs", "difficulty_type", "2/B", "accuracy", ""] in rows
    doc = json.loads(first["scores.json"])
    assert doc["run"]["label"] == "model-x | rules | zs" and "errored" in doc["definitions"]
    assert doc["scores_version"] == "3"


def test_cli_reports_scoring_errors(tmp_path, capsys):
    assert main(["score", str(tmp_path / "nothing")]) == 1
    assert "manifest.json: missing" in capsys.readouterr().err


def test_scoring_does_not_import_its_output_modules():
    """eval.scoring computes, eval.scores_file writes and eval.tables shows: one direction only."""
    import ast

    for module, forbidden in (("mira_math/eval/scoring.py", ("mira_math.eval.scores_file", "mira_math.eval.tables")),
                              ("mira_math/eval/scores_file.py", ()), ("mira_math/eval/tables.py", ())):
        tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        if forbidden:
            assert not set(forbidden) & imported and "mira_math.eval.report" not in imported
        else:
            assert "mira_math.eval.scoring" in imported
    code = ("import sys, mira_math.eval.scoring; "
            "print('mira_math.eval.scores_file' in sys.modules or 'mira_math.eval.tables' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


# ------------------------------------------------------------------ usage, cost, --out

def with_usage(turn, prompt, completion, reasoning=None):
    usage = {"prompt_tokens": prompt, "completion_tokens": completion}
    if reasoning is not None:
        usage["reasoning_tokens"] = reasoning
    turn.meta = {"usage": usage}
    return turn


def test_reported_usage_is_summed_and_priced(tmp_path, capsys):
    from mira_math.eval.tables import Prices, run_cost

    ts = [transcript("bay-000000", [with_usage(answer("1/3"), 100, 20, 5)], False, 10.4),
          transcript("bay-000020", [with_usage(ask("q?"), 120, 10), decline("q?"),
                                    with_usage(answer("15/17"), 150, 30, 7)], True, 20.8)]
    (s,) = score([write_run(tmp_path / "r", ts)])
    m = s.overall
    assert (m.prompt_tokens, m.completion_tokens, m.reasoning_tokens) == (370, 60, 12)
    assert m.avg_tokens_used == Fraction(430, 2) and m.usage_coverage == 1
    assert m.avg_tokens == Fraction("31.2") / 2                       # the estimate keeps its own name
    prices = Prices.from_options("2", "10", None)
    assert run_cost(s, prices) == Fraction(370 * 2 + 60 * 10, 10 ** 6)
    # two of the six selected instances: the run is INCOMPLETE (exit 3), its cost still printed
    assert main(["score", str(tmp_path / "r"), "--price-in", "2", "--price-out", "10"]) == 3
    assert "0.0013" in capsys.readouterr().out                       # 1340 / 10^6, rounded
    (none,) = score([write_run(tmp_path / "n", standard_transcripts())])
    assert none.overall.prompt_tokens is None and none.overall.avg_tokens_used is None
    assert run_cost(none, prices) is None                             # n/a, never an estimate
    assert main(["score", str(tmp_path / "r"), "--price-in", "2"]) == 1
    assert "--price-in and --price-out go together" in capsys.readouterr().err


def test_price_table_file(tmp_path, capsys):
    from mira_math.eval.tables import Prices

    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"model-x": {"in": 1.5, "out": 6}}))
    (s,) = score([write_run(tmp_path / "r", standard_transcripts())])
    assert Prices.from_options(None, None, table).for_run(s).prompt == Fraction(3, 2)
    table.write_text(json.dumps({"model-x": {"in": "cheap", "out": 6}}))
    assert main(["score", str(tmp_path / "r"), "--prices", str(table)]) == 1
    assert "entry 'model-x': field 'in'" in capsys.readouterr().err


def test_score_out_and_merged_shards_never_written_into_a_shard(tmp_path, capsys):
    ts = standard_transcripts()
    a = write_run(tmp_path / "s0", ts[0::2], shard=[0, 2], selected=3)
    b = write_run(tmp_path / "s1", ts[1::2], shard=[1, 2], selected=3)
    assert main(["score", str(a), str(b)]) == 0
    assert not (a / "scores.json").exists() and not (b / "scores.json").exists()
    assert "pass --out DIR" in capsys.readouterr().err
    assert main(["score", str(a), str(b), "--out", str(tmp_path / "merged")]) == 0
    doc = json.loads((tmp_path / "merged" / "scores.json").read_text())
    assert doc["run"]["shards"] == ["../s0", "../s1"] and doc["run"]["transcripts"] == 6
    assert not (a / "scores.json").exists()
