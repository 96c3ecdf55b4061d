"""A scripted OpenAI-compatible server for the RL environment tests: the same request always
gets the same reply, so ``vf-eval mira-math-rl`` and ``mira-math eval`` on the same instances
see the same replies and must reach the same verdicts.

Solver requests (no ``response_format``) are answered per instance, picked by the opening
messages, with one of four scripts chosen by a SHA-256 of the id: ask for the canonical slot
and answer exactly (``reference``), answer 0 at once, ask and then answer 0, or ask vaguely
first and then as ``reference``. Responder requests (a ``json_schema`` response format, eval's
LLM responder) get a JSON decision: an offer quoting the canonical line when the request names
its slot, for one instance in five a fabricated quote, else a decline.

A ``seeded`` state answers as a sampling server does: the script of each solver request is
picked by a SHA-256 of the id *and* the request's temperature, seed, token limit and stop
sequences, so two harnesses get the same replies only when they send the same settings.

    python stub_mira.py --port PORT      (or serve(Handler, State(instances)) in a test)
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
import sys
from typing import Dict, List, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "eval")]

from openai_stub import JSONHandler  # noqa: E402

from mira_math.eval.solvers import ReferenceSolver  # noqa: E402
from mira_math.game.messages import SolverCall  # noqa: E402
from mira_math.game.prompts import initial_conversation  # noqa: E402
from mira_math.generators.schema import Instance  # noqa: E402

SCRIPTS = ("reference", "noask", "ask_then_zero", "vague_first")


def script_of(inst_id: str) -> str:
    return SCRIPTS[hashlib.sha256(inst_id.encode()).digest()[0] % len(SCRIPTS)]


def lies(inst_id: str) -> bool:
    """The scripted LLM holder fabricates its quote on this instance."""
    return hashlib.sha256(f"lie|{inst_id}".encode()).digest()[0] % 5 == 0


DECODING = ("temperature", "seed", "max_tokens", "max_completion_tokens", "stop", "top_p")


def seeded_script(inst_id: str, body: dict) -> str:
    """The script a seed-honouring server plays for this request (its decoding settings)."""
    settings = json.dumps({k: body.get(k) for k in DECODING}, sort_keys=True)
    return SCRIPTS[hashlib.sha256(f"{inst_id}|{settings}".encode()).digest()[0] % len(SCRIPTS)]


def solver_reply(inst: Instance, messages: List[dict], script: str = "") -> str:
    script = script or script_of(inst.id)
    asked = sum(m["role"] == "assistant" for m in messages)
    if script == "noask":
        return "ANSWER: 0"
    if script == "vague_first" and asked == 0:   # reasoning and spaces: the history keeps neither
        return "<think>Ask broadly first.</think>\n  REQUEST: Please tell me everything you know.  \n"
    reply = ReferenceSolver()._reply(SolverCall(inst, messages, 0))
    if script == "ask_then_zero" and reply.startswith("The holder"):
        return "Close enough.\nANSWER: 0"
    if reply.startswith("REQUEST:") and asked >= 2:   # the holder never offered: give up
        return "ANSWER: 0"
    return reply


class State:
    def __init__(self, instances: Sequence[Instance], regime: str = "zs", seeded: bool = False) -> None:
        self.lock = threading.Lock()
        self.seeded = seeded
        self.opening: Dict[Tuple[str, ...], Instance] = {}
        self.private: Dict[Tuple[str, ...], Instance] = {}
        for inst in instances:
            self.opening[tuple(m["content"] for m in initial_conversation(inst, regime))] = inst
            self.private[tuple(inst.responder)] = inst
        self.bodies: list = []


def responder_reply(state: State, prompt: str) -> str:
    head, _, request = prompt.rpartition("\n\nRequest: ")
    lines = tuple(head.split("\n")[1:])     # after "Your private constraints:"
    inst = state.private[lines]
    for hint in inst.hints:
        if request.strip() == f"What is the value of {hint.slot}?":
            quote = f"{hint.constraint} (approximately)" if lies(inst.id) else hint.constraint
            return json.dumps({"type": "offer", "has_exact_match": True, "quoted_constraint": quote,
                               "hint": "exact match"})
    return json.dumps({"type": "decline", "has_exact_match": False, "quoted_constraint": "",
                       "hint": "no exact match"})


class Handler(JSONHandler):
    def do_POST(self):
        state: State = self.server.state
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        with state.lock:
            state.bodies.append(body)
        messages = body["messages"]
        if "response_format" in body:
            text = responder_reply(state, messages[-1]["content"])
        else:
            inst = state.opening[tuple(m["content"] for m in messages[:2])]
            text = solver_reply(inst, messages, seeded_script(inst.id, body) if state.seeded else "")
        return self._send(200, {
            "id": "stub", "object": "chat.completion", "created": 1, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})


def main() -> None:
    import argparse

    from openai_stub import _Server

    from mira_math.integrations.common import release_instances

    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    args = p.parse_args()
    httpd = _Server(("127.0.0.1", args.port), Handler)
    httpd.state = State(release_instances())
    httpd.serve_forever(poll_interval=0.05)


if __name__ == "__main__":
    main()
