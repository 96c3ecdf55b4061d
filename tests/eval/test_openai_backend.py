"""OpenAIBackend through the real openai SDK over real HTTP, against a scripted
OpenAI-compatible server on 127.0.0.1 (stdlib ThreadingHTTPServer, port 0). The last user
message selects the behaviour: ``<behaviour>|<tag>``; every wait is bounded and tiny."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from tests.eval.openai_stub import JSONHandler, serve

import pytest

openai = pytest.importorskip("openai")

from mira_math.eval.backends.base import AsyncChatBackend, ChatBackend, ChatRequest, GenParams  # noqa: E402
from mira_math.eval.backends.openai_backend import OpenAIBackend  # noqa: E402

MODEL = "test-model"
SCHEMA = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
          "additionalProperties": False}
HANG_S = 1.0


class _State:
    def __init__(self):
        self.lock = threading.Lock()
        self.received = []          # (key, time, headers, body) per attempt
        self.attempts = {}          # key -> count
        self.inflight = 0
        self.max_inflight = 0
        self.stop = threading.Event()

    def for_key(self, key):
        with self.lock:
            return [r for r in self.received if r[0] == key]


def _reply(content, finish_reason="stop", refusal=None, n=0):
    return {
        "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 1700000000, "model": MODEL,
        "system_fingerprint": "fp_test",
        "choices": [{"index": 0, "finish_reason": finish_reason, "logprobs": None,
                     "message": {"role": "assistant", "content": content, "refusal": refusal}}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14},
    }


class _Handler(JSONHandler):
    def do_POST(self):
        state: _State = self.server.state
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        if self.path != "/v1/chat/completions":
            return self._send(404, {"error": {"message": "not found"}})
        key = body["messages"][-1]["content"]
        behaviour = key.split("|", 1)[0]
        with state.lock:
            state.received.append((key, time.monotonic(), dict(self.headers), body))
            attempt = state.attempts[key] = state.attempts.get(key, 0) + 1
            if behaviour == "slow":   # in-flight count of the concurrency test's requests
                state.inflight += 1
                state.max_inflight = max(state.max_inflight, state.inflight)
            n = len(state.received)
        try:
            rid = [("x-request-id", f"req_{n}")]
            if behaviour == "rate_limit" and attempt == 1:
                return self._send(429, {"error": {"message": "slow down", "type": "rate_limit"}},
                                  [("Retry-After", "0.15")] + rid)
            if behaviour == "rate_limit_ms" and attempt == 1:
                return self._send(429, {"error": {"message": "slow down", "type": "rate_limit"}},
                                  [("retry-after-ms", "120")] + rid)
            if behaviour == "error_once" and attempt == 1:
                return self._send(500, {"error": {"message": "boom"}}, [("retry-after-ms", "10")] + rid)
            if behaviour == "error_always":
                return self._send(500, {"error": {"message": "boom"}}, [("retry-after-ms", "10")] + rid)
            if behaviour == "bad_request":
                return self._send(400, {"error": {"message": "bad", "type": "invalid_request_error"}}, rid)
            if behaviour == "hang":
                state.stop.wait(HANG_S)
                return self._send(200, _reply("late", n=n), rid)
            if behaviour == "refusal":
                return self._send(200, _reply(None, refusal="I can't help with that.", n=n), rid)
            if behaviour == "length":
                return self._send(200, _reply('{"a": "trunc', finish_reason="length", n=n), rid)
            if behaviour == "slow":
                _, index, delay, _tag = key.split("|")
                time.sleep(float(delay))
                return self._send(200, _reply(f"echo:{index}", n=n), rid)
            if behaviour == "json":
                return self._send(200, _reply('{"a": "b"}', n=n), rid)
            return self._send(200, _reply(f"hello from attempt {attempt}", n=n), rid)
        finally:
            if behaviour == "slow":
                with state.lock:
                    state.inflight -= 1


@pytest.fixture(scope="module")
def server():
    with serve(_Handler, _State()) as httpd:
        yield httpd
        httpd.state.stop.set()


@pytest.fixture(autouse=True)
def _no_proxies(monkeypatch):
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


def _backend(server, **kw):
    kw.setdefault("max_retries", 2)
    kw.setdefault("timeout", 5.0)
    return OpenAIBackend(MODEL, base_url=f"http://127.0.0.1:{server.server_address[1]}/v1", **kw)


def _req(behaviour, seed=1234, schema=None, tag=None):
    key = f"{behaviour}|{tag or uuid.uuid4().hex}"
    return key, ChatRequest(conversation=[{"role": "system", "content": "sys"},
                                          {"role": "user", "content": key}],
                            seed=seed, json_schema=schema)


PARAMS = GenParams(temperature=0.0, max_tokens=64, top_p=1.0)


def test_protocols_and_describe(server):
    backend = _backend(server, concurrency=4)
    assert isinstance(backend, ChatBackend) and isinstance(backend, AsyncChatBackend)
    d = backend.describe()
    assert d["model"] == MODEL and d["base_url"].startswith("http://127.0.0.1:")
    assert (d["concurrency"], d["timeout"], d["max_retries"]) == (4, 5.0, 2)
    assert d["sdk_version"] == openai.__version__
    assert "api_key" not in json.dumps(d)


def test_normal_reply_meta(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    key, req = _req("normal")
    (c,) = _backend(server).complete([req], PARAMS)
    assert c.error is None and c.text == "hello from attempt 1" and c.finish_reason == "stop"
    assert c.refusal is None
    m = c.meta
    assert m["request_id"].startswith("req_") and m["id"].startswith("chatcmpl-")
    assert m["system_fingerprint"] == "fp_test" and m["model"] == MODEL
    assert m["usage"] == {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
    assert m["latency_s"] > 0 and m["attempts"] == 1
    (_, _, headers, body) = server.state.for_key(key)[0]
    assert {k.lower(): v for k, v in headers.items()}["authorization"] == "Bearer EMPTY"
    assert body["model"] == MODEL and body["seed"] == 1234
    assert body["temperature"] == 0.0 and body["top_p"] == 1.0
    assert body["max_tokens"] == 64 and "max_completion_tokens" not in body  # a local server
    assert "response_format" not in body


def test_max_tokens_param_and_sampling_options(server):
    key, req = _req("normal")
    (c,) = _backend(server, max_tokens_param="max_tokens", sampling_params=False).complete([req], PARAMS)
    assert c.error is None
    body = server.state.for_key(key)[0][3]
    assert body["max_tokens"] == 64 and "max_completion_tokens" not in body
    assert "temperature" not in body and "top_p" not in body


@pytest.mark.parametrize("behaviour,header,wait", [("rate_limit", "Retry-After", 0.15),
                                                     ("rate_limit_ms", "retry-after-ms", 0.12)])
def test_429_retried_after_server_delay(server, behaviour, header, wait):
    key, req = _req(behaviour)
    (c,) = _backend(server).complete([req], PARAMS)
    assert c.error is None and c.text == "hello from attempt 2"
    assert c.meta["attempts"] == 2
    hits = server.state.for_key(key)
    assert len(hits) == 2
    gap = hits[1][1] - hits[0][1]
    # honoured the server's delay, not the SDK's own backoff (>= 0.375 s for a first retry)
    assert wait * 0.9 <= gap < 0.36, gap


def test_500_once_then_success(server):
    key, req = _req("error_once")
    (c,) = _backend(server).complete([req], PARAMS)
    assert c.error is None and c.text == "hello from attempt 2" and c.meta["attempts"] == 2
    assert len(server.state.for_key(key)) == 2


def test_500_forever_is_an_error_not_an_exception(server):
    key, req = _req("error_always")
    (c,) = _backend(server, max_retries=2).complete([req], PARAMS)
    assert c.text == "" and c.error.startswith("InternalServerError: ")
    assert c.meta["attempts"] == 3 and c.meta["status_code"] == 500
    assert c.meta["request_id"].startswith("req_")
    assert len(server.state.for_key(key)) == 3


def test_400_is_not_retried(server):
    key, req = _req("bad_request")
    (c,) = _backend(server, max_retries=3).complete([req], PARAMS)
    assert c.error.startswith("BadRequestError: ") and c.meta["attempts"] == 1
    assert len(server.state.for_key(key)) == 1


def test_hang_past_timeout_is_an_error(server):
    key, req = _req("hang")
    (c,) = _backend(server, timeout=0.2, max_retries=0).complete([req], PARAMS)
    # the 1 s hang outlived the 0.2 s deadline
    assert c.error.startswith("APITimeoutError: ")


def test_structured_output_request(server):
    key, req = _req("json", seed=99, schema=SCHEMA)
    (c,) = _backend(server).complete([req], GenParams(temperature=0.0, max_tokens=77, top_p=0.5))
    assert c.error is None and json.loads(c.text) == {"a": "b"}
    body = server.state.for_key(key)[0][3]
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "responder_reply", "strict": True, "schema": SCHEMA}}
    assert body["seed"] == 99 and body["max_tokens"] == 77 and body["top_p"] == 0.5
    assert body["messages"] == list(req.conversation)


def test_refusal(server):
    _, req = _req("refusal", schema=SCHEMA)
    (c,) = _backend(server).complete([req], PARAMS)
    assert c.error is None and c.text == "" and c.refusal == "I can't help with that."


def test_finish_reason_length(server):
    _, req = _req("length")
    (c,) = _backend(server).complete([req], PARAMS)
    assert c.error is None and c.finish_reason == "length" and c.text == '{"a": "trunc'


def test_batch_order_and_concurrency_bound(server):
    tag = uuid.uuid4().hex
    n, limit = 12, 3
    reqs = []
    for i in range(n):   # later items finish sooner
        delay = 0.02 + 0.01 * (n - i)
        reqs.append(ChatRequest([{"role": "user", "content": f"slow|{i}|{delay:.3f}|{tag}"}], seed=i))
    with server.state.lock:
        server.state.max_inflight = 0
    backend = _backend(server, concurrency=limit)
    out = backend.complete(reqs, PARAMS)
    assert [c.text for c in out] == [f"echo:{i}" for i in range(n)]
    assert all(c.error is None for c in out)
    assert 2 <= server.state.max_inflight <= limit
    # a second batch on the same backend works (each batch has its own loop and client)
    assert [c.text for c in backend.complete(reqs[:2], PARAMS)] == ["echo:0", "echo:1"]
    assert backend.complete([], PARAMS) == []


def test_mixed_batch_never_raises(server):
    reqs = [_req(b)[1] for b in ("normal", "error_always", "bad_request", "refusal")]
    out = _backend(server, max_retries=1).complete(reqs, PARAMS)
    assert [c.error is None for c in out] == [True, False, False, True]


def test_acomplete_across_event_loops(server):
    backend = _backend(server, concurrency=2)

    async def run(k):
        reqs = [_req("normal")[1] for _ in range(k)]
        out = await asyncio.gather(*(backend.acomplete(r, PARAMS) for r in reqs))
        await backend.aclose()
        return out

    for _ in range(2):   # a fresh loop each time: the client is rebuilt, not reused broken
        out = asyncio.run(run(3))
        assert [c.error for c in out] == [None] * 3
    # without aclose the client is closed when asyncio.run shuts the loop down, and the
    # next loop gets a fresh working client
    assert asyncio.run(backend.acomplete(_req("normal")[1], PARAMS)).error is None
    first = backend._loop_state[1]
    assert first.is_closed()
    assert asyncio.run(backend.acomplete(_req("normal")[1], PARAMS)).error is None
    assert backend._loop_state[1] is not first


def test_complete_from_inside_a_running_loop(server):
    backend = _backend(server)

    async def inner():
        return backend.complete([_req("normal")[1]], PARAMS)

    (c,) = asyncio.run(inner())
    assert c.error is None
