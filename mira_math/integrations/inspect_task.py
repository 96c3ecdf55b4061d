"""MIRA-Math as an inspect_ai task (extra ``.[inspect]``; registered through the ``inspect_ai``
entry point, so ``inspect eval mira_math/mira --model ...`` finds it).

Tasks: ``mira_math/mira`` (all families), ``mira_math/mira_type_a``, ``mira_math/mira_type_b``;
task arguments (``-T NAME=VALUE``): ``family``, ``regime`` (``zs``/``4s``), ``data`` (a release
folder or JSONL file, e.g. a held-out split), ``responder`` (``rules``, default, or ``llm``: the
model bound to the role ``responder``, ``--model-role responder=PROVIDER/MODEL``, asked for
structured output), ``protocol`` (``paper``/``ask-first``/``blind``), ``config`` (a dataset
config of the release: ``blind`` with ``protocol=blind`` runs the blind tier).

The solver plays the dialogue with the harness's own :class:`~mira_math.game.episode.Episode`
(budget, request and answer extraction, format errors, the final turn), each solver turn one
``generate()`` with the request seed ``mira-math eval`` sends; the LLM responder is the
harness's :class:`~mira_math.eval.llm_responder.LLMResponder` over the role's model. The scorer
reports the verifier's verdict, and its metrics are ``mira-math score``'s, computed by the
scoring module from each sample's transcript summary."""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, Optional

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser,
                              GenerateConfig, ModelOutput, ResponseSchema, get_model)
from inspect_ai.scorer import (CORRECT, INCORRECT, Metric, SampleScore, Score, Target, accuracy, metric,
                               scorer, stderr)
from inspect_ai.solver import Generate, TaskState, solver

from mira_math.eval import assemble
from mira_math.eval.backends.base import ChatRequest, Completion, GenParams
from mira_math.eval.seams import Responder
from mira_math.game.messages import Conversation
from mira_math.game.prompts import initial_conversation
from mira_math.generators.schema import Instance
from mira_math.integrations.common import (PROTOCOLS, check_instances, new_episode, play, record_instance, record_text,
                                           release_instances, stats_dict, stats_from_dict,
                                           transcript_stats, metric_value)

RECORD = "mira_record"          # sample metadata: the instance's release line
TRANSCRIPT = "mira_transcript"  # state metadata: the finished transcript, as eval writes it
STATS = "mira_stats"            # score metadata: the scoring module's summary of the transcript
LENGTH_STOPS = ("max_tokens", "model_length")


# ------------------------------------------------------------------ dataset

def _messages(conversation: Conversation) -> List[ChatMessage]:
    kinds: Dict[str, Callable[..., ChatMessage]] = {
        "system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    return [kinds[m["role"]](content=m["content"]) for m in conversation]


def sample(inst: Instance, regime: str = "zs") -> Sample:
    """One release row as a sample: its id, the opening messages, the exact answer as target,
    and the row's family, type, difficulty and seed set as metadata."""
    return Sample(id=inst.id, input=_messages(initial_conversation(inst, regime)),
                  target=inst.answer.value,
                  metadata={"family": inst.family, "type": inst.type, "difficulty": inst.difficulty,
                            "seed_set": inst.seed_set, "budget": inst.budget,
                            RECORD: record_text(inst)})


def mira_dataset(family: Optional[str] = None, type: Optional[str] = None, data: Optional[str] = None,
                 regime: str = "zs", limit: Optional[int] = None, config: Optional[str] = None) -> MemoryDataset:
    instances = release_instances(family=family, type=type, data=data, limit=limit, config=config)
    return MemoryDataset([sample(i, regime) for i in instances], name="mira-math")


# ------------------------------------------------------------------ responder over a model role

class RoleBackend:
    """A chat backend (``acomplete``) over inspect's model for the role ``responder``, asked
    for the LLM responder's reply schema as structured output."""

    def __init__(self, role: str = "responder"):
        self.role = role

    async def acomplete(self, request: ChatRequest, params: GenParams) -> Completion:
        model = get_model(role=self.role, required=True)
        config = GenerateConfig(temperature=params.temperature, max_tokens=params.max_tokens,
                                seed=request.seed)
        if request.json_schema is not None:
            config = config.merge(GenerateConfig(response_schema=ResponseSchema(
                name="responder_reply", json_schema=_json_schema(request.json_schema), strict=True)))
        output = await model.generate(_messages(request.conversation), config=config)
        return _completion(output)

    def describe(self) -> Dict[str, Any]:
        return {"kind": "inspect", "role": self.role}


def _json_schema(schema: Dict[str, Any]) -> Any:
    from inspect_ai.util import JSONSchema

    return JSONSchema.model_validate(schema)


def _completion(output: ModelOutput) -> Completion:
    stop = output.stop_reason
    usage = output.usage    # inspect's count, in the transcript as every backend reports it
    meta: Dict[str, Any] = {} if usage is None else {"usage": {
        "prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens,
        **({"reasoning_tokens": usage.reasoning_tokens} if usage.reasoning_tokens is not None else {})}}
    return Completion(text=output.completion or "",
                      finish_reason="length" if stop in LENGTH_STOPS else str(stop),
                      error=output.error or None, meta=meta)


def make_responder(spec: str) -> Responder:
    """``rules``, or ``llm``: the harness's LLM responder (:func:`mira_math.eval.assemble.make_responder`)
    on the model bound to the role ``responder``."""
    if spec not in ("rules", "llm"):
        raise ValueError(f"unknown responder {spec!r}: use rules or llm (the model role 'responder')")
    if spec == "rules":
        return assemble.make_responder("rules")
    return assemble.make_responder("llm:same", same=RoleBackend("responder"))


# ------------------------------------------------------------------ solver

@solver
def mira_dialogue(responder: str = "rules", regime: str = "zs", protocol: str = "paper"):
    """The MIRA dialogue: solver turns from the evaluated model, requests answered by the
    responder, until an answer, the final turn or an error ends the episode."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}: use {', '.join(PROTOCOLS)}")
    chosen = make_responder(responder)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        inst = record_instance(state.metadata[RECORD])
        episode = new_episode(inst, solver=str(state.model), responder=responder, regime=regime,
                              protocol=protocol)
        state.messages = _messages(episode.conversation)

        async def reply(conversation: Conversation, seed: int) -> Completion:
            nonlocal state
            state.messages = _messages(conversation)
            state = await generate(state, tool_calls="none", seed=seed)
            return _completion(state.output)

        await play(episode, reply, chosen)
        state.messages = _messages(episode.conversation)
        state.metadata[TRANSCRIPT] = json.loads(episode.transcript.to_json_line())
        state.metadata[STATS] = stats_dict(transcript_stats(episode))
        state.completed = True
        return state

    return solve


# ------------------------------------------------------------------ scorer and metrics

def _stats(scores: List[SampleScore]) -> list:
    return [stats_from_dict(s.score.metadata[STATS]) for s in scores
            if s.score.metadata and STATS in s.score.metadata]


def _mira_metric(name: str) -> Callable[[], Metric]:
    def factory() -> Metric:
        def compute(scores: List[SampleScore]) -> Any:
            value = metric_value(_stats(scores), name)
            # undefined (hit_rate when no episode asked): no entry in the log, never NaN or 0.0;
            # inspect drops a mapping's None values (docs/decisions/scoring.md)
            return {name: None} if value is None else value
        return compute
    factory.__name__ = name
    return metric(name)(factory)


first_request_success = _mira_metric("first_request_success")
hit_rate = _mira_metric("hit_rate")
avg_requests = _mira_metric("avg_requests")
trace_no_canonical = _mira_metric("trace_no_canonical")
trace_canonical_wrong = _mira_metric("trace_canonical_wrong")
trace_correct = _mira_metric("trace_correct")
partial_credit = _mira_metric("partial_credit")      # k missing facts
all_facts_rate = _mira_metric("all_facts_rate")
ask_f1 = _mira_metric("ask_f1")
minimal_accuracy = _mira_metric("minimal_accuracy")      # the blind tier (None elsewhere)
ask_decision_accuracy = _mira_metric("ask_decision_accuracy")
over_ask_rate = _mira_metric("over_ask_rate")
guess_rate = _mira_metric("guess_rate")


@scorer(metrics=[accuracy(), stderr(), first_request_success(), hit_rate(), avg_requests(),
                 trace_no_canonical(), trace_canonical_wrong(), trace_correct(),
                 partial_credit(), all_facts_rate(), ask_f1(), minimal_accuracy(),
                 ask_decision_accuracy(), over_ask_rate(), guess_rate()])
def mira_verifier():
    """The exact verifier's verdict on the episode's final answer (1/0), with the transcript's
    summary for the metrics."""

    async def score(state: TaskState, target: Target) -> Score:
        transcript = state.metadata.get(TRANSCRIPT)
        if transcript is None:
            raise ValueError("mira_verifier scores episodes played by the mira_dialogue solver")
        verdict = transcript.get("verdict") or {}
        return Score(value=CORRECT if verdict.get("correct") else INCORRECT,
                     answer=transcript.get("final_answer"),
                     explanation=f"{verdict.get('reason')}; expected {verdict.get('expected')}",
                     metadata={STATS: state.metadata[STATS],
                               "ended_by": transcript.get("ended_by")})

    return score


# ------------------------------------------------------------------ tasks

def _task(type: Optional[str], family: Optional[str], regime: str, data: Optional[str],
          responder: str, protocol: str, config: Optional[str] = None) -> Task:
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}: use {', '.join(PROTOCOLS)}")
    instances = release_instances(family=family, type=type, data=data, config=config)
    check_instances(protocol, regime, instances)       # refused when the task is made, in one line
    return Task(dataset=MemoryDataset([sample(i, regime) for i in instances], name="mira-math"),
                solver=mira_dialogue(responder=responder, regime=regime, protocol=protocol),
                scorer=mira_verifier())


@task
def mira(family: Optional[str] = None, regime: str = "zs", data: Optional[str] = None,
         responder: str = "rules", protocol: str = "paper", config: Optional[str] = None) -> Task:
    """Every family (or one: ``-T family=NAME``; a config: ``-T config=blind -T protocol=blind``)."""
    return _task(None, family, regime, data, responder, protocol, config)


@task
def mira_type_a(family: Optional[str] = None, regime: str = "zs", data: Optional[str] = None,
                responder: str = "rules", protocol: str = "paper") -> Task:
    """The type A families (one missing fact, a unique answer)."""
    return _task("A", family, regime, data, responder, protocol)


@task
def mira_type_b(family: Optional[str] = None, regime: str = "zs", data: Optional[str] = None,
                responder: str = "rules", protocol: str = "paper") -> Task:
    """The type B families."""
    return _task("B", family, regime, data, responder, protocol)
