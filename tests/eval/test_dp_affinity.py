"""Session affinity for a data-parallel server (``--dp-ranks N``): every request of one episode
carries the same ``X-data-parallel-rank`` header, computed from the instance id and the epoch
(sha256), over real HTTP to a loopback stub that replies REQUEST on an episode's first turn and
ANSWER after it, so each episode has two solver turns. Also: ``--chat-template-kwargs`` goes
into the body only when given, and changes the config hash only then."""

from __future__ import annotations

import json
import threading
from collections import defaultdict

import pytest

from tests.eval.openai_stub import JSONHandler, serve

pytest.importorskip("openai")

from mira_math.cli.main import main  # noqa: E402
from mira_math.eval.backends.openai_backend import DP_RANK_HEADER, dp_rank  # noqa: E402
from mira_math.game.messages import epoch_seed, request_seed  # noqa: E402
from mira_math.game.prompts import initial_conversation  # noqa: E402
from mira_math.integrations.common import release_instances  # noqa: E402

CONFIG = "crt_reconstruction"


class _State:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = []        # (opening user message, number of messages, headers, body)


class _Handler(JSONHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        messages = body["messages"]
        opening = next(m["content"] for m in messages if m["role"] == "user")
        with self.server.state.lock:
            self.server.state.requests.append((opening, len(messages), dict(self.headers), body))
        first = not any(m["role"] == "assistant" for m in messages)
        text = "REQUEST: What is the value of the missing fact?" if first else "ANSWER: 0"
        self._send(200, {"id": "x", "object": "chat.completion", "created": 1, "model": body["model"],
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": text}}],
                         "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})


def _eval(tmp_path, url, name, *extra):
    out = tmp_path / name
    code = main(["eval", "--solver", f"openai:stub@{url}", "--config", CONFIG, "--sample", "8",
                 "--out", str(out), *extra])
    assert code == 0
    rows = [json.loads(line) for line in (out / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()]
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    return rows, manifest


def _header(headers):
    found = {k.lower(): v for k, v in headers.items()}
    return found.get(DP_RANK_HEADER.lower())


def test_each_episode_keeps_one_rank_and_the_rank_is_the_documented_hash(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "stub")
    state = _State()
    with serve(_Handler, state) as httpd:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        rows, _ = _eval(tmp_path, url, "pinned", "--dp-ranks", "4", "--epochs", "2",
                        "--temperature", "0.5")
        pinned = list(state.requests)
        state.requests.clear()
        _eval(tmp_path, url, "plain")
        plain = list(state.requests)
    assert {r["id"] for r in rows} and len(rows) == 16           # 8 instances x 2 epochs
    assert all(_header(headers) is not None for _, _, headers, _ in pinned)
    # each request is placed by its opening message (the instance) and its seed (which
    # derives from the epoch and the turn): its rank must be the hash of (id, epoch) on every turn
    openings = {next(m["content"] for m in initial_conversation(i, "zs") if m["role"] == "user"): i.id
                for i in release_instances(family=CONFIG)}
    placed = defaultdict(list)
    seen_ranks = set()
    for opening, _, headers, body in pinned:
        inst = openings[opening]
        (epoch, turn), = [(e, t) for e in (0, 1) for t in (0, 1)
                          if request_seed(epoch_seed(1234, e), inst, t, "solver") == body["seed"]]
        rank = _header(headers)
        assert rank == str(dp_rank(f"{inst}|{epoch_seed(1234, epoch)}", 4)), (inst, epoch, turn)
        placed[(inst, epoch)].append(turn)
        seen_ranks.add(rank)
    assert len(placed) == 16 and all(sorted(t) == [0, 1] for t in placed.values())
    assert len(seen_ranks) > 1                             # episodes spread over the ranks
    assert all(_header(headers) is None for _, _, headers, _ in plain)


def test_the_rank_is_stable_and_in_range():
    assert dp_rank("crt-000060|1234", 8) == dp_rank("crt-000060|1234", 8)
    ranks = [dp_rank(f"crt-{i:06d}|1234", 8) for i in range(400)]
    assert set(ranks) == set(range(8))
    assert dp_rank("crt-000060|1234", 1) == 0


def test_chat_template_kwargs_are_sent_only_when_given(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "stub")
    state = _State()
    with serve(_Handler, state) as httpd:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        _, plain = _eval(tmp_path, url, "plain")
        bodies_plain = [b for *_, b in state.requests]
        state.requests.clear()
        _, dated = _eval(tmp_path, url, "dated", "--chat-template-kwargs", '{"date_string": "26 Jul 2024"}')
        bodies_dated = [b for *_, b in state.requests]
    assert all("chat_template_kwargs" not in b for b in bodies_plain)
    assert all(b["chat_template_kwargs"] == {"date_string": "26 Jul 2024"} for b in bodies_dated)
    assert "chat_template_kwargs" not in plain["config"]["backend"]["solver"]
    assert plain["config_hash"] != dated["config_hash"]
