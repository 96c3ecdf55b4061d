"""k = 2 metrics from real offline runs: reference, first-fact, noask."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from mira_math.cli.main import main
from mira_math.eval.metrics import FACT_SCALE
from mira_math.eval.rundir.dataset import InstanceInfo, read_instance_info
from mira_math.eval.rundir.transcripts import InstanceStats, instance_stats


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = {}
    for solver in ("reference", "first-fact", "noask"):
        folder = tmp_path_factory.mktemp("runs") / solver
        assert main(["eval", "--config", "multi_hint", "--solver", solver, "--out", str(folder),
                     "--families", "bayes_missing_prior", "crt_reconstruction", "laplace_grid",
                     "rankdef_linear_shared"]) == 0
        assert main(["score", str(folder)]) == 0
        doc = json.loads((folder / "scores.json").read_text())
        out[solver] = next(g["metrics"] for g in doc["groups"] if g["kind"] == "all")
    return out


def test_reference_acquires_every_fact(runs):
    m = runs["reference"]
    assert m["accuracy"] == 1.0 and m["avg_facts"] == 2.0 and m["all_facts_rate"] == 1.0
    assert m["partial_credit"] == 1.0 and m["ask_precision"] == 1.0 and m["ask_f1"] == 1.0
    assert m["trace_correct"] == 1.0 and m["trace_some_facts"] == 0.0


def test_first_fact_gets_half_credit_and_no_all_facts(runs):
    m = runs["first-fact"]
    assert m["avg_facts"] == 1.0 and m["all_facts_rate"] == 0.0 and m["partial_credit"] == 0.5
    assert m["ask_precision"] == 1.0 and m["ask_f1"] == pytest.approx(2 / 3, abs=1e-4)
    assert m["trace_some_facts"] + m["trace_correct"] == pytest.approx(1.0)
    assert m["accuracy"] < 0.25          # a guess among the answers one fact leaves


def test_noask_acquires_nothing(runs):
    m = runs["noask"]
    assert m["avg_facts"] == 0.0 and m["partial_credit"] == 0.0 and m["ask_precision"] is None
    assert m["trace_no_fact"] + m["trace_correct"] == pytest.approx(1.0)


def _stats(turns, groups=None):
    hints = [{"slot": s, "constraint": f"{s} = 1", "value": "1"} for s in ("a", "b", "c")]
    row = {"seed_set": "s", "id": "x", "family": "f", "type": "A", "difficulty": 1,
           "candidate_answers": None, "hints": hints}
    if groups is not None:
        row["hint_groups"] = groups
    info: InstanceInfo = read_instance_info(row, "here")
    transcript = {"turns": turns, "verdict": {"correct": False}, "final_answer": "0"}
    return instance_stats(transcript, info)


def _offer(line):
    return {"role": "responder", "decision": "offer", "quoted_constraint": line}


def test_a_repeated_fact_or_a_second_alternative_is_not_a_new_fact():
    s: InstanceStats = _stats([_offer("a = 1"), _offer("a = 1"), _offer("b = 1")], [["a", "b"], ["c"]])
    assert (s.facts_needed, s.facts_acquired, s.new_fact_offers, s.canonical_offers) == (2, 1, 1, 3)
    assert s.facts_class == "some_facts"
    s = _stats([_offer("c = 1"), _offer("b = 1")], [["a", "b"], ["c"]])
    assert (s.facts_acquired, s.new_fact_offers, s.facts_class) == (2, 2, "all_facts_wrong")
    one = _stats([_offer("a = 1"), _offer("b = 1")])      # v1.1: one group, any hint acquires it
    assert (one.facts_needed, one.facts_acquired, one.new_fact_offers) == (1, 1, 1)
    assert FACT_SCALE % 2 == 0 and Fraction(s.facts_acquired * (FACT_SCALE // 2), FACT_SCALE) == 1


def test_bad_hint_groups_in_a_dataset_line_are_one_clear_error():
    from mira_math.eval.rundir.files import ScoringError

    with pytest.raises(ScoringError, match="hint_groups"):
        _stats([], [["a"], ["zz"]])
