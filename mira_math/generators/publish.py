"""Publishing a verified release folder to the Hugging Face Hub (``mira-math publish``).

One commit holds every file: the data, ``release_info.json``, the card, ``croissant.json``,
``eval.yaml`` (the public release only) and ``CHECKSUMS.sha256``, which lists all of them, so a
downloaded copy verifies. ``publish --dry-run --stage DIR`` writes exactly those files into
``DIR`` (tests lay them out as ``snapshot_download`` does and verify and evaluate them).
Only tested against ``unittest.mock.create_autospec(HfApi)``: no test reaches the real Hub
(there is no local Hub emulator, and upload calls validate the card online).
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from mira_math.common.errors import MiraError
from mira_math.generators.hub_files import CROISSANT, EVAL_TASKS as EVAL_TASKS  # re-exported
from mira_math.generators.hub_files import EVAL_YAML as EVAL_YAML  # re-exported
from mira_math.generators.hub_files import eval_yaml as eval_yaml  # re-exported
from mira_math.generators.release import read_release_info, verify_release, with_repo_id

REPO_TYPE = "dataset"
# The Hub's repo id rules (owner/name, letters, digits, "-", "_", "."), and a semantic-version tag.
_REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
_TAG = re.compile(r"^v\d+\.\d+\.\d+$")


class PublishError(MiraError, RuntimeError):
    """The folder may not be published (it fails ``verify``)."""


@dataclass(frozen=True)
class Plan:
    repo_id: str
    files: List[Tuple[str, int, str]]   # (path in repo, size in bytes, sha256)
    commit_message: str
    tag: Optional[str]
    private: bool

    @property
    def commits(self) -> List[Tuple[str, List[Tuple[str, int, str]]]]:
        """Every commit publishing makes, in order, with its files: one, holding everything."""
        return [(self.commit_message, list(self.files))]

    def describe(self) -> str:
        """Every file of every commit (what ``--stage DIR`` writes), then the tag."""
        lines = [f"repo: {self.repo_id} (dataset, {'private' if self.private else 'public'})"]
        commits = self.commits
        for n, (message, files) in enumerate(commits, start=1):
            lines.append(f"commit {n} of {len(commits)}: {message}")
            lines += [f"  {sha}  {size:>9}  {path}" for path, size, sha in files]
            lines.append(f"  {len(files)} files, {sum(f[1] for f in files)} bytes")
        lines.append(f"tag: {self.tag}" if self.tag else "tag: (none)")
        return "\n".join(lines)


def check_names(repo_id: str, tag: Optional[str]) -> None:
    """Refuse before any work: the Hub would reject the id, and tags are vX.Y.Z."""
    if not _REPO_ID.match(repo_id) or ".." in repo_id or "--" in repo_id:
        raise PublishError(f"--repo-id {repo_id!r}: expected OWNER/NAME (letters, digits, '-', '_', '.')")
    if tag is not None and not _TAG.match(tag):
        raise PublishError(f"--tag {tag!r}: expected vX.Y.Z, e.g. v1.1.0")


def existing_tags(api: Any, repo_id: str) -> List[str]:
    """Tags of the repo on the Hub; none when the repo does not exist yet."""
    try:
        refs = api.list_repo_refs(repo_id, repo_type=REPO_TYPE)
    except Exception as err:  # RepositoryNotFoundError: a new repo has no tags
        if type(err).__name__ in ("RepositoryNotFoundError", "RevisionNotFoundError"):
            return []
        raise
    return [ref.name for ref in getattr(refs, "tags", [])]


def plan(folder: Path, repo_id: str, tag: Optional[str] = None, private: bool = False) -> Plan:
    """What publishing would upload; refuses a malformed repo id or tag, and a folder that
    does not verify."""
    check_names(repo_id, tag)
    report = verify_release(folder)
    if not report.ok:
        more = (f" (and {len(report.problems) - 1} more: `mira-math verify {folder}` lists them)"
                if len(report.problems) > 1 else "")
        raise PublishError(f"{folder} fails verify; not publishing: {report.problems[0]}{more}")
    info = read_release_info(folder)
    files = [(rel, len(data), hashlib.sha256(data).hexdigest())
             for rel, data in staged_files(folder, repo_id).items()]
    release = info.get("release_version") or info["generator_version"]
    if tag and tag != f"v{release}":
        raise PublishError(f"--tag {tag}: {folder} is release {release}; its tag is v{release}")
    message = release_message(info)
    return Plan(repo_id, files, message, tag, private)


def release_message(info: dict) -> str:
    """The upload's commit message: the release version, the seed set and every row it holds
    (every part), with each part's generator version."""
    release = info.get("release_version") or info["generator_version"]
    parts = [(name, info[key]) for key, name in (("multi_hint", "two-fact"), ("blind", "blind-tier"))
             if info.get(key)]
    if not parts:
        return (f"MIRA-Math {release}: seed set {info['seed_set']}, {info['total']} instances "
                f"(generator {info['generator_version']})")
    total = info["total"] + sum(part["total"] for _, part in parts)
    each = "; ".join(f"{part['total']} {name}, generator {part['generator_version']}" for name, part in parts)
    return (f"MIRA-Math {release}: seed set {info['seed_set']}, {total} instances "
            f"({info['total']} one-fact, generator {info['generator_version']}; {each})")


def staged_files(folder: Path, repo_id: str) -> Dict[str, bytes]:
    """What is uploaded: the folder's files (hidden ones left out) as published under
    ``repo_id`` (:func:`~mira_math.generators.release.with_repo_id`); ``verify`` accepts them."""
    files: Dict[str, bytes] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        if not any(part.startswith(".") for part in rel.split("/")):
            files[rel] = path.read_bytes()
    return with_repo_id(files, repo_id)


def check_stage_target(out: Path) -> None:
    """Refuse, in one line, a ``--stage`` target that is not a new or empty folder (checked
    before the release is verified, so a mistyped target costs nothing)."""
    if out.is_symlink() and not out.exists():     # mkdir would fail on it with a traceback
        raise PublishError(f"--stage {out}: a symlink to {os.readlink(out)}, which does not exist; "
                           "give a new or empty folder")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise PublishError(f"--stage {out}: must be a new or empty folder")


def stage(folder: Path, repo_id: str, out: Path) -> List[str]:
    """Write exactly the files publishing uploads into ``out`` (an empty or new folder);
    returns their paths. ``verify out`` and ``eval --data out`` accept the result."""
    check_stage_target(out)
    staged = staged_files(folder, repo_id)
    for rel, data in staged.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(data)
    return list(staged)


def publish(folder: Path, the_plan: Plan, api: Any = None) -> str:
    """Create the repo (if needed), upload the folder as one commit (``eval.yaml`` in it), tag it. Returns the
    commit id. ``api`` defaults to ``HfApi()``, which takes ``HF_TOKEN`` or the usual login.
    A failing Hub call (offline, refused, a bad token) is one :class:`PublishError` naming
    the step; what was done before it is said, and publishing again repeats nothing twice
    (``exist_ok``, the same files, the tag last)."""
    if api is None:
        try:
            from huggingface_hub import HfApi  # optional dependency: pip install 'mira-math[hub]'
        except ImportError:
            raise PublishError("publishing needs huggingface_hub: pip install 'mira-math[hub]'") from None
        api = HfApi()
    hub = _HubSteps(the_plan.repo_id)
    if the_plan.tag and the_plan.tag in hub.call("reading the repo's tags", existing_tags, api,
                                                 the_plan.repo_id, read_only=True):
        raise PublishError(f"{the_plan.repo_id} already has tag {the_plan.tag}: a published "
                           f"version is never replaced; bump the version")
    staged = staged_files(folder, the_plan.repo_id)
    if [(rel, len(data), hashlib.sha256(data).hexdigest()) for rel, data in staged.items()] != the_plan.files:
        raise PublishError(f"{folder} changed since the plan was made; not publishing")
    hub.call("creating the repo", api.create_repo, the_plan.repo_id, repo_type=REPO_TYPE,
             private=the_plan.private, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mira-math-publish-") as tmp:
        for rel, data in staged.items():
            (Path(tmp) / rel).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / rel).write_bytes(data)
        commit = hub.call(
            "uploading the release", api.upload_folder,
            repo_id=the_plan.repo_id, folder_path=tmp, repo_type=REPO_TYPE,
            commit_message=the_plan.commit_message,
            allow_patterns=[path for path, _, _ in the_plan.files],
            # a family dropped from the folder leaves no stale file, and a held-out split
            # published over the public release leaves no eval.yaml registering it
            delete_patterns=["data/**", EVAL_YAML, CROISSANT],
        )
    if the_plan.tag:
        hub.call(f"tagging {the_plan.tag}", api.create_tag, the_plan.repo_id, tag=the_plan.tag,
                 repo_type=REPO_TYPE, revision=commit.oid)
    return commit.oid


class _HubSteps:
    """Runs the Hub calls in order; a failure names the step and what was already done."""

    def __init__(self, repo_id: str):
        self.repo_id = repo_id
        self.done: List[str] = []

    def call(self, step: str, function: Any, *args: Any, read_only: bool = False, **kwargs: Any) -> Any:
        try:
            result = function(*args, **kwargs)
        except PublishError:
            raise
        except Exception as err:   # requests/httpx errors, HfHubHTTPError, a bad token, ...
            text = " ".join(str(err).split())
            done = (f"done before it: {', '.join(self.done)}; run the same command again to finish"
                    if self.done else "nothing was changed on the Hub")
            raise PublishError(f"{self.repo_id}: {step} failed ({type(err).__name__}: "
                               f"{text[:200] or 'no message'}); {done}") from None
        if not read_only:
            self.done.append(step)
        return result
