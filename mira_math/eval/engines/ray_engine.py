"""The Ray engine: one Ray task per work unit, at most ``workers`` in flight.

Checked in Ray 2.60's source (``ray/_private/worker.py``, ``ray/remote_function.py``,
``ray/_common/ray_option_utils.py``, ``ray/exceptions.py``): ``ray.init(address=None, *,
num_cpus=None, ..., include_dashboard=None, log_to_driver=None, ...)`` starts a local cluster
when no address is given and none is running (``local_mode`` is no longer supported);
``ray.remote(fn).options(num_cpus=, num_gpus=, max_retries=, retry_exceptions=)``: a task is
rerun up to ``max_retries`` times when its worker process or node dies (a system failure),
and, with ``retry_exceptions=False``, never for an exception the function raised;
``ray.wait(refs, num_returns=1)`` returns ``(ready, not_ready)``; ``ray.get`` raises
``RayTaskError`` for an exception in the task and ``WorkerCrashedError``/``NodeDiedError`` (both
``RayError``) once the retries are spent.

The unit's command line runs inside the Ray worker process (``execute``), so killing that
worker kills the run it carries; Ray then starts the task again and ``--resume`` keeps every
episode already written. A unit that exits 130 (interrupted: the SIGTERM of a preempted node)
is submitted again by the driver, within the same retry budget.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

from mira_math.eval.engines import Attempts, Execute, RETRIED_CODES, UnitResult, WorkUnit


def _unit_task(execute: Execute, unit: WorkUnit) -> int:
    return int(execute(unit))


def _attempts_from_log(unit: WorkUnit) -> Optional[int]:
    """How many attempts the unit's command recorded (Ray's own retries included)."""
    if not unit.attempts_log:
        return None
    import json

    try:
        with open(unit.attempts_log, encoding="utf-8") as fh:
            return sum(1 for line in fh if line.strip()
                       and json.loads(line).get("unit") == unit.index)
    except (OSError, ValueError):
        return None


class RayEngine:
    """``address``: the cluster (``auto``, ``ray://HOST:10001``; None starts or joins a local
    one); ``cpus_per_unit``/``gpus_per_unit``: each task's resource request (a unit that loads
    a vLLM engine asks for its GPUs)."""

    def __init__(self, address: Optional[str] = None, cpus_per_unit: float = 1.0,
                 gpus_per_unit: float = 0.0) -> None:
        self.address = address
        self.cpus_per_unit = float(cpus_per_unit)
        self.gpus_per_unit = float(gpus_per_unit)

    def run(self, units: Sequence[WorkUnit], execute: Execute, workers: int,
            max_retries: int, say: Callable[[str], None]) -> List[UnitResult]:
        import ray

        started = not ray.is_initialized()
        if started:
            ray.init(address=self.address, include_dashboard=False, log_to_driver=True)
        try:
            return self._run(ray, units, execute, workers, max_retries, say)
        finally:
            if started:
                ray.shutdown()

    def _run(self, ray: Any, units: Sequence[WorkUnit], execute: Execute, workers: int,
             max_retries: int, say: Callable[[str], None]) -> List[UnitResult]:
        task = ray.remote(_unit_task).options(
            num_cpus=self.cpus_per_unit, num_gpus=self.gpus_per_unit, max_retries=max_retries,
            retry_exceptions=False)
        queue = list(units)
        pending: Dict[Any, WorkUnit] = {}
        submitted = Attempts()          # submissions by the driver (Ray's retries come on top)
        results: Dict[int, UnitResult] = {}
        try:
            while queue or pending:
                while queue and len(pending) < max(1, workers):
                    unit = queue.pop(0)
                    submitted.next(unit)
                    pending[task.remote(execute, unit)] = unit
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    unit = pending.pop(ref)
                    code: Optional[int] = None
                    message = ""
                    try:
                        code = int(ray.get(ref))
                    except ray.exceptions.RayTaskError as err:     # the command raised: a bug
                        message = f"the unit's command raised {type(err.cause).__name__}: {err.cause}"
                    except ray.exceptions.RayError as err:         # worker or node lost, retries spent
                        message = (f"its Ray worker was lost {max_retries + 1} times "
                                   f"({type(err).__name__})")
                    tries = _attempts_from_log(unit) or submitted.counts[unit.index]
                    if code in RETRIED_CODES and submitted.counts[unit.index] <= max_retries:
                        say(f"{unit.name}: exit {code} on attempt {tries}; resuming it")
                        queue.insert(0, unit)
                        continue
                    results[unit.index] = UnitResult(unit, code, tries, " ".join(message.split()))
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
        return [results[u.index] for u in units]
