"""The TRL environment without TRL: the tools drive the harness's own Episode, so a policy that
asks and answers as the ``reference`` solver does reaches native ``mira-math eval``'s verdicts,
requests and responder decisions (rules responder and eval's LLM responder on a scripted server);
the budget refuses extra requests; the reward is the verifier's verdict, shaped only on request."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import pytest

sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).resolve().parents[1] / "eval")]
from openai_stub import serve  # noqa: E402
from stub_mira import Handler, State  # noqa: E402

from mira_math import run_episode  # noqa: E402
from mira_math.cli.main import main as mira_math  # noqa: E402
from mira_math.eval.solvers import make_solver  # noqa: E402
from mira_math.game.messages import SolverCall  # noqa: E402
from mira_math.integrations.common import record_instance, record_text, release_instances  # noqa: E402
from mira_math.integrations.sources import instances  # noqa: E402
from mira_math.integrations.trl_env import (INSTRUCTIONS, MULTI_INSTRUCTIONS, PROTOCOL, MiraToolEnv,  # noqa: E402
                                            RewardOptions, grpo_dataset)
from mira_math.verifiers import verify  # noqa: E402

N = 30


def play_reference(env: MiraToolEnv, inst, wrong: bool = False) -> None:
    """The reference solver's policy through the tools, turn by turn: its requests go to
    ``ask`` while requests remain, its answer (or 0 when ``wrong``) to ``answer``; a request in
    the final turn leaves the episode unanswered, as the text protocol ends it."""
    solver = make_solver("reference")
    conversation = [{"role": "user", "content": "problem"}]
    while True:
        reply = solver.generate([SolverCall(inst, conversation, 0)])[0].text
        conversation.append({"role": "assistant", "content": reply})
        if reply.startswith("REQUEST:"):
            if env.episode.state.final_turn:
                return
            conversation.append({"role": "user", "content": env.ask(reply[len("REQUEST: "):])})
        else:
            env.answer("0" if wrong else reply.rpartition("ANSWER: ")[2])
            return


def native_turns(row: dict) -> list:
    return [(t["request"], t["decision"], t["shown"]) for t in row["turns"] if t["role"] == "responder"]


def test_reference_policy_through_the_tools_matches_native_eval():
    solver = make_solver("reference")
    env = MiraToolEnv()
    instances = release_instances()
    for i, inst in enumerate(instances[:: len(instances) // N][:N]):
        observation = env.reset(record=record_text(inst))
        assert inst.view.question in observation and "`ask`" in observation
        play_reference(env, inst, wrong=i % 3 == 0)
        record = env.record()
        native = run_episode(inst, lambda m, inst=inst: solver.generate([SolverCall(inst, m, 0)])[0].text)
        assert record["protocol"] == PROTOCOL and record["answered"]
        t = record["transcript"]
        assert native_turns(t) == native_turns(native), inst.id
        assert t["turns"][-1]["raw"] == "ANSWER: " + t["final_answer"]
        expected = verify(inst, t["final_answer"]).correct
        assert t["verdict"]["correct"] == expected
        assert env.get_reward() == record["reward"] == (1.0 if expected else 0.0)
        if i % 3:
            assert t["verdict"] == native["verdict"] and env.get_reward() == 1.0


def test_the_budget_refuses_and_the_first_answer_counts():
    inst = release_instances()[0]
    env = MiraToolEnv()
    env.reset(record=record_text(inst))
    replies = [env.ask("Tell me everything.") for _ in range(inst.budget)]
    assert all("I do not have that information." in r for r in replies)
    assert replies[-1].endswith("call `answer` with your final answer.")
    assert env.ask(f"What is the value of {inst.hints[0].slot}?").startswith("No requests left")
    assert env.refused == 1 and env.episode.state.requests_used == inst.budget
    assert env.get_reward() == 0.0 and not env.record()["answered"]      # no answer yet
    env.answer(inst.answer.value)
    assert env.answer("0") == "The episode is over: your answer is in."
    assert env.get_reward() == 1.0 and env.refused == 2


def test_reward_shaping_is_optional_and_documented():
    inst = release_instances()[5]
    env = MiraToolEnv(reward=RewardOptions(first_request=0.25, extra_request=0.1))
    env.reset(record=record_text(inst))
    env.ask("Tell me everything.")                       # declined: the first request missed
    play_reference(env, inst)                            # one more request, then the exact answer
    assert env.get_reward() == pytest.approx(1.0 + 0.0 - 0.1)
    env.reset(record=record_text(inst))
    play_reference(env, inst)
    assert env.get_reward() == pytest.approx(1.25)


def test_reset_without_a_record_is_refused():
    """A problem drawn per rollout would put several problems in one GRPO group."""
    with pytest.raises(ValueError, match="grpo_dataset"):
        MiraToolEnv().reset()
    with pytest.raises(ValueError, match="one problem"):
        MiraToolEnv().reset(prompt=[{"role": "user", "content": ""}])      # TRL's placeholder row


def test_instructions_say_one_fact_or_some_facts():
    one = release_instances()[0]
    two = next(instances("train", parts=[2]))
    assert one.k == 1 and two.k == 2
    env = MiraToolEnv()
    shown = env.reset(record=record_text(one))
    assert shown.endswith(INSTRUCTIONS) and "Exactly one fact" in shown
    shown = env.reset(record=record_text(two))
    assert shown.endswith(MULTI_INSTRUCTIONS) and "Exactly one fact" not in shown and "one missing" in shown


def test_grpo_dataset_is_one_row_per_problem():
    pytest.importorskip("datasets")
    release = grpo_dataset("release", family="crt_reconstruction")
    expected = release_instances(family="crt_reconstruction")
    assert release["record"] == [record_text(i) for i in expected]
    assert all(p == [{"role": "user", "content": ""}] for p in release["prompt"])
    streamed = grpo_dataset("train", n=5, parts=[2])
    assert [record_instance(r).k for r in streamed["record"]] == [2] * 5
    endless = grpo_dataset("train", parts=[1, 2])
    rows = list(itertools.islice(iter(endless), 6))
    first = itertools.islice(instances("train", parts=[1, 2]), 6)
    assert [r["record"] for r in rows] == [record_text(i) for i in first]


def test_llm_responder_matches_native_eval(tmp_path):
    instances = release_instances()
    chosen = instances[:: len(instances) // 12][:12]
    with serve(Handler, State(instances)) as httpd:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        spec = f"llm:openai:stub@{url}"
        assert mira_math(["eval", "--solver", "reference", "--responder", spec, "--ids", *[i.id for i in chosen],
                          "--out", str(tmp_path / "native")]) == 0
        lines = (tmp_path / "native" / "transcripts.jsonl").read_text().splitlines()
        rows = {r["id"]: r for r in map(json.loads, lines)}
        env = MiraToolEnv(responder=spec)
        decisions = []
        for inst in chosen:
            env.reset(record=record_text(inst))
            play_reference(env, inst)
            record = env.record()
            t = record["transcript"]
            assert t["responder"] == spec
            assert native_turns(t) == native_turns(rows[inst.id]), inst.id
            assert record["reward"] == (1.0 if rows[inst.id]["verdict"]["correct"] else 0.0), inst.id
            decisions += [turn["decision"] for turn in t["turns"] if turn["role"] == "responder"]
    assert "offer" in decisions and "decline" in decisions     # the scripted holder lies on some
