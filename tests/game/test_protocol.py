"""The pure protocol: action parsing and the dialogue state machine on every path."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mira_math.game.protocol import after_solver, needs_responder, start
from mira_math.game.reading import Action, parse_action


@pytest.mark.parametrize("text, kind, content", [
    ("REQUEST: What is P(H)?", "request", "What is P(H)?"),
    ("ANSWER: 10/37", "answer", "10/37"),
    ("answer: 3", "answer", "3"),
    ("Let me think.\nP(H) is missing.\nREQUEST: the prior P(H)", "request", "the prior P(H)"),
    ("REQUEST: the prior\nANSWER: 2/3", "answer", "2/3"),          # the last action counts
    ("ANSWER: 2/3\nOn second thought,\nREQUEST: R3?", "request", "R3?"),
    ("**ANSWER:** 7", "answer", "7"),
    ("**ANSWER**: 7", "answer", "7"),
    ("- REQUEST: value of a(1)", "request", "value of a(1)"),
    ("ANSWER:\n\n(1, 2, 3)", "answer", "(1, 2, 3)"),                 # value on the next line
    ("The answer is 7.", "format_error", ""),
    ("ANSWER: $$\nP(H|E) = \\frac14\n$$\nDone.", "answer", "$$\nP(H|E) = \\frac14\n$$"),
    ("ANSWER:\n\\[\n\\boxed{1/4}\n\\]", "answer", "\\[\n\\boxed{1/4}\n\\]"),
    ("ANSWER: \\begin{pmatrix} 1 \\\\ 2\n\\end{pmatrix}", "answer",
     "\\begin{pmatrix} 1 \\\\ 2\n\\end{pmatrix}"),
    ("ANSWER: $$ 1/4 $$ and more", "answer", "$$ 1/4 $$"),
    ("ANSWER: $$\n1/4", "answer", "$$\n1/4"),                      # unclosed: to the end
    ("ANSWER\uff1a 5", "answer", "5"),
    ("> ANSWER : 5", "answer", "5"),
    ("ANSWER:", "format_error", ""),
    ("", "format_error", ""),
    ("MY ANSWER IS: 5", "format_error", ""),
])
def test_parse_action(text, kind, content):
    action = parse_action(text)
    assert (action.kind, action.text) == (kind, content)
    assert action.source == (None if kind == "format_error" else "marker")


@pytest.mark.parametrize("text, content", [
    ("So P(H|E) = 1/4, and\n\\[\\boxed{\\frac14}\\]", "\\boxed{\\frac14}"),   # the box is the answer
    ("We get $\\boxed{1/4}$.", "\\boxed{1/4}"),
    ("Since P(E) = 0.4, we get P(H|E) = \\boxed{1/4}.", "\\boxed{1/4}"),
    ("So (x0, x1) = \\boxed{(1, 2)}", "\\boxed{(1, 2)}"),
    ("Hence \\sqrt{\\boxed{4}}", "Hence \\sqrt{\\boxed{4}}"),
    ("Work.\n**Final Answer**\n\\[ \\boxed{1/4} \\]", "\\boxed{1/4}"),
    ("The final answer is $\\frac{1}{4}$. I hope it is correct.",
     "$\\frac{1}{4}$. I hope it is correct."),
    ("Final Answer: 1/4", "1/4"),
    ("Before the final answer, check: 2 + 2 = 4. \\boxed{1/4}", "\\boxed{1/4}"),
    ("**Final answer:** \n$$\n1/4\n$$\nThat is all.", "$$\n1/4\n$$"),
    ("\\sqrt\n\\boxed{4}", "\\sqrt\n\\boxed{4}"),           # the line before a box joins it
])
def test_fallback_answers(text, content):
    assert parse_action(text) == Action("answer", content, "fallback")


@pytest.mark.parametrize("text", [
    "The answer is 7.",                       # no marker, no box, no phrase
    "\\boxed{1/4}. Let me check: 2 + 2 = 4.",  # the box is not the last statement
    "Final answer: 1/4.\nActually 1/4 + 1 = 5/4.",
    "\\boxed{1/4",                           # unbalanced box
    "final answer",
])
def test_no_fallback(text):
    assert parse_action(text) == Action("format_error", "")


def test_action_is_backwards_compatible():
    assert Action("answer", "1") == Action("answer", "1", None)


@given(st.text(max_size=500))
def test_parse_action_never_raises(text):
    assert parse_action(text).kind in ("request", "answer", "format_error")


def test_non_text_is_a_format_error():
    assert parse_action(None).kind == "format_error"


def test_answer_ends_the_episode_at_once():
    s = after_solver(start(3), Action("answer", "5"))
    assert s.done and s.answer == "5" and s.ended_by == "answer" and s.requests_used == 0


def test_requests_spend_the_budget_then_one_final_turn():
    s = start(2)
    s = after_solver(s, Action("request", "a"))
    assert not s.done and not s.final_turn and s.requests_left == 1
    s = after_solver(s, Action("request", "b"))
    assert not s.done and s.final_turn and s.requests_left == 0
    end = after_solver(s, Action("answer", "1"))
    assert end.done and end.answer == "1"


def test_a_request_in_the_final_turn_ends_without_answer():
    s = after_solver(start(1), Action("request", "a"))
    end = after_solver(s, Action("request", "again"))
    assert end.done and end.answer is None and end.ended_by == "no_answer_in_final_turn"
    assert not needs_responder(Action("request", "again"), s)


def test_format_error_costs_a_request_and_needs_no_responder():
    s0 = start(3)
    s = after_solver(s0, Action("format_error", ""))
    assert s.requests_used == 1 and not s.done
    assert not needs_responder(Action("format_error", ""), s0)
    assert needs_responder(Action("request", "x"), s0)


def test_format_errors_alone_still_end_the_episode():
    s = start(3)
    turns = 0
    while not s.done:
        s = after_solver(s, Action("format_error", ""))
        turns += 1
    assert turns == 4 and s.answer is None          # budget + the final turn


def test_zero_budget_starts_in_the_final_turn():
    s = start(0)
    assert s.final_turn
    assert after_solver(s, Action("request", "x")).done


def test_no_action_after_the_end():
    with pytest.raises(ValueError):
        after_solver(after_solver(start(1), Action("answer", "1")), Action("answer", "2"))


@given(st.lists(st.sampled_from(["request", "answer", "format_error"]), min_size=1, max_size=20),
       st.integers(0, 9))
def test_every_episode_ends_within_budget_plus_one_turns(kinds, budget):
    s = start(budget)
    for n, kind in enumerate(kinds, start=1):
        s = after_solver(s, Action(kind, "" if kind == "format_error" else "x"))
        if s.done:
            assert n <= budget + 1
            break
    else:
        assert len(kinds) <= budget


def _episode_for(message: str):
    import json

    from mira_math.eval.backends.base import Completion
    from mira_math.game.episode import Episode
    from tests.verifiers.corpus import release_instances

    inst = [i for i in release_instances(1) if i.family == "bayes_missing_prior"][0]
    ep = Episode(inst, solver="scripted", responder="rules", regime="zs")
    ep.on_solver(Completion(text=message.replace("VALUE", inst.answer.value)))
    assert ep.done
    return json.loads(ep.transcript.to_json_line())


@pytest.mark.parametrize("message, source", [
    ("Work.\nANSWER: VALUE", "marker"),
    ("Work.\n**Final Answer**\n\\[ \\boxed{VALUE} \\]", "fallback"),
])
def test_transcript_records_the_answer_source(message, source):
    row = _episode_for(message)
    assert row["answer_source"] == source
    assert row["turns"][0]["answer_source"] == source
    assert row["verdict"]["correct"] is True
