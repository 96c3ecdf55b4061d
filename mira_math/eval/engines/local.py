"""The local engine: the units on this machine, ``workers`` processes at a time (spawned, so a
unit never inherits another's state), each unit's process tried again when it dies by a signal
(the out-of-memory killer, ``kill -9``) or is interrupted, up to ``max_retries`` times.

A worker never outlives the coordinator: each holds the read end of a pipe whose only write
end the coordinator keeps, and a thread of the worker waits on it. When the coordinator dies,
even by SIGKILL (no handler runs), the kernel closes that end, the read returns, and the
worker stops as a SIGTERM stops ``eval`` (the transcripts written so far are kept, so
``--resume`` continues the run); one that has not stopped ``ORPHAN_GRACE_S`` later exits at
once. Without this, workers orphaned by a killed coordinator kept calling a paid API."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Sequence, Tuple

from mira_math.eval.engines import Attempts, Execute, UnitResult, WorkUnit, should_retry

POLL_S = 0.2
ORPHAN_GRACE_S = 10.0
ORPHANED = 137          # a worker's status when the coordinator vanished (no one reads it)


def _watch_parent(lifeline: Any) -> None:
    """Block until the coordinator's end of ``lifeline`` closes, then stop this worker."""
    try:
        lifeline.recv()           # the coordinator never sends: this returns only at EOF
    except (EOFError, OSError):
        pass
    try:
        os.kill(os.getpid(), signal.SIGTERM)      # eval's own interrupt: transcripts kept
    finally:
        time.sleep(ORPHAN_GRACE_S)
        os._exit(ORPHANED)


def _child(execute: Execute, unit: WorkUnit, lifeline: Any = None) -> None:
    if lifeline is not None:
        threading.Thread(target=_watch_parent, args=(lifeline,), name="mira-lifeline", daemon=True).start()
    sys.exit(int(execute(unit)))


class LocalEngine:
    """Units in spawned processes; the results in unit order."""

    def run(self, units: Sequence[WorkUnit], execute: Execute, workers: int,
            max_retries: int, say: Callable[[str], None]) -> List[UnitResult]:
        context = multiprocessing.get_context("spawn")
        queue = list(units)
        attempts = Attempts()
        running: Dict[int, Tuple[WorkUnit, Any]] = {}
        results: Dict[int, UnitResult] = {}
        lifeline, keep_alive = context.Pipe(duplex=False)   # keep_alive: only ever closed
        try:
            while queue or running:
                while queue and len(running) < max(1, workers):
                    unit = queue.pop(0)
                    attempts.next(unit)
                    process = context.Process(target=_child, args=(execute, unit, lifeline), daemon=False)
                    process.start()
                    running[unit.index] = (unit, process)
                for index, (unit, process) in list(running.items()):
                    if process.is_alive():
                        continue
                    process.join()
                    del running[index]
                    code = process.exitcode
                    tries = attempts.counts[index]
                    if should_retry(code) and tries <= max_retries:
                        say(f"{unit.name}: exit {code} on attempt {tries}; resuming it")
                        queue.insert(0, unit)
                        continue
                    results[index] = UnitResult(unit, code, tries)
                if running:
                    time.sleep(POLL_S)
        finally:
            for _unit, process in running.values():   # interrupted: stop what still runs
                process.terminate()
                process.join(timeout=10)
            keep_alive.close()
            lifeline.close()
        return [results[u.index] for u in units]
