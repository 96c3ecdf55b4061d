"""The one list of families: name -> family object, Type A first, each type alphabetical."""

from __future__ import annotations

import importlib
from typing import Dict, List

from mira_math.generators.family import Family

TYPE_A = (
    "bayes_missing_prior",
    "crt_reconstruction",
    "geometry_coordinates",
    "graph_path_sums",
    "linear_system_separator",
    "matrix_completion",
    "moment_problem",
    "phase_retrieval",
    "piecewise_missing_threshold",
    "rankdef_linear_shared",
    "recurrence_missing_init",
)
TYPE_B = (
    "birth_death_missing_rate",
    "circuit_missing_resistance",
    "deconvolution",
    "discrete_tomography",
    "eigenvector_missing_entry",
    "laplace_grid",
    "linear_system_missing_coeff",
    "markov_missing_transition",
    "poly_interpolation",
    "portfolio_variance_missing_corr",
    "steady_state_missing_emission",
)

_cache: Dict[str, Family] = {}


def get(name: str) -> Family:
    """The family called ``name`` (module ``generators.families.<name>``, object ``FAMILY``)."""
    if name in _cache:
        return _cache[name]
    if name not in TYPE_A + TYPE_B:
        raise KeyError(f"unknown family {name!r}; known: {', '.join(TYPE_A + TYPE_B)}")
    if name not in _cache:
        family = importlib.import_module(f"mira_math.generators.families.{name}").FAMILY
        if family.name != name or family.type != type_of(name):
            raise RuntimeError(f"family module {name} declares {family.name}/{family.type}")
        _cache[name] = family
    return _cache[name]


def type_of(name: str) -> str:
    """``"A"`` or ``"B"``, without importing the family module."""
    if name in TYPE_A:
        return "A"
    if name in TYPE_B:
        return "B"
    raise KeyError(f"unknown family {name!r}")


def names(types: str = "AB") -> List[str]:
    """Family names of the given types in release order."""
    return [n for n in TYPE_A if "A" in types] + [n for n in TYPE_B if "B" in types]


def prefix(name: str) -> str:
    """Id prefix: the first three letters of the family name (docs/benchmark.md §2)."""
    return name[:3]
