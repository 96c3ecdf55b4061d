"""Solvers, chosen by a spec string.

``KIND:MODEL`` for a backend of :mod:`mira_math.eval.backends.registry` (``vllm:MODEL``,
``openai:MODEL[@URL]`` for any OpenAI-compatible server, ``transformers:PATH``), and three
scripted ones: ``reference`` (asks for the canonical slot by
its identifier, then answers with the family's exact solver applied to the offered line: an
upper bound and an end-to-end check), ``noask`` (answers 0 at once: a lower bound) and
``sampler`` (the reference solver with seeded randomness at ``--temperature``: offline epochs),
and ``ask-all`` (asks for every absent quantity: the blind tier's floor of precision).
A new scripted solver is a class here and one line in :data:`mira_math.eval.solver_kinds.SCRIPTED`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Dict, List, Optional, Sequence, cast

from mira_math.eval.backends.base import AsyncChatBackend, ChatBackend, ChatRequest, Completion, GenParams
from mira_math.eval.backends.registry import capabilities_of, make_backend
from mira_math.eval.seams import Solver
from mira_math.eval.solver_kinds import SCRIPTED
from mira_math.game.messages import SolverCall
from mira_math.game.reading import STOP_SEQUENCES
from mira_math.generators import registry
from mira_math.generators.schema import Hint, Instance
from mira_math.verifiers.exact import canonical

class ModelSolver:
    """A solver backed by a chat model: the conversation goes to the backend as is."""

    def __init__(self, spec: str, backend: ChatBackend, params: GenParams):
        if not params.stop and getattr(backend, "supports_stop", False):
            params = replace(params, stop=STOP_SEQUENCES)   # one speaker per message
        self.name, self.backend, self.params = spec, backend, params

    def generate(self, calls: Sequence[SolverCall]) -> List[Completion]:
        return self.backend.complete([ChatRequest(c.conversation, c.seed, session=c.session) for c in calls],
                                     self.params)

    async def agenerate(self, call: SolverCall) -> Completion:
        backend = cast(AsyncChatBackend, self.backend)   # called only when is_async (its capabilities)
        return await backend.acomplete(ChatRequest(call.conversation, call.seed, session=call.session),
                                       self.params)

    @property
    def is_async(self) -> bool:
        return capabilities_of(self.backend).async_calls

    def describe(self) -> Dict[str, Any]:
        return {"spec": self.name, "params": self.params.as_dict(), **self.backend.describe()}


class ReferenceSolver:
    """Asks ``What is the value of <slot>?``; once a canonical line is offered, rebuilds the
    state from the solver's knowledge plus that line and answers with the exact solution.
    With k >= 2 facts missing it asks for one slot of each group not yet acquired, in order,
    and answers from one line of each group."""

    name = "reference"
    is_async = False

    def generate(self, calls: Sequence[SolverCall]) -> List[Completion]:
        return [Completion(text=self._reply(c), finish_reason="stop") for c in calls]

    def _reply(self, call: SolverCall) -> str:
        inst = call.instance
        seen = _seen_lines(call)
        if inst.blind:
            return _blind_reply(inst, seen, [g[0] for g in inst.groups()])
        if inst.k > 1:
            return _multi_reply(inst, seen)
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


def _seen_lines(call: SolverCall) -> set:
    """Every line the solver was shown (its facts, the holder's replies), without prefixes."""
    return {_strip_prefix(line) for m in call.conversation if m["role"] == "user"
            for line in m["content"].splitlines()}


def _acquired(inst: Instance, seen: set) -> List[Optional[Hint]]:
    """Per group, the first of its hints whose line the solver was shown, else None."""
    return [next((h for h in group if h.constraint in seen), None) for group in inst.groups()]


def _written(inst: Instance, value: Any) -> str:
    text = canonical(inst.answer.type, value)
    return f"({', '.join(inst.answer.components)}) = {text}" if inst.answer.type == "tuple" else text


def _multi_reply(inst: Instance, seen: set) -> str:
    got = _acquired(inst, seen)
    missing = [group[0] for group, hint in zip(inst.groups(), got) if hint is None]
    if missing:
        return f"REQUEST: What is the value of {missing[0].slot}?"
    family = registry.get(inst.family, inst.k)
    latent = family.complete_many(family.known(inst.latent_state()), [h for h in got if h])
    names = ", ".join(h.slot for h in got if h)
    return f"The holder gave {names}; solving exactly.\nANSWER: {_written(inst, family.solve(latent))}"


def _filler(family: Any, latent: dict, slot: str) -> str:
    """The first value of a quantity's stated domain (what a solver that did not ask assumes)."""
    from mira_math.generators.blind.contract import Finite

    dom = family.domain(latent, slot)
    return dom.values[0] if isinstance(dom, Finite) else dom.points[0]


def blind_answer(inst: Instance, seen: set) -> str:
    """A blind-tier row's answer from what the solver was shown: the view's quantities and the
    holder's lines at their values, every quantity not shown at the first value of its stated
    domain (right whenever what is missing is irrelevant); ``0`` when that leaves no answer."""
    family = registry.get_blind(inst.family)
    latent = inst.latent_state()
    values = family.values(latent)
    for hint in inst.hints:
        if hint.constraint not in seen:
            values[hint.slot] = _filler(family, latent, hint.slot)
    got = family.answer(latent, values)
    if got is None:
        return "0"
    return _written(inst, got)


def _blind_reply(inst: Instance, seen: set, wanted: Sequence[Hint]) -> str:
    """Ask for each of ``wanted`` not yet shown, in order, then answer from what was shown."""
    for hint in wanted:
        if hint.constraint not in seen:
            return f"REQUEST: What is the value of {hint.slot}?"
    names = ", ".join(h.slot for h in wanted) or "nothing"
    return f"Asked for {names}; solving exactly.\nANSWER: {blind_answer(inst, seen)}"


class AskAllSolver:
    """Asks for every quantity the view lacks, one a request (needed and irrelevant alike, in
    the holder's order), then answers exactly: on the blind tier its accuracy is the
    reference's and its precision below 1 wherever a gap is irrelevant. Elsewhere it is the
    reference solver."""

    name = "ask-all"
    is_async = False

    def __init__(self) -> None:
        self._reference = ReferenceSolver()

    def generate(self, calls: Sequence[SolverCall]) -> List[Completion]:
        return [Completion(text=self._reply(c), finish_reason="stop") for c in calls]

    def _reply(self, call: SolverCall) -> str:
        inst = call.instance
        if not inst.blind:
            return self._reference._reply(call)
        absent = set(inst.gaps.needed + inst.gaps.irrelevant) if inst.gaps else set()
        order = [h for h in inst.hints if h.slot in absent]
        order.sort(key=lambda h: inst.responder.index(h.constraint))
        return _blind_reply(inst, _seen_lines(call), order)

    def describe(self) -> Dict[str, Any]:
        return {"spec": self.name}


class FirstFactSolver:
    """Asks for the first missing fact only (one hint of the first group), then answers without
    the others: with a finite answer set, a candidate the view and that fact leave possible,
    drawn with the request's seed (expected accuracy: that set's chance level), else 0. On a
    one-fact instance it is the reference solver. The k = 2 floor for asking well but not
    enough: all-facts rate 0, partial credit 1/2 (docs/decisions/data.md)."""

    name = "first-fact"
    is_async = False

    def __init__(self) -> None:
        self._reference = ReferenceSolver()

    def generate(self, calls: Sequence[SolverCall]) -> List[Completion]:
        return [Completion(text=self._reply(c), finish_reason="stop") for c in calls]

    def _reply(self, call: SolverCall) -> str:
        import random

        inst = call.instance
        if inst.k == 1:
            return self._reference._reply(call)
        first = _acquired(inst, _seen_lines(call))[0]
        if first is None:
            return f"REQUEST: What is the value of {inst.groups()[0][0].slot}?"
        family = registry.get(inst.family, inst.k)
        cands = family.candidates_given(family.known(inst.latent_state()), [first])
        if not cands:
            zero: Any = tuple(0 for _ in inst.answer.components) if inst.answer.type == "tuple" else 0
            return f"Only {first.slot} is known; a guess.\nANSWER: {_written(inst, zero)}"
        ordered = sorted(cands, key=lambda v: canonical(inst.answer.type, v))
        guess = random.Random(call.seed).choice(ordered)
        return f"Only {first.slot} is known; a guess.\nANSWER: {_written(inst, guess)}"

    def describe(self) -> Dict[str, Any]:
        return {"spec": self.name}


def _strip_prefix(line: str) -> str:
    for prefix in ("Information holder: ", "- "):
        if line.startswith(prefix):
            return line[len(prefix):]
    return line


class NoAskSolver:
    """Answers 0 at once, without asking: the floor any solver should beat. On the blind tier
    it answers at once from the view, each absent quantity at the first value of its stated
    domain: controls right, the rest right only when that value happens to give the answer."""

    name = "noask"
    is_async = False

    def generate(self, calls: Sequence[SolverCall]) -> List[Completion]:
        return [Completion(text=f"ANSWER: {blind_answer(c.instance, _seen_lines(c))}"
                           if c.instance.blind else "ANSWER: 0", finish_reason="stop") for c in calls]

    def describe(self) -> Dict[str, Any]:
        return {"spec": self.name}


class SamplerSolver:
    """A scripted solver that samples (offline ``--epochs`` runs): each turn draws from a
    ``random.Random`` seeded by the request's seed. At temperature T it asks for the canonical
    slot with probability 1/(1+T) (else it guesses 0 at once) and, once the line is offered,
    answers exactly with probability 1/(1+T/2) (else it answers 0). T = 0 is the reference
    solver; the same seed gives the same reply, so a run is reproducible and epochs differ."""

    name = "sampler"
    is_async = False

    def __init__(self, temperature: float = 0.0):
        self.temperature = temperature
        self._reference = ReferenceSolver()

    def generate(self, calls: Sequence[SolverCall]) -> List[Completion]:
        return [Completion(text=self._reply(c), finish_reason="stop") for c in calls]

    def _reply(self, call: SolverCall) -> str:
        import random

        rng = random.Random(call.seed)
        t = self.temperature
        reply = self._reference._reply(call)
        if reply.startswith("REQUEST:"):
            return reply if rng.random() < 1 / (1 + t) else "A guess.\nANSWER: 0"
        return reply if rng.random() < 1 / (1 + t / 2) else "Not sure.\nANSWER: 0"

    def describe(self) -> Dict[str, Any]:
        return {"spec": self.name, "temperature": self.temperature}


def make_solver(spec: str, params: Optional[GenParams] = None, backend: Optional[ChatBackend] = None,
                **options: Any) -> Solver:
    """A scripted solver by name (:data:`SCRIPTED`), else a model solver over the backend the
    spec names (``KIND:MODEL``, :mod:`mira_math.eval.backends.registry`)."""
    scripted = SCRIPTED.get(spec)
    if scripted is not None:
        return cast(Solver, scripted.create(params or GenParams()))
    return ModelSolver(spec, backend or make_backend(spec, **options), params or GenParams())


def recorded_params(spec: str, solver: Solver, params: GenParams) -> Dict[str, Any]:
    """The solver's decoding as the run's config records it: a scripted solver's own (none for
    a deterministic one), a model solver's parameters as sent (stop sequences included)."""
    scripted = SCRIPTED.get(spec)
    if scripted is not None:
        return scripted.recorded(params)
    sent = solver.params if isinstance(solver, ModelSolver) else getattr(solver, "params", params)
    return sent.as_dict()


__all__ = ["AskAllSolver", "FirstFactSolver", "ModelSolver", "NoAskSolver", "ReferenceSolver", "SCRIPTED",
           "SamplerSolver", "blind_answer", "make_solver", "recorded_params"]
