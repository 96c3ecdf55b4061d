"""Harness CPU per HTTP call: ``OpenAIBackend.acomplete`` (the real openai SDK, its retries and
error types, replies read as raw JSON) against a stub OpenAI-compatible server that runs in
ANOTHER process on 127.0.0.1, so the client's CPU time is the harness's alone; optionally the
same calls through inspect_ai's model API (``--client inspect``) on the same stub, and through
httpx's own connection pool instead of aiohttp's (``--transport httpx``).

Usage: python benchmarks/bench_http.py [--calls N] [--concurrency C ...]
                                       [--client mira inspect] [--transport aiohttp httpx]
                                       [--eval N] [--quick]
(``--quick``: 200 calls at concurrency 8 and ``eval`` on 4 instances: a smoke run.) Exit status 1
when a call ends in an error.
(``make bench-http`` builds ``.venv-bench`` with inspect_ai and runs every combination.)
Prints, per client and concurrency: calls, wall time, calls/s, client CPU ms per call
(process_time), errors, and each client's CPU per call relative to mira-math's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import tempfile
import sys
import time
from pathlib import Path
from typing import Callable, Dict, Tuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import mira_math.eval.backends.openai_backend as openai_backend  # noqa: E402
from mira_math.eval.backends.base import ChatRequest, GenParams  # noqa: E402
from mira_math.eval.backends.openai_backend import OpenAIBackend  # noqa: E402

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


def _mira_runner(url: str, conc: int, transport: str) -> Callable[[int], int]:
    if transport == "httpx":   # the SDK's default connection pool instead of aiohttp's
        openai_backend._aiohttp_transport_class = lambda: None
    backend = OpenAIBackend("m", base_url=url, concurrency=conc, max_retries=2, timeout=60)
    if backend.http_transport != transport:
        raise SystemExit(f"transport {transport} is not available here (got {backend.http_transport})")
    return lambda calls: asyncio.run(_drive(backend, calls))


def _inspect_runner(url: str, conc: int) -> Callable[[int], int]:
    """inspect_ai's own model API: its openai provider on chat completions (``responses_api=False``:
    the stub, like most local servers, has no Responses API), ``max_connections`` in flight."""
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, get_model

    messages = [ChatMessageSystem(content=CONVERSATION[0]["content"]),
                ChatMessageUser(content=CONVERSATION[1]["content"])]

    async def drive(calls: int) -> int:
        model = get_model("openai/m", base_url=url, api_key="local", responses_api=False,
                          config=GenerateConfig(max_connections=conc, max_tokens=64, max_retries=2))
        outs = await asyncio.gather(*(model.generate(messages, config=GenerateConfig(seed=n))
                                      for n in range(calls)))
        return sum(1 for o in outs if o.error)

    return lambda calls: asyncio.run(drive(calls))


def _eval_row(url: str, conc: int, instances: int) -> None:
    """The whole CLI: dataset loading, the async scheduler, the rules responder, transcripts
    written and fsync'd. Every solver turn is a model call (the stub always asks, so each
    episode spends its budget); CPU includes the interpreter's start and imports."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "mira_math.cli.main", "eval", "--solver", f"openai:m@{url}",
                        "--responder", "rules", "--limit", str(instances), "--concurrency", str(conc),
                        "--out", str(out)], cwd=ROOT, check=True, capture_output=True,
                       env=dict(os.environ, OPENAI_API_KEY="local"))
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        calls = sum(sum(1 for t in json.loads(line)["turns"] if t["role"] == "solver")
                    for line in (out / "transcripts.jsonl").read_text().splitlines() if line)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"{'eval (CLI)':<14} {conc:>11} {calls:>6} {wall:7.2f} {calls / wall:8.0f} "
          f"{1000 * cpu / calls:12.3f} {'-':>6}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=4000)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[16, 256])
    parser.add_argument("--client", nargs="+", choices=["mira", "inspect"], default=["mira"])
    parser.add_argument("--transport", nargs="+", choices=["aiohttp", "httpx"], default=["aiohttp"],
                        help="mira-math's connection layer (httpx: the SDK's default pool)")
    parser.add_argument("--eval", type=int, default=0, metavar="N",
                        help="also run `mira-math eval` (what users run) on the first N release "
                             "instances against the stub at each concurrency")
    parser.add_argument("--quick", action="store_true", help="200 calls, concurrency 8, eval on 4 (smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.calls, args.concurrency, args.eval = 200, [8], 4
    stub = subprocess.Popen([sys.executable, "-c", STUB], stdout=subprocess.PIPE, text=True)
    cpu_ms: Dict[Tuple[str, int], float] = {}
    failed = 0
    try:
        port = int(stub.stdout.readline())
        url = f"http://127.0.0.1:{port}/v1"
        print(f"{'client':<14} {'concurrency':>11} {'calls':>6} {'wall s':>7} {'calls/s':>8} "
              f"{'CPU ms/call':>12} {'errors':>6}")
        combos = [(f"mira/{t}", c) for t in args.transport for c in args.concurrency
                  if "mira" in args.client]
        combos += [("inspect_ai", c) for c in args.concurrency if "inspect" in args.client]
        for name, conc in combos:
            run = (_inspect_runner(url, conc) if name == "inspect_ai"
                   else _mira_runner(url, conc, name.split("/")[1]))
            run(min(200, args.calls))   # warm-up: connections, imports
            cpu0, wall0 = time.process_time(), time.perf_counter()
            errors = run(args.calls)
            failed += errors
            cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
            cpu_ms[(name, conc)] = 1000 * cpu / args.calls
            print(f"{name:<14} {conc:>11} {args.calls:>6} {wall:7.2f} {args.calls / wall:8.0f} "
                  f"{cpu_ms[(name, conc)]:12.3f} {errors:>6}", flush=True)
        for conc in args.concurrency if args.eval else []:
            _eval_row(url, conc, args.eval)
    finally:
        stub.terminate()
        stub.wait(timeout=10)
        stub.stdout.close()
    base = "mira/" + args.transport[0]
    for (name, conc), ms in cpu_ms.items():
        if name != base and (base, conc) in cpu_ms:
            print(f"{name} / {base} at concurrency {conc}: {ms / cpu_ms[(base, conc)]:.1f}x the CPU per call")
    print(json.dumps({"note": "client CPU only; the stub runs in its own process"}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
