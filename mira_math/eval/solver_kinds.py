"""The scripted solvers' table, as :data:`mira_math.eval.backends.registry.BACKENDS` is the model
backends': each name a ``--solver`` spec may be, the class that plays it (imported on first use,
so the command line reads this table without loading the solvers), the decoding its run records,
and whether it samples. ``make_solver``, the command line's help, its spec check and its
``--epochs`` check read this table; nothing else lists the scripted solvers.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Dict

from mira_math.eval.backends.base import GenParams


@dataclass(frozen=True)
class ScriptedKind:
    """One scripted solver. ``samples``: it draws from a seeded generator at ``--temperature``
    (so ``--epochs`` K > 1 gives K different samples, and the temperature is recorded); a
    deterministic one ignores the decoding and records none."""

    name: str
    target: str                       # "module:Class", imported on first use
    samples: bool = False

    def create(self, params: GenParams) -> Any:
        module, _, name = self.target.partition(":")
        cls = getattr(importlib.import_module(module), name)
        return cls(params.temperature) if self.samples else cls()

    def recorded(self, params: GenParams) -> Dict[str, Any]:
        """The decoding the run's config records for this solver."""
        return {"temperature": params.temperature} if self.samples else {}


SCRIPTED: Dict[str, ScriptedKind] = {k.name: k for k in (
    ScriptedKind("reference", "mira_math.eval.solvers:ReferenceSolver"),
    ScriptedKind("noask", "mira_math.eval.solvers:NoAskSolver"),
    ScriptedKind("sampler", "mira_math.eval.solvers:SamplerSolver", samples=True),
    # k missing facts: asks for the first fact only, then guesses
    ScriptedKind("first-fact", "mira_math.eval.solvers:FirstFactSolver"),
    # the blind tier: asks for every absent quantity, needed or not
    ScriptedKind("ask-all", "mira_math.eval.solvers:AskAllSolver"),
)}

__all__ = ["SCRIPTED", "ScriptedKind"]
