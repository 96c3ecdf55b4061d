"""Execution engines: where the work units of one evaluation run.

A run past one process is cut into work units, each a declared shard ``i/M`` of the selection
written into its own run directory ``OUT/shard-i`` (the layout the Slurm array writes, so
``mira-math score OUT/shard-*`` merges them as it merges any shards). A unit is the unchanged
``mira-math eval`` command line with ``--shard i/M --out OUT/shard-i --resume``: a unit that is
run again (a worker killed, a node lost) continues where its transcripts end, so only the
episodes in flight when it died are redone.

An engine only decides where and how often a unit's command line runs; the command line
itself (the callable ``execute``) is handed in by the caller, so this layer never imports the
command line. :data:`ENGINES` lists them; a new engine is one module and one line there.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Protocol, Sequence, Tuple

from mira_math.common.extras import require


@dataclass(frozen=True)
class WorkUnit:
    """One shard of the run: its index ``i`` of ``count``, its run directory and its argv
    (``eval ... --shard i/count --out DIR --resume``), and where attempts are recorded."""

    index: int
    count: int
    out: str
    argv: Tuple[str, ...]
    attempts_log: str = ""

    @property
    def name(self) -> str:
        return f"shard-{self.index}"


@dataclass
class UnitResult:
    """How a unit ended: the command's exit status (negative: killed by that signal; None:
    never finished, ``message`` says why) after ``attempts`` tries."""

    unit: WorkUnit
    code: Optional[int]
    attempts: int = 1
    message: str = ""

    @property
    def finished(self) -> bool:
        """The unit's run ended with every episode written (some may be errors: exit 3)."""
        return self.code in (0, 3)


Execute = Callable[[WorkUnit], int]
# Exit statuses a unit is tried again for, besides a death by signal: 130 (interrupted, e.g.
# the SIGTERM of a preempted node): the run is resumable, so another attempt continues it.
RETRIED_CODES = (130,)


class Engine(Protocol):
    def run(self, units: Sequence[WorkUnit], execute: Execute, workers: int,
            max_retries: int, say: Callable[[str], None]) -> List[UnitResult]: ...


@dataclass(frozen=True)
class EngineKind:
    name: str
    target: str                          # "module:class", imported on first use
    summary: str
    extra: str = ""                      # pip install 'mira-math[EXTRA]' ("" for none)
    modules: Tuple[str, ...] = ()
    options: Tuple[str, ...] = ()        # keyword arguments its constructor takes

    def create(self, **options: Any) -> Engine:
        if self.extra:
            require(f"the {self.name} engine", self.extra, *self.modules)
        module, _, name = self.target.partition(":")
        cls = getattr(importlib.import_module(module), name)
        return cls(**{k: v for k, v in options.items() if k in self.options and v is not None})


ENGINES: Dict[str, EngineKind] = {e.name: e for e in (
    EngineKind("local", "mira_math.eval.engines.local:LocalEngine",
               "this machine: one process, or --workers N processes (one unit each at a time)"),
    EngineKind("ray", "mira_math.eval.engines.ray_engine:RayEngine",
               "a Ray cluster (ray.init(address=--ray-address)): one Ray task per unit, retried "
               "by Ray when its worker dies", extra="ray", modules=("ray",),
               options=("address", "cpus_per_unit", "gpus_per_unit")),
)}


def get_engine(name: str) -> EngineKind:
    try:
        return ENGINES[name]
    except KeyError:
        raise ValueError(f"unknown engine {name!r}: use {', '.join(ENGINES)}") from None


@dataclass
class Attempts:
    """Attempts per unit while an engine runs them (for the retries and the final record)."""

    counts: Dict[int, int] = field(default_factory=dict)

    def next(self, unit: WorkUnit) -> int:
        self.counts[unit.index] = self.counts.get(unit.index, 0) + 1
        return self.counts[unit.index]


def should_retry(code: Optional[int]) -> bool:
    """A death by signal (negative status) or an interrupted run: the unit is resumable."""
    return code is None or code < 0 or code in RETRIED_CODES


__all__ = ["ENGINES", "Attempts", "Engine", "EngineKind", "Execute", "RETRIED_CODES", "UnitResult",
           "WorkUnit", "get_engine", "should_retry"]
