"""What the adapters share: the release's instances (checked by the runner's own reader), one
episode driven turn by turn with the harness's state machine, and the scoring module's
per-instance summary of the finished transcript (so every metric is the one ``mira-math score``
computes)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable, Dict, List, Optional, Sequence, Union

from mira_math.eval.rundir.dataset import InstanceInfo
from mira_math.eval.rundir.transcripts import InstanceStats, instance_stats
from mira_math.eval.scoring import group_metrics
from mira_math.game.episode import Episode
from mira_math.eval.runner import play_episode, responder_step
from mira_math.eval.seams import Responder
from mira_math.game.messages import RUN_SEED, Completion, Conversation, SolverCall
from mira_math.game.responders.rules import RulesResponder
from mira_math.generators import registry
from mira_math.generators.layout import DEFAULT_RELEASE
from mira_math.generators.schema import Instance, instance_from_dict

REGIMES = ("zs", "4s")
TYPES = ("A", "B")


def release_instances(family: Optional[str] = None, type: Optional[str] = None,
                      data: Union[str, Path, None] = None, ids: Optional[Sequence[str]] = None,
                      limit: Optional[int] = None, shard: Optional[tuple] = None,
                      config: Optional[str] = None) -> List[Instance]:
    """The instances ``mira-math eval`` would run, in the same order and with the same checks
    (checksums, schema, validators): the committed release, or ``data`` (a release folder or
    a JSONL file, e.g. a held-out split); optionally one family or one type (``A``/``B``), or a
    dataset ``config`` of the release (``blind`` for the blind tier, say)."""
    from mira_math.eval.selection import data_files, load_data

    if type is not None and type.upper() not in TYPES:
        raise ValueError(f"unknown type {type!r}: use A or B")
    if family is not None and family not in registry.names():
        raise ValueError(f"unknown family {family!r}; known: {', '.join(registry.names())}")
    if config is not None:
        from mira_math.generators.card import configs
        from mira_math.generators.requests import CONFIG_NAME as REQUESTS_CONFIG

        if data is not None:
            raise ValueError(f"config {config!r} and data {str(data)!r}: give one of them")
        if config == REQUESTS_CONFIG or config not in configs():
            known = ", ".join(n for n in configs() if n != REQUESTS_CONFIG)
            raise ValueError(f"unknown instance config {config!r}; known: {known}")
    files = data_files(config, Path(data) if data is not None else None, DEFAULT_RELEASE)
    families = [family] if family else (
        [n for n in registry.names() if registry.type_of(n) == type.upper()] if type else None)
    selection = load_data(files, families=families, ids=ids, limit=limit, shard=shard)
    return list(selection.instances)


def record_text(inst: Instance) -> str:
    """The instance as its release line (carried in a sample's metadata, read back by
    :func:`record_instance`)."""
    return inst.to_json_line().rstrip("\n")


def record_instance(text: str) -> Instance:
    return instance_from_dict(json.loads(text), "sample metadata")


PROTOCOLS = ("paper", "ask-first", "blind")


def check_instances(protocol: str, regime: str, instances: Sequence[Instance]) -> None:
    """``eval --protocol``'s check (the blind protocol runs the blind tier only, zero-shot, and
    the tier no other protocol) as a one-line ValueError, before anything is played."""
    from mira_math.eval.errors import RunError
    from mira_math.eval.runner import check_protocol

    try:
        check_protocol(protocol, regime, "standard", instances)
    except RunError as err:
        raise ValueError(str(err)) from None


def new_episode(inst: Instance, *, solver: str, responder: str = "rules", regime: str = "zs",
                ask_first: bool = False, run_seed: int = RUN_SEED, epoch: int = 0,
                protocol: Optional[str] = None) -> Episode:
    """One episode as ``mira-math eval`` plays it. ``protocol`` (``paper``, ``ask-first`` or
    ``blind``; default: ``blind`` for a blind-tier row, else ``paper``, or ``ask-first`` when
    ``ask_first``) is checked as ``eval --protocol`` checks it: a ValueError in one line."""
    if regime not in REGIMES:
        raise ValueError(f"unknown regime {regime!r}: use zs or 4s")
    protocol = protocol or ("ask-first" if ask_first else "blind" if inst.blind else "paper")
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}: use {', '.join(PROTOCOLS)}")
    check_instances(protocol, regime, [inst])
    ask_first = protocol == "ask-first"
    return Episode(inst, solver=solver, responder=responder, regime=regime, ask_first=ask_first,
                   run_seed=run_seed, epoch=epoch)


def make_responder(spec: str = "rules", **options: Any) -> Responder:
    """The information holder: ``rules`` (default) or ``llm:KIND:MODEL`` (e.g.
    ``llm:openai:gpt-4o-mini@http://host:8000/v1``), built by the harness's own
    :func:`mira_math.eval.assemble.make_responder`, as ``mira-math eval --responder`` builds it.
    It is never trained: it only answers requests. ``llm:same`` is refused: an RL policy has no
    engine of its own to share."""
    from mira_math.eval.assemble import make_responder as assemble_responder

    if spec.partition(":")[2] == "same":
        raise ValueError(f"responder {spec!r}: llm:same needs the solver's own engine, which an RL "
                         "policy is not; use rules or llm:KIND:MODEL")
    return assemble_responder(spec, options=options)


async def play(episode: Episode, reply: Callable[[Conversation, int], Awaitable[Completion]],
               responder: Optional[Responder] = None) -> Episode:
    """Drive one episode to its end with the runner's own single-episode step
    (:func:`mira_math.eval.runner.play_episode`): ``reply(conversation, seed)`` gives the solver's
    turn, the responder (default: the rules responder) answers each request."""
    async def generate(call: SolverCall) -> Completion:
        return await reply(list(call.conversation), call.seed)

    return await play_episode(episode, generate, responder_step(responder or RulesResponder()))


@dataclass(frozen=True)
class RewardOptions:
    """The reward: the exact verifier's verdict (1/0), optionally shaped. ``first_request``:
    added when the first request got a canonical fact; ``extra_request``: subtracted for every
    request after the first. Both default to 0: the reward is then exactly the verdict."""

    first_request: float = 0.0
    extra_request: float = 0.0

    def parts(self, episode: Episode) -> Dict[str, float]:
        """The reward's terms, by name: ``correct`` always, the shaping terms when set."""
        t = episode.transcript
        terms = {"correct": 1.0 if (t.error is None and t.verdict and t.verdict["correct"]) else 0.0}
        if self.first_request or self.extra_request:
            stats = transcript_stats(episode)
            terms["first_request"] = self.first_request if stats.first_request_canonical else 0.0
            terms["extra_requests"] = -self.extra_request * max(0, stats.requests - 1)
        return terms

    def __call__(self, episode: Episode) -> float:
        return sum(self.parts(episode).values())


def transcript_stats(episode: Episode) -> InstanceStats:
    """The scoring module's summary of the finished episode, read from its transcript as
    ``transcripts.jsonl`` stores it."""
    row = json.loads(episode.transcript.to_json_line())
    return instance_stats(row, InstanceInfo.of(episode.inst), f"transcript {episode.inst.id}")


def stats_dict(stats: InstanceStats) -> Dict[str, Any]:
    out = asdict(stats)
    out["key"] = list(stats.key)
    return out


def stats_from_dict(data: Dict[str, Any]) -> InstanceStats:
    return InstanceStats(**{**data, "key": tuple(data["key"])})


def metric_value(stats: Sequence[InstanceStats], name: str) -> Optional[float]:
    """One of ``mira-math score``'s metrics over these instances, as a float (None: undefined)."""
    value = getattr(group_metrics(stats), name)
    return None if value is None else float(value)
