"""The backend registry: every backend kind a solver or responder spec may name (``KIND:MODEL``),
with the factory that builds it (imported on first use), the extra that installs what it
needs, the options it accepts, how its spec is read and what it can do.

A new backend is one module (a class satisfying :class:`~mira_math.eval.backends.base.ChatBackend`,
and :class:`~mira_math.eval.backends.base.AsyncChatBackend` when it answers one chat at a time
asynchronously) plus one :class:`BackendKind` line in :data:`BACKENDS`. The command line, its help
and its install hints, ``solvers.make_backend`` and the runner's choice of scheduler all read
this table; nothing else lists the kinds.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Optional, Tuple
from urllib.parse import urlsplit

from mira_math.eval.backends.base import AsyncChatBackend, ChatBackend
from mira_math.common.extras import MissingExtra, install_command, require

Arguments = Tuple[Tuple[Any, ...], Dict[str, Any]]


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do; the runner and the responder read these instead of probing."""

    async_calls: bool = False        # answers one chat at a time (acomplete): the sliding window
    batch: bool = False              # one engine call runs a whole turn of many chats
    structured_output: str = "none"  # "grammar" (constrained decoding), "server" (response_format
                                     # with fallbacks), "instruction" (asked for in the prompt)
    stop_sequences: bool = False     # the engine can stop at given strings
    usage: bool = False              # token counts recorded in Completion.meta["usage"]
    seeded: str = "no"               # "per-request" sampling seeds, "best-effort", "no"


def _model_only(rest: str) -> Arguments:
    return (rest,), {}


_SCHEME_AT = re.compile(r"^(?P<model>.*)@(?P<url>[A-Za-z][A-Za-z0-9+.-]*://.*)$", re.DOTALL)
_HOST_PORT = re.compile(r"^[A-Za-z0-9.-]+:\d+(/.*)?$")


def split_model_url(rest: str) -> Tuple[str, Optional[str]]:
    """``MODEL@URL`` -> (MODEL, URL): the split is at the last ``@`` that a URL scheme follows,
    so a model name may itself hold ``@`` (``org/model@v2@http://host/v1``); without such an
    ``@`` the whole text is the model and the URL is None."""
    found = _SCHEME_AT.match(rest)
    if found is None:
        tail = rest.rpartition("@")[2] if "@" in rest else ""
        if tail and _HOST_PORT.match(tail):
            raise ValueError(f"base URL {tail!r} has no scheme: write "
                             f"openai:{rest.rpartition('@')[0]}@http://{tail}")
        return rest, None
    return found.group("model"), found.group("url")


def check_base_url(url: str) -> str:
    """``url`` if it is an http(s) URL with a host (and a numeric port, if any); else one line."""
    try:
        parts = urlsplit(url)
        _ = parts.port                   # raises ValueError for a port that is not a number
    except ValueError as err:
        raise ValueError(f"malformed base URL {url!r}: {err}") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"malformed base URL {url!r}: the scheme must be http or https")
    if not parts.hostname or any(c.isspace() for c in url):
        raise ValueError(f"malformed base URL {url!r}: no host (expected http://HOST[:PORT]/v1)")
    return url


def _openai_arguments(rest: str) -> Arguments:
    model, url = split_model_url(rest)
    if not model:
        raise ValueError(f"openai spec {rest!r} names no model: openai:MODEL[@URL]")
    return (model,), {"base_url": None if url is None else check_base_url(url)}


@dataclass(frozen=True)
class BackendKind:
    kind: str
    target: str                                  # "module:factory", imported on first use
    extra: Optional[str]                         # pip install 'mira-math[EXTRA]'; None: needs nothing more
    modules: Tuple[str, ...]                     # what the extra installs, checked before import (none without one)
    spec: str                                    # the spec form shown in help and errors
    capabilities: Capabilities
    options: Tuple[str, ...] = ()                # make_backend options this factory accepts
    arguments: Callable[[str], Arguments] = field(default=_model_only)

    @property
    def module(self) -> str:
        return self.target.partition(":")[0]

    def create(self, rest: str, **options: Any) -> ChatBackend:
        """The backend for the spec's text after ``KIND:``: the spec is read (and refused with
        one line) before the extra is checked, and the extra before anything is imported."""
        args, kwargs = self.arguments(rest)
        if self.extra is not None:
            require(f"the {self.kind} backend", self.extra, *self.modules)
        module, _, name = self.target.partition(":")
        factory = getattr(importlib.import_module(module), name)
        kwargs.update({k: v for k, v in options.items() if k in self.options and v is not None})
        return factory(*args, **kwargs)


BACKENDS: Dict[str, BackendKind] = {b.kind: b for b in (
    BackendKind("vllm", "mira_math.eval.backends.vllm_backend:VLLMBackend", "vllm", ("vllm",),
                "vllm:MODEL",
                Capabilities(batch=True, structured_output="grammar", stop_sequences=True, usage=True,
                             seeded="per-request"),
                options=("tensor_parallel_size", "max_model_len", "gpu_memory_utilization",
                         "chat_template_kwargs", "dtype", "enforce_eager")),
    BackendKind("openai", "mira_math.eval.backends.openai_backend:OpenAIBackend", "openai", ("openai",),
                "openai:MODEL[@URL]",
                Capabilities(async_calls=True, structured_output="server", stop_sequences=True,
                             usage=True, seeded="best-effort"),
                options=("concurrency", "timeout", "max_retries", "max_tokens_param",
                         "sampling_params", "response_format", "max_reply_bytes"),
                arguments=_openai_arguments),
    BackendKind("transformers", "mira_math.eval.backends.transformers_backend:TransformersBackend",
                "transformers", ("torch", "transformers"), "transformers:PATH",
                Capabilities(batch=True, structured_output="instruction", usage=True,
                             seeded="per-request"),
                options=("dtype",)),
)}


def kinds() -> Tuple[str, ...]:
    return tuple(BACKENDS)


def get(kind: str) -> BackendKind:
    try:
        return BACKENDS[kind]
    except KeyError:
        raise ValueError(f"unknown backend kind {kind!r}: use {', '.join(BACKENDS)}") from None


def make_backend(spec: str, **options: Any) -> ChatBackend:
    """``KIND:MODEL`` (``openai:MODEL[@URL]``) -> a chat backend; options a kind does not take
    are ignored, so one option set serves the solver and the responder."""
    kind, _, rest = spec.partition(":")
    entry = get(kind)
    if not rest:
        raise ValueError(f"backend spec {spec!r} needs a model: {entry.spec}")
    return entry.create(rest, **options)


def capabilities_of(backend: Any) -> Capabilities:
    """A backend's capabilities: its own ``capabilities`` attribute when it declares one, else
    its registry line, else (an unregistered backend, such as a test double) read from the
    protocol it satisfies."""
    declared = getattr(backend, "capabilities", None)
    if isinstance(declared, Capabilities):
        return declared
    module = type(backend).__module__
    for entry in BACKENDS.values():
        if entry.module == module:
            return entry.capabilities
    return Capabilities(async_calls=callable(getattr(backend, "acomplete", None)),
                        batch=callable(getattr(backend, "complete", None)))


def install_hint(kind: str) -> Optional[str]:
    entry = BACKENDS.get(kind)
    return None if entry is None or entry.extra is None else install_command(entry.extra)


__all__ = ["AsyncChatBackend", "BACKENDS", "BackendKind", "Capabilities", "ChatBackend", "MissingExtra",
           "capabilities_of", "check_base_url", "get", "install_hint", "kinds", "make_backend",
           "split_model_url"]
