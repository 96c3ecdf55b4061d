"""When a run must stop because every further call would fail the same way: a server that is
down (no reply at all) or a rate-limit storm (every reply a 429).

Counting failures as they complete is wrong under concurrency: at 256 calls in flight a
dropped connection comes back in milliseconds while a healthy reply takes seconds, so a few
fast failures "in a row" say nothing about the server (2% connection resets tripped a
"5 consecutive failures" stop in 4 of 4 runs). :class:`FailureWatch` orders calls by when they
were SENT and calls a kind of failure persistent only when

* ``streak`` calls sent one after another all ended in it, none sent in between (and none sent
  inside the streak) ended otherwise or is still in flight, and
* nothing has cleared it for ``quiet_s`` seconds (a reply, for a down server; a 2xx reply, for
  a 429 storm). A failure inside the window is held until the window has passed, so a streak
  that a healthy reply interrupts costs no stop, and a real outage pauses the run instead of
  failing every instance it reaches. When nothing has ever cleared it (the start of a run), a
  failure is held while calls still out could decide it (any sent before it; any sent after it
  while its streak is short; at most ``quiet_s``): a reply among them releases it as that
  instance's error; if they all failed the same way, the whole history is failure and a streak
  stops the run (a closed port: after ``streak`` calls, at once; a 429 storm: when the first
  window of calls has come back, without recording them as errors).
"""

from __future__ import annotations

import asyncio
import time
from typing import Awaitable, Callable, Dict, Optional, Set

DOWN = "down"              # no reply at all (refused, reset, DNS): the server is not there
RATE_LIMITED = "429"       # HTTP 429 after the SDK's retries
POLL_S = 0.05              # how often a held failure looks at the calls sent before it


class FailureWatch:
    """Sent-order outcomes of recent calls, and the last time each kind of failure was cleared."""

    def __init__(self, streaks: Dict[str, int], quiet_s: float,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep):
        """``clock`` and ``sleep`` are the window's time: injectable, so that a test of a 30 s
        window need not spend 30 s."""
        self.streaks = {kind: max(1, int(n)) for kind, n in streaks.items()}
        self.quiet_s = float(quiet_s)
        self._clock = clock
        self._sleep = sleep
        self._next = 0
        self._pending: Set[int] = set()
        self._outcome: Dict[int, Optional[str]] = {}      # finished calls: seq -> failure kind
        self._cleared: Dict[str, Optional[float]] = {kind: None for kind in self.streaks}
        self._clears: Dict[str, int] = {kind: 0 for kind in self.streaks}   # calls that cleared it

    def begin(self) -> int:
        """A call is sent: its place in the sending order."""
        seq = self._next
        self._next += 1
        self._pending.add(seq)
        return seq

    def end(self, seq: int, failure: Optional[str], replied: bool, succeeded: bool) -> None:
        """A call finished: ``failure`` is its kind (or None); ``replied``: the server answered
        (any HTTP status), which clears a down server; ``succeeded``: a 2xx reply, which
        clears a rate-limit storm too."""
        self._pending.discard(seq)
        self._outcome[seq] = failure
        now = self._clock()
        for kind in self._cleared:
            if succeeded or (replied and kind == DOWN):
                self._cleared[kind] = now
                self._clears[kind] += 1
        if len(self._outcome) > 4096:     # older outcomes can no longer join a streak
            low = min(self._pending, default=self._next) - max(self.streaks.values())
            self._outcome = {s: k for s, k in self._outcome.items() if s >= low}

    def ever_cleared(self, kind: str) -> bool:
        return self._cleared.get(kind) is not None

    def _undecided(self, seq: int, kind: str) -> bool:
        """Calls still out could change the verdict on ``seq``: one sent before it, or (the
        streak being short) one sent after it."""
        if not self._pending:
            return False
        return min(self._pending) < seq or len(self._streak(seq, kind)) < self.streaks[kind]

    def _streak(self, seq: int, kind: str) -> range:
        """The run of finished calls around ``seq``, in sending order, that all failed with ``kind``."""
        limit = self.streaks[kind]
        low = seq
        while seq - low + 1 < limit and self._outcome.get(low - 1, "") == kind:
            low -= 1
        high = seq
        while high - low + 1 < limit and self._outcome.get(high + 1, "") == kind:
            high += 1
        return range(low, high + 1)

    async def persistent(self, seq: int, kind: str) -> Optional[int]:
        """Whether the failure of call ``seq`` shows a persistent ``kind`` (then the streak's
        length, else None). May wait, at most ``quiet_s``, for a call that would clear it."""
        if kind not in self.streaks:
            return None
        clears = self._clears[kind]
        cleared = self._cleared[kind]
        if cleared is None:
            # Never cleared: wait for the calls sent before this one (they may still succeed);
            # a streak then counts only if every call sent before it has failed too.
            for _ in range(int(self.quiet_s / POLL_S)):
                if self._clears[kind] != clears or not self._undecided(seq, kind):
                    break
                await self._sleep(POLL_S)
            if self._clears[kind] != clears or min(self._pending, default=self._next) < seq:
                return None              # a reply came, or the older calls are still out
            run = self._streak(seq, kind)
            return len(run) if len(run) >= self.streaks[kind] else None
        run = self._streak(seq, kind)
        if len(run) < self.streaks[kind]:
            return None
        wait = cleared + self.quiet_s - self._clock()
        if wait > 0:
            await self._sleep(wait)
            if self._clears[kind] != clears:
                return None
        return len(run)
