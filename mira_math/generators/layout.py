"""Where files live: inside a release folder (the Hub layout), and where the committed release
and the datasheet are found, shared by the writer, the card, the loaders and the harness.

In a checkout (or an editable install) the release is the repository's ``mira-math/`` folder
and the datasheet its ``dataset_card.md``. A wheel carries copies of both under
``mira_math/_bundle/`` (``setup.py`` puts them there at build time), laid out the same way,
so a path relative to :data:`RESOURCE_ROOT` (``mira-math/data/<family>/test.jsonl``, as run
manifests record it) means the same file in either."""

from __future__ import annotations

from pathlib import Path

SPLIT = "test"
RELEASE_NAME = "mira-math"
CARD_NAME = "dataset_card.md"

PACKAGE_DIR = Path(__file__).resolve().parents[1]
BUNDLE_DIR = PACKAGE_DIR / "_bundle"
#: the folder holding the committed release and the datasheet: the wheel's bundle, else the checkout
RESOURCE_ROOT = BUNDLE_DIR if (BUNDLE_DIR / RELEASE_NAME).is_dir() else PACKAGE_DIR.parent
DEFAULT_RELEASE = RESOURCE_ROOT / RELEASE_NAME
CARD_SOURCE = RESOURCE_ROOT / CARD_NAME
#: the git checkout this code runs from, or None for an installed wheel
CHECKOUT = PACKAGE_DIR.parent if (PACKAGE_DIR.parent / ".git").exists() and RESOURCE_ROOT != BUNDLE_DIR else None


MULTI_HINT = "multi_hint"


def data_path(family: str) -> str:
    """A family's JSONL file, relative to the release folder."""
    return f"data/{family}/{SPLIT}.jsonl"


def multi_hint_path(family: str) -> str:
    """A family's two-fact (k = 2) JSONL file, beside its v1.1 file (docs/decisions/data.md)."""
    return f"data/{family}/{MULTI_HINT}.jsonl"


BLIND = "blind"


def blind_path(family: str) -> str:
    """A family's blind-tier JSONL file, beside its other files (docs/decisions/data-blind-tier.md)."""
    return f"data/{family}/{BLIND}.jsonl"
