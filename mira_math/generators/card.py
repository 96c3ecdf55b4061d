"""The Hub card of a release folder: dataset configs, ``datasets`` features derived from the
schema, and the README's YAML front matter. A data-layer module so that both
:mod:`generators.release` (which renders the card) and :mod:`mira_math` (the public module,
which re-exports it) import it, and neither imports the other."""

from __future__ import annotations

import dataclasses
import json
import re
import typing
from typing import Any, Dict, List, Optional, Union

from mira_math.generators import registry
from mira_math.generators.layout import (BLIND, CARD_SOURCE, MULTI_HINT, SPLIT, blind_path, data_path,
                                        multi_hint_path)
from mira_math.generators.requests import CONFIG_NAME as REQUESTS_CONFIG
from mira_math.generators.requests import REQUESTS_PATH, RequestRow
from mira_math.generators.schema import Instance

DEFAULT_CONFIG = "all"
# The card's load example and citation name the Hub repo this copy is published under; an
# unpublished folder shows the placeholder, and ``mira-math publish --repo-id`` writes it in.
REPO_PLACEHOLDER = "OWNER/NAME"
_REPO_SLOTS = ('load_dataset("{}"', "huggingface.co/datasets/{}")
_PUBLISHED_AS = re.compile(r'^ds = load_dataset\("([^"]+)"', re.MULTILINE)


def fill_repo_id(text: str, repo_id: str, current: str = REPO_PLACEHOLDER) -> str:
    """``text`` (the card or the README) with ``repo_id`` in its load example and citation,
    where it had ``current`` (the placeholder, or the repo of an earlier publication)."""
    for slot in _REPO_SLOTS:
        text = text.replace(slot.format(current), slot.format(repo_id))
    return text


def published_repo_id(readme: str) -> Optional[str]:
    """The repo id a README was filled in with by ``publish``; None for an unpublished one."""
    found = _PUBLISHED_AS.search(readme)
    return found.group(1) if found and found.group(1) != REPO_PLACEHOLDER else None


def configs() -> Dict[str, List[str]]:
    """Config name -> data files (relative to the release folder), in release order."""
    out: Dict[str, List[str]] = {
        "all": [data_path(n) for n in registry.names()],
        "type_a": [data_path(n) for n in registry.names("A")],
        "type_b": [data_path(n) for n in registry.names("B")],
    }
    for name in registry.names():
        out[name] = [data_path(name)]
    # the two-fact part (docs/decisions/data.md): its own configs, never mixed into "all"
    out[MULTI_HINT] = [multi_hint_path(n) for n in registry.multi_hint_names()]
    out[f"{MULTI_HINT}_type_a"] = [multi_hint_path(n) for n in registry.multi_hint_names("A")]
    out[f"{MULTI_HINT}_type_b"] = [multi_hint_path(n) for n in registry.multi_hint_names("B")]
    for name in registry.multi_hint_names():
        out[f"{MULTI_HINT}_{name}"] = [multi_hint_path(name)]
    # the blind tier (docs/decisions/data-blind-tier.md): its own configs as well
    out[BLIND] = [blind_path(n) for n in registry.blind_names()]
    out[f"{BLIND}_type_a"] = [blind_path(n) for n in registry.blind_names("A")]
    out[f"{BLIND}_type_b"] = [blind_path(n) for n in registry.blind_names("B")]
    for name in registry.blind_names():
        out[f"{BLIND}_{name}"] = [blind_path(name)]
    out[REQUESTS_CONFIG] = [REQUESTS_PATH]
    return out


def is_multi_hint(config: str) -> bool:
    """Whether a config holds two-fact rows (whose features add ``hint_groups``)."""
    return config == MULTI_HINT or config.startswith(MULTI_HINT + "_")


def is_blind(config: str) -> bool:
    """Whether a config holds blind-tier rows (whose features add ``gaps``)."""
    return config == BLIND or config.startswith(BLIND + "_")


# ------------------------------------------------------------------ features from the schema

_DTYPES = {str: "string", int: "int64"}


def _feature(name: str, tp: Any) -> Dict[str, Any]:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Union and type(None) in args:           # Optional[int]: nullable column
        return _feature(name, next(a for a in args if a is not type(None)))
    if origin in (list, List):
        (item,) = args
        if dataclasses.is_dataclass(item):
            return {"name": name, "list": _struct(item)}
        if typing.get_origin(item) in (list, List):      # a list of lists (hint_groups)
            return {"name": name, "list": {"list": _DTYPES[typing.get_args(item)[0]]}}
        return {"name": name, "list": _DTYPES[item]}
    if dataclasses.is_dataclass(tp):
        return {"name": name, "struct": _struct(tp)}
    return {"name": name, "dtype": _DTYPES[tp]}


def _struct(cls: Any) -> List[Dict[str, Any]]:
    hints = typing.get_type_hints(cls)
    return [_feature(f.name, hints[f.name]) for f in dataclasses.fields(cls)]


def features(config: str = DEFAULT_CONFIG) -> List[Dict[str, Any]]:
    """The ``datasets`` features of a config's rows, derived from :class:`Instance` (a v1.1 row
    has no ``hint_groups``, a two-fact row has it; a request row of the ``responder_check``
    config: :class:`RequestRow`)."""
    if config == REQUESTS_CONFIG:
        return _struct(RequestRow)
    keep = {"hint_groups": is_multi_hint(config), "gaps": is_blind(config)}
    return [f for f in _struct(Instance) if keep.get(f["name"], True)]


# ------------------------------------------------------------------ card front matter

def card_metadata(info: dict, files: Dict[str, bytes]) -> Dict[str, Any]:
    """YAML metadata of a release folder: configs, features and per-config split sizes."""
    present = {name: paths for name, paths in configs().items()
               if paths and all(p in files for p in paths)}
    total = sum(files[p].count(b"\n") for p in present.get("all", []) + present.get(MULTI_HINT, [])
                + present.get(BLIND, []))
    held_out = info["seed_set"] != "public-20-50"
    return {
        "pretty_name": info.get("pretty_name") or
        "MIRA-Math" + (f" (held-out seed set {info['seed_set']})" if held_out else ""),
        "license": info.get("license", "cc-by-4.0"),   # an imported release keeps its source's
        "language": ["en"],
        # the Hub's datasheet fields: generated by code, in English, no source data
        "annotations_creators": ["machine-generated"],
        "language_creators": ["machine-generated"],
        "multilinguality": ["monolingual"],
        "source_datasets": ["original"],
        "task_categories": ["question-answering", "text-generation"],
        "size_categories": ["1K<n<10K" if 1000 <= total < 10000 else
                            "n<1K" if total < 1000 else "10K<n<100K"],
        "tags": ["mathematics", "reasoning", "information-seeking", "clarification",
                 "interactive", "benchmark", "synthetic", "exact-answers"],
        "configs": [
            dict({"config_name": name}, **({"default": True} if name == DEFAULT_CONFIG else {}),
                 data_files=[{"split": SPLIT, "path": paths}])
            for name, paths in present.items()
        ],
        "dataset_info": [
            {"config_name": name, "features": features(name),
             "splits": [{"name": SPLIT,
                         "num_bytes": sum(len(files[p]) for p in paths),  # JSONL bytes
                         "num_examples": sum(files[p].count(b"\n") for p in paths)}]}
            for name, paths in present.items()
        ],
    }


def _yaml(value: Any, indent: int = 0) -> List[str]:
    """Block YAML for dicts, lists, strings, ints and bools; strings are JSON-quoted, which
    YAML reads as double-quoted scalars. Hand-written so the core install needs no PyYAML and
    the bytes never depend on an emitter's version; tests parse it back with PyYAML."""
    pad = "  " * indent
    lines: List[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item:
                lines.append(f"{pad}{key}:")
                lines += _yaml(item, indent + (0 if isinstance(item, list) else 1))
            else:
                lines.append(f"{pad}{key}: {_scalar(item)}")
        return lines
    for item in value:  # list
        if isinstance(item, (dict, list)):
            inner = _yaml(item, indent + 1)
            lines.append(f"{pad}- {inner[0].lstrip()}")
            lines += inner[1:]
        else:
            lines.append(f"{pad}- {_scalar(item)}")
    return lines


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, dict)):
        return "[]" if isinstance(value, list) else "{}"
    return json.dumps(value, ensure_ascii=False)


def render_readme(info: dict, files: Dict[str, bytes], card: Optional[str] = None,
                  summary: Optional[str] = None) -> str:
    """The release folder's README.md: generated front matter, a generated summary of this
    folder (or ``summary``, e.g. an imported release's), then the datasheet ``dataset_card.md``."""
    card = CARD_SOURCE.read_text(encoding="utf-8") if card is None else card
    card = own_citation(card, info)
    meta = "\n".join(_yaml(card_metadata(info, files)))
    if summary is not None:
        return f"---\n{meta}\n---\n\n{summary}{card}"
    counts = info["counts"]
    rows = "\n".join(f"| `{name}` | {registry.type_of(name)} | {counts[name]} |" for name in counts)
    summary = (
        f"# MIRA-Math — seed set `{info['seed_set']}`\n\n"
        f"This folder holds {info['total']} instances generated by generator version "
        f"{info['generator_version']} from seed set `{info['seed_set']}` (master seed "
        f"{info['master_seed']}), {info['per_type']['A']} per difficulty for each Type A family and "
        f"{info['per_type']['B']} for each Type B family. `CHECKSUMS.sha256` lists the sha256 of "
        f"every file; `release_info.json` says how to regenerate it byte for byte "
        f"(`mira-math verify`).\n\n"
        f"| config / family | type | instances |\n|---|---|---|\n{rows}\n\n"
    ) + _multi_hint_summary(info) + _blind_summary(info)
    return f"---\n{meta}\n---\n\n{summary}{card}"


PUBLIC_SEED_SET = "public-20-50"
_CITED = ("(seed set {})", "(here `{}`)")


def own_citation(card: str, info: dict) -> str:
    """The datasheet as a held-out split's card shows it: its citation and the Citation
    section name the split's own seed set, not the public release's."""
    seed_set = info.get("seed_set")
    if not seed_set or seed_set == PUBLIC_SEED_SET:
        return card
    for slot in _CITED:
        card = card.replace(slot.format(PUBLIC_SEED_SET), slot.format(seed_set))
    return card


def _multi_hint_summary(info: dict) -> str:
    """The README paragraph of the two-fact part, when the folder has one."""
    part = info.get(MULTI_HINT)
    if not part:
        return ""
    rows = "\n".join(f"| `{MULTI_HINT}_{name}` | {registry.type_of(name)} | {n} |"
                     for name, n in part["counts"].items())
    return (
        f"The two-fact part (config `{MULTI_HINT}`, "
        f"also `{MULTI_HINT}_type_a`, `{MULTI_HINT}_type_b` and one per family): {part['total']} "
        f"instances of {len(part['counts'])} families whose view lacks {part['k']} facts, generated "
        f"by generator version {part['generator_version']} from seed set `{part['seed_set']}` "
        f"(master seed {part['master_seed']}), {part['per_type']['A']} per difficulty for each Type A "
        f"family and {part['per_type']['B']} for each Type B family, in "
        f"`data/<family>/{MULTI_HINT}.jsonl`. Every one-fact file is unchanged.\n\n"
        f"| config | type | instances |\n|---|---|---|\n{rows}\n\n")


def _blind_summary(info: dict) -> str:
    """The README paragraph of the blind tier, when the folder has one."""
    part = info.get(BLIND)
    if not part:
        return ""
    rows = "\n".join(f"| `{BLIND}_{name}` | {registry.type_of(name)} | {n} |"
                     for name, n in part["counts"].items())
    return (
        f"Release {info.get('release_version', '')} adds the blind tier (config `{BLIND}`, also "
        f"`{BLIND}_type_a`, `{BLIND}_type_b` and one per family): {part['total']} instances of "
        f"{len(part['counts'])} families, controls, incomplete instances and instances with "
        f"irrelevant gaps mixed, evaluated with `eval --protocol blind`; generated by generator "
        f"version {part['generator_version']} from seed set `{part['seed_set']}` (master seed "
        f"{part['master_seed']}), {part['per_type']['A']} per difficulty for each Type A family and "
        f"{part['per_type']['B']} for each Type B family, in `data/<family>/{BLIND}.jsonl`. The "
        f"one-fact and two-fact files are unchanged.\n\n"
        f"| config | type | instances |\n|---|---|---|\n{rows}\n\n")

