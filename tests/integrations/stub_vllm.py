"""A stand-in for ``vllm serve`` in the shard test: an OpenAI-compatible chat endpoint on
127.0.0.1 whose replies are the ``reference`` solver's (so a sharded run must score like a
one-process ``--solver reference`` run), ``/health``, and a ``/metrics`` page with vLLM's
prefix-cache counters: per request, the prompt's words are queried and the words of its longest
common prefix with an earlier prompt are hits (what a prefix cache would reuse).

    python stub_vllm.py --port PORT
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "eval")]

from openai_stub import JSONHandler, _Server  # noqa: E402

from mira_math.eval.solvers import ReferenceSolver  # noqa: E402
from mira_math.game.messages import SolverCall  # noqa: E402
from mira_math.game.prompts import initial_conversation  # noqa: E402
from mira_math.integrations.common import release_instances  # noqa: E402


class State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.opening = {}
        for inst in release_instances():
            for regime in ("zs", "4s"):
                self.opening[tuple(m["content"] for m in initial_conversation(inst, regime))] = inst
        self.solver = ReferenceSolver()
        self.prompts: list = []
        self.queries = self.hits = 0

    def account(self, words: list) -> None:
        with self.lock:
            best = 0
            for seen in self.prompts:
                n = 0
                for a, b in zip(seen, words, strict=False):
                    if a != b:
                        break
                    n += 1
                best = max(best, n)
            self.prompts.append(words)
            self.queries += len(words)
            self.hits += best


class Handler(JSONHandler):
    def do_GET(self):
        state = self.server.state
        if self.path == "/health":
            return self._send(200, {})
        if self.path == "/metrics":
            text = ("# TYPE vllm:prefix_cache_queries counter\n"
                    f'vllm:prefix_cache_queries_total{{engine="0",model_name="stub"}} {state.queries}.0\n'
                    "# TYPE vllm:prefix_cache_hits counter\n"
                    f'vllm:prefix_cache_hits_total{{engine="0",model_name="stub"}} {state.hits}.0\n').encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)
            return None
        return self._send(404, {"error": {"message": "not found"}})

    def do_POST(self):
        state = self.server.state
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        messages = body["messages"]
        state.account(" ".join(m["content"] for m in messages).split())
        inst = state.opening[tuple(m["content"] for m in messages[:2])]
        (completion,) = state.solver.generate([SolverCall(inst, messages, body.get("seed") or 0)])
        return self._send(200, {
            "id": "stub", "object": "chat.completion", "created": 1, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": completion.text}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    args = p.parse_args()
    httpd = _Server(("127.0.0.1", args.port), Handler)
    httpd.state = State()
    httpd.serve_forever(poll_interval=0.05)


if __name__ == "__main__":
    main()
