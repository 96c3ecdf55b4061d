"""The blind tier end to end (docs/decisions/data-blind-tier.md): its three scripted floors through the
CLI on the committed tier, every blind metric against counts read from the release, the
protocol's refusals, the prompt, and the metric definitions on hand-made transcripts."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from mira_math.cli.main import main
from mira_math.eval.rundir.dataset import InstanceInfo
from mira_math.eval.rundir.transcripts import instance_stats
from mira_math.eval.scoring import group_metrics
from mira_math.game.prompts import initial_conversation, system_prompt
from mira_math.generators.layout import DEFAULT_RELEASE
from mira_math.generators.release import blind_files
from mira_math.generators.schema import DataError, instance_from_dict, read_jsonl

FLOORS = ("reference", "ask-all", "noask")


@pytest.fixture(scope="module")
def tier():
    rows = [inst for path in blind_files(DEFAULT_RELEASE) for inst in read_jsonl(path)]
    assert rows, "the committed release holds the blind tier"
    return rows


@pytest.fixture(scope="module")
def floors(tmp_path_factory):
    base = tmp_path_factory.mktemp("blind")
    for solver in FLOORS:
        assert main(["eval", "--solver", solver, "--config", "blind", "--protocol", "blind",
                     "--release", str(DEFAULT_RELEASE), "--out", str(base / solver)]) == 0
    assert main(["score", *(str(base / s) for s in FLOORS)]) == 0
    return {s: json.loads((base / s / "scores.json").read_text()) for s in FLOORS}


def _overall(scores: dict) -> dict:
    return next(g for g in scores["groups"] if g["group"] == "all")["metrics"]


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4)


def test_the_reference_floor_is_perfect_and_minimal(floors, tier):
    m = _overall(floors["reference"])
    assert m["n"] == len(tier)
    for name in ("accuracy", "minimal_accuracy", "ask_decision_accuracy", "ask_precision", "ask_f1"):
        assert m[name] == 1.0, name
    assert (m["over_ask_rate"], m["control_ask_rate"], m["irrelevant_ask_rate"], m["guess_rate"]) == (0, 0, 0, 0)


def test_ask_all_is_accurate_but_not_minimal(floors, tier):
    m = _overall(floors["ask-all"])
    with_gap = [i for i in tier if i.gaps.irrelevant]
    controls = [i for i in tier if not i.gaps.needed]
    assert m["accuracy"] == 1.0
    assert m["over_ask_rate"] == _share(len(with_gap), len(tier))
    assert m["irrelevant_ask_rate"] == 1.0
    assert m["control_ask_rate"] == _share(sum(bool(i.gaps.irrelevant) for i in controls), len(controls))
    assert m["minimal_accuracy"] == _share(len(tier) - len(with_gap), len(tier))
    needed = sum(len(i.gaps.needed) for i in tier)
    assert m["ask_precision"] == _share(needed, needed + len(with_gap)) < 1
    assert m["ask_recall"] == 1.0


def test_noask_gets_the_controls_and_guesses_the_rest(floors, tier):
    m = _overall(floors["noask"])
    controls = [i for i in tier if not i.gaps.needed]
    assert m["ask_decision_accuracy"] == _share(len(controls), len(tier))
    assert m["guess_rate"] == 1.0 and m["over_ask_rate"] == 0
    correct = m["accuracy"] * len(tier)
    assert len(controls) <= round(correct) < len(controls) + (len(tier) - len(controls)) / 4


def test_the_blind_protocol_runs_the_tier_only(tmp_path, capsys):
    assert main(["eval", "--solver", "reference", "--config", "bayes_missing_prior", "--protocol", "blind",
                 "--limit", "2", "--out", str(tmp_path / "a")]) != 0
    assert main(["eval", "--solver", "reference", "--config", "blind", "--limit", "2",
                 "--out", str(tmp_path / "b")]) != 0
    assert main(["eval", "--solver", "reference", "--config", "blind", "--protocol", "blind",
                 "--regime", "4s", "--limit", "2", "--out", str(tmp_path / "c")]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("mira-math eval:") for line in err), err
    assert "not a blind-tier row" in err[0] and "--protocol blind" in err[1] and "zero-shot" in err[2]


def test_the_prompt_says_neither_whether_nor_how_many(tier):
    text = system_prompt("zs", blind=True)
    for claim in ("exactly one fact", "is missing", "are missing from what you", "how many"):
        assert claim not in text
    assert "may be complete" in text and "unnecessary request" in text
    systems = {initial_conversation(i, "zs")[0]["content"] for i in tier}
    assert systems == {text}                 # one prompt for every kind
    assert {i.budget for i in tier} == {3}


def _info(inst) -> InstanceInfo:
    return InstanceInfo.of(inst)


def _transcript(inst, turns):
    out = []
    for kind, payload in turns:
        if kind == "ask":
            out.append({"role": "solver", "action": "request"})
            out.append({"role": "responder", "decision": "offer" if payload else "decline",
                        "quoted_constraint": payload})
        else:
            out.append({"role": "solver", "action": "answer"})
    correct = turns[-1] == ("answer", True)
    return {"turns": out, "verdict": {"correct": correct, "parsed": "1" if correct else "2"},
            "final_answer": "1"}


def test_the_metrics_count_what_the_definitions_say(tier):
    control = next(i for i in tier if not i.gaps.needed and i.gaps.irrelevant)
    needing = next(i for i in tier if len(i.gaps.needed) == 2 and i.gaps.irrelevant)
    gap = next(h for h in needing.hints if h.slot in needing.gaps.irrelevant)
    first = next(h for h in needing.hints if h.slot == needing.gaps.needed[0])
    cases = [
        (control, [("answer", True)]),                                  # right: minimal
        (control, [("ask", None), ("answer", True)]),                   # a declined request still costs
        (needing, [("ask", first.constraint), ("answer", False)]),     # a guess: one fact of two
        (needing, [("ask", gap.constraint), ("ask", first.constraint),
                   ("ask", next(h for h in needing.hints if h.slot == needing.gaps.needed[1]).constraint),
                   ("answer", True)]),                                  # right, but over-asked
    ]
    stats = [instance_stats(_transcript(inst, turns), _info(inst)) for inst, turns in cases]
    assert [s.over_asks for s in stats] == [0, 1, 0, 1]
    assert [s.guessed for s in stats] == [False, False, True, False]
    m = group_metrics(stats)
    assert m.minimal_accuracy == Fraction(1, 4)
    assert m.ask_decision_accuracy == Fraction(3, 4)
    assert m.over_ask_rate == Fraction(2, 4) and m.control_ask_rate == Fraction(1, 2)
    assert m.guess_rate == Fraction(1, 2) and m.irrelevant_ask_rate == Fraction(1, 4)
    assert m.ask_precision == Fraction(3, 5)       # 3 new needed facts of 5 requests
    assert m.ask_recall == Fraction(3, 4)          # (1/2 + 2/2) / 2 rows that need a fact


def test_a_broken_gaps_field_is_one_line_naming_it(tier):
    raw = json.loads(tier[0].to_json_line())
    for field, value, named in ((("kind",), "maybe", "gaps.kind"), (("needed",), "x", "gaps.needed"),
                                (("proofs",), [{"slot": 1}], "gaps.proofs[0]")):
        bad = json.loads(json.dumps(raw))
        bad["gaps"][field[0]] = value
        with pytest.raises(DataError) as err:
            instance_from_dict(bad, "blind.jsonl", 7)
        assert str(err.value).startswith("blind.jsonl:7: field ") and named in str(err.value)
    assert len(str(err.value).splitlines()) == 1


def test_an_edited_tier_row_fails_validate(tmp_path, tier, capsys):
    row = next(i for i in tier if i.gaps.irrelevant)
    raw = json.loads(row.to_json_line())
    raw["gaps"]["proofs"][-1]["answers"][0] = "999/7"
    path = Path(tmp_path / "blind.jsonl")
    path.write_text(json.dumps(raw) + "\n")
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert "blind_proof" in out and row.id in out
