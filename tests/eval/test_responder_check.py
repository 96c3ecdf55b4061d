"""The labelled request set: its coverage, labels reproducible from each row's
construction record, the rules responder's card (generated here, in the test suite), and an
LLM responder's card over a loopback OpenAI-compatible server whose prose is never an offer."""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path

import pytest

from mira_math.cli.main import main
from mira_math.eval import responder_check as rc
from mira_math.eval.hub_results import entry
from mira_math.eval.scoring import score
from mira_math.game.responders.rules import RulesResponder
from mira_math.generators import registry, request_forms
from mira_math.generators.release import family_files, multi_hint_files
from mira_math.generators.requests import (DECLINE_KINDS, PRECISE_KINDS, REQUESTS_PATH, label_of,
                                           read_request_set, render_request_set)
from mira_math.generators.schema import DataError, read_jsonl
from tests.eval.openai_stub import JSONHandler, serve

RELEASE = Path(__file__).resolve().parents[2] / "mira-math"


@pytest.fixture(scope="module")
def instances():
    return [i for p in family_files(RELEASE) + multi_hint_files(RELEASE) for i in read_jsonl(p)]


@pytest.fixture(scope="module")
def rows():
    return rc.load_rows(RELEASE)


def test_the_committed_set_is_rebuilt_byte_for_byte_from_the_release(instances):
    assert (RELEASE / REQUESTS_PATH).read_bytes() == render_request_set(instances)


def test_every_label_follows_from_its_construction_record(rows, instances):
    by_id = {i.id: i for i in instances}
    for row in rows:
        c = row.construction
        if row.stratum == "paper":
            hints = []
        else:
            inst = by_id[row.instance_id]
            hints = inst.hints
            assert row.constraints == inst.responder and (row.family, row.difficulty) == (inst.family,
                                                                                       inst.difficulty)
        assert label_of(c.kind, c.slot, row.constraints, hints) == (row.label, row.gold_line), row.id
        assert c.template.split("/")[0] in (c.kind, "paper")


def test_the_sample_covers_every_family_type_difficulty_and_kind(rows):
    generated = [r for r in rows if r.stratum != "paper"]
    assert len(generated) >= 2000
    assert {(r.family, r.difficulty) for r in generated} == {(f, d) for f in registry.names() for d in (1, 2, 3)}
    assert {r.type for r in generated} == {"A", "B"}
    kinds = Counter(r.construction.kind for r in generated)
    assert set(kinds) == set(PRECISE_KINDS) | set(DECLINE_KINDS)
    for family in registry.names():   # a family with written forms has every kind; any other the
        fam = Counter(r.construction.kind for r in generated if r.family == family)   # id-based ones
        wanted = set(kinds) if family in request_forms.FORMS else {"canonical", "language", "vague", "target",
                                                                   "injection", "non_request"}
        assert wanted <= set(fam), family
    assert set(request_forms.FORMS) <= set(registry.names())    # forms are optional, never orphaned
    assert any(r.request == "" for r in generated) and any(r.request.startswith("ANSWER:") for r in generated)
    assert len({r.id for r in rows}) == len(rows)


def test_the_k2_stratum_covers_every_two_fact_family_and_asks_for_each_fact(rows, instances):
    """Every family of the multi_hint part, every difficulty, a precise request for every fact of
    every sampled instance, and one request naming two facts at once (a decline)."""
    k2 = [r for r in rows if r.stratum == "k2"]
    assert {(r.family, r.difficulty) for r in k2} == {
        (f, d) for f in registry.multi_hint_names() for d in (1, 2, 3)}
    by_id = {i.id: i for i in instances}
    for iid in {r.instance_id for r in k2}:
        asked = {r.construction.slot for r in k2 if r.instance_id == iid and r.construction.kind == "canonical"}
        assert asked == {h.slot for h in by_id[iid].hints}, iid
        assert any(r.construction.template == "several/both" and r.label == "decline"
                   for r in k2 if r.instance_id == iid), iid
    assert [r.stratum for r in rows[-len(k2):]] == ["k2"] * len(k2)     # the k2 stratum comes last


def test_a_row_id_is_its_instance_id_and_place_so_no_addition_renumbers_it(instances):
    """Ids are keyed by instance: a family added in front of every other one (a new Type A family
    before the Type B ones, in release order) leaves every existing row byte for byte."""
    rows = render_request_set(instances).decode("utf-8").splitlines()
    for line in rows:
        row = json.loads(line)
        place = row["id"].rsplit("-", 1)
        assert place[0] == f"rc-{row['instance_id']}" or row["id"].startswith("rc-paper-T"), row["id"]
    by_family = {}
    for inst in instances:
        by_family.setdefault(inst.family, []).append(inst)
    moved = [i for f in reversed(registry.names()) for i in by_family.get(f, [])]   # another release order
    others = render_request_set(moved).decode("utf-8").splitlines()
    assert sorted(others) == sorted(rows)


def test_a_form_is_never_labelled_for_another_slot_of_a_two_fact_instance(rows):
    """A precise request's text is another slot's form on no row of the same instance: the Type A
    forms are keyed by slot, so the second fact of a two-fact variant is not asked for with the
    first fact's words (and "the last congruence" is not the third of four)."""
    precise: dict = {}
    for r in rows:
        if r.stratum == "k2" and r.label == "offer":
            precise.setdefault((r.instance_id, r.request), set()).add(r.construction.slot)
    assert all(len(slots) == 1 for slots in precise.values())
    assert not any("last congruence" in r.request for r in rows
                   if r.stratum == "k2" and r.family == "crt_reconstruction")


def test_a_family_without_written_forms_still_gets_its_rows(instances, monkeypatch):
    """A new family's request forms are not one of its six files: without them the set asks for
    its slot by id and in other languages and declines everything else, and ``generate`` runs."""
    monkeypatch.delitem(request_forms.FORMS, "circuit_missing_resistance")
    rows = [json.loads(line) for line in render_request_set(instances).decode("utf-8").splitlines()]
    circuit = Counter(r["construction"]["kind"] for r in rows if r["family"] == "circuit_missing_resistance")
    assert circuit["canonical"] > 0 and circuit["language"] > 0 and circuit["index"] == circuit["gloss"] == 0
    assert circuit["vague"] > 0 and circuit["neighbour"] > 0


def test_the_paper_stratum_holds_the_twenty_quoted_requests(rows):
    paper = [r for r in rows if r.stratum == "paper"]
    assert len(paper) == 20
    assert Counter(r.label for r in paper) == {"decline": 18, "offer": 2}
    assert {r.instance_id for r in paper} == {"paper:bir-000768", "paper:bay-000044", "paper:cir-000924",
                                              "paper:mom-000404"}


def test_rules_card_full_recall_no_leaks_and_every_exception_decided(rows, tmp_path):
    card = rc.check(RulesResponder(), rows, "rules", "x")
    data = card.as_dict()
    k1, k2 = data["strata"]["k1"], data["strata"]["k2"]
    for stratum in (k1, k2):
        assert stratum["leaks"]["k"] == 0 and stratum["wrong_facts"]["k"] == 0 and stratum["precise"] > 1000
    assert data["standard_responder"] is True and data["undecided_exceptions"] == 0
    # every precise request it misses is one wholly in another language (a decided limit) ...
    generated = [e for e in data["exceptions"] if e["stratum"] != "paper"]
    assert {e["kind"] for e in generated} == {"native"}
    assert sum(s["recall"]["n"] - s["recall"]["k"] for s in (k1, k2)) == len(generated)
    # ... and it offers every other precise request: notation, index conventions, glosses, languages
    for kind in ("canonical", "index", "gloss", "language"):
        assert data["by_kind"][kind]["agreement"]["rate"] == "1.0000", kind
    # the paper's quoted requests: 17 of 20 agree; the three that differ are the project's decision
    paper = data["strata"]["paper"]
    assert (paper["agreement"]["k"], paper["agreement"]["n"]) == (17, 20)
    assert sorted(e["request"] for e in data["exceptions"] if e["stratum"] == "paper") == [
        "the 2nd moment", "the 2nd moment", "the value of moment_2"]
    js, md = rc.write_card(card, tmp_path)
    assert json.loads(js.read_text(encoding="utf-8"))["card_version"] == rc.CARD_VERSION
    assert f"| stratum k1 | {k1['n']} | " in md.read_text(encoding="utf-8")


def test_the_cli_prints_the_rules_card(tmp_path, capsys):
    assert main(["responder-check", "--responder", "rules", "--out", str(tmp_path / "card")]) == 0
    out = capsys.readouterr().out
    assert "rules (standard responder)" in out and "stratum paper" in out and "overall (generated)" in out
    assert (tmp_path / "card" / rc.CARD_MD).is_file()


def test_a_folder_without_the_set_is_one_clear_error(tmp_path, capsys):
    assert main(["responder-check", "--data", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mira-math responder-check: ") and "no request set here" in err


def test_an_unknown_responder_is_one_line_and_exit_2(capsys):
    assert main(["responder-check", "--responder", "oracle"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mira-math responder-check: unknown responder 'oracle'") and err.count("\n") == 1


def test_a_malformed_row_names_its_line():
    first = (RELEASE / REQUESTS_PATH).read_text(encoding="utf-8").split("\n", 1)[0]
    with pytest.raises(DataError, match="line 2"):
        read_request_set(first + '\n{"id": 1}\n', "x.jsonl")


def test_subset_keeps_every_stratum(rows):
    sub = rc.subset(rows, 30)
    assert Counter(r.stratum for r in sub) == {"k1": 30, "k2": 30, "paper": 20}
    assert len({r.id for r in sub}) == 80


# ------------------------------------------------------------ an LLM responder over loopback HTTP

PROSE = 'Please ask again more precisely; then I can offer "{line}".'


class _Holder(JSONHandler):
    """Answers a request that starts with "What is" with a valid offer object of the first
    private line, and every other request with prose that quotes that line."""

    def do_POST(self):
        state = self.server.state
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        user = body["messages"][-1]["content"]
        lines = user.split("Your private constraints:\n", 1)[1].split("\n\nRequest:", 1)[0].split("\n")
        request = user.rsplit("Request: ", 1)[1]
        with state["lock"]:
            state["formats"].append((body.get("response_format") or {}).get("type"))
        if request.startswith("What is"):
            content = json.dumps({"type": "offer", "has_exact_match": True, "quoted_constraint": lines[0],
                                  "hint": "named"})
        else:
            content = PROSE.format(line=lines[0])
        self._send(200, {"id": "c", "object": "chat.completion", "created": 1, "model": body["model"],
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": content}}],
                         "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})


def test_llm_card_over_http_counts_prose_as_errors_never_as_offers(rows, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    state = {"lock": threading.Lock(), "formats": []}
    sub = rc.subset(rows, 40)
    with serve(_Holder, state) as httpd:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        code = main(["responder-check", "--responder", f"llm:openai:stub-model@{url}", "--max-rows", "40",
                     "--out", str(tmp_path / "llm")])
    assert code == 0
    data = json.loads((tmp_path / "llm" / rc.CARD_JSON).read_text(encoding="utf-8"))
    assert data["standard_responder"] is False and data["data"]["rows"] == len(sub) == 100
    asked = [r for r in sub if r.constraints]
    assert state["formats"] == ["json_schema"] * len(asked)     # structured output requested each time
    prose = [r for r in asked if not r.request.startswith("What is")]
    offers = {e["id"]: e for e in data["exceptions"] if e["responder_decision"] == "offer"}
    assert not any(r.id in offers for r in prose)                # 0 offers from prose
    prose_ids = {r.id for r in prose}
    declined = [e for e in data["exceptions"] if e["id"] in prose_ids]
    assert declined and all(e["reply"].startswith(PROSE[:20]) for e in declined)   # its words are kept
    assert data["overall"]["responder_errors"] + data["strata"]["paper"]["responder_errors"] == len(prose)
    assert data["responder_error_reasons"] == {"json parse error": len(prose)}    # how it broke the protocol
    assert data["tokens"] == {"prompt": 100 * len(asked), "completion": 20 * len(asked)}
    out = capsys.readouterr().out
    assert "NOT the standard responder" in out and f"responder errors by reason: json parse error {len(prose)}" in out
    md = (tmp_path / "llm" / rc.CARD_MD).read_text(encoding="utf-8")
    assert f"Responder errors by reason: json parse error {len(prose)}." in md
    assert "| project's decision | reply |" in md and "`Please ask again more precisely" in md


# ------------------------------------------------------------ the standard responder

def test_runs_name_their_responder_card_and_a_non_standard_one_is_flagged(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    standard, other = tmp_path / "rules", tmp_path / "llm"
    assert main(["eval", "--solver", "reference", "--limit", "2", "--out", str(standard)]) == 0
    state = {"lock": threading.Lock(), "formats": []}
    with serve(_Holder, state) as httpd:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        main(["eval", "--solver", "reference", "--limit", "2", "--out", str(other),
              "--responder", f"llm:openai:stub-model@{url}"])
    manifest = json.loads((standard / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["responder_card"] == {"responder": "rules", "card_version": rc.CARD_VERSION, "standard": True}
    capsys.readouterr()
    main(["score", str(standard), str(other), "--out", str(tmp_path / "scores")])
    captured = capsys.readouterr()
    assert "is not the standard responder (rules)" in captured.err
    assert captured.err.count("is not the standard responder") == 1     # the rules run is not flagged
    cards = {}
    for path in (tmp_path / "scores").rglob("scores.json"):
        run = json.loads(path.read_text(encoding="utf-8"))["run"]
        cards[run["responder"].split(":")[0]] = run["responder_card"]
    assert cards["rules"]["standard"] is True and cards["llm"]["standard"] is False
    assert cards["llm"]["card_version"] == rc.CARD_VERSION
    notes = {s.run.get("responder").split(":")[0]: entry(s, "owner/mira-math", "mira_math")["notes"]
             for s in score([standard, other])}
    assert notes["rules"].endswith(f"responder card {rc.CARD_VERSION}")
    assert notes["llm"].endswith(f"responder card {rc.CARD_VERSION} (NOT the standard responder)")
    report = tmp_path / "report"
    assert main(["report", str(standard), str(other), "--out", str(report)]) == 0
    assert "(not the standard responder)" in (report / "report.md").read_text(encoding="utf-8")


def test_a_two_fact_instance_gets_its_own_stratum_and_a_two_fact_decline(instances):
    """The hook for the k = 2 variants: built over an instance's hint groups."""
    from dataclasses import fields
    from types import SimpleNamespace

    from mira_math.game.responders.base import ResponderCall
    from mira_math.game.responders.rules import decide
    from mira_math.generators.requests import build_request_set

    base = next(i for i in instances if i.family == "rankdef_linear_shared")
    fake = SimpleNamespace(**{f.name: getattr(base, f.name) for f in fields(base)},
                           groups=lambda: [[base.hints[0]], [base.hints[1]]])
    built = [r for r in build_request_set([fake], per_block=1) if r.stratum != "paper"]
    assert {r.stratum for r in built} == {"k2"}
    precise = {r.construction.slot: r.gold_line for r in built if r.label == "offer"}
    assert precise == {h.slot: h.constraint for h in base.hints}
    (both,) = [r for r in built if r.construction.template == "several/both"]
    assert both.label == "decline" and base.hints[0].slot in both.request and base.hints[1].slot in both.request
    assert decide(ResponderCall(list(both.constraints), both.request, both.family, 0)).decision == "decline"
