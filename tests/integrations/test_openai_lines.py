"""The OpenAI backend on both SDK lines: openai 3.x (httpx2, a vendored aiohttp adapter; the
default test venv) and openai 2.x (httpx, the httpx_aiohttp package; the integrations venv,
which verifiers pins to <3). ``make test-integrations`` also runs tests/eval/test_openai_backend.py
there, so the whole backend suite passes on each line."""

from __future__ import annotations

import pytest

openai = pytest.importorskip("openai", reason="needs the openai extra")

from mira_math.eval.backends.openai_backend import _aiohttp_transport_class, _http_library  # noqa: E402


def test_the_backend_speaks_the_sdks_http_library():
    library = _http_library()
    assert issubclass(openai.DefaultAsyncHttpxClient, library.AsyncClient)
    assert library.__name__ == ("httpx2" if int(openai.__version__.split(".")[0]) >= 3 else "httpx")


def test_the_aiohttp_adapter_matches_that_library():
    transport = _aiohttp_transport_class()
    pytest.importorskip("aiohttp")
    assert transport is not None and issubclass(transport, _http_library().AsyncBaseTransport)
