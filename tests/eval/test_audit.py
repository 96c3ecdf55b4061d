"""The responder audit: logged decisions against the rules responder (or any decide function),
with a run whose logged decisions disagree on purpose."""

from __future__ import annotations

import json
from pathlib import Path


from mira_math.eval.audit import AUDIT_JSON, audit, audit_records, outcome, render_audit
from mira_math.game.protocol import DECLINE_TEXT
from mira_math.game.responders.base import ResponderResult, decline
from mira_math.eval.runner import load_data
from mira_math.game.transcript import ResponderTurn, SolverTurn, Transcript
from mira_math.generators.schema import read_jsonl

ROOT = Path(__file__).resolve().parents[2]
FILES = ["mira-math/data/bayes_missing_prior/test.jsonl", "mira-math/data/geometry_coordinates/test.jsonl",
         "mira-math/data/discrete_tomography/test.jsonl"]
INSTANCES = {i.id: i for f in FILES for i in read_jsonl(ROOT / f)}
CHECKSUM = load_data([ROOT / f for f in FILES]).checksum


def logged(request, line=None):
    if line is None:
        return ResponderTurn(request, "decline", None, False, DECLINE_TEXT)
    return ResponderTurn(request, "offer", line, False, line)


def write_run(run_dir, episodes):
    """episodes: [(id, [(request, logged line or None), ...]), ...]"""
    run_dir.mkdir(parents=True)
    rows = []
    for iid, turns in episodes:
        inst = INSTANCES[iid]
        dialogue = []
        for request, line in turns:
            dialogue += [SolverTurn(f"REQUEST: {request}", "request", request, False), logged(request, line)]
        dialogue.append(SolverTurn("ANSWER: 1", "answer", "1", False))
        rows.append(Transcript(id=iid, family=inst.family, type=inst.type, difficulty=inst.difficulty,
                               budget=inst.budget, solver="s", responder="llm:x", regime="zs",
                               condition="standard", turns=dialogue,
                               verdict={"correct": False}).to_json_line())
    manifest = {"config_hash": "h", "run_hash": "h",
                "config": {"solver": "s", "responder": "llm:x", "regime": "zs", "condition": "standard"},
                "dataset": {"files": FILES, "checksum": CHECKSUM, "instances": len(rows)}}
    (run_dir / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (run_dir / "transcripts.jsonl").write_text("".join(rows), encoding="utf-8")
    return run_dir


def key_decide(turn):
    """A stand-in rules responder: offers the first line whose name (before ' = ' or ':') the
    request contains."""
    for line in turn.constraints:
        if line.split(" = ")[0].split(":")[0] in turn.request:
            return ResponderResult("offer", line, meta={"rule": "names its slot"})
    return decline(meta={"rule": "names no quantity"})


def test_outcomes():
    assert outcome(("offer", "a"), ("offer", "a")) == "offer/offer"
    assert outcome(("offer", "a"), ("offer", "b")) == "offer/other_offer"
    assert outcome(("offer", "a"), ("decline", None)) == "offer/decline"
    assert outcome(("decline", None), ("offer", "b")) == "decline/offer"
    assert outcome(("decline", None), ("decline", None)) == "decline/decline"


def test_confusion_agreement_and_disagreements(tmp_path):
    geo1, geo2 = INSTANCES["geo-000120"], INSTANCES["geo-000140"]
    run = write_run(tmp_path / "r", [
        ("bay-000000", [("What is P(H)?", None)]),                          # decline / offer
        ("bay-000020", [("the weather?", "P(H) = 2/3")]),                   # offer / decline
        ("geo-000120", [("What is line 2?", geo1.responder[1])]),           # offer of another line
        ("geo-000140", [("What is Q?", geo2.responder[1])]),                # agree: offer/offer
        ("dis-001110", [("the weather?", None), ("cell (0,1)", "cell (0,1) = 1")]),  # agree twice
    ])
    result = audit(run, decide=key_decide)
    assert (result.turns, result.agree) == (6, 3) and result.agreement_rate == 0.5
    assert result.confusion == {"offer/offer": 2, "offer/other_offer": 1, "offer/decline": 1,
                                "decline/offer": 1, "decline/decline": 1}
    assert result.by_family == {"bayes_missing_prior": {"turns": 2, "agree": 0},
                                "geometry_coordinates": {"turns": 2, "agree": 1},
                                "discrete_tomography": {"turns": 2, "agree": 2}}
    d = {x.id: x for x in result.disagreements}
    assert list(d) == ["bay-000000", "bay-000020", "geo-000120"]
    assert (d["bay-000000"].logged_decision, d["bay-000000"].rules_decision, d["bay-000000"].rules_line) == \
        ("decline", "offer", "P(H) = 1/2")
    assert (d["bay-000020"].request, d["bay-000020"].logged_line, d["bay-000020"].rules_line) == \
        ("the weather?", "P(H) = 2/3", None)
    assert (d["geo-000120"].logged_line, d["geo-000120"].rules_line) == (geo1.responder[1], geo1.responder[0])
    written = json.loads((run / AUDIT_JSON).read_text(encoding="utf-8"))
    assert written["agreement_rate"] == 0.5 and len(written["disagreements"]) == 3
    assert written["confusion"]["logged/rules"]["offer/other_offer"] == 1
    first = (run / AUDIT_JSON).read_bytes()
    audit(run, decide=key_decide)
    assert (run / AUDIT_JSON).read_bytes() == first
    text = render_audit(result)
    assert "3/6 turns agree" in text and "bay-000020" in text


def test_no_responder_turns(tmp_path):
    result = audit(write_run(tmp_path / "r", [("bay-000000", [])]), decide=key_decide)
    assert result.turns == 0 and result.agreement_rate is None
    assert "0/0 turns agree" in render_audit(result)


def test_against_the_rules_responder_disagreeing_on_purpose(tmp_path, capsys):
    from mira_math.game.responders.base import ResponderCall as Call
    from mira_math.game.responders.rules import decide
    from mira_math.cli.main import main

    requests = ["What is P(H)?", "What is the prior probability P(H)?", "Tell me everything you know.",
                "What is line 2?", "What are the coordinates of Q?", "What is cell (1,1)?"]
    episodes = []
    for iid in ("bay-000000", "geo-000120", "dis-001110"):
        inst = INSTANCES[iid]
        turns = []
        for request in requests:
            ruled = decide(Call(list(inst.responder), request, inst.family, 0))
            # log the opposite of what the rules responder decides
            turns.append((request, None if ruled.decision == "offer" else inst.responder[0]))
        episodes.append((iid, turns))
    run = write_run(tmp_path / "r", episodes)
    result = audit_records_from(run, decide)
    assert result.turns == 18 and result.agree == 0 and len(result.disagreements) == 18
    assert result.confusion["offer/offer"] == result.confusion["decline/decline"] == 0
    assert result.confusion["offer/decline"] > 0 and result.confusion["decline/offer"] > 0
    assert main(["audit", str(run)]) == 0
    assert "0/18 turns agree" in capsys.readouterr().out
    assert json.loads((run / AUDIT_JSON).read_text())["turns"] == 18


def audit_records_from(run_dir, decide):
    from mira_math.eval.rundir import load_records

    loaded = load_records(run_dir)
    return audit_records(loaded.records, decide, loaded.info.label)
