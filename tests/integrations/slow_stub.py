"""A slow stand-in for ``vllm serve`` (the shard test's stub, replying as the reference solver,
after a delay) that counts the episodes it sees start, and a helper that SIGKILLs the process
carrying unit 0 of an engine run once it has finished a few episodes: what the killed-worker
tests of the Ray and local engines share."""

from __future__ import annotations

import json
import os
import signal
import time
from collections import Counter
from pathlib import Path

from tests.integrations import stub_vllm


class SlowState(stub_vllm.State):
    def __init__(self) -> None:
        super().__init__()
        self.delay = 0.1
        self.starts: Counter = Counter()        # instance id -> episodes started (first turns)

    def reset(self) -> None:
        with self.lock:
            self.starts.clear()


class _Replay:
    """The request body again, for the parent handler that reads it once more."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    def read(self, n: int = -1) -> bytes:
        return self.raw


class SlowHandler(stub_vllm.Handler):
    def do_POST(self):
        state: SlowState = self.server.state
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        messages = json.loads(raw)["messages"]
        if not any(m["role"] == "assistant" for m in messages):
            inst = state.opening[tuple(m["content"] for m in messages[:2])]
            with state.lock:
                state.starts[inst.id] += 1
        time.sleep(state.delay)
        original, self.rfile = self.rfile, _Replay(raw)
        try:
            return super().do_POST()
        finally:
            self.rfile = original               # the connection's next request is read from it


def attempts(out: Path) -> list:
    path = out / "attempts.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def kill_unit_0(out: Path, after: int, seen: dict) -> None:
    """Wait until unit 0 has ``after`` finished episodes, SIGKILL its process, and keep the ids
    finished at that moment (each line is flushed as it is written, so the file is final)."""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        pids = [a["pid"] for a in attempts(out) if a["unit"] == 0]
        log = out / "shard-0" / "transcripts.jsonl"
        lines = log.read_text(encoding="utf-8").splitlines() if log.is_file() else []
        if pids and len(lines) >= after:
            os.kill(pids[0], signal.SIGKILL)
            time.sleep(0.5)
            seen["pid"] = pids[0]
            seen["finished"] = {json.loads(line)["id"] for line in
                                log.read_text(encoding="utf-8").splitlines()}
            return
        time.sleep(0.05)
