"""MIRA-Math dataset configurations: the one place they are defined.

Configs: ``all`` (default), ``type_a``, ``type_b`` and one per family. Each maps to the
release's JSONL files; the Hub card's YAML ``configs:`` block is generated from here
(datasets >= 4 runs no loading scripts, so nothing here is executed by ``load_dataset``).
"""

from __future__ import annotations

from typing import Dict, List

from generators import registry
from generators.release import SPLIT, data_path

DEFAULT_CONFIG = "all"


def configs() -> Dict[str, List[str]]:
    """Config name -> data files (relative to the release folder), in release order."""
    out: Dict[str, List[str]] = {
        "all": [data_path(n) for n in registry.names()],
        "type_a": [data_path(n) for n in registry.names("A")],
        "type_b": [data_path(n) for n in registry.names("B")],
    }
    for name in registry.names():
        out[name] = [data_path(name)]
    return out


__all__ = ["DEFAULT_CONFIG", "SPLIT", "configs"]
