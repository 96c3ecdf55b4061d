"""MIRA-Math as a verifiers environment (PyPI ``verifiers`` 0.4, its v1 API; extra ``.[rl]``).

The module is a verifiers plugin: it exports one :class:`MiraTaskset` and one :class:`MiraEnv`,
so ``vf-eval mira-math-rl --model M`` runs it (through the top-level shim
``scripts/verifiers_plugin/mira_math_rl.py``, on the path but not installed; README, "Integrations").

- :class:`MiraTaskset` yields the release's rows (``--env.taskset.source release``, default;
  ``family``/``type``/``data`` select rows as ``mira-math eval`` does) or an endless procedural
  stream (``--env.taskset.source stream``) from the held-out seed set named by
  ``stream_seed_set``: every streamed instance is checked against the release's
  ``check-disjoint`` keys (complete problem and solver view) and against the stream's own
  earlier instances, and skipped (reseeded) on a collision, so the stream is disjoint from the
  release by construction.
- :class:`MiraEnv` plays one episode per task: the solver agent speaks, the harness's own
  :class:`~mira_math.game.episode.Episode` reads each turn (budget, requests, answers, format
  errors, the final turn) and the rules responder answers, turn by turn. The reward is the
  exact verifier's verdict (1/0); the request-quality metrics are recorded beside it.
"""

from __future__ import annotations

import itertools
from typing import Any, Dict, Iterator, List, Optional, Set

import verifiers.v1 as vf

from mira_math.game.episode import Episode
from mira_math.game.messages import Completion, Conversation
from mira_math.game.prompts import problem_message, system_prompt
from mira_math.game.responders.rules import RulesResponder
from mira_math.generators import registry
from mira_math.generators.build import instance_keys, make_instance
from mira_math.generators.schema import Instance
from mira_math.generators.seeds import SeedSet, instance_seed
from mira_math.integrations.common import (new_episode, play, record_instance, record_text,
                                           release_instances, transcript_stats)

STREAM_SEED_SET = "rl-stream-1"   # the held-out seed set the endless stream draws from
MAX_RESEEDS = 200


class MiraData(vf.TaskData):
    """One MIRA instance: its opening messages as the prompt, its release line as ``record``."""

    record: str
    family: str
    type: str
    difficulty: int
    seed_set: str


class MiraTask(vf.Task[MiraData, vf.State, vf.TaskConfig]):
    @property
    def key(self) -> str:
        return f"{self.data.seed_set}/{self.data.id}"


class MiraTasksetConfig(vf.TasksetConfig):
    source: str = "release"
    """``release`` (the committed rows, or ``data``) or ``stream`` (endless, held out)."""
    family: Optional[str] = None
    type: Optional[str] = None
    data: Optional[str] = None
    regime: str = "zs"
    stream_seed_set: str = STREAM_SEED_SET


def task_for(inst: Instance, regime: str = "zs") -> MiraTask:
    return MiraTask(MiraData(id=inst.id, prompt=problem_message(inst), system_prompt=system_prompt(regime),
                             record=record_text(inst), family=inst.family, type=inst.type,
                             difficulty=inst.difficulty, seed_set=inst.seed_set))


def release_keys() -> Set[str]:
    """The committed release's ``check-disjoint`` keys (complete problems and solver views)."""
    return {key for inst in release_instances() for key in instance_keys(inst)}


def stream(seed_set: str = STREAM_SEED_SET, families: Optional[List[str]] = None,
           exclude: Optional[Set[str]] = None) -> Iterator[Instance]:
    """Instances from the named held-out seed set, forever: families in turn, difficulties
    1-3, reseeded past any problem or view that the release (``exclude``, default: its keys)
    or the stream itself already holds."""
    seeds = SeedSet.named(seed_set)
    names = families or registry.names()
    seen = set(release_keys() if exclude is None else exclude)
    for n in itertools.count():
        family = registry.get(names[n % len(names)])
        difficulty, index = 1 + (n // len(names)) % 3, n // (3 * len(names))
        for attempt in range(MAX_RESEEDS):
            inst = make_instance(family, difficulty,
                                 instance_seed(seeds, family.name, difficulty, index, attempt),
                                 id=f"{registry.prefix(family.name)}-{seed_set}-{n:08d}",
                                 seed_set=seed_set)
            keys = instance_keys(inst)
            if not seen.intersection(keys):
                seen.update(keys)
                yield inst
                break
        else:
            raise RuntimeError(f"stream {seed_set}: {MAX_RESEEDS} reseeds of item {n} all collided")


class MiraTaskset(vf.Taskset[MiraTask, MiraTasksetConfig]):
    def __init__(self, config: MiraTasksetConfig) -> None:
        super().__init__(config)
        if config.source not in ("release", "stream"):
            raise ValueError(f"unknown source {config.source!r}: use release or stream")
        self.INFINITE = config.source == "stream"

    def load(self) -> Iterator[MiraTask]:
        c = self.config
        if c.source == "stream":
            families = [c.family] if c.family else (
                [n for n in registry.names() if registry.type_of(n) == c.type.upper()] if c.type else None)
            instances: Any = stream(c.stream_seed_set, families)
        else:
            instances = release_instances(family=c.family, type=c.type, data=c.data)
        for inst in instances:
            yield task_for(inst, c.regime)


class MiraEnvConfig(vf.EnvConfig):
    solver: vf.AgentConfig = vf.AgentConfig(harness={"id": "null"}, runtime={"type": "subprocess"})
    """The policy: a tool-less chat loop (the dialogue is plain text), run locally."""
    regime: str = "zs"


def _reply_from(segment: Any) -> Completion:
    if segment.terminated:
        return Completion(error="the agent's run ended before answering (turn or token limit)")
    return Completion(text=segment.last_reply, finish_reason="stop")


async def play_interaction(interaction: Any, inst: Instance, regime: str = "zs") -> Episode:
    """One MIRA episode over a verifiers interaction: the task's prompt opens it, each later
    user turn is the harness's reply (the responder's line or decline, the budget line)."""
    episode = new_episode(inst, solver="verifiers", regime=regime)
    opened = False

    async def reply(conversation: Conversation, seed: int) -> Completion:
        nonlocal opened
        if not opened:
            opened = True
            return _reply_from(await interaction.turn())
        return _reply_from(await interaction.turn(conversation[-1]["content"]))

    return await play(episode, reply, RulesResponder())


def episode_signals(episode: Episode) -> Dict[str, Optional[float]]:
    """The reward (the verifier's 1/0) and the request-quality metrics of one episode."""
    t = episode.transcript
    stats = transcript_stats(episode)
    return {
        "correct": 1.0 if (t.error is None and t.verdict and t.verdict["correct"]) else 0.0,
        "errored": 1.0 if t.error is not None else 0.0,
        "requests": float(stats.requests),
        "canonical_offers": float(stats.canonical_offers),
        "first_request_success": 1.0 if stats.first_request_canonical else 0.0,
        # undefined without a request: None (verifiers' "did not run"), never 0.0 (issue 32)
        "hit_rate": stats.canonical_offers / stats.requests if stats.requests else None,
        "format_errors": float(stats.format_errors),
    }


class MiraEnv(vf.Env[MiraEnvConfig]):
    def __init__(self, config: MiraEnvConfig) -> None:
        super().__init__(config)
        self._played: Dict[int, Episode] = {}

    async def setup(self, agents: Any) -> None:
        return None

    async def run(self, task: Any, agents: Any) -> None:
        inst = record_instance(task.data.record)
        async with agents.solver.interaction(task) as interaction:
            self._played[id(task)] = await play_interaction(interaction, inst, self.config.regime)

    async def finalize(self, task: Any, episode: Any) -> None:
        played = self._played.pop(id(task))
        signals = episode_signals(played)
        for trace in episode.traces:
            if trace.agent.name == "solver":
                trace.record_reward("correct", signals["correct"] or 0.0)
                trace.record_metrics({k: v for k, v in signals.items() if k != "correct" and v is not None})
                trace.metrics.update({k: None for k, v in signals.items() if v is None})


__all__ = ["MiraEnv", "MiraTaskset"]
