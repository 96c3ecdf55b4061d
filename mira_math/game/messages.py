"""What passes between the episode and whoever produces the solver's replies: the chat
messages, one reply (``Completion``), one solver call and its seed. The harness's backends
and schedulers import these; nothing here knows about a backend."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from mira_math.generators.schema import Instance

Message = Dict[str, str]          # {"role": "system" | "user" | "assistant", "content": "..."}
Conversation = List[Message]

RUN_SEED = 1234


def request_seed(run_seed: int, instance_id: str, turn: int, role: str) -> int:
    """Per-request seed from (run seed, instance, turn, role): stable, 31-bit."""
    key = f"{run_seed}|{instance_id}|{turn}|{role}".encode("utf-8")
    return int.from_bytes(hashlib.sha256(key).digest()[:4], "big") >> 1


def epoch_seed(run_seed: int, epoch: int) -> int:
    """The run seed of one epoch (``--epochs``): the run seed itself for epoch 0 (so a
    one-epoch run is the run it always was), else a 31-bit hash of (run seed, epoch)."""
    if epoch == 0:
        return run_seed
    key = f"{run_seed}|epoch|{epoch}".encode("utf-8")
    return int.from_bytes(hashlib.sha256(key).digest()[:4], "big") >> 1


@dataclass
class Completion:
    """One model reply, or the error that replaced it after retries."""

    text: str = ""
    finish_reason: Optional[str] = None      # "stop", "length", "refusal", ...
    refusal: Optional[str] = None            # OpenAI structured-output refusal text
    reasoning: Optional[str] = None          # the server's reasoning field (never read for actions)
    error: Optional[str] = None              # set when the backend failed after retries
    meta: Dict[str, Any] = field(default_factory=dict)  # request id, system_fingerprint, usage, latency


@dataclass(frozen=True)
class SolverCall:
    """The solver's next turn: the instance, the conversation so far, the request's seed."""

    instance: Instance
    conversation: Conversation
    seed: int
    session: str = ""     # the episode's identity (instance id, epoch): equal on every turn
