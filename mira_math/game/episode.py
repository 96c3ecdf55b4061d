"""One instance's episode: the conversation, the transcript, and the protocol state, advanced
by the pure functions of :mod:`mira_math.game.protocol`. Schedulers only move completions in and out."""

from __future__ import annotations

import time
from typing import Any, Dict, Optional

from mira_math.game import protocol
from mira_math.game.reading import Action, Reading, read_message
from mira_math.game.prompts import initial_conversation, reply_message
from mira_math.game.responders.base import ResponderResult
from mira_math.game.responders.base import ResponderCall
from mira_math.game.messages import RUN_SEED, Completion, SolverCall, request_seed
from mira_math.game.transcript import ResponderTurn, SolverTurn, Transcript, estimate_tokens
from mira_math.generators.schema import Instance
from mira_math.verifiers import verify

# What later turns see of a solver's earlier reasoning: "drop" (the chat-template convention
# of reasoning models: only the visible answer goes back into the conversation) or "keep"
# (the reasoning goes back as a <think> block before the visible text).
REASONING_HISTORY = ("drop", "keep")


class Episode:
    def __init__(self, inst: Instance, *, solver: str, responder: str, regime: str,
                 condition: str = "standard", ask_first: bool = False, run_seed: int = RUN_SEED,
                 reasoning_history: str = "drop", epoch: int = 0):
        if reasoning_history not in REASONING_HISTORY:
            raise ValueError(f"reasoning_history {reasoning_history!r}: use one of {REASONING_HISTORY}")
        self.reasoning_history = reasoning_history
        oracle = condition == "oracle_hint"
        self.inst, self.ask_first, self.run_seed = inst, ask_first, run_seed
        self.state = protocol.start(0 if oracle else inst.budget)
        self.conversation = initial_conversation(inst, regime, oracle_hint=oracle)
        self.transcript = Transcript(
            id=inst.id, family=inst.family, type=inst.type, difficulty=inst.difficulty,
            budget=self.state.budget, solver=solver, responder=responder, regime=regime,
            condition=condition, epoch=epoch)
        self._turn = 0
        self._pending_request: Optional[str] = None
        self._started = time.perf_counter()
        self._canonical = {h.constraint for h in inst.hints}

    @property
    def epoch(self) -> int:
        """Which of the run's samples of this instance (``--epochs``); its transcript records it."""
        return self.transcript.epoch

    @property
    def done(self) -> bool:
        return self.state.done or self.transcript.error is not None

    def solver_call(self) -> SolverCall:
        return SolverCall(self.inst, self.conversation,
                          request_seed(self.run_seed, self.inst.id, self._turn, "solver"),
                          session=f"{self.inst.id}|{self.run_seed}")

    def on_solver(self, completion: Completion) -> Optional[ResponderCall]:
        """Record the solver's reply; return the responder call it needs, if any."""
        if completion.error is not None:
            self._fail("solver", completion.error, completion.meta)
            return None
        cut: Optional[str] = None
        if completion.refusal:              # a refusal is not an empty reply
            cut = "refusal"
        elif completion.finish_reason == "length":   # cut off: never parsed as a whole request
            cut = "truncated"
        reading = read_message(completion.text, completion.reasoning)
        action = Action("format_error", "") if cut else reading.action
        cut = cut or action.error
        if self.ask_first and action.kind == "answer" and not self._asked() and not self.state.final_turn:
            action = Action("format_error", "")   # ask-first protocol: answer too early
        before = self.state
        self.transcript.turns.append(SolverTurn(
            raw=completion.text, action=action.kind, content=action.text,
            final_turn=before.final_turn, finish_reason=completion.finish_reason,
            meta=completion.meta, format_error=cut, refusal=completion.refusal,
            answer_source=action.source if action.kind == "answer" else None,
            reasoning=reading.reasoning, reasoning_tokens=_reasoning_tokens(completion.meta),
            speaker_cut=reading.cut))
        if action.kind == "answer":
            self.transcript.answer_source = action.source
        self.conversation = self.conversation + [{"role": "assistant", "content": self._history(reading)}]
        self.state = protocol.after_solver(before, action)
        self._turn += 1
        if self.state.done:
            self._finish()
            return None
        if protocol.needs_responder(action, before):
            self._pending_request = action.text
            return ResponderCall(list(self.inst.responder), action.text, self.inst.family,
                                 request_seed(self.run_seed, self.inst.id, self._turn, "responder"),
                                 self.inst.view.question)
        self._tell(None)  # format error: remind, and the request is spent
        return None

    def on_responder(self, result: ResponderResult) -> None:
        backend_errors = [e for e in result.errors if e.startswith("backend")]
        if backend_errors:
            self._fail("responder", backend_errors[0], result.meta)
            return
        self.transcript.turns.append(ResponderTurn(
            request=self._pending_request or "", decision=result.decision,
            quoted_constraint=result.quoted_constraint,
            canonical=result.quoted_constraint in self._canonical, shown=result.shown,
            raw=result.raw, parsed=result.parsed, hint=result.hint, errors=list(result.errors),
            meta=result.meta))
        if self.ask_first and result.decision == "offer":
            self.state = protocol.DialogueState(**{**self.state.__dict__, "final_turn": True})
        self._tell(result.shown)

    def _history(self, reading: Reading) -> str:
        """What the conversation keeps of a solver turn: its own visible part (before any cut),
        with its reasoning as a <think> block in front when ``reasoning_history`` is "keep"."""
        visible = reading.visible.strip()
        if self.reasoning_history == "keep" and reading.reasoning:
            return f"<think>\n{reading.reasoning}\n</think>\n\n{visible}"
        return visible

    def _asked(self) -> bool:
        return any(getattr(t, "role", "") == "responder" for t in self.transcript.turns)

    def _tell(self, shown: Optional[str]) -> None:
        text = reply_message(shown, self.state.requests_left, self.state.final_turn)
        self.conversation = self.conversation + [{"role": "user", "content": text}]

    def _fail(self, where: str, message: str, meta: Optional[dict] = None) -> None:
        error: Dict[str, Any] = {"where": where, "message": message}
        if meta:  # the backend's record of the failed call (attempts, status code, request id)
            error["meta"] = dict(meta)
        self.transcript.error = error
        self.transcript.wall_s = round(time.perf_counter() - self._started, 6)

    def _finish(self) -> None:
        t = self.transcript
        t.final_answer, t.ended_by = self.state.answer, self.state.ended_by
        if self.state.answer is None:
            t.verdict = {"correct": False, "expected": self.inst.answer.value, "parsed": None,
                         "reason": "no answer"}
        else:
            v = verify(self.inst, self.state.answer)
            t.verdict = {"correct": v.correct, "expected": v.expected, "parsed": v.parsed,
                         "reason": v.reason}
        t.tokens_est = estimate_tokens([turn.raw if turn.role == "solver" else turn.shown
                                        for turn in t.turns])  # solver and responder messages
        t.wall_s = round(time.perf_counter() - self._started, 6)


def _reasoning_tokens(meta: dict) -> Optional[int]:
    usage = meta.get("usage") if isinstance(meta, dict) else None
    value = usage.get("reasoning_tokens") if isinstance(usage, dict) else None
    return value if isinstance(value, int) else None
