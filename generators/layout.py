"""Where files live in a release folder (the Hub layout); shared by the writer, the card and
the loaders."""

from __future__ import annotations

SPLIT = "test"


def data_path(family: str) -> str:
    """A family's JSONL file, relative to the release folder."""
    return f"data/{family}/{SPLIT}.jsonl"
