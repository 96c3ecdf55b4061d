"""The verifiers environment: plugin resolution, the release taskset, the endless held-out
stream (disjoint from the release by check-disjoint's keys), and scripted rollouts through
MiraEnv.run/finalize that score as ``run_episode`` does."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, List

import pytest

pytest.importorskip("verifiers.v1", reason="needs the rl extra: pip install -e '.[rl]' "
                                           "(make test-integrations)")

import mira_math  # noqa: E402
from mira_math.eval.solvers import make_solver  # noqa: E402
from mira_math.game.messages import SolverCall  # noqa: E402
from mira_math.generators import registry  # noqa: E402
from mira_math.generators.build import instance_keys  # noqa: E402
from mira_math.integrations import verifiers_env as ve  # noqa: E402
from mira_math.integrations.common import release_instances  # noqa: E402

pytest.importorskip("mira_math_rl", reason="needs the environment package: "
                                           "pip install -e environments/mira_math_rl (make test-integrations)")

PLUGIN = "mira-math-rl"
sys.path.insert(0, str(Path(__file__).parent))
from replay import plain  # noqa: E402


def test_verifiers_resolves_the_plugin():
    from verifiers.v1.utils.loaders import environment_class, taskset_class

    from verifiers.v1.utils.loaders import harness_class, resolve_env_config

    assert taskset_class(PLUGIN) is ve.MiraTaskset
    assert environment_class(PLUGIN) is ve.MiraEnv
    assert harness_class(PLUGIN) is ve.MiraHarness
    # the solver's default harness is the plugin's in-process one, in a local runtime
    config = resolve_env_config({"taskset": {"id": PLUGIN}})
    assert type(config.agent_harnesses()["solver"]).__name__ == "MiraHarnessConfig"
    assert config.solver.runtime.type == "subprocess"
    env = ve.MiraEnv(ve.MiraEnvConfig(taskset={"id": PLUGIN, "family": "crt_reconstruction"}))
    tasks = list(env.taskset)
    assert [t.data.id for t in tasks] == [i.id for i in release_instances(family="crt_reconstruction")]
    assert len({t.key for t in tasks}) == len(tasks)


def test_release_taskset_is_the_release():
    tasks = list(ve.MiraTaskset(ve.MiraTasksetConfig(id=PLUGIN)))
    release = release_instances()
    assert [t.data.id for t in tasks] == [i.id for i in release]
    first = tasks[0].data
    assert first.prompt == mira_math.initial_messages(release[0])[1]["content"]
    assert first.system_prompt == mira_math.initial_messages(release[0])[0]["content"]


def test_stream_is_endless_and_disjoint_from_the_release():
    taskset = ve.MiraTaskset(ve.MiraTasksetConfig(id=PLUGIN, source="stream"))
    assert not taskset.bounded
    with pytest.raises(ValueError, match="infinite"):
        taskset.shuffle()
    streamed = [ve.record_instance(t.data.record) for t in taskset.take(120)]
    assert {i.seed_set for i in streamed} == {ve.STREAM_SEED_SET}
    release = ve.release_keys()
    keys = [k for inst in streamed for k in instance_keys(inst)]
    assert not release.intersection(keys)
    assert len(set(keys)) == len(keys)                    # no repeats within the stream either
    assert {i.family for i in streamed} == set(registry.names())


def test_stream_reseeds_past_a_collision():
    first = next(ve.stream(exclude=set()))
    again = next(ve.stream(exclude=set(instance_keys(first))))
    assert again.seed != first.seed and not set(instance_keys(first)) & set(instance_keys(again))


# ------------------------------------------------------------------ scripted rollouts

@dataclass
class Segment:
    last_reply: str
    terminated: bool = False


class ScriptedInteraction:
    """A verifiers interaction whose agent is a scripted solver: it sees the task's prompt,
    then each user turn, and answers as ``reference``/``noask`` would."""

    def __init__(self, spec: str, task: Any, limit: int = 100):
        self.solver, self.limit = make_solver(spec), limit
        self.inst = ve.record_instance(task.data.record)
        self.messages = [{"role": "system", "content": task.data.system_prompt},
                         {"role": "user", "content": task.data.prompt}]

    async def turn(self, message: Any = None) -> Segment:
        if message is not None:
            self.messages.append({"role": "user", "content": message})
        if sum(m["role"] == "assistant" for m in self.messages) >= self.limit:
            return Segment("", terminated=True)
        (completion,) = self.solver.generate([SolverCall(self.inst, list(self.messages), 0)])
        self.messages.append({"role": "assistant", "content": completion.text})
        return Segment(completion.text.strip())


@dataclass
class Trace:
    name: str
    rewards: dict = field(default_factory=dict)
    metrics: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    @property
    def agent(self):
        return self

    def record_reward(self, name, value, weight=1.0):
        self.rewards[name] = value

    def record_metrics(self, values):
        self.metrics.update(values)


class Agents:
    def __init__(self, spec: str, limit: int = 100):
        self.spec, self.limit = spec, limit
        self.sessions: List[ScriptedInteraction] = []

    @property
    def solver(self):
        return self

    @contextlib.asynccontextmanager
    async def interaction(self, task):
        session = ScriptedInteraction(self.spec, task, self.limit)
        self.sessions.append(session)
        yield session


def _rollout(env, task, spec, limit=100):
    agents = Agents(spec, limit)
    episode = type("Episode", (), {"traces": [Trace("solver"), Trace("other")]})()

    async def go():
        await env.run(task, agents)
        await env.finalize(task, episode)
    asyncio.run(go())
    return episode.traces, agents.sessions[0]


@pytest.mark.parametrize("spec", ["reference", "noask"])
def test_scripted_rollouts_score_like_run_episode(spec):
    env = ve.MiraEnv(ve.MiraEnvConfig(taskset={"id": PLUGIN}))
    solver = make_solver(spec)
    tasks = list(env.taskset.take(40))
    for task in tasks:
        (solver_trace, other), session = _rollout(env, task, spec)
        inst = session.inst

        def chat(messages, inst=inst):
            return solver.generate([SolverCall(inst, messages, 0)])[0].text
        native = mira_math.run_episode(inst, chat)
        assert solver_trace.rewards == {"correct": 1.0 if native["verdict"]["correct"] else 0.0}
        requests = sum(t["role"] == "responder" for t in native["turns"])
        assert solver_trace.metrics["requests"] == requests
        assert other.rewards == {} and other.metrics == {} and other.info == {}
        assert solver_trace.info["mira"]["protocol"] == "paper"
        assert not {"minimal_accuracy", "ask_decision_accuracy", "over_asks", "guess_rate"} & set(solver_trace.metrics)
        # as transcripts.jsonl stores it: a default epoch (0) is left out of the line
        stored = {k: v for k, v in native.items() if not (k == "epoch" and v == 0)}
        assert plain(solver_trace.info["mira"]["transcript"]) == plain(stored), inst.id
        assert session.messages[:2] == mira_math.initial_messages(inst)
        assert [m["content"] for m in session.messages if m["role"] == "assistant"] == [
            t["raw"] for t in native["turns"] if t["role"] == "solver"]
        if spec == "reference":
            assert solver_trace.rewards["correct"] == 1.0
            assert solver_trace.metrics["first_request_success"] == 1.0
            assert solver_trace.metrics["hit_rate"] == 1.0
            assert solver_trace.metrics["partial_credit"] == 1.0 == solver_trace.metrics["facts_acquired"]
        else:
            assert solver_trace.metrics["requests"] == 0.0
            assert solver_trace.metrics["hit_rate"] is None     # undefined, never 0.0
    assert env._played == {}


def test_an_agent_that_stops_early_is_an_errored_zero():
    env = ve.MiraEnv(ve.MiraEnvConfig(taskset={"id": PLUGIN}))
    task = next(iter(env.taskset))
    (solver_trace, _), _ = _rollout(env, task, "reference", limit=1)   # ends after the request
    assert solver_trace.rewards == {"correct": 0.0}
    assert solver_trace.metrics["errored"] == 1.0


def test_shaping_terms_are_separate_rewards_and_off_by_default():
    env = ve.MiraEnv(ve.MiraEnvConfig(taskset={"id": PLUGIN}, first_request_reward=0.5, extra_request_penalty=0.1))
    task = next(iter(env.taskset))
    (solver_trace, _), _ = _rollout(env, task, "reference")
    assert solver_trace.rewards == {"correct": 1.0, "first_request": 0.5, "extra_requests": 0.0}
    (solver_trace, _), _ = _rollout(env, task, "noask")
    assert solver_trace.rewards["first_request"] == 0.0 and solver_trace.rewards["extra_requests"] == 0.0


class _Call:
    def __init__(self, sampling):
        self.sampling, self.finish_reason = sampling, "stop"


class DecodingInteraction(ScriptedInteraction):
    """A scripted interaction with a live trace: what the env hands the harness each turn is
    kept, and recorded as sent (verifiers' record of the call) with ``override`` laid over it."""

    def __init__(self, spec, task, override=None):
        from verifiers.v1.types import SamplingConfig

        super().__init__(spec, task)
        self.trace = type("LiveTrace", (), {"info": {}, "calls": []})()
        self.handed, self.override, self._sampling = [], dict(override or {}), SamplingConfig

    async def turn(self, message=None):
        self.handed.append(dict(self.trace.info[ve.DECODING]))
        self.trace.calls.append(_Call(self._sampling(**{**self.handed[-1], **self.override})))
        return await super().turn(message)


@pytest.mark.parametrize("override", [{}, {"temperature": 0.7}])
def test_each_turn_carries_evals_settings_and_its_seed(override):
    from mira_math.game.messages import request_seed
    from mira_math.game.reading import STOP_SEQUENCES

    config = ve.MiraEnvConfig(taskset={"id": PLUGIN}, seed=7, max_tokens=512)
    task = next(iter(ve.MiraTaskset(ve.MiraTasksetConfig(id=PLUGIN))))
    inst = ve.record_instance(task.data.record)
    interaction = DecodingInteraction("reference", task, override)
    sent: list = []
    episode = asyncio.run(ve.play_interaction(interaction, inst, config=config, sent=sent))
    turns = sum(t.role == "solver" for t in episode.transcript.turns)
    assert turns == len(interaction.handed) == len(sent) >= 2
    assert interaction.handed == [
        {"seed": request_seed(7, inst.id, n, "solver"), "temperature": 0.0, "top_p": 1.0, "max_tokens": 512,
         "stop": list(STOP_SEQUENCES)} for n in range(turns)]
    assert ve.DECODING not in interaction.trace.info          # handed over, then taken back
    seeds = [request_seed(7, inst.id, n, "solver") for n in range(turns)]
    assert ve.overridden(sent, config, seeds) == sorted(override)
    assert ve.MiraEnvConfig(stop=[]).decoding(1).get("stop") is None     # as eval to the official API


@pytest.mark.parametrize("spec", ["reference", "ask-all", "noask"])
def test_blind_rollouts_score_like_eval(spec):
    """The tier as a taskset (``config: blind``): the blind system prompt, eval's transcripts,
    the blind signals and the protocol named in the trace."""
    env = ve.MiraEnv(ve.MiraEnvConfig(taskset={"id": PLUGIN, "config": "blind"}))
    solver = make_solver(spec)
    tier = release_instances(config="blind")
    tasks = list(env.taskset)
    assert [t.data.id for t in tasks] == [i.id for i in tier]
    assert {t.data.system_prompt for t in tasks} == {mira_math.initial_messages(tier[0])[0]["content"]}
    for task in tasks[:: max(1, len(tasks) // 24)]:
        (solver_trace, _), session = _rollout(env, task, spec)
        inst = session.inst
        native = mira_math.run_episode(inst, lambda m, inst=inst: solver.generate([SolverCall(inst, m, 0)])[0].text)
        stored = {k: v for k, v in native.items() if not (k == "epoch" and v == 0)}
        assert plain(solver_trace.info["mira"]["transcript"]) == plain(stored), inst.id
        assert solver_trace.info["mira"]["protocol"] == "blind"
        over = solver_trace.metrics["over_asks"]
        assert solver_trace.metrics["minimal_accuracy"] == float(native["verdict"]["correct"] and over == 0)
        assert solver_trace.metrics["ask_decision_accuracy"] == float(
            any(t["role"] == "responder" for t in native["turns"]) == bool(inst.gaps.needed))
        if spec == "reference":
            assert (solver_trace.rewards["correct"], solver_trace.metrics["minimal_accuracy"], over) == (1.0, 1.0, 0.0)
        if spec == "ask-all":
            assert over == float(bool(inst.gaps.irrelevant))
        if spec == "noask" and inst.gaps.needed:
            assert solver_trace.metrics["guess_rate"] == 1.0
