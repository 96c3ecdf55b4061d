"""Publishing a verified release folder to the Hugging Face Hub (``mira-math publish``).

Only tested against ``unittest.mock.create_autospec(HfApi)``: no test reaches the real Hub
(there is no local Hub emulator, and upload calls validate the card online).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional, Tuple

from generators.errors import MiraError
from generators.release import read_release_info, verify_release

REPO_TYPE = "dataset"


class PublishError(MiraError, RuntimeError):
    """The folder may not be published (it fails ``verify``)."""


@dataclass(frozen=True)
class Plan:
    repo_id: str
    files: List[Tuple[str, int, str]]   # (path in repo, size in bytes, sha256)
    commit_message: str
    tag: Optional[str]
    private: bool

    def describe(self) -> str:
        lines = [f"repo: {self.repo_id} (dataset, {'private' if self.private else 'public'})",
                 f"commit: {self.commit_message}"]
        lines += [f"  {sha}  {size:>9}  {path}" for path, size, sha in self.files]
        lines.append(f"{len(self.files)} files, {sum(f[1] for f in self.files)} bytes")
        lines.append(f"tag: {self.tag}" if self.tag else "tag: (none)")
        return "\n".join(lines)


def plan(folder: Path, repo_id: str, tag: Optional[str] = None, private: bool = False) -> Plan:
    """What publishing would upload; refuses a folder that does not verify."""
    report = verify_release(folder)
    if not report.ok:
        raise PublishError(f"{folder} fails verify; not publishing:\n" + "\n".join(report.problems))
    info = read_release_info(folder)
    files = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        if any(part.startswith(".") for part in rel.split("/")):
            continue
        data = path.read_bytes()
        files.append((rel, len(data), hashlib.sha256(data).hexdigest()))
    message = (f"MIRA-Math {info['generator_version']}: seed set {info['seed_set']}, "
               f"{info['total']} instances")
    return Plan(repo_id, files, message, tag, private)


def publish(folder: Path, the_plan: Plan, api: Any = None) -> str:
    """Create the repo (if needed), upload the folder as one commit, tag it. Returns the
    commit id. ``api`` defaults to ``HfApi()``, which takes ``HF_TOKEN`` or the usual login."""
    if api is None:
        from huggingface_hub import HfApi  # optional dependency: pip install 'mira-math[hub]'

        api = HfApi()
    api.create_repo(the_plan.repo_id, repo_type=REPO_TYPE, private=the_plan.private, exist_ok=True)
    commit = api.upload_folder(
        repo_id=the_plan.repo_id, folder_path=str(folder), repo_type=REPO_TYPE,
        commit_message=the_plan.commit_message,
        allow_patterns=[path for path, _, _ in the_plan.files],
        delete_patterns=["data/**"],  # a family dropped from the folder leaves no stale file
    )
    if the_plan.tag:
        api.create_tag(the_plan.repo_id, tag=the_plan.tag, repo_type=REPO_TYPE,
                       revision=commit.oid)
    return commit.oid
