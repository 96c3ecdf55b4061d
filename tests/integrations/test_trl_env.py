"""The TRL environment without TRL: the tools drive the harness's own Episode, so a policy that
asks and answers as the ``reference`` solver does reaches native ``mira-math eval``'s verdicts,
requests and responder decisions (rules responder and eval's LLM responder on a scripted server);
the budget refuses extra requests; the reward is the verifier's verdict, shaped only on request."""

from __future__ import annotations

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
from mira_math.integrations.common import record_text, release_instances  # noqa: E402
from mira_math.integrations.trl_env import PROTOCOL, MiraToolEnv, RewardOptions  # noqa: E402
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


def test_reset_without_a_record_draws_the_train_stream():
    env = MiraToolEnv()
    env.reset()
    assert env.episode.inst.seed_set == "rl-train-1"


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
