"""Solvers, chosen by a spec string.

``vllm:MODEL``, ``openai:MODEL`` or ``openai:MODEL@URL`` (any OpenAI-compatible server),
``transformers:PATH``, and two scripted ones: ``reference`` (asks for the canonical slot by
its identifier, then answers with the family's exact solver applied to the offered line: an
upper bound and an end-to-end check) and ``noask`` (answers 0 at once: a lower bound).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from mira_math.eval.backends.base import ChatBackend, ChatRequest, Completion, GenParams
from mira_math.game.messages import RUN_SEED, SolverCall, request_seed
from mira_math.generators import registry
from mira_math.generators.schema import Instance
from mira_math.verifiers.exact import canonical

class ModelSolver:
    """A solver backed by a chat model: the conversation goes to the backend as is."""

    def __init__(self, spec: str, backend: ChatBackend, params: GenParams):
        self.name, self.backend, self.params = spec, backend, params

    def generate(self, calls: Sequence[SolverCall]) -> List[Completion]:
        return self.backend.complete([ChatRequest(c.conversation, c.seed) for c in calls], self.params)

    async def agenerate(self, call: SolverCall) -> Completion:
        return await self.backend.acomplete(ChatRequest(call.conversation, call.seed), self.params)  # type: ignore[attr-defined]

    @property
    def is_async(self) -> bool:
        return hasattr(self.backend, "acomplete")

    def describe(self) -> Dict[str, Any]:
        return {"spec": self.name, "params": self.params.as_dict(), **self.backend.describe()}


class ReferenceSolver:
    """Asks ``What is the value of <slot>?``; once a canonical line is offered, rebuilds the
    state from the solver's knowledge plus that line and answers with the exact solution."""

    name = "reference"
    is_async = False

    def generate(self, calls: Sequence[SolverCall]) -> List[Completion]:
        return [Completion(text=self._reply(c), finish_reason="stop") for c in calls]

    def _reply(self, call: SolverCall) -> str:
        inst = call.instance
        seen = {_strip_prefix(line) for m in call.conversation if m["role"] == "user"
                for line in m["content"].splitlines()}
        for hint in inst.hints:
            if hint.constraint in seen:  # a whole line: the holder's reply, or an oracle fact
                family = registry.get(inst.family)
                latent = family.complete(family.known(inst.latent_state()), hint)
                value = canonical(inst.answer.type, family.solve(latent))
                if inst.answer.type == "tuple":
                    value = f"({', '.join(inst.answer.components)}) = {value}"
                return f"The holder gave {hint.slot}; solving exactly.\nANSWER: {value}"
        return f"REQUEST: What is the value of {inst.hints[0].slot}?"

    def describe(self) -> Dict[str, Any]:
        return {"spec": self.name}


def _strip_prefix(line: str) -> str:
    for prefix in ("Information holder: ", "- "):
        if line.startswith(prefix):
            return line[len(prefix):]
    return line


class NoAskSolver:
    """Answers 0 at once, without asking: the floor any solver should beat."""

    name = "noask"
    is_async = False

    def generate(self, calls: Sequence[SolverCall]) -> List[Completion]:
        return [Completion(text="ANSWER: 0", finish_reason="stop") for _ in calls]

    def describe(self) -> Dict[str, Any]:
        return {"spec": self.name}


def _split_url(rest: str) -> tuple:
    model, _, url = rest.partition("@")
    return model, (url or None)


def make_backend(spec: str, **options: Any) -> ChatBackend:
    """``vllm:MODEL``, ``openai:MODEL[@URL]`` or ``transformers:PATH`` -> a chat backend."""
    kind, _, rest = spec.partition(":")
    if not rest:
        raise ValueError(f"backend spec {spec!r} needs a model: KIND:MODEL")
    if kind == "vllm":
        from mira_math.eval.backends.vllm_backend import VLLMBackend

        return VLLMBackend(rest, **{k: v for k, v in options.items() if k in (
            "tensor_parallel_size", "max_model_len", "gpu_memory_utilization", "chat_template_kwargs")})
    if kind == "openai":
        from mira_math.eval.backends.openai_backend import OpenAIBackend

        model, url = _split_url(rest)
        return OpenAIBackend(model, base_url=url, **{k: v for k, v in options.items() if k in (
            "concurrency", "timeout", "max_retries", "max_tokens_param", "sampling_params",
            "response_format", "max_reply_bytes")})
    if kind == "transformers":
        from mira_math.eval.backends.transformers_backend import TransformersBackend

        return TransformersBackend(rest)
    raise ValueError(f"unknown backend kind {kind!r} in {spec!r}: use vllm, openai or transformers")


def make_solver(spec: str, params: Optional[GenParams] = None, backend: Optional[ChatBackend] = None,
                **options: Any):
    if spec == "reference":
        return ReferenceSolver()
    if spec == "noask":
        return NoAskSolver()
    return ModelSolver(spec, backend or make_backend(spec, **options), params or GenParams())
