"""The run directory's file names, its manifest's reader and the field checks every reader of
a run directory shares (one-line errors naming file, line and field)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Iterator, Mapping, Optional, Set, Tuple

from mira_math.eval.errors import RunDirError, ScoringError
from mira_math.generators.schema import DataError, read_json_object, refuse_lone_surrogates

MANIFEST = "manifest.json"
TRANSCRIPTS = "transcripts.jsonl"
LOCK = ".lock"
SCORES_JSON = "scores.json"
SCORES_CSV = "scores.csv"
AUDIT_JSON = "audit.json"
MANIFEST_STRINGS = ("solver", "responder", "regime")     # config fields every reader relies on


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


def field_error(where: str, name: str, problem: str) -> ScoringError:
    return ScoringError(f"{where}: field {name!r}: {problem}")


def check_field(value: Any, kinds: tuple, where: str, name: str) -> Any:
    """``value`` if it is one of ``kinds`` (bool is never an int here), else a one-line error."""
    if type(value) in kinds:                 # JSON values have exact types: the fast path
        return value
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
    if not ok:
        names = "/".join("null" if k is type(None) else k.__name__ for k in kinds)
        raise field_error(where, name, f"expected {names}, got {type(value).__name__} "
                                       f"{preview(value)}")
    return value


def preview(value: Any) -> str:
    """A value's repr cut to 40 characters, for a one-line error."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def json_lines(path: Path, digest: Optional[Any] = None, what: str = "a transcript line"
               ) -> Iterator[Tuple[int, Any]]:
    """(line number, parsed JSON) for each non-empty line, streamed; one-line errors for bytes
    that are not UTF-8, not JSON, nested too deep or with integers too long to read."""
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if digest is not None:
                digest.update(raw)
            if raw.isspace():                   # a line from a file is never empty: blank lines
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise ScoringError(f"{path}:{number}: not {what} (not UTF-8: byte {err.start})") from None
            try:
                value = json.loads(text)
            except RecursionError:
                raise ScoringError(f"{path}:{number}: not {what} (JSON nested too deeply)") from None
            except ValueError as err:
                raise ScoringError(f"{path}:{number}: not {what} (not JSON: {str(err)[:80]})") from None
            if "\\u" in text:                  # the only way JSON spells a lone surrogate
                refuse_lone_surrogates(text, value, str(path), number)
            yield number, value


__all__ = ["AUDIT_JSON", "LOCK", "MANIFEST", "MANIFEST_STRINGS", "RunDirError", "SCORES_CSV",
           "SCORES_JSON", "ScoringError", "TRANSCRIPTS", "check_field", "declared_shard", "field_error",
           "finished_ids", "json_lines", "preview", "read_manifest"]
