"""An ``eval --workers N`` coordinator killed with SIGKILL (no handler of its can run) takes its
workers with it: each watches a pipe whose write end only the coordinator holds, so they stop
calling the model server (a paid API, in real use) within seconds instead of running on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mira_math.eval.engines.local import ORPHAN_GRACE_S
from mira_math.eval.selection import data_files, load_data
from mira_math.generators.layout import DEFAULT_RELEASE
from tests.eval.openai_stub import JSONHandler, serve

ROOT = Path(__file__).resolve().parents[2]
DELAY_S = 0.3


class Slow:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests = 0


class SlowHandler(JSONHandler):
    """Every chat completion: "ANSWER: 0" after ``DELAY_S``, counted when it arrives."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        with self.server.state.lock:
            self.server.state.requests += 1
        time.sleep(DELAY_S)
        return self._send(200, {
            "id": "slow", "object": "chat.completion", "created": 1, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                         "message": {"role": "assistant", "content": "ANSWER: 0"}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})


def alive(pid: int) -> bool:
    """Running (a zombie nobody reaped yet counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
            return fh.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def worker_pids(out: Path) -> list:
    log = out / "attempts.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines() if log.is_file() else []
    return [json.loads(line)["pid"] for line in lines if line.strip()]


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads process states from /proc")
def test_workers_stop_when_the_coordinator_is_killed(tmp_path):
    out = tmp_path / "run"
    with serve(SlowHandler, Slow()) as httpd:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
        env.update(PYTHONPATH=str(ROOT), NO_PROXY="127.0.0.1")
        coordinator = subprocess.Popen(
            [sys.executable, "-m", "mira_math.cli", "eval", "--solver", f"openai:stub@{url}", "--workers", "2",
             "--concurrency", "1", "--out", str(out)],
            cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        pids: list = []
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and (len(pids) < 2 or httpd.state.requests < 4):
                assert coordinator.poll() is None, coordinator.stderr.read().decode()[-2000:]
                time.sleep(0.1)
                pids = worker_pids(out)
            assert len(pids) == 2 and httpd.state.requests >= 4, "the workers never started calling"
            coordinator.send_signal(signal.SIGKILL)
            coordinator.wait(timeout=10)
            deadline = time.monotonic() + ORPHAN_GRACE_S + 20
            while time.monotonic() < deadline and any(map(alive, pids)):
                time.sleep(0.1)
            assert not any(map(alive, pids)), "workers outlived their coordinator"
            with httpd.state.lock:
                calls = httpd.state.requests
            time.sleep(4 * DELAY_S + 1)
            assert httpd.state.requests == calls        # nobody calls the server any more
            episodes = len(load_data(data_files(None, None, DEFAULT_RELEASE)).instances)
            assert calls < episodes                      # one call an episode: stopped long before the end
        finally:
            if coordinator.poll() is None:
                coordinator.kill()
            for pid in pids:                              # only the processes this test started
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)
