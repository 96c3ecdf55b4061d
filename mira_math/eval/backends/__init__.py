"""Model backends: vLLM offline, OpenAI-compatible APIs, transformers; all imported lazily.

:mod:`mira_math.eval.backends.registry` lists them (kind -> factory, extra, capabilities);
:mod:`mira_math.eval.backends.base` holds the protocols a backend satisfies."""

from mira_math.eval.backends.base import AsyncChatBackend, ChatBackend
from mira_math.eval.backends.registry import (BACKENDS, BackendKind, Capabilities, capabilities_of, get,
                                              kinds, make_backend)

__all__ = ["AsyncChatBackend", "BACKENDS", "BackendKind", "Capabilities", "ChatBackend", "capabilities_of",
           "get", "kinds", "make_backend"]
