"""The harness's errors, below every module that raises them (so none imports another for its
error class): each is a :class:`~mira_math.common.errors.MiraError`, one line naming the file,
line and field, printed by the CLI as ``mira-math <command>: <message>``."""

from __future__ import annotations

from mira_math.common.errors import MiraError


class RunError(MiraError, RuntimeError):
    """A run that must not start (bad data, a config that does not match a resumed run)."""


class RunStopped(MiraError, RuntimeError):
    """A run stopped early by a fatal backend error (authentication, a missing model, a server
    that is down); the transcripts written so far are kept and ``--resume`` continues."""


class RunRateLimited(RunStopped):
    """A run stopped by a rate-limit storm (every recent call answered 429): its own exit code."""


class RunDirError(MiraError, RuntimeError):
    """A run directory whose manifest is missing or unreadable (one line naming the file)."""


class ScoringError(MiraError, RuntimeError):
    """Run directories that cannot be scored (missing files, bad fields, mismatched shards)."""


__all__ = ["RunDirError", "RunError", "RunRateLimited", "RunStopped", "ScoringError"]
