"""Running an evaluation: the two schedulers that drive :class:`mira_math.game.episode.Episode`
and the one call that runs (or resumes) a run into its directory. The data selection is
:mod:`mira_math.eval.selection`, the run directory :mod:`mira_math.eval.rundir`, and what a solver
and a responder must offer :mod:`mira_math.eval.seams`.

* batched (vLLM, transformers, scripted solvers): all live episodes advance one turn
  together, so each turn is ONE solver call and at most one responder call;
* async (OpenAI-compatible APIs): a bounded sliding window of concurrent episodes, each
  advancing as soon as its own reply arrives (:func:`play_episode`, the single-episode step
  the integrations reuse).
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, TypeVar

from mira_math.eval.backends.base import Completion, FatalBackendError, RateLimitStorm
from mira_math.eval.errors import RunError, RunRateLimited, RunStopped
from mira_math.eval.redact import redact_argv, redact_obj
from mira_math.eval.model_revision import with_revisions  # the weights' revision
from mira_math.common.atomic import write_atomic
from mira_math.eval.rundir.files import MANIFEST, TRANSCRIPTS
from mira_math.eval.rundir.manifest import RunConfig
from mira_math.eval.rundir.writer import RunLock, prepare_run_dir, sample_key, sample_of
from mira_math.eval.seams import (AsyncResponder, AsyncSolver, Responder, ResponderCall, Solver,
                                  backend_of, read_seats)
from mira_math.eval.selection import InstanceStream, Selection, data_files, load_data
from mira_math.game.episode import Episode
from mira_math.game.messages import SolverCall, epoch_seed
from mira_math.game.prompts import check_fewshot_disjoint, prompt_hash
from mira_math.game.responders.base import ResponderResult
from mira_math.generators.schema import Instance

PROGRESS_EVERY_S = 30.0   # progress lines when stderr is not a terminal
SYNC_EVERY_S = 2.0        # the async path fsyncs the transcripts this often (batches: per batch)
Item = TypeVar("Item")    # what a scheduler turns into an episode: an (instance, epoch) for ``run``


# ------------------------------------------------------------------ schedulers

def run_batched(instances: Iterable[Item], make_episode: Callable[[Item], Episode],
                solver: Solver, responder: Responder, emit: Callable[[Episode], None],
                window: int = 4096, batch_done: Optional[Callable[[], None]] = None) -> Dict[str, int]:
    """All live episodes advance one turn together: one solver call per turn, one responder
    call per turn. ``window`` bounds how many episodes are live (memory stays flat).

    A solver call that raises, or returns a wrong number of completions, fails that turn's
    live episodes: each is recorded as an error (``where: solver``, the exception as the
    message) and the run goes on with the next window; ``--retry-errors`` reruns them.
    ``batch_done`` runs after each turn's finished episodes were emitted (the log's fsync)."""
    pending: Iterator[Item] = iter(instances)
    live: List[Episode] = []
    calls = {"solver_calls": 0, "responder_calls": 0, "solver_requests": 0, "responder_requests": 0}
    exhausted = False
    while True:
        while not exhausted and len(live) < window:
            inst = next(pending, None)
            if inst is None:
                exhausted = True
            else:
                live.append(make_episode(inst))
        if not live:
            return calls
        try:
            completions = list(solver.generate([e.solver_call() for e in live]))
            if len(completions) != len(live):
                raise RuntimeError(f"the solver returned {len(completions)} completions for "
                                   f"{len(live)} requests")
        except FatalBackendError:
            raise
        except Exception as exc:
            # The whole batch failed (an engine error, not one item's): every live episode is
            # recorded as a solver error with the cause and the run goes on; --retry-errors
            # reruns them. (A raising responder still stops the run; --resume continues it.)
            completions = [Completion(error=f"{type(exc).__name__}: {exc} "
                                            f"(the batched solver call for {len(live)} episodes failed)")
                           for _ in live]
        calls["solver_calls"] += 1
        calls["solver_requests"] += len(live)
        asks = []
        for episode, completion in zip(live, completions):
            call = episode.on_solver(completion)
            if call is not None:
                asks.append((episode, call))
        if asks:   # episodes the solver turn finished reach the disk before a slow responder call
            live = _emit_done(live, emit)
            results = responder.respond([call for _, call in asks])
            calls["responder_calls"] += 1
            calls["responder_requests"] += len(asks)
            for (episode, _), result in zip(asks, results):
                episode.on_responder(result)
        live = _emit_done(live, emit)
        if batch_done is not None:
            batch_done()


def _emit_done(live: List[Episode], emit: Callable[[Episode], None]) -> List[Episode]:
    still = []
    for episode in live:
        if episode.done:
            emit(episode)
        else:
            still.append(episode)
    return still


class _SyncSolverAsAsync:
    """An offline solver (reference, noask, a scripted one) driven by the sliding window, so that
    with an API responder every episode is written as it finishes."""

    is_async = True

    def __init__(self, solver: Solver):
        self.solver = solver

    def generate(self, calls: Sequence[SolverCall]) -> List[Completion]:
        return self.solver.generate(calls)

    async def agenerate(self, call: SolverCall) -> Completion:
        return self.solver.generate([call])[0]

    def describe(self) -> Dict[str, Any]:
        return self.solver.describe()


Generate = Callable[[SolverCall], Awaitable[Completion]]
Respond = Callable[[ResponderCall], Awaitable[ResponderResult]]


async def play_episode(episode: Episode, generate: Generate, respond: Respond,
                       calls: Optional[Dict[str, int]] = None) -> Episode:
    """The single-episode step: drive one episode to its end, one solver turn and (when the
    turn asks) one responder reply at a time. The sliding window runs one per live episode;
    the integrations run it with their own model call (:mod:`mira_math.integrations.common`)."""
    while not episode.done:
        completion = await generate(episode.solver_call())
        if calls is not None:
            calls["solver_calls"] += 1
        request = episode.on_solver(completion)
        if request is not None:
            episode.on_responder(await respond(request))
            if calls is not None:
                calls["responder_calls"] += 1
    return episode


def responder_step(responder: Responder) -> Respond:
    """One responder reply at a time: ``arespond`` where the responder has it, else its batch
    call in a worker thread (read once, when the step is made)."""
    if isinstance(responder, AsyncResponder):
        return responder.arespond

    async def respond(call: ResponderCall) -> ResponderResult:
        return (await asyncio.to_thread(responder.respond, [call]))[0]
    return respond


def run_async(instances: Iterable[Item], make_episode: Callable[[Item], Episode],
              solver: AsyncSolver, responder: Responder, emit: Callable[[Episode], None],
              concurrency: int = 16, sync: Optional[Callable[[], None]] = None,
              sync_every_s: Optional[float] = None) -> Dict[str, int]:
    """A sliding window of ``concurrency`` episodes; each advances as its replies arrive.
    ``sync`` (fsync the lines written) runs every ``sync_every_s`` seconds (default
    ``SYNC_EVERY_S``) in a worker thread,
    so a finished line is on disk within that time even if nothing else finishes."""
    calls = {"solver_calls": 0, "responder_calls": 0}
    pending: Iterator[Item] = iter(instances)
    respond = responder_step(responder)

    async def generate(call: SolverCall) -> Completion:
        try:
            return await solver.agenerate(call)
        except FatalBackendError:
            raise
        except Exception as exc:   # recorded as this episode's solver error, as in run_batched
            return Completion(error=f"{type(exc).__name__}: {exc} (the solver call raised)")

    async def worker() -> None:
        for item in pending:  # shared iterator: each instance is taken exactly once
            emit(await play_episode(make_episode(item), generate, respond, calls))

    every = SYNC_EVERY_S if sync_every_s is None else sync_every_s

    async def syncer(sync: Callable[[], None]) -> None:
        while True:
            await asyncio.sleep(every)
            await asyncio.to_thread(sync)

    async def main() -> None:
        timer = asyncio.ensure_future(syncer(sync)) if sync is not None else None
        try:
            await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
        finally:
            if timer is not None:
                timer.cancel()

    term = _Termination()

    async def guarded() -> None:
        task = asyncio.ensure_future(main())
        term.install(task)
        await task

    try:
        asyncio.run(guarded())
    except asyncio.CancelledError:
        if not term.received:
            raise
    finally:
        term.restore()
    if term.received and callable(term.handler):
        term.handler(signal.SIGTERM, None)   # the CLI's: KeyboardInterrupt
    return calls


class _Termination:
    """Where the caller handles SIGTERM (the CLI turns it into Ctrl-C: exit 130 and the resume
    hint), an async run takes the signal over while its loop runs: it cancels the run inside
    the loop, so every episode in flight is cancelled cleanly, and the caller's handler is
    called once the loop has closed. A handler raising at an arbitrary point of the loop left
    "Task exception was never retrieved" and unclosed connections after the one-line message."""

    def __init__(self) -> None:
        self.received = False
        try:
            self.handler = signal.getsignal(signal.SIGTERM)
        except ValueError:          # pragma: no cover - no signals here
            self.handler = None

    def install(self, task: "asyncio.Future[None]") -> None:
        if not callable(self.handler):
            return
        try:
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, self._on_sigterm, task)
        except (NotImplementedError, RuntimeError, ValueError):   # not the main thread
            self.handler = None

    def _on_sigterm(self, task: "asyncio.Future[None]") -> None:
        self.received = True
        task.cancel()

    def restore(self) -> None:
        """Closing the loop reset SIGTERM to the default: put the caller's handler back."""
        if callable(self.handler):
            signal.signal(signal.SIGTERM, self.handler)


# ------------------------------------------------------------------ one call for the CLI

@dataclass
class RunResult:
    total: int
    skipped: int
    ran: int
    correct: int
    errors: int
    calls: Dict[str, int]
    wall_s: float
    repaired: Optional[str] = None
    responder_turns: int = 0          # responder replies recorded in this invocation
    responder_errors: int = 0         # ... of which logged an error (unparsable output, ...)
    solver_turns: int = 0             # solver replies recorded in this invocation
    empty_solver_turns: int = 0       # ... with no visible text (content null, reasoning only)
    reasoning_only_turns: int = 0     # ... of which reasoning came back

    @property
    def all_replies_empty(self) -> bool:
        """Every solver reply of this invocation was empty: a broken setup, not a weak model."""
        return self.solver_turns > 0 and self.empty_solver_turns == self.solver_turns


#: the manifest's key for warnings about the run as a whole (``score`` repeats them)
WARNINGS = "warnings"
EMPTY_REPLIES = "empty_replies"


def empty_replies_warning(empty: int, reasoning_only: int = 0) -> str:
    """What an all-empty run saw: replies with no text at all, and replies whose only text was
    reasoning (each kind gets its own likely cause)."""
    blank = empty - reasoning_only
    seen = []
    if blank:
        seen.append(f"{blank} with no content (null, an empty string or no text part): check what the "
                    "server returns as the message content")
    if reasoning_only:
        seen.append(f"{reasoning_only} with reasoning only: is the answer going to the reasoning field, "
                    "or --max-tokens spent on thinking?")
    return f"every solver reply ({empty}) had no visible text: " + "; ".join(seen)


def _flag_empty_replies(out: Path, result: "RunResult") -> None:
    """Record (or clear, after an invocation with visible replies) the empty-replies warning
    in the manifest, so ``score`` and later readers see it too."""
    if result.solver_turns == 0:
        return
    path = out / MANIFEST
    data = json.loads(path.read_text(encoding="utf-8"))
    warnings = dict(data.get(WARNINGS) or {})
    if result.all_replies_empty:
        warnings[EMPTY_REPLIES] = empty_replies_warning(result.empty_solver_turns, result.reasoning_only_turns)
    elif EMPTY_REPLIES not in warnings:
        return
    else:
        warnings.pop(EMPTY_REPLIES)
    if warnings:
        data[WARNINGS] = warnings
    else:
        data.pop(WARNINGS, None)
    write_atomic(path, (json.dumps(data, indent=2, allow_nan=False) + "\n").encode("utf-8"))


def check_protocol(protocol: str, regime: str, condition: str, instances: Sequence[Instance]) -> None:
    """The blind protocol runs the blind tier and only it, zero-shot, under the standard
    condition (docs/decisions/data-blind-tier.md): one line otherwise."""
    blind = [inst.blind for inst in instances]
    if protocol == "blind":
        if not all(blind):
            first = next(inst for inst in instances if not inst.blind)
            raise RunError(f"--protocol blind runs the blind tier only (--config blind), but "
                           f"{first.id} is not a blind-tier row")
        if regime != "zs" or condition != "standard":
            raise RunError("--protocol blind is zero-shot (--regime zs) under the standard condition")
    elif any(blind):
        first = next(inst for inst in instances if inst.blind)
        raise RunError(f"{first.id} is a blind-tier row: run the blind tier with --protocol blind")


def run(out: Path, selection: Selection, config: RunConfig, solver: Solver, responder: Responder,
        argv: Sequence[str] = (), resume: bool = False, retry_errors: bool = False,
        window: int = 4096, concurrency: int = 16, progress: bool = True) -> RunResult:
    """Run (or continue) an evaluation into ``out``; returns what happened.

    The run directory is locked for the whole run; transcripts are appended as episodes finish
    and fsync'd after every batch (and every few seconds on the async path). A fatal backend
    error raises :class:`RunStopped` after closing the log: ``--resume`` continues the run."""
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {out}: exists and is not a folder")
    check_protocol(config.protocol, config.regime, config.condition, selection.instances)
    if config.regime == "4s":
        check_fewshot_disjoint(selection.instances)
    config.prompt_hash = config.prompt_hash or prompt_hash(      # k >= 2: the multi-fact prompt
        config.regime, max((inst.k for inst in selection.instances), default=1),
        config.protocol == "blind")
    config.dataset_checksum = config.dataset_checksum or selection.checksum
    config.backend = config.backend or redact_obj(_backend_params(solver, responder))
    models = redact_obj(with_revisions({"solver": solver.describe(), "responder": responder.describe()}))
    argv = redact_argv(argv)
    out.mkdir(parents=True, exist_ok=True)
    lock = RunLock(out)
    try:
        return _run_locked(out, selection, config, solver, responder, models, argv, resume,
                           retry_errors, window, concurrency, progress)
    finally:
        lock.release()


def _backend_params(solver: Solver, responder: Responder) -> Dict[str, Any]:
    """What each model backend sends that shapes the replies (its ``hash_params``, if any)."""
    out: Dict[str, Any] = {}
    for role, obj in (("solver", solver), ("responder", responder)):
        params = getattr(backend_of(obj), "hash_params", None)
        if callable(params):
            out[role] = params()
    return out


class _Progress:
    """A line on stderr every ``PROGRESS_EVERY_S`` seconds when stderr is not a terminal (a
    log file, a batch job), where tqdm's bar is off."""

    def __init__(self, total: int, stats: Dict[str, int], enabled: bool):
        self.total, self.stats = total, stats
        self._stop = threading.Event()
        self._started = time.perf_counter()
        self._thread: Optional[threading.Thread] = None
        if enabled and not sys.stderr.isatty():
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(PROGRESS_EVERY_S):
            done = self.stats["done"]
            print(f"eval: {done}/{self.total} done, {self.stats['errors']} errors, "
                  f"{time.perf_counter() - self._started:.0f} s", file=sys.stderr, flush=True)

    def close(self) -> None:
        self._stop.set()


def _run_locked(out: Path, selection: Selection, config: RunConfig, solver: Solver, responder: Responder,
                models: Dict[str, Any], argv: Sequence[str], resume: bool, retry_errors: bool,
                window: int, concurrency: int, progress: bool) -> RunResult:
    log = prepare_run_dir(out, config, selection, models, argv, resume, retry_errors)
    finished = log.finished   # id -> errored?: the only per-instance state kept across the run
    epochs = range(config.epochs)   # epoch-major: every instance once, then again (resume per pair)
    todo: Iterable[Tuple[Instance, int]] = ((i, e) for e in epochs for i in selection.instances
                                            if sample_key(i.id, e) not in finished)   # read lazily, in order
    total = len(selection.instances) * config.epochs
    todo_count = total - sum(1 for key in finished if selection.has_id(sample_of(key)[0]))
    stats = {"correct": 0, "errors": 0, "done": 0, "responder_turns": 0, "responder_errors": 0,
             "solver_turns": 0, "empty_solver_turns": 0, "reasoning_only_turns": 0}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=todo_count, desc="eval", unit="inst", disable=None, leave=False)
    ticker = _Progress(todo_count, stats, progress)
    started_episodes = [0]

    def emit(episode: Episode) -> None:
        t = episode.transcript
        log.write(t.to_json_line())
        stats["done"] += 1
        if t.error is not None:
            stats["errors"] += 1
        elif t.verdict and t.verdict["correct"] is True:
            stats["correct"] += 1
        for turn in t.turns:          # responder health, shown at the end of eval
            if turn.role == "responder":
                stats["responder_turns"] += 1
                stats["responder_errors"] += bool(turn.errors)
            else:
                stats["solver_turns"] += 1
                stats["empty_solver_turns"] += getattr(turn, "format_error", None) in ("empty", "reasoning_only")
                stats["reasoning_only_turns"] += getattr(turn, "format_error", None) == "reasoning_only"
        if bar is not None:
            bar.update(1)

    def make_episode(item: Tuple[Instance, int]) -> Episode:
        inst, epoch = item
        episode = Episode(inst, solver=config.solver, responder=config.responder, regime=config.regime,
                          condition=config.condition, ask_first=config.protocol == "ask-first",
                          run_seed=epoch_seed(config.run_seed, epoch),
                          reasoning_history=config.reasoning_history, epoch=epoch)
        started_episodes[0] += 1
        return episode

    seats = read_seats(solver, responder)      # the one read of what each side can do
    started = time.perf_counter()
    try:
        if seats.scheduler == "async":   # an API solver, or an API responder: write episodes as they finish
            calls = run_async(todo, make_episode, seats.async_solver or _SyncSolverAsAsync(solver),
                              responder, emit, concurrency, sync=log.sync_written)
        else:
            calls = run_batched(todo, make_episode, solver, responder, emit, window, batch_done=log.sync)
    except FatalBackendError as err:
        raise _stopped(err, out, stats, started_episodes[0] - stats["done"]) from None
    finally:
        log.close()
        ticker.close()
        if bar is not None:
            bar.close()
    result = RunResult(total=total, skipped=total - todo_count, ran=todo_count, correct=stats["correct"],
                       errors=stats["errors"], calls=calls,
                       wall_s=time.perf_counter() - started, repaired=log.repaired,
                       responder_turns=stats["responder_turns"], responder_errors=stats["responder_errors"],
                       solver_turns=stats["solver_turns"], empty_solver_turns=stats["empty_solver_turns"],
                       reasoning_only_turns=stats["reasoning_only_turns"])
    _flag_empty_replies(out, result)
    return result


def _stopped(err: FatalBackendError, out: Path, stats: Dict[str, int], in_flight: int) -> RunStopped:
    """The one-line stop: the cause, what is kept, what was in flight (never written half-done:
    ``--resume`` runs those), and the errors recorded before the stop (``--retry-errors``)."""
    errors = (f"; {stats['errors']} of them ended in an error (add --retry-errors to rerun those)"
              if stats["errors"] else "")
    text = (f"stopped: {err}; {stats['done']} finished transcripts kept in {out}{errors}; "
            f"{in_flight} episode(s) in flight were not written (--resume runs them): "
            f"{'wait' if isinstance(err, RateLimitStorm) else 'fix the cause'}, then rerun with --resume")
    return RunRateLimited(text) if isinstance(err, RateLimitStorm) else RunStopped(text)


__all__ = ["InstanceStream", "RunConfig", "RunError", "RunRateLimited", "RunResult", "RunStopped",
           "Selection", "TRANSCRIPTS", "data_files", "load_data", "play_episode", "responder_step", "run",
           "run_async", "run_batched"]
