"""The harness's typed seams: what the runner asks of a solver and of a responder, and the one
place that reads what each can do (:func:`read_seats`). A new solver or responder satisfies one of
these protocols; the runner never probes for methods while it runs.

* :class:`Solver`: one call per turn for a batch of episodes (``generate``), and ``is_async``,
  true when its backend answers one chat at a time (an API): then it is also an
  :class:`AsyncSolver` (``agenerate``) and the sliding window drives it.
* :class:`Responder` (the game's protocol): ``respond`` to a batch of requests;
  an :class:`AsyncResponder` also answers one request at a time (``arespond``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Protocol, Sequence, runtime_checkable

from mira_math.eval.backends.base import ChatBackend, Completion
from mira_math.eval.backends.registry import capabilities_of
from mira_math.game.messages import SolverCall
from mira_math.game.responders.base import Responder, ResponderResult
from mira_math.game.responders.base import ResponderCall


@runtime_checkable
class Solver(Protocol):
    """A solver the batched scheduler drives: one ``generate`` call per turn."""

    @property
    def is_async(self) -> bool: ...

    def generate(self, calls: Sequence[SolverCall]) -> List[Completion]: ...

    def describe(self) -> Dict[str, Any]: ...


@runtime_checkable
class AsyncSolver(Solver, Protocol):
    """A solver that also answers one chat at a time (an API backend)."""

    async def agenerate(self, call: SolverCall) -> Completion: ...


@runtime_checkable
class AsyncResponder(Responder, Protocol):
    """A responder that also answers one request at a time."""

    async def arespond(self, turn: ResponderCall) -> ResponderResult: ...


@dataclass(frozen=True)
class Seats:
    """A run's solver and responder with what they can do, read once: ``async_solver`` is the
    solver when it calls an API one chat at a time, ``async_responder`` the responder when it
    answers one request at a time, ``api_responder`` whether that responder calls an API (so
    an offline solver is driven by the sliding window and every episode is written as it
    finishes, not after a slow batch)."""

    solver: Solver
    responder: Responder
    async_solver: Optional[AsyncSolver]
    async_responder: Optional[AsyncResponder]
    api_responder: bool

    @property
    def scheduler(self) -> str:
        """``"async"`` (the sliding window) or ``"batched"`` (one call per turn)."""
        return "async" if self.async_solver is not None or self.api_responder else "batched"


def read_seats(solver: Solver, responder: Responder) -> Seats:
    """The one read of what the solver and the responder can do (see :class:`Seats`)."""
    async_solver = solver if solver.is_async and isinstance(solver, AsyncSolver) else None
    async_responder = responder if isinstance(responder, AsyncResponder) else None
    backend = backend_of(responder)
    api = async_responder is not None and backend is not None and capabilities_of(backend).async_calls
    return Seats(solver, responder, async_solver, async_responder, api)


def backend_of(participant: object) -> Optional[ChatBackend]:
    """The chat backend a model solver or an llm responder runs on (None: a scripted one)."""
    return getattr(participant, "backend", None)


__all__ = ["AsyncResponder", "AsyncSolver", "Responder", "ResponderCall", "Seats", "Solver",
           "backend_of", "read_seats"]
