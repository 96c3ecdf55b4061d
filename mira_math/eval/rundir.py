"""The run directory, in one place: the names of the files a run writes and how its manifest is
read, for the runner (which writes it), scoring, the viewer and the audit (which read it).

A run directory holds::

    manifest.json        the configuration, dataset checksum and versions (written once, first)
    transcripts.jsonl    one line per finished episode, appended as episodes finish
    .lock                held by the one process running into it
    scores.json/.csv     written by ``score`` (reused while the transcripts are unchanged)
    audit.json           written by ``audit``

Everything here reads bytes and checks shapes; what the transcripts *mean* (metrics, instance
joins) stays with :mod:`mira_math.eval.scoring`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Set, Tuple

from mira_math.common.errors import MiraError
from mira_math.generators.schema import DataError, read_json_object

if TYPE_CHECKING:                       # typing only: scoring imports this module
    from mira_math.eval.scoring import RunInfo
    from mira_math.generators.schema import Instance

MANIFEST = "manifest.json"
TRANSCRIPTS = "transcripts.jsonl"
LOCK = ".lock"
SCORES_JSON = "scores.json"
SCORES_CSV = "scores.csv"
AUDIT_JSON = "audit.json"
MANIFEST_STRINGS = ("solver", "responder", "regime")     # config fields every reader relies on


class RunDirError(MiraError, RuntimeError):
    """A run directory whose manifest is missing or unreadable (one line naming the file)."""


def read_manifest(run_dir: Path) -> Dict[str, Any]:
    """``run_dir/manifest.json``, checked for the fields every reader relies on: a ``config``
    object naming solver, responder and regime, and a non-empty ``run_hash``."""
    path = Path(run_dir) / MANIFEST
    if not path.is_file():
        raise RunDirError(f"{path}: missing (is {run_dir} a run directory?)")
    try:      # bad UTF-8 or JSON, too deep, huge integers, lone surrogates, not an object
        data = read_json_object(path)
    except DataError as err:
        raise RunDirError(f"{path}: not a readable run manifest ({err.reason[:120]})") from None
    if not isinstance(data.get("config"), dict):
        raise RunDirError(f"{path}: field 'config': missing or not an object")
    dataset = data.get("dataset", {})
    if not isinstance(dataset, dict) or not isinstance(dataset.get("files", []), list) \
            or not all(isinstance(name, str) for name in dataset.get("files", [])):
        raise RunDirError(f"{path}: field 'dataset': expected an object with a list of file names")
    for name in MANIFEST_STRINGS:
        if not isinstance(data["config"].get(name), str):
            raise RunDirError(f"{path}: config has no {name!r}")
    if not isinstance(data.get("run_hash"), str) or not data["run_hash"]:
        raise RunDirError(f"{path}: no run_hash")
    return data


def declared_shard(manifest: Mapping[str, Any], run_dir: Path) -> Optional[Tuple[int, int]]:
    """``(i, N)`` when the manifest declares the run shard i of N (``selection.shard``)."""
    shard = (manifest["config"].get("selection") or {}).get("shard")
    if shard is None:
        return None
    if (not isinstance(shard, list) or len(shard) != 2 or not all(type(x) is int for x in shard)
            or not 0 <= shard[0] < shard[1]):
        text = repr(shard)
        raise RunDirError(f"{Path(run_dir) / MANIFEST}: field 'config.selection.shard': expected "
                          f"[i, N], got {text if len(text) <= 40 else text[:37] + '...'}")
    return shard[0], shard[1]


def finished_ids(run_dir: Path) -> Set[str]:
    """The ids that already have a transcript line (empty when there is no transcript file)."""
    path = Path(run_dir) / TRANSCRIPTS
    if not path.exists():
        return set()
    with path.open("rb") as fh:
        return {json.loads(line)["id"] for line in fh if line.strip()}


@dataclass
class RunRecords:
    """A run (declared shards merged, as ``score`` groups them) with each transcript joined to
    the full instance it was run on, in transcript order: what the viewer and the audit read."""

    info: "RunInfo"
    records: List[Tuple[Dict[str, Any], "Instance"]]

    @property
    def expected(self) -> int:
        return self.info.expected


__all__ = ["AUDIT_JSON", "LOCK", "MANIFEST", "MANIFEST_STRINGS", "RunDirError", "RunRecords",
           "SCORES_CSV", "SCORES_JSON", "TRANSCRIPTS", "declared_shard", "finished_ids",
           "read_manifest"]
