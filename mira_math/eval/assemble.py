"""The composition root: a run's solver, responder and configuration, assembled from specs and
options, for the command line and the integrations alike. The responder spec is decoded here and
nowhere else; the solver comes from :func:`mira_math.eval.solvers.make_solver` (scripted solvers
by name, models through the backend registry).

Responder specs: ``rules`` (the rules responder), ``llm:same`` (an LLM responder on the
solver's own engine, or on the backend the caller hands in) and ``llm:KIND:MODEL`` (on its own
backend, built with the run's backend options).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Protocol, Union

from mira_math.eval import solvers
from mira_math.eval.backends.base import ChatBackend, ChatRequest, Completion, GenParams
from mira_math.eval.llm_responder import LLMResponder
from mira_math.eval.rundir.manifest import RunConfig
from mira_math.eval.seams import Responder, Solver, backend_of
from mira_math.game.messages import RUN_SEED
from mira_math.game.responders.rules import RulesResponder

RESPONDER_PARAMS = GenParams(temperature=0.0, max_tokens=256)   # an LLM responder's decoding
RESPONDER_SPECS = "rules, llm:same or llm:KIND:MODEL"


class OneChatBackend(Protocol):
    """A backend that only answers one chat at a time (an integration's model role)."""

    async def acomplete(self, request: ChatRequest, params: GenParams) -> Completion: ...

    def describe(self) -> Dict[str, Any]: ...


@dataclass(frozen=True)
class ResponderSpec:
    """A decoded responder spec: ``kind`` "rules" or "llm"; for "llm", ``backend`` is "same"
    or the backend spec ``KIND:MODEL``."""

    kind: str
    backend: Optional[str] = None

    @property
    def recorded(self) -> Dict[str, Any]:
        """The responder's decoding as the run's config records it (none for the rules)."""
        if self.kind == "rules":
            return {}
        return {"temperature": RESPONDER_PARAMS.temperature, "max_tokens": RESPONDER_PARAMS.max_tokens}


def parse_responder(spec: str) -> ResponderSpec:
    """Decode a responder spec, or one line saying which specs there are."""
    if spec == "rules":
        return ResponderSpec("rules")
    kind, _, rest = spec.partition(":")
    if kind != "llm" or not rest:
        raise ValueError(f"unknown responder {spec!r}: use {RESPONDER_SPECS}")
    return ResponderSpec("llm", rest)


def make_responder(spec: str, solver: Optional[Solver] = None, options: Optional[Mapping[str, Any]] = None,
                   same: Optional[Union[ChatBackend, OneChatBackend]] = None) -> Responder:
    """The responder a spec names. ``llm:same`` runs on ``same`` when given (an integration's
    own model), else on the solver's engine; ``options`` are the run's backend options."""
    decoded = parse_responder(spec)
    if decoded.kind == "rules":
        return RulesResponder()
    if decoded.backend == "same":
        backend = same if same is not None else backend_of(solver)
        if backend is None:
            raise ValueError("llm:same needs a model solver")
    else:
        backend = solvers.make_backend(decoded.backend or "", **dict(options or {}))
    return LLMResponder(backend, RESPONDER_PARAMS)


@dataclass
class RunSpec:
    """Everything ``eval`` is asked for that shapes the transcripts, as plain values (the CLI's
    options, or an integration's arguments)."""

    solver: str
    responder: str = "rules"
    params: GenParams = field(default_factory=GenParams)
    backend_options: Dict[str, Any] = field(default_factory=dict)
    regime: str = "zs"
    condition: str = "standard"
    protocol: str = "paper"
    run_seed: int = RUN_SEED
    epochs: int = 1
    reasoning_history: str = "drop"
    selection: Dict[str, Any] = field(default_factory=dict)


@dataclass
class Assembly:
    """A run ready for :func:`mira_math.eval.runner.run`."""

    solver: Solver
    responder: Responder
    config: RunConfig


def assemble(spec: RunSpec, solver_spec: Optional[str] = None, responder_spec: Optional[str] = None) -> Assembly:
    """Build the solver and the responder and the configuration they run under.
    ``solver_spec``/``responder_spec`` are the specs as recorded (redacted of secrets; default:
    the ones given)."""
    solver = solvers.make_solver(spec.solver, spec.params, **spec.backend_options)
    responder = make_responder(spec.responder, solver, spec.backend_options)
    config = RunConfig(
        solver=solver_spec or spec.solver, responder=responder_spec or spec.responder, regime=spec.regime,
        condition=spec.condition, protocol=spec.protocol,
        solver_params=solvers.recorded_params(spec.solver, solver, spec.params),
        run_seed=spec.run_seed, epochs=spec.epochs, reasoning_history=spec.reasoning_history,
        responder_params=parse_responder(spec.responder).recorded, selection=spec.selection)
    return Assembly(solver, responder, config)


__all__ = ["Assembly", "OneChatBackend", "RESPONDER_PARAMS", "RESPONDER_SPECS", "ResponderSpec", "RunSpec", "assemble",
           "make_responder", "parse_responder"]
