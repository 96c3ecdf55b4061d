"""When ``eval --workers N`` and ``--engine ray`` pay: wall time of ``mira-math eval`` against a
local stub OpenAI-compatible server whose every reply takes a set latency, one process against
``--workers N`` local processes and N Ray tasks, over a grid of (model latency, episodes).

Usage: python benchmarks/bench_workers.py [--latency-ms 0 25 100] [--episodes 40 400 2310]
                                          [--workers 2] [--concurrency 16] [--quick]

The stub (its own process, 127.0.0.1, a thread per connection) sleeps ``latency`` and answers
``REQUEST: ...`` to every solver turn, so each episode spends its whole budget; the responder is
the rules one (no model); every mode runs the same ``--sample`` of the release. Each run is the
CLI as a user starts it (a fresh process: interpreter, imports, data loading, and for Ray its
cluster start), every mode at the same ``--concurrency`` per process; the modes alternate within
each cell. Printed: the wall seconds of each and its ratio to the one-process run (below 1: it
pays), then the break-even per latency: the fewest measured episodes from which the mode is
faster. Ray is measured where it is importable (the integration environment); elsewhere it says
so. ``--quick``: 6 episodes at 10 ms (a smoke run). Exit status 1 when a run fails.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parents[1]

STUB = r'''
import json, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
DELAY = float(sys.argv[1])
REPLY = json.dumps({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
    "choices": [{"index": 0, "finish_reason": "stop",
                 "message": {"role": "assistant", "content": "REQUEST: What is the missing value?"}}],
    "usage": {"prompt_tokens": 300, "completion_tokens": 8, "total_tokens": 308}}).encode()
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if DELAY:
            time.sleep(DELAY)
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


def _eval(url: str, episodes: int, mode: str, workers: int, concurrency: int, out: Path) -> float:
    """Wall seconds of one ``mira-math eval`` process (``mode``: one, local, ray)."""
    extra: List[str] = []
    if mode == "local":
        extra = ["--engine", "local", "--workers", str(workers)]
    elif mode == "ray":
        extra = ["--engine", "ray", "--workers", str(workers)]
    cmd = [sys.executable, "-m", "mira_math.cli.main", "eval", "--solver", f"openai:m@{url}",
           "--sample", str(episodes), "--sample-seed", "1", "--concurrency", str(concurrency),
           "--out", str(out), *extra]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, OPENAI_API_KEY="local"))
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{mode} run of {episodes} episodes exited {proc.returncode}: "
                           f"{proc.stderr.strip().splitlines()[-1:] or ['(no message)']}")
    return wall


def _calls(out: Path) -> int:
    """Solver turns in the run's transcripts (one model call each), shards included."""
    total = 0
    for path in out.rglob("transcripts.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line:
                total += sum(1 for t in json.loads(line)["turns"] if t["role"] == "solver")
    return total


def break_even(rows: List[dict], mode: str) -> Dict[int, Optional[int]]:
    """Per latency, the fewest measured episodes from which ``mode`` is faster than one process
    at that size and every larger one measured (None: at none)."""
    out: Dict[int, Optional[int]] = {}
    for latency in sorted({r["latency"] for r in rows}):
        cells = sorted((r for r in rows if r["latency"] == latency and mode in r), key=lambda r: r["episodes"])
        found = None
        for cell in reversed(cells):
            if cell[mode] < cell["one"]:
                found = cell["episodes"]
            else:
                break
        out[latency] = found
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", nargs="+", type=int, default=[0, 25, 100])
    parser.add_argument("--episodes", nargs="+", type=int, default=[40, 400, 2310])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=16, help="requests in flight per process")
    parser.add_argument("--quick", action="store_true", help="6 episodes at 10 ms (smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.latency_ms, args.episodes = [10], [6]
    modes = ["one", "local"]
    has_ray = importlib.util.find_spec("ray") is not None
    if has_ray:
        modes.append("ray")
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}; {os.cpu_count()} CPUs; "
          f"--concurrency {args.concurrency} per process; workers {args.workers}")
    if not has_ray:
        print("ray: not installed here, --engine ray not measured (make test-integrations' environment has it)")
    print(f"{'latency ms':>10} {'episodes':>8} {'calls':>6} {'one s':>7} "
          + " ".join(f"{m + ' s':>8} {'ratio':>6}" for m in modes[1:]))
    rows: List[dict] = []
    failed = 0
    for latency in args.latency_ms:
        stub = subprocess.Popen([sys.executable, "-c", STUB, str(latency / 1000)], stdout=subprocess.PIPE, text=True)
        try:
            url = f"http://127.0.0.1:{int(stub.stdout.readline())}/v1"
            for episodes in args.episodes:
                row: dict = {"latency": latency, "episodes": episodes}
                with tempfile.TemporaryDirectory() as tmp:
                    try:
                        for mode in modes:
                            row[mode] = _eval(url, episodes, mode, args.workers, args.concurrency,
                                              Path(tmp) / mode)
                        row["calls"] = _calls(Path(tmp) / "one")
                    except RuntimeError as err:
                        print(f"{latency:>10} {episodes:>8} failed: {err}", flush=True)
                        failed += 1
                        continue
                rows.append(row)
                print(f"{latency:>10} {episodes:>8} {row['calls']:>6} {row['one']:7.2f} "
                      + " ".join(f"{row[m]:8.2f} {row[m] / row['one']:6.2f}" for m in modes[1:]), flush=True)
        finally:
            stub.terminate()
            stub.wait(timeout=10)
            stub.stdout.close()
    for mode in modes[1:]:
        found = break_even(rows, mode)
        print(f"break-even, {mode} x{args.workers} against one process: " + "; ".join(
            f"{lat} ms: " + (f"pays from {n} episodes" if n else "does not pay at the sizes measured")
            for lat, n in found.items()))
    print(f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
