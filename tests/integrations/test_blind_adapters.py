"""The blind tier in the adapters that need no extra: the shared episode builder applies eval's
protocol checks, the tier is selectable as a config, and the TRL tool environment plays a
blind row with the blind instructions to eval's verdicts and responder decisions."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_trl_env import native_turns  # noqa: E402

from mira_math import run_episode  # noqa: E402
from mira_math.eval.solvers import make_solver  # noqa: E402
from mira_math.game.messages import SolverCall  # noqa: E402
from mira_math.generators.layout import DEFAULT_RELEASE  # noqa: E402
from mira_math.generators.release import blind_files  # noqa: E402
from mira_math.generators.schema import read_jsonl  # noqa: E402
from mira_math.integrations.common import new_episode, release_instances  # noqa: E402
from mira_math.integrations.sources import instances  # noqa: E402
from mira_math.integrations.trl_env import BLIND_INSTRUCTIONS, MiraToolEnv, grpo_dataset  # noqa: E402
from mira_math.integrations.common import record_text  # noqa: E402


@pytest.fixture(scope="module")
def tier():
    return [inst for path in blind_files(DEFAULT_RELEASE) for inst in read_jsonl(path)]


def test_the_tier_is_a_config_of_the_release(tier):
    assert [i.id for i in release_instances(config="blind")] == [i.id for i in tier]
    assert [i.id for i in instances("release", config="blind")] == [i.id for i in tier]
    with pytest.raises(ValueError, match="source='release'"):
        instances("stream", config="blind")
    with pytest.raises(ValueError, match="source='release'"):
        grpo_dataset("train", config="blind")             # refused before a lazy dataset is made
    for kwargs, said in (({"config": "nope"}, "unknown instance config"),
                         ({"config": "responder_check"}, "unknown instance config"),
                         ({"config": "blind", "data": str(DEFAULT_RELEASE)}, "give one of them")):
        with pytest.raises(ValueError) as err:
            release_instances(**kwargs)
        assert said in str(err.value) and "\n" not in str(err.value)


def test_the_episode_builder_checks_the_protocol_as_eval_does(tier):
    blind, paper = tier[0], release_instances(limit=1)[0]
    assert new_episode(blind, solver="x").conversation[0]["content"].startswith("You are solving a math "
                                                                                "problem. What you are given")
    for inst, kwargs, said in ((blind, {"protocol": "paper"}, "--protocol blind"),
                               (paper, {"protocol": "blind"}, "not a blind-tier row"),
                               (blind, {"regime": "4s"}, "zero-shot"),
                               (blind, {"protocol": "loud"}, "unknown protocol")):
        with pytest.raises(ValueError) as err:
            new_episode(inst, solver="x", **kwargs)
        assert said in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("spec", ["reference", "ask-all"])
def test_the_tool_env_plays_blind_rows_as_eval(tier, spec):
    solver = make_solver(spec)
    env = MiraToolEnv()
    for inst in tier[:: max(1, len(tier) // 24)]:
        observation = env.reset(record=record_text(inst))
        assert observation.endswith(BLIND_INSTRUCTIONS) and "Exactly one fact" not in observation
        _play(env, inst, solver)
        native = run_episode(inst, lambda m, inst=inst: solver.generate([SolverCall(inst, m, 0)])[0].text)
        t = env.record()["transcript"]
        assert native_turns(t) == native_turns(native), inst.id
        assert t["verdict"] == native["verdict"] and t["verdict"]["correct"], inst.id
        assert env.get_reward() == 1.0


def _play(env: MiraToolEnv, inst, solver) -> None:
    conversation = [{"role": "user", "content": "problem"}]
    while True:
        reply = solver.generate([SolverCall(inst, conversation, 0)])[0].text
        conversation.append({"role": "assistant", "content": reply})
        if reply.startswith("REQUEST:"):
            conversation.append({"role": "user", "content": env.ask(reply[len("REQUEST: "):])})
        else:
            env.answer(reply.rpartition("ANSWER: ")[2])
            return


def test_grpo_takes_the_tier_from_the_release(tier):
    rows = grpo_dataset("release", config="blind")
    assert rows.num_rows == len(tier)
    assert [r for r in rows["record"]] == [record_text(i) for i in tier]
