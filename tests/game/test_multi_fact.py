"""The game with k = 2 missing facts: prompts, budget, the rules responder."""

from __future__ import annotations

import re

import pytest

from mira_math.game import prompts
from mira_math.game.episode import Episode
from mira_math.game.messages import Completion
from mira_math.game.responders.base import ResponderCall
from mira_math.game.responders.rules import decide
from mira_math.generators import registry
from mira_math.generators.layout import DEFAULT_RELEASE, multi_hint_path
from mira_math.generators.schema import read_jsonl


def _first(family: str):
    return next(iter(read_jsonl(DEFAULT_RELEASE / multi_hint_path(family))))


def test_one_fact_prompts_are_unchanged_and_the_multi_fact_prompt_hides_k():
    for regime in ("zs", "4s"):
        assert prompts.system_prompt(regime) == prompts.system_prompt(regime, 1)
        assert prompts.prompt_hash(regime) == prompts.prompt_hash(regime, 1)
        assert prompts.prompt_hash(regime, 2) != prompts.prompt_hash(regime)
    one, many = prompts.system_prompt("zs"), prompts.system_prompt("zs", 2)
    assert "exactly one fact you need is missing" in one
    assert "some facts you need are missing" in many
    # nothing in the multi-fact prompt counts the missing facts
    assert not re.search(r"\b(two|2|both|pair|second|k)\b", many.split("How to work:")[0], re.I)
    assert "names several quantities at once" in many


def test_a_k2_episode_uses_the_multi_fact_prompt_and_budget_3dk():
    inst = _first("circuit_missing_resistance")
    ep = Episode(inst, solver="s", responder="rules", regime="zs")
    assert ep.state.budget == 3 * inst.difficulty * 2
    assert ep.conversation[0]["content"] == prompts.system_prompt("zs", 2)
    oracle = Episode(inst, solver="s", responder="rules", regime="zs", condition="oracle_hint")
    shown = oracle.conversation[1]["content"]
    assert all(h.constraint in shown for h in inst.hints)   # one fact of each group


@pytest.mark.parametrize("family", registry.multi_hint_names())
def test_the_rules_responder_offers_one_fact_per_precise_request(family):
    inst = _first(family)

    def ask(text: str):
        return decide(ResponderCall(list(inst.responder), text, family, 0))

    for hint in inst.hints:                          # each held fact, named alone: offered
        got = ask(f"What is {hint.slot}?")
        assert (got.decision, got.quoted_constraint) == ("offer", hint.constraint), hint.slot
    a, b = (g[0] for g in inst.groups())
    both = ask(f"What are {a.slot} and {b.slot}?")   # several facts at once: declined
    assert both.decision == "decline"
    again = ask(f"What is {a.slot}?")                # a fact already acquired: offered again
    assert again.quoted_constraint == a.constraint   # (stateless; costs a request)


def test_reference_and_first_fact_solvers_in_an_episode():
    from mira_math.eval.solvers import FirstFactSolver, ReferenceSolver
    from mira_math.game.responders.rules import RulesResponder

    inst = _first("poly_interpolation")
    for solver, requests, correct in ((ReferenceSolver(), 2, True), (FirstFactSolver(), 1, False)):
        ep = Episode(inst, solver=solver.name, responder="rules", regime="zs")
        while not ep.done:
            (done,) = solver.generate([ep.solver_call()])
            call = ep.on_solver(Completion(text=done.text, finish_reason="stop"))
            if call is not None:
                ep.on_responder(RulesResponder().respond([call])[0])
        offers = [t for t in ep.transcript.turns if t.role == "responder"]
        assert len(offers) == requests and all(t.canonical for t in offers)
        assert ep.transcript.verdict["correct"] is correct


# The second fact's own words (the labelled request set's k2 stratum found these): each names that fact alone,
# and the target written with the query point asks for f there, not for the point.
SECOND_FACT_WORDS = [
    ("piecewise_missing_threshold", "What is the query point x?", "query point"),
    ("piecewise_missing_threshold", "the query point x = ?", "query point"),
    ("piecewise_missing_threshold", "Can you share the point at which f is evaluated?", "query point"),
    ("piecewise_missing_threshold", "Please give me the point where f is to be evaluated.", "query point"),
    ("piecewise_missing_threshold", "What is the evaluation point?", "query point"),
    ("geometry_coordinates", "What are the x and y coordinates of Q?", "Q"),
    ("geometry_coordinates", "the x- and y-coordinates of Q, please", "Q"),
    ("linear_system_separator", "What is the other equation?", "equation 2"),
    ("portfolio_variance_missing_corr", "Can you share asset {i}'s standard deviation?", "sigma({i})"),
]


@pytest.mark.parametrize("family,text,slot", SECOND_FACT_WORDS)
def test_the_second_fact_is_offered_in_its_own_words(family, text, slot):
    inst = next(i for i in read_jsonl(DEFAULT_RELEASE / multi_hint_path(family))
                if any(h.slot.startswith(slot.split("(")[0]) for h in i.hints))
    i = next((h.slot[6:-1] for h in inst.hints if h.slot.startswith("sigma(")), "")
    hint = next(h for h in inst.hints if h.slot == slot.format(i=i))
    got = decide(ResponderCall(list(inst.responder), text.format(i=i), family, 0))
    assert (got.decision, got.quoted_constraint) == ("offer", hint.constraint)


@pytest.mark.parametrize("text", ["What is f at the query point?", "f(query point) = ?",
                                  "What is f evaluated at the query x?"])
def test_asking_f_at_the_withheld_query_point_is_the_target_and_declined(text):
    inst = _first("piecewise_missing_threshold")
    assert "query point" in {h.slot for h in inst.hints}
    got = decide(ResponderCall(list(inst.responder), text, inst.family, 0))
    assert got.decision == "decline" and got.quoted_constraint is None
