"""A local OpenAI-compatible HTTP server for tests: the real ``openai`` SDK talks to it over
real HTTP on 127.0.0.1. Tests subclass :class:`JSONHandler` with their scripted ``do_POST``."""

from __future__ import annotations

import contextlib
import json
import threading
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
