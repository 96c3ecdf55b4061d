"""One converter per family: ``CONVERTERS[family](record, level)`` maps a source record to our
family's ``known`` (what their solver view states, read from ``constraints_machine`` and
``global_metadata``), the canonical hint's slot and value, and the prose the source lacks
(a :class:`~reference_import.converters.common.Conversion`). Where their setup
differs from ours, the converter records a finding instead of dropping anything.

The converters live in :mod:`.type_a`, :mod:`.type_b_deterministic` and
:mod:`.type_b_stochastic`; each registers itself with ``@converter(family)``; :mod:`.common`
holds what they share.

A family of ours that the paper never had has no converter, and needs none: the importer
lists it as having no paper source (:func:`without_source`) and names it in the error of any
record that claims it."""

from __future__ import annotations

from typing import List, Sequence

from mira_math.reference_import.converters import type_a, type_b_deterministic, type_b_stochastic
from mira_math.reference_import.converters.common import CONVERTERS, Conversion

_REGISTERING = (type_a, type_b_deterministic, type_b_stochastic)  # importing them fills CONVERTERS



def without_source(families: Sequence[str]) -> List[str]:
    """The given families (in their order) that have no converter: the paper's release has no
    such family, so an import can hold no instance of it."""
    return [name for name in families if name not in CONVERTERS]


__all__ = ["CONVERTERS", "Conversion", "without_source"]
