"""One converter per family: ``CONVERTERS[family](record, level)`` maps a source record to our
family's ``known`` (what their solver view states, read from ``constraints_machine`` and
``global_metadata``), the canonical hint's slot and value, and the prose the source lacks
(a :class:`~reference_import.converters.common.Conversion`). Where their setup
differs from ours, the converter records a finding instead of dropping anything.

The converters live in :mod:`.type_a`, :mod:`.type_b_deterministic` and
:mod:`.type_b_stochastic`; each registers itself with ``@converter(family)``; :mod:`.common`
holds what they share."""

from __future__ import annotations

from mira_math.reference_import.converters import type_a, type_b_deterministic, type_b_stochastic
from mira_math.reference_import.converters.common import CONVERTERS, Conversion

_REGISTERING = (type_a, type_b_deterministic, type_b_stochastic)  # importing them fills CONVERTERS

__all__ = ["CONVERTERS", "Conversion"]
