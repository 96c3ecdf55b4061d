"""The one list of families: name -> family object, Type A first, each type alphabetical."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Dict, List

from mira_math.generators.family import Family

if TYPE_CHECKING:
    from mira_math.generators.blind.contract import BlindFamily

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

# The families with a two-fact variant (``FAMILY_K2`` in their module), in release order: the
# multi_hint part of the release (docs/decisions/data.md).
MULTI_HINT = (
    "bayes_missing_prior",
    "crt_reconstruction",
    "geometry_coordinates",
    "linear_system_separator",
    "piecewise_missing_threshold",
    "rankdef_linear_shared",
    "recurrence_missing_init",
    "birth_death_missing_rate",
    "circuit_missing_resistance",
    "deconvolution",
    "laplace_grid",
    "linear_system_missing_coeff",
    "poly_interpolation",
    "portfolio_variance_missing_corr",
)
# The families of the blind tier (a module ``generators.blind.families.<name>`` with a
# ``FAMILY`` each, docs/decisions/data-blind-tier.md), in release order: Type A first.
BLIND = (
    "bayes_missing_prior",
    "crt_reconstruction",
    "geometry_coordinates",
    "graph_path_sums",
    "matrix_completion",
    "recurrence_missing_init",
    "birth_death_missing_rate",
    "circuit_missing_resistance",
    "laplace_grid",
    "linear_system_missing_coeff",
    "markov_missing_transition",
    "portfolio_variance_missing_corr",
)
# The 22 families of v1.1: their ids are one global counter in release order, frozen; a
# family added later gets ids counted within itself (docs/decisions/harness.md). Written
# out, never derived from TYPE_A + TYPE_B: a family appended there must not join the counter.
V1_1 = (
    "bayes_missing_prior", "crt_reconstruction", "geometry_coordinates", "graph_path_sums",
    "linear_system_separator", "matrix_completion", "moment_problem", "phase_retrieval",
    "piecewise_missing_threshold", "rankdef_linear_shared", "recurrence_missing_init",
    "birth_death_missing_rate", "circuit_missing_resistance", "deconvolution", "discrete_tomography",
    "eigenvector_missing_entry", "laplace_grid", "linear_system_missing_coeff", "markov_missing_transition",
    "poly_interpolation", "portfolio_variance_missing_corr", "steady_state_missing_emission",
)

_cache: Dict[str, Family] = {}
_cache_k2: Dict[str, Family] = {}
_cache_blind: Dict[str, "BlindFamily"] = {}


def get(name: str, k: int = 1) -> Family:
    """The family called ``name`` (module ``generators.families.<name>``, object ``FAMILY``);
    with ``k = 2`` its two-fact variant (object ``FAMILY_K2``)."""
    if k != 1:
        return _get_k2(name, k)
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


def _get_k2(name: str, k: int) -> Family:
    if k != 2 or name not in MULTI_HINT:
        raise KeyError(f"family {name!r} has no variant with {k} withheld facts; the two-fact "
                       f"families: {', '.join(MULTI_HINT)}")
    if name not in _cache_k2:
        family = importlib.import_module(f"mira_math.generators.families.{name}").FAMILY_K2
        if family.name != name or family.type != type_of(name) or family.k != 2:
            raise RuntimeError(f"family module {name} declares {family.name}/{family.type}/k={family.k}")
        _cache_k2[name] = family
    return _cache_k2[name]


def get_blind(name: str) -> "BlindFamily":
    """The blind-tier variant of family ``name``."""
    if name not in BLIND:
        raise KeyError(f"family {name!r} has no blind-tier variant; the blind-tier families: "
                       f"{', '.join(BLIND)}")
    if name not in _cache_blind:
        family = importlib.import_module(f"mira_math.generators.blind.families.{name}").FAMILY
        if family.name != name or family.type != type_of(name):
            raise RuntimeError(f"blind family module {name} declares {family.name}/{family.type}")
        _cache_blind[name] = family
    return _cache_blind[name]


def blind_names(types: str = "AB") -> List[str]:
    """The blind-tier families of the given types, in release order."""
    return [n for n in names(types) if n in BLIND]


def multi_hint_names(types: str = "AB") -> List[str]:
    """The families of the multi_hint (k = 2) part of the given types, in release order."""
    return [n for n in names(types) if n in MULTI_HINT]
