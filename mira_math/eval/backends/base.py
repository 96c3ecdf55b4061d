"""What every chat backend provides: a batch call (one call per turn on vLLM) and, for API
backends, a single async call that the sliding-window scheduler uses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Protocol, Sequence, Tuple, runtime_checkable

from mira_math.game.messages import Completion, Conversation, Message

__all__ = ["AsyncChatBackend", "ChatBackend", "ChatRequest", "Completion", "Conversation",
           "FatalBackendError", "GenParams", "Message", "RateLimitStorm"]


@dataclass(frozen=True)
class GenParams:
    """Decoding parameters; recorded in the run manifest and part of the config hash."""

    temperature: float = 0.0
    max_tokens: int = 1024
    top_p: float = 1.0
    stop: Tuple[str, ...] = ()     # stop sequences, sent where the backend takes them

    def as_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"temperature": self.temperature, "max_tokens": self.max_tokens,
                               "top_p": self.top_p}
        if self.stop:   # only when set, so the config hash of runs without them is unchanged
            out["stop"] = list(self.stop)
        return out


@dataclass(frozen=True)
class ChatRequest:
    conversation: Conversation
    seed: int
    json_schema: Optional[Dict[str, Any]] = None   # structured output (responder only)
    session: str = ""    # the episode (instance id and epoch): routes its turns to one server rank


@runtime_checkable
class ChatBackend(Protocol):
    """A batch of chats in, one completion per chat out (same order), never raising for a
    single failed item: that item's ``Completion.error`` says why."""

    model: str

    def complete(self, requests: Sequence[ChatRequest], params: GenParams) -> List[Completion]: ...

    def describe(self) -> Dict[str, Any]: ...


@runtime_checkable
class AsyncChatBackend(Protocol):
    """API backends also answer one chat at a time, for the bounded sliding window."""

    model: str
    concurrency: int

    async def acomplete(self, request: ChatRequest, params: GenParams) -> Completion: ...


class FatalBackendError(Exception):
    """An error that every further call would repeat (bad credentials, no permission, an
    unknown model, a server that stays unreachable): the run stops at once, resumable,
    instead of recording it for every instance."""


class RateLimitStorm(FatalBackendError):
    """Every recent call was rate-limited (HTTP 429) and none succeeded: the run stops with its
    own exit code (a quota or limit to wait for, not a fault to fix), resumable."""
