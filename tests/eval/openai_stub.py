"""A local OpenAI-compatible HTTP server for tests and ``benchmarks/bench_faults.py``: the real
``openai`` SDK talks to it over real HTTP on 127.0.0.1. Tests subclass :class:`JSONHandler`
with their scripted ``do_POST``; :class:`AttackHandler` is the misbehaving server that both the
fault tests and the fault benchmark replay."""

from __future__ import annotations

import contextlib
import gzip
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator


class JSONHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def _send(self, status, payload, headers=()):
        body = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # the client gave up (timeout tests)
            pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # The default listen backlog (5) overflows when a whole window connects at once, and a
    # dropped SYN is retried by the kernel only after a second: a spurious client timeout.
    request_queue_size = 128


@contextlib.contextmanager
def serve(handler: type, state: Any) -> Iterator[ThreadingHTTPServer]:
    """Run ``handler`` on an ephemeral loopback port; ``server.state`` is ``state``."""
    httpd = _Server(("127.0.0.1", 0), handler)
    httpd.state = state
    httpd.handle_error = lambda request, address: None
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


class AttackState:
    """What an :class:`AttackHandler` server has received (request bodies, in order)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.bodies: list = []
        self.authorizations: list = []   # each request's Authorization header
        self.calls = 0            # requests received, for the every-Nth behaviours


class AttackHandler(JSONHandler):
    """The request's model name picks the behaviour: ``unauthorized`` (401), ``missing`` (404),
    ``schema500`` (500 for a ``json_schema`` response format), ``html`` (a 200 HTML page),
    ``trickle`` (headers at once, then a byte every 0.2 s for 100 s), ``hangup`` (reads the
    request, closes the connection), ``truncating`` (a turn cut off by the token limit),
    ``surrogate`` (a reply whose text holds the JSON escape of a lone surrogate and whose usage
    holds NaN and Infinity), ``huge`` (a 50 MB reply), ``gzipbomb`` (a gzip body that decodes to
    50 MB), ``resets2`` (every 50th request, 2%, has its connection dropped at once; the others
    are answered after 1 s, so the failures come back first), ``ratelimited`` (429 without
    ``Retry-After``), ``slow`` (a normal reply after 0.2 s); any other name gets a normal reply
    (a decline for structured requests, else ``ANSWER: 0``) that reports 900 completion tokens,
    past small token limits."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        with self.server.state.lock:
            self.server.state.bodies.append(body)
            self.server.state.authorizations.append(self.headers.get("Authorization"))
            self.server.state.calls += 1
            number = self.server.state.calls
        model = body["model"]
        if model == "ratelimited":
            return self._send(429, {"error": {"message": "rate limit reached", "type": "requests"}})
        if model == "resets2":
            if number % 50 == 0:
                return self._hang_up()
            time.sleep(1.0)
        if model == "slow":
            time.sleep(0.2)
        if model == "unauthorized":
            return self._send(401, {"error": {"message": "bad key", "type": "invalid_api_key"}})
        if model == "missing":
            return self._send(404, {"error": {"message": "model not found"}})
        if model == "schema500" and body.get("response_format", {}).get("type") == "json_schema":
            return self._send(500, {"error": {"message": "unsupported response_format json_schema"}})
        if model == "html":
            return self._raw(200, b"<!DOCTYPE html><html><body>login</body></html>", "text/html")
        if model == "hangup":
            return self._hang_up()
        if model == "trickle":
            return self._trickle()
        if model in ("huge", "gzipbomb"):   # a 50 MB reply; a gzip body that decodes to 50 MB
            return self._big(gzipped=model == "gzipbomb")
        if model == "surrogate":            # a lone surrogate as a JSON escape, NaN in the usage
            return self._raw(200, b'{"id": "c1", "choices": [{"index": 0, "finish_reason": "stop", '
                                  b'"message": {"role": "assistant", "content": "ANSWER: 0 \\udc80"}}], '
                                  b'"usage": {"prompt_tokens": NaN, "completion_tokens": Infinity}}',
                             "application/json")
        truncated = model == "truncating"
        text = ("REQUEST: What is the value of" if truncated
                else json.dumps({"decision": "decline", "line": None}) if "response_format" in body
                else "ANSWER: 0")
        return self._send(200, {
            "id": "c1", "object": "chat.completion", "created": 1, "model": model,
            "choices": [{"index": 0, "finish_reason": "length" if truncated else "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 900, "total_tokens": 901}})

    def _hang_up(self) -> None:
        self.close_connection = True
        self.connection.shutdown(2)

    _BIG: dict = {}

    def _big(self, gzipped: bool) -> None:
        if gzipped not in self._BIG:
            text = b'{"choices": [{"index": 0, "message": {"content": "' + b"A" * (50 * 2 ** 20) + b'"}}]}'
            self._BIG[gzipped] = gzip.compress(text, compresslevel=1) if gzipped else text
        payload = self._BIG[gzipped]
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if gzipped:
                self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except OSError:
            pass

    def _raw(self, status: int, payload: bytes, kind: str) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except OSError:
            pass

    def _trickle(self) -> None:
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            for _ in range(500):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.2)
        except OSError:
            pass
