"""OpenAI-compatible chat backend: the OpenAI API itself, or any server speaking its chat
completions protocol (``vllm serve``, SGLang, llama.cpp's server, ...), through the official
``openai`` SDK's async client.

Retries and timeouts are the SDK's own (``max_retries`` with exponential backoff; it honours
``retry-after-ms`` and ``Retry-After`` up to two minutes and retries 408/409/429/5xx, timeouts
and connection errors). After they are exhausted the item's :class:`Completion` carries
``error="<ExceptionType>: <message>"``; nothing is raised for a failed item.

Event loops: ``complete()`` (the batch call, from synchronous code) runs its own event loop
with a fresh client that it closes before returning, so no client outlives its loop.
``acomplete()`` (the sliding-window scheduler's call) keeps one client per running event
loop, closed by ``aclose()`` or, failing that, when the loop shuts down its async generators
(``asyncio.run`` does).

The HTTP path is lean on purpose (``benchmarks/bench_http.py``): requests go through the
SDK's generic ``post`` with the reply kept as raw JSON (no request transform, no pydantic
objects), over the SDK's aiohttp connection layer where ``openai[aiohttp]`` is installed (the
``openai`` extra installs it; httpx's pool is the fallback).

``openai`` is imported lazily (``pip install 'mira-math[openai]'``): this module imports
without it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import hashlib
import inspect
import json
import logging
import os
import re
import time
from typing import Any, AsyncIterator, Dict, List, Optional, Sequence, Tuple
from urllib.parse import urlparse

from mira_math.eval.backends.base import (ChatRequest, Completion, FatalBackendError, GenParams,
                                          RateLimitStorm)
from mira_math.eval.backends.health import DOWN, RATE_LIMITED, FailureWatch
from mira_math.eval.redact import redact_text, redact_url, split_userinfo

LOG = logging.getLogger("mira_math")
OFFICIAL_HOST = "api.openai.com"
MAX_REPLY_BYTES = 4 * 2 ** 20  # the largest reply body read (decoded); a chat reply is far smaller
MAX_CONNECTION_FAILURES = 5   # calls in a row (sending order) with no reply at all: the server is down
MAX_RATE_LIMITED = 8          # calls in a row (sending order) answered 429 after retries: a storm
QUIET_S = 10.0                # ... and nothing has cleared it for this long (mira_math.eval.backends.health)
RESPONSE_FORMATS = ("auto", "json_schema", "json_object")
# words in a 5xx body that mean "your request is malformed" (llama.cpp answers an unsupported
# response_format with HTTP 500): such a reply is not retried
_MALFORMED_WORDS = (b"response_format", b"json_schema", b"schema", b"invalid", b"unsupported",
                    b"not supported", b"malformed", b"validation", b"parse")


def resolved_base_url(base_url: Optional[str]) -> str:
    return base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_OPENAI_BASE_URL


def shown_base_url(base_url: Optional[str]) -> str:
    """The endpoint as it may be recorded or printed: no userinfo, no key in the query."""
    return redact_url(resolved_base_url(base_url))


def is_official(base_url: Optional[str]) -> bool:
    return urlparse(resolved_base_url(base_url)).hostname == OFFICIAL_HOST


def _aiohttp_transport_class() -> Optional[Any]:
    """aiohttp's connection layer, where the SDK ships its adapter (the ``openai[aiohttp]``
    extra), else None (httpx's own pool is used). Measured with ``benchmarks/bench_http.py``
    (2 vCPUs, 256 calls in flight): httpx's pool scans every connection for every request
    (3.2 ms of client CPU per call), aiohttp's does not (0.9 ms)."""
    try:
        import aiohttp  # noqa: F401  (the adapter needs it)
    except ImportError:
        return None
    try:  # openai 3.x vendors the adapter (a private path: guarded)
        from openai._vendor.httpx_aiohttp.transport import AiohttpTransport as vendored
        return vendored
    except ImportError:
        try:  # openai 2.x: the httpx_aiohttp package its aiohttp extra installs
            from httpx_aiohttp import AiohttpTransport as packaged
            return packaged
        except ImportError:
            return None


def _remapped_aiohttp_error(httpx: Any, exc: Exception, request: Any) -> Exception:
    """The error httpx itself would raise. The SDK's aiohttp adapter turns every aiohttp
    connection error into ``ConnectTimeout`` (its first table match wins), so a refused
    connection would read as a timeout and a down server would never be recognised."""
    cause = exc.__cause__
    try:
        import aiohttp
    except ImportError:  # pragma: no cover - httpx's own transport
        return exc
    if cause is None or isinstance(cause, asyncio.TimeoutError) \
            or not isinstance(cause, aiohttp.ClientError):
        return exc
    if isinstance(cause, aiohttp.ClientConnectorError):
        return httpx.ConnectError(str(cause), request=request)
    if isinstance(cause, aiohttp.ServerDisconnectedError):
        return httpx.RemoteProtocolError(str(cause), request=request)
    if isinstance(cause, (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError)):
        return httpx.ReadError(str(cause), request=request)
    return exc


def _deadline_transport(httpx: Any, deadline: float, inner: Any, max_bytes: int) -> Any:
    """An HTTP transport whose every attempt (headers AND body) must finish within ``deadline``
    seconds: httpx's own timeout is per read, so a server trickling a byte at a time would hold
    a request forever. An expired attempt raises ``ReadTimeout`` (the SDK's retryable timeout).
    The body is read here, decoded, at most ``max_bytes`` (:func:`_capped_body`). A 5xx whose
    body says the request is malformed gets ``x-should-retry: false``."""

    class DeadlineTransport(httpx.AsyncBaseTransport):
        def __init__(self) -> None:
            self.inner = inner

        async def handle_async_request(self, request: Any) -> Any:
            try:
                if _asyncio_timeout is None:  # Python 3.10
                    return await asyncio.wait_for(self._send(request), deadline)
                async with _asyncio_timeout(deadline):   # no extra task per attempt
                    return await self._send(request)
            except asyncio.TimeoutError:
                raise httpx.ReadTimeout(f"no complete reply within {deadline:g} s",
                                        request=request) from None

        async def _send(self, request: Any) -> Any:
            try:
                response = await self.inner.handle_async_request(request)
                try:
                    body, oversize = await _capped_body(response, max_bytes)
                finally:
                    await response.aclose()
            except httpx.TransportError as exc:
                raise _remapped_aiohttp_error(httpx, exc, request) from exc
            response._content = body      # what ``response.content`` returns (decoded) from now on
            record = _CALL.get()
            if record is not None:
                record["oversize"] = oversize    # this attempt's (a retry may fit)
            if response.status_code < 500 or not any(w in body.lower() for w in _MALFORMED_WORDS):
                return response   # its body is read: the client does not read it again
            headers = httpx.Headers(response.headers)
            headers["x-should-retry"] = "false"
            headers.pop("content-encoding", None)   # the body is decoded
            headers["content-length"] = str(len(body))
            return httpx.Response(response.status_code, headers=headers, content=body,
                                  extensions=response.extensions)

        async def aclose(self) -> None:
            await self.inner.aclose()

    return DeadlineTransport()


async def _capped_body(response: Any, cap: int) -> Tuple[bytes, Optional[int]]:
    """The reply body, decoded, and None; or ``b""`` and the size seen once it passes ``cap``
    bytes (a 50 MB reply, a gzip bomb): a declared Content-Length over the cap is refused
    before any byte is read, and the stream is read chunk by chunk, so no more than about
    ``cap`` bytes of a reply are ever held (the transport streams the body)."""
    declared = response.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > cap \
            and "content-encoding" not in response.headers:
        return b"", int(declared)
    chunks, size = [], 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > cap:
            return b"", size
        chunks.append(chunk)
    return b"".join(chunks), None


_asyncio_timeout = getattr(asyncio, "timeout", None)   # Python 3.11+

JSON_SCHEMA_NAME = "responder_reply"
DP_RANK_HEADER = "X-data-parallel-rank"   # vLLM's: pins a request to one data-parallel engine


def dp_rank(session: str, ranks: int) -> int:
    """The data-parallel rank of an episode: sha256 of its session key (instance id and epoch)
    modulo ``ranks``, the same in every process and on every run (never ``hash()``)."""
    digest = hashlib.sha256(session.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % ranks
DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"

# One record per call, set in the task making the call: the HTTP client's request hook counts
# attempts (the SDK's retries included), its response hook keeps the last x-request-id (for
# SDKs without ``_request_id`` and for failed calls).
_CALL: contextvars.ContextVar[Optional[Dict[str, Any]]] = contextvars.ContextVar(
    "mira_openai_call", default=None)


def _describe(exc: BaseException) -> str:
    """``Type: message``, with the transport's cause where the SDK's own message hides it
    (its connection errors all read ``Connection error.``)."""
    text = f"{type(exc).__name__}: {exc}"
    cause = exc.__cause__
    if cause is not None and str(cause) and str(cause) not in text:
        text += f" ({type(cause).__name__}: {cause})"
    return redact_text(text)                 # a transport error may quote the URL


def _http_library() -> Any:
    """The SDK's HTTP library: httpx2 in openai 3.x, httpx before. Read from the SDK's own
    client class, since both libraries can be installed side by side."""
    try:
        import importlib

        import openai
        return importlib.import_module(openai.DefaultAsyncHttpxClient.__mro__[1].__module__.split(".")[0])
    except (ImportError, AttributeError, IndexError):  # pragma: no cover - unusual SDK
        pass
    try:
        import httpx2
        return httpx2
    except ImportError:  # pragma: no cover - older SDK
        import httpx
        return httpx


def _import_openai() -> Any:
    try:
        import openai
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("OpenAIBackend needs the openai package: "
                          "pip install 'mira-math[openai]'") from exc
    return openai


async def _on_request(request: Any) -> None:
    record = _CALL.get()
    if record is not None:
        record["attempts"] += 1


async def _on_response(response: Any) -> None:
    record = _CALL.get()
    if record is not None:
        record["request_id"] = response.headers.get("x-request-id")


async def _close_at_loop_shutdown(client: Any) -> AsyncIterator[None]:
    try:
        yield
    finally:
        await client.close()


def _no_constant(name: str) -> None:
    """NaN, Infinity and -Infinity in a reply are read as null: transcripts stay strict JSON."""
    return None


_SURROGATE = re.compile("[\ud800-\udfff]")


def repaired_text(text: Optional[str], meta: Dict[str, Any]) -> Optional[str]:
    """Text that UTF-8 can encode: a lone surrogate (a JSON escape like \\udc80) becomes U+FFFD,
    and the repair is recorded in ``meta["repairs"]`` (it would otherwise abort every write)."""
    if text is None or text.isascii():
        return text
    fixed, count = _SURROGATE.subn("\ufffd", text)
    if count:
        meta.setdefault("repairs", []).append(f"replaced {count} lone surrogate(s) with U+FFFD")
    return fixed


# Content part types: text (joined), reasoning (kept as the turn's reasoning, never read for an
# action), refusal. Any other part (an image, a tool call, audio) cannot be a solver message.
_TEXT_PARTS = frozenset({"text", "output_text", "input_text"})
_REASONING_PARTS = frozenset({"thinking", "reasoning", "reasoning_text", "reasoning_content", "summary_text",
                              "redacted_thinking"})


def read_content(content: Any) -> Tuple[str, Optional[str], Optional[str], Optional[str]]:
    """A message's ``content`` as ``(text, reasoning, refusal, unreadable)``: a string, null,
    or a list of content parts (``[{"type": "text", "text": ...}]``, a ``thinking`` part
    first as some reasoning-model APIs send). ``unreadable`` names the shape when it is none of
    these (the instance's error), else None."""
    if content is None:
        return "", None, None, None
    if isinstance(content, str):
        return content, None, None, None
    if not isinstance(content, list):
        return "", None, None, f"a JSON {type(content).__name__}, not a string or a list of parts"
    texts: List[str] = []
    thoughts: List[str] = []
    refusals: List[str] = []
    for i, part in enumerate(content):
        if isinstance(part, str):
            texts.append(part)
            continue
        kind = part.get("type") if isinstance(part, dict) else None
        if not isinstance(kind, str):
            return "", None, None, f"a list whose part {i} is {type(part).__name__} without a type"
        said = next((part[k] for k in ("text", "thinking", "reasoning", "refusal", "content")
                     if isinstance(part.get(k), str)), None)
        if kind in _TEXT_PARTS and said is not None:
            texts.append(said)
        elif kind in _REASONING_PARTS:
            if said:
                thoughts.append(said)
        elif kind == "refusal" and said is not None:
            refusals.append(said)
        else:
            return "", None, None, f"a list with a part of type {kind!r} (part {i}), which is no text"
    return ("".join(texts), "\n\n".join(thoughts) if thoughts else None,
            "\n".join(refusals) if refusals else None, None)


def _usage_from_json(usage: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    if usage is None:
        return None
    out = {k: usage.get(k) for k in ("prompt_tokens", "completion_tokens", "total_tokens")}
    details = usage.get("completion_tokens_details")
    if isinstance(details, dict) and details.get("reasoning_tokens") is not None:
        out["reasoning_tokens"] = details["reasoning_tokens"]
    return out


def _usage_dict(usage: Any) -> Optional[Dict[str, Any]]:
    if usage is None:
        return None
    out: Dict[str, Any] = {
        "prompt_tokens": getattr(usage, "prompt_tokens", None),
        "completion_tokens": getattr(usage, "completion_tokens", None),
        "total_tokens": getattr(usage, "total_tokens", None),
    }
    details = getattr(usage, "completion_tokens_details", None)
    reasoning = getattr(details, "reasoning_tokens", None) if details is not None else None
    if reasoning is not None:   # reasoning models: hidden tokens, counted in completion_tokens
        out["reasoning_tokens"] = reasoning
    return out


class OpenAIBackend:
    """Implements both :class:`~mira_math.eval.backends.base.ChatBackend` (``complete``) and
    :class:`~mira_math.eval.backends.base.AsyncChatBackend` (``acomplete``).

    ``max_tokens_param``: the request field carrying ``GenParams.max_tokens``. The SDK
    documents ``max_completion_tokens`` (``max_tokens`` is deprecated and rejected by
    reasoning models, whose hidden reasoning tokens count against the limit); pass
    ``"max_tokens"`` for an older server that only knows that name.
    ``sampling_params=False`` leaves ``temperature``/``top_p`` out of the request, for
    reasoning models that reject them.
    """

    def __init__(self, model: str, base_url: Optional[str] = None, api_key: Optional[str] = None,
                 concurrency: int = 16, timeout: float = 120.0, max_retries: int = 6,
                 max_tokens_param: Optional[str] = None, sampling_params: bool = True,
                 response_format: Optional[str] = None,
                 max_connection_failures: int = MAX_CONNECTION_FAILURES,
                 max_reply_bytes: int = MAX_REPLY_BYTES, max_rate_limited: int = MAX_RATE_LIMITED,
                 quiet_s: float = QUIET_S, dp_ranks: Optional[int] = None,
                 chat_template_kwargs: Optional[Dict[str, Any]] = None):
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if dp_ranks is not None and dp_ranks < 1:
            raise ValueError("dp_ranks must be at least 1")
        self.dp_ranks = dp_ranks
        self.chat_template_kwargs = dict(chat_template_kwargs) if chat_template_kwargs else None
        official = is_official(base_url)
        max_tokens_param = max_tokens_param or ("max_completion_tokens" if official else "max_tokens")
        if max_tokens_param not in ("max_completion_tokens", "max_tokens"):
            raise ValueError("max_tokens_param must be 'max_completion_tokens' or 'max_tokens'")
        response_format = response_format or ("json_schema" if official else "auto")
        if response_format not in RESPONSE_FORMATS:
            raise ValueError(f"response_format must be one of {', '.join(RESPONSE_FORMATS)}")
        base_url, url_credential = split_userinfo(base_url)
        key = api_key or os.environ.get("OPENAI_API_KEY") or url_credential
        if official and not key:
            raise ValueError(f"OPENAI_API_KEY is not set: refusing to call {shown_base_url(base_url)} "
                             "without a key (set it, or give a local server as openai:MODEL@URL)")
        self._openai = _import_openai()
        self.model = model
        self.base_url = base_url
        self._api_key = key or "EMPTY"   # local servers accept any key
        self.response_format = response_format
        self._format_now = "json_schema" if response_format == "auto" else response_format
        self.max_connection_failures = int(max_connection_failures)
        self.max_rate_limited = int(max_rate_limited)
        self._watch = FailureWatch({DOWN: self.max_connection_failures,
                                    RATE_LIMITED: self.max_rate_limited}, quiet_s)
        self._over_limit = 0
        self.concurrency = int(concurrency)
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.max_reply_bytes = int(max_reply_bytes)
        self.max_tokens_param = max_tokens_param
        self.sampling_params = sampling_params
        self._aiohttp_transport = _aiohttp_transport_class()
        self.http_transport = "aiohttp" if self._aiohttp_transport else "httpx"
        self._response_class = _http_library().Response   # what the raw ``post`` returns
        self._post_takes_content = "content" in inspect.signature(
            self._openai.AsyncOpenAI.post).parameters
        # acomplete's client: (loop, client, semaphore, closer), rebuilt when the loop changes
        self._loop_state: Optional[Tuple[asyncio.AbstractEventLoop, Any, asyncio.Semaphore, Any]] = None

    # -- client ---------------------------------------------------------------------------

    def _new_client(self) -> Any:
        """A client for the running event loop (the SDK's default HTTP client settings, plus
        the hooks that count attempts and keep the last request id)."""
        httpx = _http_library()
        from openai._constants import DEFAULT_CONNECTION_LIMITS

        limits = httpx.Limits(max_connections=max(DEFAULT_CONNECTION_LIMITS.max_connections or 0,
                                                  self.concurrency),
                              max_keepalive_connections=max(100, self.concurrency))
        inner = (self._aiohttp_transport(limits=limits) if self._aiohttp_transport
                 else httpx.AsyncHTTPTransport(limits=limits))
        http_client = self._openai.DefaultAsyncHttpxClient(
            transport=_deadline_transport(httpx, self.timeout, inner, self.max_reply_bytes),
            event_hooks={"request": [_on_request], "response": [_on_response]})
        return self._openai.AsyncOpenAI(api_key=self._api_key, base_url=self.base_url,
                                        timeout=self.timeout, max_retries=self.max_retries,
                                        http_client=http_client)

    async def _loop_client(self) -> Tuple[Any, asyncio.Semaphore]:
        loop = asyncio.get_running_loop()
        state = self._loop_state
        if state is None or state[0] is not loop:
            client = self._new_client()
            # The client is closed inside its loop when the loop shuts its async generators
            # down (asyncio.run does), or earlier by aclose().
            closer = _close_at_loop_shutdown(client)
            state = (loop, client, asyncio.Semaphore(self.concurrency), closer)
            self._loop_state = state
            await closer.__anext__()
        return state[1], state[2]

    async def aclose(self) -> None:
        """Close the client ``acomplete`` uses in the running loop (if any)."""
        state, self._loop_state = self._loop_state, None
        if state is not None and state[0] is asyncio.get_running_loop():
            await state[3].aclose()

    # -- requests -------------------------------------------------------------------------

    def _kwargs(self, request: ChatRequest, params: GenParams) -> Dict[str, Any]:
        kwargs: Dict[str, Any] = {"model": self.model, "messages": list(request.conversation),
                                  "seed": request.seed}
        if self.sampling_params:
            kwargs["temperature"] = params.temperature
            kwargs["top_p"] = params.top_p
        kwargs[self.max_tokens_param] = params.max_tokens
        if params.stop:
            kwargs["stop"] = list(params.stop)
        if self.chat_template_kwargs:      # vllm serve's extension field: only when asked for
            kwargs["chat_template_kwargs"] = dict(self.chat_template_kwargs)
        if request.json_schema is not None:
            if self._format_now == "json_object":   # llama-cpp-python's server takes this form
                kwargs["response_format"] = {"type": "json_object", "schema": request.json_schema}
            else:
                kwargs["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": JSON_SCHEMA_NAME, "strict": True,
                                    "schema": request.json_schema}}
        return kwargs

    def _fatal(self, exc: Exception) -> Optional[str]:
        """Why ``exc`` must stop the run at once (every further call would fail the same way), or None."""
        o = self._openai
        url = shown_base_url(self.base_url)
        if isinstance(exc, o.AuthenticationError):
            return redact_text(f"the server at {url} refused the API key (HTTP 401): {exc}")
        if isinstance(exc, o.PermissionDeniedError):
            return redact_text(f"no permission for model {self.model!r} at {url} (HTTP 403): {exc}")
        if isinstance(exc, o.NotFoundError):
            return redact_text(f"model {self.model!r} or the endpoint was not found at {url} (HTTP 404): {exc}")
        return None

    def _failure_kind(self, exc: Exception) -> Optional[str]:
        """The kind of failure that may be persistent (:mod:`mira_math.eval.backends.health`), or None."""
        o = self._openai
        if isinstance(exc, o.RateLimitError):
            return RATE_LIMITED
        if isinstance(exc, o.APIConnectionError) and not isinstance(exc, o.APITimeoutError):
            return DOWN
        return None

    async def _persistent(self, seq: int, exc: Exception) -> None:
        """Raise a fatal error where the failure of call ``seq`` is one of a persistent kind: a
        server that is down, or a 429 storm (then :class:`RateLimitStorm`, its own exit code)."""
        kind = self._failure_kind(exc)
        replied = getattr(exc, "status_code", None) is not None
        self._watch.end(seq, kind, replied=replied, succeeded=False)
        if kind is None:
            return
        streak = await self._watch.persistent(seq, kind)
        if streak is None:
            return
        url = shown_base_url(self.base_url)
        quiet = f" and none has for {self._watch.quiet_s:g} s" if self._watch.ever_cleared(kind) else ""
        if kind == DOWN:
            raise FatalBackendError(f"{streak} calls in a row got no reply from {url}{quiet} "
                                    f"(is the server running?): {_describe(exc)}")
        raise RateLimitStorm(f"{streak} calls in a row were rate-limited (HTTP 429) by {url} after "
                             f"{self.max_retries} retries each{quiet.replace('none has', 'no call has succeeded')}"
                             f": wait for the limit or quota to reset (or lower --concurrency): "
                             f"{_describe(exc)}")

    def _schema_rejected(self, exc: Exception, kwargs: Dict[str, Any]) -> bool:
        """A json_schema request (in auto mode) that the server rejected as malformed."""
        o = self._openai
        sent = kwargs.get("response_format") or {}
        return (sent.get("type") == "json_schema" and self.response_format == "auto"
                and isinstance(exc, (o.BadRequestError, o.UnprocessableEntityError,
                                     o.InternalServerError)))

    def _headers(self, request: ChatRequest) -> Dict[str, str]:
        """``X-data-parallel-rank`` (vLLM's, read by ``vllm serve --data-parallel-size N``) when
        ``dp_ranks`` is set: :func:`dp_rank` of the episode, so every turn of one episode goes to
        the same engine and finds its earlier turns in that engine's prefix cache."""
        if not self.dp_ranks or not request.session:
            return {}
        return {DP_RANK_HEADER: str(dp_rank(request.session, self.dp_ranks))}

    async def _post(self, client: Any, body: Dict[str, Any], headers: Optional[Dict[str, str]] = None) -> Any:
        """POST the chat completion through the SDK's generic ``post`` (its retries, timeouts
        and error types) and keep the raw reply: the typed ``create`` spends more client CPU
        transforming the request and wrapping the reply than the HTTP exchange itself takes
        (1.6 vs 1.0 ms per call at 16 in flight, ``benchmarks/bench_http.py`` against the
        previous version of this method). The body goes as JSON bytes where the SDK takes
        ``content=`` (it deep-copies a ``body`` dict, messages included, on every attempt)."""
        options: Dict[str, Any] = {"headers": headers} if headers else {}
        if self._post_takes_content:
            return await client.post("/chat/completions", content=json.dumps(body).encode(),
                                     cast_to=self._response_class, options=options)
        return await client.post("/chat/completions", body=body, cast_to=self._response_class,
                                 options=options)

    async def _call(self, client: Any, request: ChatRequest, params: GenParams) -> Completion:
        """One chat completion; never raises for a failed item (a fatal error raises
        :class:`FatalBackendError`). The reply is read as raw JSON (no pydantic objects); the
        SDK's retries, timeouts and error types are kept."""
        record: Dict[str, Any] = {"attempts": 0, "request_id": None}
        token = _CALL.set(record)
        t0 = time.perf_counter()
        seq = self._watch.begin()
        try:
            kwargs = self._kwargs(request, params)
            headers = self._headers(request)
            try:
                http = await self._post(client, kwargs, headers)
            except Exception as exc:
                if not self._schema_rejected(exc, kwargs):
                    raise
                if self._format_now == "json_schema":
                    LOG.warning("the server rejected response_format json_schema (%s); using "
                                "json_object with the schema from now on", type(exc).__name__)
                self._format_now = "json_object"
                http = await self._post(client, self._kwargs(request, params), headers)
        except Exception as exc:
            fatal = self._fatal(exc)
            if fatal:
                self._watch.end(seq, None, replied=True, succeeded=False)
                raise FatalBackendError(fatal) from None
            await self._persistent(seq, exc)
            meta: Dict[str, Any] = {"model": self.model,
                                    "latency_s": round(time.perf_counter() - t0, 4),
                                    "attempts": record["attempts"]}
            status = getattr(exc, "status_code", None)
            if status is not None:
                meta["status_code"] = status
            request_id = getattr(exc, "request_id", None) or record["request_id"]
            if request_id:
                meta["request_id"] = request_id
            return Completion(error=_describe(exc), meta=meta)
        except BaseException:       # cancelled: the call is no longer in flight
            self._watch.end(seq, None, replied=False, succeeded=False)
            raise
        finally:
            _CALL.reset(token)
        self._watch.end(seq, None, replied=True, succeeded=200 <= http.status_code < 300)
        return self._parse(http, record, round(time.perf_counter() - t0, 4), params)

    def _parse(self, http: Any, record: Dict[str, Any], latency: float, params: GenParams) -> Completion:
        if record.get("oversize"):
            return Completion(error=f"ReplyTooLarge: HTTP {http.status_code} reply body over "
                                    f"{self.max_reply_bytes} bytes (decoded; --max-reply-bytes)",
                              meta={"request_id": record["request_id"], "latency_s": latency,
                                    "attempts": record["attempts"], "status_code": http.status_code})
        body = http.content
        meta: Dict[str, Any] = {"request_id": http.headers.get("x-request-id") or record["request_id"],
                                "latency_s": latency, "attempts": record["attempts"],
                                "status_code": http.status_code}
        try:
            data = json.loads(body, parse_constant=_no_constant)   # NaN/Infinity: strict JSON only
        except (ValueError, RecursionError):
            data = None
        if not isinstance(data, dict):
            kind = http.headers.get("content-type", "?")
            head = body[:80].decode("utf-8", "replace")
            what = "an HTML page" if head.lstrip().lower().startswith(("<!doctype", "<html")) else "not JSON"
            return Completion(error=f"NotJSON: HTTP {http.status_code} reply is {what} "
                                    f"(content-type {kind}): {head!r}", meta=meta)
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else None
        meta.update({"id": data.get("id"), "system_fingerprint": data.get("system_fingerprint"),
                     "model": data.get("model"), "usage": _usage_from_json(usage)})
        if usage and isinstance(usage.get("completion_tokens"), int) \
                and usage["completion_tokens"] > params.max_tokens:
            meta["over_token_limit"] = True
            self._over_limit += 1
            if self._over_limit == 1:
                LOG.warning("the server at %s ignored the token limit: a reply has %d completion "
                            "tokens for %s=%d (try --api-max-tokens-param)",
                            shown_base_url(self.base_url), usage["completion_tokens"],
                            self.max_tokens_param, params.max_tokens)
        if data.get("error"):   # an error object in a 200 reply: the server's own message
            err = data["error"]
            said = err.get("message") if isinstance(err, dict) else err
            return Completion(error=f"ServerError: HTTP {http.status_code} reply carries an error: {said}",
                              meta=meta)
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return Completion(error="EmptyResponse: the reply has no choices", meta=meta)
        choice = choices[0]
        message: Dict[str, Any] = choice["message"] if isinstance(choice.get("message"), dict) else {}
        text, parts_thought, parts_refusal, shape = read_content(message.get("content"))
        if shape is not None:
            return Completion(error=f"UnreadableContent: the reply's content is {shape}", meta=meta)
        refusal = message.get("refusal") if isinstance(message.get("refusal"), str) else parts_refusal
        thought = message.get("reasoning_content", message.get("reasoning"))
        if parts_thought:
            thought = "\n\n".join([thought, parts_thought] if isinstance(thought, str) and thought else [parts_thought])
        text, refusal = repaired_text(text, meta) or "", repaired_text(refusal, meta)
        if isinstance(thought, str) and thought:
            thought = repaired_text(thought, meta)
        return Completion(text=text, finish_reason=choice.get("finish_reason"), refusal=refusal or None,
                          reasoning=thought if isinstance(thought, str) and thought else None, meta=meta)

    async def acomplete(self, request: ChatRequest, params: GenParams) -> Completion:
        client, semaphore = await self._loop_client()
        async with semaphore:
            return await self._call(client, request, params)

    async def _complete_all(self, requests: Sequence[ChatRequest], params: GenParams) -> List[Completion]:
        client = self._new_client()
        semaphore = asyncio.Semaphore(self.concurrency)

        async def one(request: ChatRequest) -> Completion:
            async with semaphore:
                return await self._call(client, request, params)

        try:
            return list(await asyncio.gather(*(one(r) for r in requests)))
        finally:
            await client.close()

    def complete(self, requests: Sequence[ChatRequest], params: GenParams) -> List[Completion]:
        """The batch, at most ``concurrency`` in flight, results in request order. Runs its
        own event loop (in a worker thread when called from inside a running loop)."""
        requests = list(requests)
        if not requests:
            return []
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self._complete_all(requests, params))
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, self._complete_all(requests, params)).result()

    @property
    def supports_stop(self) -> bool:
        """Local OpenAI-compatible servers take stop sequences; the official endpoint's reasoning
        models refuse them, so none are sent there."""
        return not is_official(self.base_url)

    def hash_params(self) -> Dict[str, Any]:
        """What shapes the replies besides the decoding parameters: part of the config hash."""
        out = {"base_url": shown_base_url(self.base_url), "max_tokens_param": self.max_tokens_param,
               "sampling_params": self.sampling_params, "response_format": self.response_format}
        if self.chat_template_kwargs:     # only when set: the hash of earlier runs is unchanged
            out["chat_template_kwargs"] = dict(self.chat_template_kwargs)
        return out

    def describe(self) -> Dict[str, Any]:
        return {
            "backend": "openai",
            "model": self.model,
            "base_url": shown_base_url(self.base_url),
            "response_format": self.response_format,
            "concurrency": self.concurrency,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "max_reply_bytes": self.max_reply_bytes,
            "max_tokens_param": self.max_tokens_param,
            "sampling_params": self.sampling_params,
            "sdk": "openai",
            "sdk_version": getattr(self._openai, "__version__", None),
            "http_transport": self.http_transport,
            **({"dp_ranks": self.dp_ranks} if self.dp_ranks else {}),
            **({"chat_template_kwargs": self.chat_template_kwargs} if self.chat_template_kwargs else {}),
        }
