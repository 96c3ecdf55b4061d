"""Reasoning models, scored right: one classifier for a solver message, reasoning
kept apart and recorded, empty replies, extraction as the prompt says, one speaker per
message, the same outcome through the library's loop and through ``run_episode``/``eval``."""

from __future__ import annotations

import json
import threading
from dataclasses import asdict
from pathlib import Path

import pytest

import mira_math
from mira_math.game.episode import Episode
from mira_math.game.messages import Completion
from mira_math.game.prompts import answer_format, initial_conversation, system_prompt
from mira_math.game.reading import STOP_SEQUENCES, read_message, split_reasoning
from mira_math.game.responders.rules import RulesResponder
from mira_math.generators import registry
from mira_math.generators.build import make_instance
from mira_math.generators.seeds import SeedSet, instance_seed
from mira_math.verifiers import verify
from tests.eval.openai_stub import JSONHandler, serve
from tests.test_mira_math import _documented_episode
from tests.eval.reasoning_corpus import (all_instances, credited, overcredit_cases, rates,
                                         reasoning_cases, right, wrong)

INSTANCES = all_instances()
ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------- the classifier

@pytest.mark.parametrize("text, visible, reasoning", [
    ("<think>a</think>b", "b", "a"),
    ("<THINK>a</THINK>b", "b", "a"),
    ("<thinking>a</thinking>\nb<reasoning>c</reasoning>d", "\nbd", "a\n\nc"),
    ("<think>a", "", "a"),                       # unclosed at the start: all reasoning
    ("a</think>b", "b", "a"),                    # the template opened the block
    ("no tags", "no tags", None),
])
def test_split_reasoning(text, visible, reasoning):
    assert split_reasoning(text) == (visible, reasoning)


@pytest.mark.parametrize("text, reasoning, kind, content, error", [
    ("", None, "format_error", "", "empty"),
    ("   \n", None, "format_error", "", "empty"),
    (None, None, "format_error", "", "empty"),
    ("", "I think ANSWER: 3", "format_error", "", "reasoning_only"),
    ("<think>ANSWER: 3</think>", None, "format_error", "", "reasoning_only"),
    ("<think>ANSWER: 1/4</think>\n\\boxed{5/4}", None, "answer", "\\boxed{5/4}", None),
    ("ANSWER: 5/4", "ANSWER: 1/4", "answer", "5/4", None),
    ("Solver: ANSWER: 3", None, "answer", "3", None),
    ("**Assistant:** REQUEST: What is c?", None, "request", "What is c?", None),
    ("REQUEST: c?\nInformation holder: c = -2\nSolver: ANSWER: 3", None, "request", "c?", None),
    ("Information holder: c = -2\nANSWER: 3", None, "answer", "3", None),   # a first-line label is narrative
    ("I cannot give a final answer yet; what is P(H)?", None, "format_error", "", None),
    ("The final answer depends on P(H), which I do not know.", None, "format_error", "", None),
    ("If P(H) were 1/2, the answer would be \\boxed{1/3}. I need P(H).", None, "format_error", "", None),
    ("**Final answer** \u2014 32", None, "answer", "32", None),
    ("ANSWER: (-2, 1,\n3, -1)", None, "answer", "(-2, 1,\n3, -1)", None),
    ("ANSWER:\n- x1 = -2\n- x2 = 1\n- x3 = 3", None, "answer", "x1 = -2, x2 = 1, x3 = 3", None),
    ("ANSWER:\nx1 = -2\nx2 = 1", None, "answer", "x1 = -2, x2 = 1", None),
    ("ANSWER: 1/4\nI hope this helps.", None, "answer", "1/4", None),
    ("ANSWER: 1/4\n\nFINAL ANSWER \u2014 5/4", None, "answer", "1/4\nFINAL ANSWER \u2014 5/4", None),
])
def test_read_message(text, reasoning, kind, content, error):
    action = read_message(text, reasoning).action
    assert (action.kind, action.text, action.error) == (kind, content, error)


def test_the_cut_is_recorded():
    reading = read_message("REQUEST: What is c?\nInformation holder: c = -2\nSolver: ANSWER: 3")
    assert reading.cut == {"line": 2, "speaker": "Information holder: c = -2",
                           "dropped": "Information holder: c = -2\nSolver: ANSWER: 3"}
    assert reading.visible == "REQUEST: What is c?\n"
    assert read_message("1 request(s) left.\nANSWER: 3").cut is None          # the first line: narrative
    assert read_message("Let me see.\n1 request(s) left.\nANSWER: 3").cut["line"] == 2


# ---------------------------------------------------------------- the corpora

def test_reasoning_corpus_credits_exactly_the_visible_right_answers():
    cases = reasoning_cases(INSTANCES)
    assert len(cases) >= 5000
    assert {c.credit for c in cases} == {True, False}
    wrong_credit = [(c.form, c.instance.id) for c in cases if not c.credit and credited(c)]
    right_rejected = [(c.form, c.instance.id) for c in cases if c.credit and not credited(c)]
    assert wrong_credit == [] and right_rejected == []


def test_every_overcredit_corpus_credits_nothing():
    cases = overcredit_cases(INSTANCES[::3])
    table = rates(cases)
    assert len(table) >= 25 and all(row["n"] > 0 for row in table.values())
    assert {k: row["credited"] for k, row in table.items() if row["credited"]} == {}


def test_a_bullet_before_a_positive_value_is_punctuation():
    positive = [i for i in INSTANCES if i.answer.type in ("int", "fraction")
                and not i.answer.value.startswith("-")][:200]
    for inst in positive:
        for message in (f"ANSWER:\n- {inst.answer.value}", f"ANSWER: \u2014 {inst.answer.value}"):
            action = read_message(message).action
            assert verify(inst, action.text).correct, (inst.id, message)


def test_documented_forms_of_tuples_and_labels_are_credited():
    tuples = [i for i in INSTANCES if i.answer.type == "tuple"][:100]
    for inst in tuples:
        values = inst.answer.value[1:-1].split(", ")
        names = inst.answer.components
        messages = [
            "ANSWER: (" + ",\n".join(values) + ")",
            "ANSWER:\n" + "\n".join(f"- {n} = {v}" for n, v in zip(names, values, strict=True)),
            "ANSWER:\n" + "\n".join(f"{n} = {v}" for n, v in zip(names, values, strict=True)),
            f"Solver: ANSWER: {inst.answer.value}",
        ]
        for message in messages:
            assert verify(inst, read_message(message).action.text).correct, (inst.id, message)


# ---------------------------------------------------------------- the prompt's examples

def _held_out(per_family: int = 4):
    seeds = SeedSet.named("heldout-issue-21")
    out = []
    for family in registry.names():
        for index in range(per_family):
            d = 1 + index % 3
            out.append(make_instance(registry.get(family), d, instance_seed(seeds, family, d, index),
                                     id=f"held-{family}-{index}", seed_set=seeds.name))
    return out


def test_no_answer_format_example_is_an_answer():
    """Every ``ANSWER: ...`` the prompt shows (system prompt, answer format) is read as the
    protocol reads it and is no instance's answer, over the release and a held-out split."""
    for inst in INSTANCES + _held_out():
        shown = system_prompt("zs") + "\n" + initial_conversation(inst, "zs")[1]["content"]
        examples = [line[line.index("ANSWER"):] for line in shown.splitlines() if "ANSWER:" in line]
        assert examples, inst.id
        for example in examples:
            action = read_message(example).action
            assert not (action.kind == "answer" and verify(inst, action.text).correct), (inst.id, example)
        assert "e.g. ANSWER: -12" not in answer_format(inst)


# ---------------------------------------------------------------- one protocol everywhere

def _scripted(inst, style):
    slot = inst.hints[0].slot
    ask = {"prefix": f"REQUEST: What is {slot}?", "bare": f"What is {slot}?",
           "think": f"<think>ANSWER: {wrong(inst)}</think>\nREQUEST: What is {slot}?",
           "empty": "", "both parts": f"REQUEST: What is {slot}?\nInformation holder: {slot} = 0\n"
                                      f"Solver: ANSWER: {wrong(inst)}"}[style]
    final = {"prefix": f"ANSWER: {right(inst)}", "bare": right(inst),
             "think": f"<think>draft ANSWER: {wrong(inst)}</think>\nANSWER: {right(inst)}",
             "empty": "<think>ANSWER: " + right(inst), "both parts": f"Solver: ANSWER: {right(inst)}"}[style]

    def chat(messages):
        return final if any(m["role"] == "user" and m["content"].startswith("Information holder")
                            for m in messages[2:]) else ask
    return chat


@pytest.mark.parametrize("style", ["prefix", "bare", "think", "empty", "both parts"])
def test_the_readme_loop_and_run_episode_agree(style):
    readme_episode = _documented_episode(ROOT / "docs" / "harness.md")   # the page's own code, as written
    rows = [INSTANCES[k] for k in range(0, len(INSTANCES), 150)]
    for inst in rows:
        loop = readme_episode(inst, _scripted(inst, style))
        episode = mira_math.run_episode(inst, _scripted(inst, style))
        assert loop == (1.0 if episode["verdict"]["correct"] else 0.0), (style, inst.id)
        if style in ("prefix", "think", "both parts"):
            assert loop == 1.0, (style, inst.id)
        else:
            assert loop == 0.0, (style, inst.id)


def _recorder(chat, calls):
    def record(messages):
        calls.append([dict(m) for m in messages])
        return chat(messages)
    return record


@pytest.mark.parametrize("style", ["prefix", "think", "both parts"])
def test_the_documented_loop_sends_what_eval_keeps(style):
    """The page's loop sends the model the same conversation, turn by turn, as the harness's
    episode: the visible text of each reply (think blocks and invented holder lines removed),
    never the raw reply."""
    documented = _documented_episode(ROOT / "docs" / "harness.md")
    for inst in [INSTANCES[k] for k in range(0, len(INSTANCES), 300)]:
        seen: dict = {"loop": [], "episode": []}
        documented(inst, _recorder(_scripted(inst, style), seen["loop"]))
        mira_math.run_episode(inst, _recorder(_scripted(inst, style), seen["episode"]))
        assert seen["loop"] == seen["episode"], (style, inst.id)
        later = [m["content"] for m in seen["loop"][-1] if m["role"] == "assistant"]
        assert later and not any("<think>" in c or "Information holder:" in c for c in later)


# ---------------------------------------------------------------- the episode's record

def _run(inst, replies, **kw):
    ep = Episode(inst, solver="s", responder="rules", regime="zs", **kw)
    responder = RulesResponder()
    for reply in replies:
        call = ep.on_solver(reply)
        if call is not None:
            ep.on_responder(responder.respond([call])[0])
        if ep.done:
            break
    return ep


def test_the_transcript_keeps_reasoning_and_the_conversation_drops_it_by_default():
    inst = next(i for i in INSTANCES if i.budget >= 2)
    slot = inst.hints[0].slot
    replies = [Completion(text=f"<think>Need {slot}.</think>\nREQUEST: What is {slot}?", finish_reason="stop",
                          meta={"usage": {"reasoning_tokens": 17}}),
               Completion(text=f"ANSWER: {right(inst)}", reasoning="The draft.", finish_reason="stop")]
    ep = _run(inst, replies)
    first, second = ep.transcript.turns[0], ep.transcript.turns[2]
    assert first.reasoning == f"Need {slot}." and first.reasoning_tokens == 17
    assert second.reasoning == "The draft." and ep.transcript.verdict["correct"]
    assistant = [m["content"] for m in ep.conversation if m["role"] == "assistant"]
    assert assistant[0] == f"REQUEST: What is {slot}?"
    kept = _run(inst, replies, reasoning_history="keep")
    kept_assistant = [m["content"] for m in kept.conversation if m["role"] == "assistant"]
    assert kept_assistant[0].startswith(f"<think>\nNeed {slot}.\n</think>")
    with pytest.raises(ValueError):
        Episode(inst, solver="s", responder="rules", regime="zs", reasoning_history="sometimes")


def test_empty_and_reasoning_only_replies_are_format_errors_of_their_own_kind():
    inst = next(i for i in INSTANCES if i.budget >= 2)
    ep = _run(inst, [Completion(text="", finish_reason="stop"),
                     Completion(text="", reasoning="ANSWER: " + right(inst), finish_reason="stop")])
    kinds = [t.format_error for t in ep.transcript.turns if t.role == "solver"]
    assert kinds == ["empty", "reasoning_only"] and not ep.done
    assert ep.transcript.final_answer is None


def test_the_speaker_cut_is_in_the_turn_and_the_conversation_keeps_only_the_solver():
    inst = next(i for i in INSTANCES if i.budget >= 2)
    slot = inst.hints[0].slot
    text = f"REQUEST: What is {slot}?\nInformation holder: {slot} = 0\nSolver: ANSWER: {right(inst)}"
    ep = _run(inst, [Completion(text=text, finish_reason="stop")])
    turn = ep.transcript.turns[0]
    assert turn.action == "request" and turn.speaker_cut["line"] == 2
    assert ep.conversation[2]["content"] == f"REQUEST: What is {slot}?"


# ---------------------------------------------------------------- end to end over HTTP

class _ReasoningState:
    def __init__(self, inst, inline):
        self.slot, self.right, self.wrong = inst.hints[0].slot, right(inst), wrong(inst)
        self.inline = inline
        self.lock = threading.Lock()
        self.bodies = []


class _ReasoningServer(JSONHandler):
    """A reasoning model: its draft (wrong) in ``reasoning_content`` or inline ``<think>``,
    its visible turn a request, then the right answer."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        state = self.server.state
        with state.lock:
            state.bodies.append(body)
        asked = any(m["role"] == "assistant" for m in body["messages"])
        visible = f"ANSWER: {state.right}" if asked else f"REQUEST: What is {state.slot}?"
        draft = f"Draft: ANSWER: {state.wrong}"
        message = {"role": "assistant"}
        if state.inline:
            message["content"] = f"<think>\n{draft}\n</think>\n\n{visible}"
        else:
            message.update(content=visible, reasoning_content=draft)
        self._send(200, {"id": "r1", "object": "chat.completion", "created": 1, "model": body["model"],
                         "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                         "usage": {"prompt_tokens": 10, "completion_tokens": 30, "total_tokens": 40,
                                   "completion_tokens_details": {"reasoning_tokens": 20}}})


@pytest.mark.parametrize("inline", [False, True], ids=["reasoning_content", "inline think"])
def test_a_reasoning_server_end_to_end_through_eval_and_score(inline, tmp_path, capsys):
    from mira_math.cli.main import main

    inst = next(i for i in INSTANCES if i.family == "bayes_missing_prior")
    state = _ReasoningState(inst, inline)
    with serve(_ReasoningServer, state) as httpd:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        out = tmp_path / "run"
        code = main(["eval", "--solver", f"openai:thinker@{url}", "--ids", inst.id,
                     "--max-retries", "0", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    (line,) = (out / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()
    transcript = json.loads(line)
    assert transcript["verdict"]["correct"] is True
    solver_turns = [t for t in transcript["turns"] if t["role"] == "solver"]
    assert all(t["reasoning"] == f"Draft: ANSWER: {state.wrong}" for t in solver_turns)
    assert all(t["reasoning_tokens"] == 20 for t in solver_turns)
    # the second request shows the model its own earlier turn without the reasoning
    history = [m["content"] for m in state.bodies[-1]["messages"] if m["role"] == "assistant"]
    assert history == [f"REQUEST: What is {state.slot}?"]
    assert all(body["stop"] == list(STOP_SEQUENCES) for body in state.bodies)   # a local server
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert "stop" in json.dumps(manifest) and '"reasoning_history": "drop"' in json.dumps(manifest)
    assert main(["score", str(out)]) == 0
    scores = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    assert "1" in json.dumps(scores)
    capsys.readouterr()


def test_an_error_object_in_a_200_reply_is_a_backend_error():
    from mira_math.eval.backends.openai_backend import OpenAIBackend

    class _Http:
        status_code = 200
        headers: dict = {}
        content = json.dumps({"error": {"message": "model overloaded"},
                              "choices": [{"message": {"content": "ANSWER: 1"}}]}).encode()

    backend = OpenAIBackend("m", base_url="http://127.0.0.1:9/v1")
    from mira_math.eval.backends.base import GenParams

    c = backend._parse(_Http(), {"request_id": "r", "attempts": 1}, 0.1, GenParams())
    assert c.error is not None and "model overloaded" in c.error


def test_a_null_content_is_an_empty_reply_not_an_empty_answer():
    from mira_math.eval.backends.openai_backend import OpenAIBackend
    from mira_math.eval.backends.base import GenParams

    class _Http:
        status_code = 200
        headers: dict = {}
        content = json.dumps({"choices": [{"finish_reason": "stop", "message": {
            "content": None, "reasoning_content": "ANSWER: 1"}}]}).encode()

    c = OpenAIBackend("m", base_url="http://127.0.0.1:9/v1")._parse(
        _Http(), {"request_id": "r", "attempts": 1}, 0.1, GenParams())
    assert c.text == "" and c.reasoning == "ANSWER: 1"
    assert read_message(c.text, c.reasoning).action.error == "reasoning_only"
    assert asdict(Completion())["reasoning"] is None


def test_stop_sequences_go_where_the_backend_takes_them(monkeypatch):
    from mira_math.eval.backends.base import ChatRequest, GenParams
    from mira_math.eval.backends.openai_backend import OpenAIBackend
    from mira_math.eval.solvers import ModelSolver

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    local = ModelSolver("openai:m", OpenAIBackend("m", base_url="http://127.0.0.1:9/v1"), GenParams())
    official = ModelSolver("openai:m", OpenAIBackend("m"), GenParams())
    assert local.params.stop == STOP_SEQUENCES and official.params.stop == ()
    kwargs = local.backend._kwargs(ChatRequest([{"role": "user", "content": "x"}], 1), local.params)
    assert kwargs["stop"] == list(STOP_SEQUENCES)
    assert "stop" not in official.backend._kwargs(ChatRequest([], 1), official.params)
    assert "stop" not in GenParams().as_dict() and local.params.as_dict()["stop"] == list(STOP_SEQUENCES)


def test_a_premise_before_the_final_answer_is_not_a_condition():
    action = read_message("Given P(E) = 2/5, the final answer is \\boxed{1/4}.").action
    assert action.kind == "answer" and action.source == "fallback"
