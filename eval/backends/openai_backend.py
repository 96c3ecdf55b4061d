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

``openai`` is imported lazily (``pip install 'mira-math[openai]'``): this module imports
without it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import inspect
import os
import time
from typing import Any, AsyncIterator, Dict, List, Optional, Sequence, Tuple

from eval.backends.base import ChatRequest, Completion, GenParams

JSON_SCHEMA_NAME = "responder_reply"
DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"

# One record per call, set in the task making the call: the HTTP client's request hook counts
# attempts (the SDK's retries included), its response hook keeps the last x-request-id (for
# SDKs without ``_request_id`` and for failed calls).
_CALL: contextvars.ContextVar[Optional[Dict[str, Any]]] = contextvars.ContextVar(
    "mira_openai_call", default=None)


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
    """Implements both :class:`~eval.backends.base.ChatBackend` (``complete``) and
    :class:`~eval.backends.base.AsyncChatBackend` (``acomplete``).

    ``max_tokens_param``: the request field carrying ``GenParams.max_tokens``. The SDK
    documents ``max_completion_tokens`` (``max_tokens`` is deprecated and rejected by
    reasoning models, whose hidden reasoning tokens count against the limit); pass
    ``"max_tokens"`` for an older server that only knows that name.
    ``sampling_params=False`` leaves ``temperature``/``top_p`` out of the request, for
    reasoning models that reject them.
    """

    def __init__(self, model: str, base_url: Optional[str] = None, api_key: Optional[str] = None,
                 concurrency: int = 16, timeout: float = 120.0, max_retries: int = 6,
                 max_tokens_param: str = "max_completion_tokens", sampling_params: bool = True):
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if max_tokens_param not in ("max_completion_tokens", "max_tokens"):
            raise ValueError("max_tokens_param must be 'max_completion_tokens' or 'max_tokens'")
        self._openai = _import_openai()
        self.model = model
        self.base_url = base_url
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        self.concurrency = int(concurrency)
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.max_tokens_param = max_tokens_param
        self.sampling_params = sampling_params
        self._create_params = self._sdk_create_params()
        # acomplete's client: (loop, client, semaphore, closer), rebuilt when the loop changes
        self._loop_state: Optional[Tuple[asyncio.AbstractEventLoop, Any, asyncio.Semaphore, Any]] = None

    # -- client ---------------------------------------------------------------------------

    def _sdk_create_params(self) -> frozenset:
        try:
            from openai.resources.chat import AsyncCompletions
            return frozenset(inspect.signature(AsyncCompletions.create).parameters)
        except Exception:  # pragma: no cover - unexpected SDK layout
            return frozenset()

    def _new_client(self) -> Any:
        """A client for the running event loop (the SDK's default HTTP client settings, plus
        the hooks that count attempts and keep the last request id)."""
        http_client = self._openai.DefaultAsyncHttpxClient(
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
        if self.max_tokens_param in self._create_params or not self._create_params:
            kwargs[self.max_tokens_param] = params.max_tokens
        else:  # an SDK older than the parameter: send it in the body all the same
            kwargs["extra_body"] = {self.max_tokens_param: params.max_tokens}
        if request.json_schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": JSON_SCHEMA_NAME, "strict": True,
                                "schema": request.json_schema}}
        return kwargs

    async def _call(self, client: Any, request: ChatRequest, params: GenParams) -> Completion:
        """One chat completion; never raises (except for cancellation)."""
        record: Dict[str, Any] = {"attempts": 0, "request_id": None}
        token = _CALL.set(record)
        t0 = time.perf_counter()
        try:
            response = await client.chat.completions.create(**self._kwargs(request, params))
        except Exception as exc:
            meta: Dict[str, Any] = {"model": self.model,
                                    "latency_s": round(time.perf_counter() - t0, 4),
                                    "attempts": record["attempts"]}
            status = getattr(exc, "status_code", None)
            if status is not None:
                meta["status_code"] = status
            request_id = getattr(exc, "request_id", None) or record["request_id"]
            if request_id:
                meta["request_id"] = request_id
            return Completion(error=f"{type(exc).__name__}: {exc}", meta=meta)
        finally:
            _CALL.reset(token)
        latency = round(time.perf_counter() - t0, 4)
        meta = {
            "request_id": getattr(response, "_request_id", None) or record["request_id"],
            "id": getattr(response, "id", None),
            "system_fingerprint": getattr(response, "system_fingerprint", None),
            "model": getattr(response, "model", None),
            "usage": _usage_dict(getattr(response, "usage", None)),
            "latency_s": latency,
            "attempts": record["attempts"],
        }
        choices = getattr(response, "choices", None) or []
        if not choices:
            return Completion(error="EmptyResponse: the reply has no choices", meta=meta)
        choice = choices[0]
        message = getattr(choice, "message", None)
        text = getattr(message, "content", None) or ""
        refusal = getattr(message, "refusal", None) or None
        return Completion(text=text, finish_reason=getattr(choice, "finish_reason", None),
                          refusal=refusal, meta=meta)

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

    def describe(self) -> Dict[str, Any]:
        return {
            "backend": "openai",
            "model": self.model,
            "base_url": self.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_OPENAI_BASE_URL,
            "concurrency": self.concurrency,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "max_tokens_param": self.max_tokens_param,
            "sampling_params": self.sampling_params,
            "sdk": "openai",
            "sdk_version": getattr(self._openai, "__version__", None),
        }
