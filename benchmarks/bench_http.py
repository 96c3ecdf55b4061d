"""Harness CPU per HTTP call: ``OpenAIBackend.acomplete`` (the real openai SDK, its retries and
error types, replies read as raw JSON) against a stub OpenAI-compatible server that runs in
ANOTHER process on 127.0.0.1, so the client's CPU time is the harness's alone.

Usage: python benchmarks/bench_http.py [--calls N] [--concurrency C ...]
Prints, per concurrency: calls, wall time, calls/s, client CPU ms per call (process_time).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval.backends.base import ChatRequest, GenParams  # noqa: E402
from eval.backends.openai_backend import OpenAIBackend  # noqa: E402

STUB = r'''
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
REPLY = json.dumps({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
    "choices": [{"index": 0, "finish_reason": "stop",
                 "message": {"role": "assistant", "content": "REQUEST: What is x?"}}],
    "usage": {"prompt_tokens": 300, "completion_tokens": 8, "total_tokens": 308}}).encode()
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(REPLY)))
        self.end_headers()
        self.wfile.write(REPLY)
class S(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024
s = S(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
'''

CONVERSATION = [{"role": "system", "content": "You are a careful solver. " * 40},
                {"role": "user", "content": "Find x. Facts: " + "a line of facts; " * 60}]


async def _drive(backend: OpenAIBackend, calls: int) -> int:
    params = GenParams(max_tokens=64)
    errors = 0

    async def one(n: int) -> None:
        nonlocal errors
        c = await backend.acomplete(ChatRequest(CONVERSATION, seed=n), params)
        errors += c.error is not None

    await asyncio.gather(*(one(n) for n in range(calls)))
    await backend.aclose()
    return errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=4000)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[16, 256])
    args = parser.parse_args()
    stub = subprocess.Popen([sys.executable, "-c", STUB], stdout=subprocess.PIPE, text=True)
    try:
        port = int(stub.stdout.readline())
        url = f"http://127.0.0.1:{port}/v1"
        print(f"{'concurrency':>11} {'calls':>6} {'wall s':>7} {'calls/s':>8} {'CPU ms/call':>12} {'errors':>6}")
        for conc in args.concurrency:
            backend = OpenAIBackend("m", base_url=url, concurrency=conc, max_retries=2, timeout=60)
            asyncio.run(_drive(backend, min(200, args.calls)))   # warm-up: connections, imports
            cpu0, wall0 = time.process_time(), time.perf_counter()
            errors = asyncio.run(_drive(backend, args.calls))
            cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
            print(f"{conc:>11} {args.calls:>6} {wall:7.2f} {args.calls / wall:8.0f} "
                  f"{1000 * cpu / args.calls:12.3f} {errors:>6}")
    finally:
        stub.terminate()
        stub.wait(timeout=10)
    print(json.dumps({"note": "client CPU only; the stub runs in its own process"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
