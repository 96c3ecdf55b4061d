"""MIRA-Math as a verifiers environment (PyPI ``verifiers`` 0.4, its v1 API; extra ``.[rl]``).

The installable plugin is ``environments/mira_math_rl`` (module ``mira_math_rl``): it exports
:class:`MiraTaskset`, :class:`MiraEnv` and :class:`MiraHarness`, so after ``pip install`` of it
``vf-eval mira-math-rl --model M --client.base-url URL`` runs offline (docs/integrations.md).

- :class:`MiraTaskset` yields the release's rows (``--env.taskset.source release``, default;
  ``family``/``type``/``data`` select rows as ``mira-math eval`` does), the endless held-out
  stream (``stream``) or the endless train stream (``train``), both from
  :mod:`mira_math.integrations.sources` (disjoint from the release and from each other).
- :class:`MiraEnv` plays one episode per task: the solver agent speaks, the harness's own
  :class:`~mira_math.game.episode.Episode` reads each turn (budget, requests, answers, format
  errors, the final turn) and the responder answers: the rules responder (default) or an LLM
  (``--env.responder llm:openai:MODEL@URL``, eval's LLM responder, never trained). The reward is
  the exact verifier's verdict (1/0); the request-quality metrics are recorded beside it.
- :class:`MiraHarness` is the solver's program: one chat completion per turn, made in-process
  through the rollout's interception endpoint. verifiers' own ``null`` harness instead bootstraps
  ``uv`` and a script with ``mcp`` from the network for every rollout.

Decoding: each solver request carries ``mira-math eval``'s settings (temperature 0, top_p 1,
``max_tokens`` 4096, eval's stop sequences, and a seed derived from the run seed, the instance
and the turn by the same :class:`~mira_math.game.episode.Episode` that eval uses): the env
hands them to the harness per turn (:data:`DECODING` in the live trace's ``info``) and the
harness puts them in its request. verifiers keeps a program's sampling fields unless the run
sets its own: a ``vf-eval --sampling.temperature``/``--sampling.top-p``/``--sampling.max-tokens``
flag replaces that field on every request. What went upstream for each solver turn (verifiers'
record of the call) is kept in the trace as ``info["mira"]["sent"]``, and the fields where it
differs from eval's settings as ``info["mira"]["overridden"]``. The rollouts of one task
(``vf-eval -r N``, a training group) play eval's epochs 0..N-1 (``mira-math eval --epochs N``):
their seeds differ, so a sampling server does not hand a group N copies of one reply.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator, Optional, Tuple

import verifiers.v1 as vf
from verifiers.v1.dialects.chat import message_to_wire

from mira_math.game.episode import Episode
from mira_math.game.messages import RUN_SEED, Completion, Conversation, epoch_seed, request_seed
from mira_math.game.prompts import problem_message, system_prompt
from mira_math.game.reading import STOP_SEQUENCES, read_message
from mira_math.generators.schema import Instance
from mira_math.integrations.common import (RewardOptions, make_responder, new_episode, play, record_instance,
                                           record_text, transcript_stats)
from mira_math.integrations.sources import (MAX_RESEEDS, STREAM_SEED_SET, instances, release_keys,  # noqa: F401
                                            stream)

PLUGIN = "mira-math-rl"
MAX_TOKENS = 4096           # mira-math eval's --max-tokens default (a test checks they agree)
DECODING = "mira_decoding"  # the live trace's info key: the next solver request's settings


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
    """``release`` (the committed rows, or ``data``), ``stream`` (endless, held out) or
    ``train`` (endless, disjoint from the release, the held-out stream and ``held_out``)."""
    family: Optional[str] = None
    type: Optional[str] = None
    data: Optional[str] = None
    config: Optional[str] = None
    """A dataset config of the release for ``release`` (``blind``: the blind tier)."""
    regime: str = "zs"
    stream_seed_set: Optional[str] = None
    """The streams' seed set (default ``rl-stream-1`` for ``stream``, ``rl-train-1`` for ``train``)."""
    parts: list[int] = [1]
    """The release parts the streams draw from, by withheld facts per instance (k)."""
    held_out: list[str] = []
    """Held-out splits (release folders or JSONL files) the streams must also avoid."""


def task_for(inst: Instance, regime: str = "zs") -> MiraTask:
    return MiraTask(MiraData(id=inst.id, prompt=problem_message(inst),
                             system_prompt=system_prompt(regime, inst.k, inst.blind),
                             record=record_text(inst), family=inst.family, type=inst.type,
                             difficulty=inst.difficulty, seed_set=inst.seed_set))


class MiraTaskset(vf.Taskset[MiraTask, MiraTasksetConfig]):
    def __init__(self, config: MiraTasksetConfig) -> None:
        super().__init__(config)
        if config.source not in ("release", "stream", "train"):
            raise ValueError(f"unknown source {config.source!r}: use release, stream or train")
        self.INFINITE = config.source != "release"

    def load(self) -> Iterator[MiraTask]:
        c = self.config
        for inst in instances(c.source, family=c.family, type=c.type, data=c.data,
                              seed_set=c.stream_seed_set, parts=c.parts, held_out=c.held_out,
                              config=c.config):
            yield task_for(inst, c.regime)


class MiraHarnessConfig(vf.HarnessConfig):
    pass


class MiraHarness(vf.Harness[MiraHarnessConfig]):
    """A tool-less chat turn run in-process: the conversation so far goes to the rollout's
    interception endpoint (so verifiers records, limits and relays it as for any program) and
    the reply comes back as the segment. Nothing is installed or downloaded."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(self, ctx: Any, trace: Any, runtime: Any, endpoint: str, secret: str,
                     mcp_urls: Dict[str, str], data: Any, tool_interception_url: Optional[str] = None) -> Any:
        from openai import AsyncOpenAI

        system, prompt = self.resolve_prompt(data)
        messages: list = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        elif prompt is not None:
            messages.extend(_as_the_episode_keeps(message_to_wire(m)) for m in prompt)
        decoding = dict(getattr(trace, "info", {}).get(DECODING) or {})   # the env's, for this turn
        async with AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0) as client:
            reply = await client.chat.completions.create(model=ctx.model, messages=messages, **decoding)
        return vf.ProgramResult(exit_code=0, stdout=reply.choices[0].message.content or "", stderr="")


def _as_the_episode_keeps(message: Dict[str, Any]) -> Dict[str, Any]:
    """An earlier solver turn as ``Episode`` puts it back into the conversation (its visible
    part, stripped; the reasoning dropped), so the model is asked exactly what ``eval`` asks."""
    if message.get("role") != "assistant":
        return message
    reading = read_message(message.get("content") or "", message.get("reasoning_content"))
    return {"role": "assistant", "content": reading.visible.strip()}


class MiraEnvConfig(vf.EnvConfig):
    solver: vf.AgentConfig = vf.AgentConfig(runtime={"type": "subprocess"})
    """The policy, in a local runtime; its harness is the taskset's default, the plugin's
    :class:`MiraHarness` (one in-process chat turn per segment: the dialogue is plain text)."""
    regime: str = "zs"
    responder: str = "rules"
    """The information holder: ``rules`` or ``llm:KIND:MODEL`` (``llm:openai:MODEL@URL``), as
    ``mira-math eval --responder`` takes it; an LLM holder is a second, untrained model."""
    first_request_reward: float = 0.0
    """Shaping (default off): added to the reward when the first request got a canonical fact."""
    extra_request_penalty: float = 0.0
    """Shaping (default off): subtracted from the reward for every request after the first."""
    seed: int = RUN_SEED
    """The run seed (``mira-math eval --seed``): each solver request's seed is derived from it,
    the instance id and the turn, exactly as eval derives it."""
    temperature: float = 0.0
    """As ``mira-math eval --temperature`` (``vf-eval --sampling.temperature`` overrides it)."""
    top_p: float = 1.0
    max_tokens: int = MAX_TOKENS
    """As ``mira-math eval --max-tokens`` (``vf-eval --sampling.max-tokens`` overrides it)."""
    stop: Optional[list[str]] = None
    """Stop sequences; None: eval's own (one speaker per message), which eval sends to every
    server but the official OpenAI endpoint; ``[]`` sends none, as eval does there."""

    def decoding(self, seed: int) -> Dict[str, Any]:
        """One solver request's settings, as eval's OpenAI backend sends them."""
        stop = list(STOP_SEQUENCES) if self.stop is None else list(self.stop)
        return {"seed": seed, "temperature": self.temperature, "top_p": self.top_p,
                "max_tokens": self.max_tokens, **({"stop": stop} if stop else {})}


def _reply_from(segment: Any, trace: Any = None) -> Completion:
    """The solver's turn as the native runner records it: the reply's own text (not stripped),
    a reasoning model's separate reasoning, and the call's finish reason."""
    if segment.terminated:
        return Completion(error="the agent's run ended before answering (turn or token limit)")
    text, reasoning = segment.last_reply, None
    for message in reversed(getattr(segment, "messages", None) or []):
        if getattr(message, "role", None) == "assistant":
            text, reasoning = message.content or "", getattr(message, "reasoning_content", None) or None
            break
    calls = getattr(trace, "calls", None) or []
    finish = calls[-1].finish_reason if calls and calls[-1].finish_reason else "stop"
    return Completion(text=text, finish_reason=finish, reasoning=reasoning)


async def play_interaction(interaction: Any, inst: Instance, regime: str = "zs",
                           responder: Any = None, responder_spec: str = "rules",
                           config: Optional[MiraEnvConfig] = None,
                           sent: Optional[list] = None, epoch: int = 0) -> Episode:
    """One MIRA episode over a verifiers interaction: the task's prompt opens it, each later
    user turn is the harness's reply (the responder's line or decline, the budget line). Each
    turn's decoding settings (``config``'s, with the episode's seed for that turn) go to the
    harness through the live trace; what verifiers recorded as sent is appended to ``sent``.
    ``epoch``: the task's rollout number, whose seeds are those of ``eval --epochs``'s epoch."""
    config = config or MiraEnvConfig()
    episode = new_episode(inst, solver="verifiers", responder=responder_spec, regime=regime,
                          run_seed=epoch_seed(config.seed, epoch), epoch=epoch)
    opened = False

    async def reply(conversation: Conversation, seed: int) -> Completion:
        nonlocal opened
        trace = getattr(interaction, "trace", None)
        info = getattr(trace, "info", None)
        if info is not None:
            info[DECODING] = config.decoding(seed)
        calls = len(getattr(trace, "calls", None) or [])
        try:
            if not opened:
                opened = True
                segment = await interaction.turn()
            else:
                segment = await interaction.turn(conversation[-1]["content"])
        finally:
            if info is not None:
                info.pop(DECODING, None)
        if sent is not None:
            sent.extend(_sampling(call) for call in (getattr(trace, "calls", None) or [])[calls:])
        return _reply_from(segment, trace)

    return await play(episode, reply, responder)


def _sampling(call: Any) -> Dict[str, Any]:
    """One call's settings as verifiers recorded them going upstream."""
    sampling = getattr(call, "sampling", None)
    return sampling.model_dump(exclude_none=True) if sampling is not None else {}


def overridden(sent: list, config: MiraEnvConfig, seeds: list) -> list:
    """The settings that went out other than eval's (a ``vf-eval --sampling.*`` flag), by name."""
    names: set = set()
    for call, seed in zip(sent, seeds):
        wanted = config.decoding(seed)
        names |= {k for k in set(wanted) | set(call) if call.get(k) != wanted.get(k)}
    return sorted(names)


def episode_signals(episode: Episode) -> Dict[str, Optional[float]]:
    """The reward (the verifier's 1/0) and the request-quality metrics of one episode."""
    t = episode.transcript
    stats = transcript_stats(episode)
    signals: Dict[str, Optional[float]] = {
        "correct": 1.0 if (t.error is None and t.verdict and t.verdict["correct"]) else 0.0,
        "errored": 1.0 if t.error is not None else 0.0,
        "requests": float(stats.requests),
        "canonical_offers": float(stats.canonical_offers),
        "first_request_success": 1.0 if stats.first_request_canonical else 0.0,
        # undefined without a request: None (verifiers' "did not run"), never 0.0
        "hit_rate": stats.canonical_offers / stats.requests if stats.requests else None,
        "format_errors": float(stats.format_errors),
        "facts_acquired": float(stats.facts_acquired),          # k missing facts
        "partial_credit": stats.facts_acquired / stats.facts_needed if stats.facts_needed else None,
    }
    if stats.blind:     # the blind tier's rows only, named after score's metrics (their per-row terms)
        signals.update({
            "minimal_accuracy": 1.0 if stats.correct and stats.over_asks == 0 else 0.0,
            "ask_decision_accuracy": float((stats.requests > 0) == (stats.facts_needed > 0)),
            "over_asks": float(stats.over_asks),
            "guess_rate": float(stats.guessed) if stats.facts_needed else None,
        })
    return signals


class MiraEnv(vf.Env[MiraEnvConfig]):
    def __init__(self, config: MiraEnvConfig) -> None:
        super().__init__(config)
        # verifiers hands every rollout of a task (-r N) the same task object: a played episode
        # is kept under its solver trace (the live trace finalize() sees again)
        self._played: Dict[int, Tuple[Episode, list]] = {}
        self._epochs: Dict[str, int] = {}
        self.responder = make_responder(config.responder)

    async def setup(self, agents: Any) -> None:
        return None

    async def run(self, task: Any, agents: Any) -> None:
        inst = record_instance(task.data.record)
        epoch = self._epochs.get(task.key, 0)     # the task's n-th rollout plays eval's epoch n
        self._epochs[task.key] = epoch + 1
        sent: list = []
        async with agents.solver.interaction(task) as interaction:
            played = await play_interaction(interaction, inst, self.config.regime, self.responder,
                                            self.config.responder, self.config, sent, epoch=epoch)
            self._played[id(getattr(interaction, "trace", None) or task)] = (played, sent)

    async def finalize(self, task: Any, episode: Any) -> None:
        reward = RewardOptions(self.config.first_request_reward, self.config.extra_request_penalty)
        for trace in episode.traces:
            if trace.agent.name != "solver":
                continue
            played, sent = self._played.pop(id(trace) if id(trace) in self._played else id(task))
            run_seed = epoch_seed(self.config.seed, played.epoch)
            seeds = [request_seed(run_seed, played.inst.id, n, "solver") for n in range(len(sent))]
            signals = episode_signals(played)
            for name, value in reward.parts(played).items():   # "correct": the verifier's 1/0
                trace.record_reward(name, value)
            trace.record_metrics({k: v for k, v in signals.items() if k != "correct" and v is not None})
            trace.metrics.update({k: None for k, v in signals.items() if v is None})
            # the episode as transcripts.jsonl stores it, under the paper's text protocol (the
            # blind one for a blind-tier row)
            trace.info["mira"] = {"protocol": "blind" if played.inst.blind else "paper",
                                  "transcript": json.loads(played.transcript.to_json_line()),
                                  "decoding": {k: v for k, v in self.config.decoding(0).items() if k != "seed"},
                                  "run_seed": self.config.seed, "epoch": played.epoch, "sent": sent,
                                  "overridden": overridden(sent, self.config, seeds)}


__all__ = ["MiraEnv", "MiraHarness", "MiraTaskset"]
