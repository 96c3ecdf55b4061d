"""The local engine: the units on this machine, ``workers`` processes at a time (spawned, so a
unit never inherits another's state), each unit's process tried again when it dies by a signal
(the out-of-memory killer, ``kill -9``) or is interrupted, up to ``max_retries`` times."""

from __future__ import annotations

import multiprocessing
import sys
import time
from typing import Any, Callable, Dict, List, Sequence, Tuple

from mira_math.eval.engines import Attempts, Execute, UnitResult, WorkUnit, should_retry

POLL_S = 0.2


def _child(execute: Execute, unit: WorkUnit) -> None:
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
        try:
            while queue or running:
                while queue and len(running) < max(1, workers):
                    unit = queue.pop(0)
                    attempts.next(unit)
                    process = context.Process(target=_child, args=(execute, unit), daemon=False)
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
        return [results[u.index] for u in units]
