"""Which weights a run used: the model revision recorded in every run manifest (``models.<role>.
model_revision``) and in ``.eval_results`` notes, as the paper's versioning section asks.

- weights from the Hub (a repo id the Hugging Face cache holds): the commit sha, read from the
  cache's ``refs/<revision>`` file or its single snapshot folder name, never the network;
- a local path: a file's sha256, or for a folder the sha256 of its files' (path, sha256) list
  (a folder that is itself a cache snapshot is named by its sha);
- anything else (an API model, a test double): no revision, and the reason.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any, Dict, Optional

_REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
_SHA = re.compile(r"^[0-9a-f]{40}$")
_CHUNK = 1 << 20


def hub_cache() -> Path:
    """The Hugging Face hub cache folder, as huggingface_hub resolves it (env only)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    home = os.environ.get("HF_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "huggingface")
    return Path(home).expanduser() / "hub"


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _folder_sha256(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        if not any(part.startswith(".") for part in rel.split("/")):
            digest.update(f"{_file_sha256(path)}  {rel}\n".encode("utf-8"))
    return digest.hexdigest()


def _from_cache(repo_id: str, revision: Optional[str], cache: Path) -> Optional[str]:
    repo = cache / f"models--{repo_id.replace('/', '--')}"
    if not repo.is_dir():
        return None
    if revision and _SHA.match(revision):
        return revision if (repo / "snapshots" / revision).is_dir() else None
    ref = repo / "refs" / (revision or "main")
    if ref.is_file():
        sha = ref.read_text(encoding="utf-8").strip()
        return sha if _SHA.match(sha) else None
    snapshots = sorted(p.name for p in (repo / "snapshots").glob("*") if p.is_dir()) \
        if (repo / "snapshots").is_dir() else []
    return snapshots[0] if len(snapshots) == 1 and not revision else None


def model_revision(model: str, revision: Optional[str] = None,
                   cache: Optional[Path] = None) -> Dict[str, Any]:
    """``{"source": "hub", "repo": ID, "sha": SHA}``, ``{"source": "local", "sha256": H}``
    or ``{"source": None, "why": ...}`` for ``model`` (a path or a Hub repo id)."""
    path = Path(model).expanduser()
    if path.exists():
        full = path.resolve()
        if full.parent.name == "snapshots" and _SHA.match(full.name) \
                and full.parent.parent.name.startswith("models--"):
            repo = full.parent.parent.name[len("models--"):].replace("--", "/")
            return {"source": "hub", "repo": repo, "sha": full.name}
        digest = _file_sha256(full) if full.is_file() else _folder_sha256(full)
        return {"source": "local", "sha256": digest}
    if _REPO_ID.match(model):
        sha = _from_cache(model, revision, cache or hub_cache())
        if sha:
            return {"source": "hub", "repo": model, "sha": sha}
        return {"source": None, "why": "not in the local Hugging Face cache"}
    return {"source": None, "why": "not open weights (an API model or a built-in solver)"}


def with_revisions(models: Dict[str, Any]) -> Dict[str, Any]:
    """The manifest's ``models`` with ``model_revision`` in each role's description (a backend's
    own ``revision`` argument, e.g. vLLM's, names the Hub revision to look up)."""
    out: Dict[str, Any] = {}
    for role, described in models.items():
        if isinstance(described, dict) and "model_revision" not in described:
            model, asked = described.get("model"), described.get("revision")
            revision = (model_revision(model, asked if isinstance(asked, str) else None)
                        if isinstance(model, str) and model else
                        {"source": None, "why": "no model weights (a built-in solver or responder)"})
            described = dict(described, model_revision=revision)
        out[role] = described
    return out


def revision_label(described: Any) -> str:
    """One word for notes and tables: the Hub sha, ``sha256:<hex>``, or ``unknown``."""
    rev = described.get("model_revision") if isinstance(described, dict) else None
    if not isinstance(rev, dict) or not rev.get("source"):
        return "unknown"
    return str(rev["sha"]) if rev["source"] == "hub" else f"sha256:{rev['sha256']}"
