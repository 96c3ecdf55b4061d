"""Publish is a round trip: ``publish --dry-run --stage DIR`` writes exactly the files
the upload would hold, laid out as ``snapshot_download`` leaves them (hidden files included:
the Hub's ``.gitattributes``, ``local_dir``'s ``.cache/huggingface/`` bookkeeping, the cache's
blob symlinks), and ``verify`` and ``eval --data`` accept the copy; for the public release and
for a held-out split. No network: huggingface_hub's own layout helpers, no Hub call."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import pytest

from mira_math.cli.main import main
from mira_math.generators import publish as publishing
from mira_math.generators.release import read_release_info

hub = pytest.importorskip("huggingface_hub")
from huggingface_hub import _local_folder  # noqa: E402
from huggingface_hub.file_download import repo_folder_name  # noqa: E402

RELEASE = Path(__file__).resolve().parents[2] / "mira-math"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
GITATTRIBUTES = b"*.jsonl filter=lfs diff=lfs merge=lfs -text\n"   # what the Hub adds

# verify regenerates each release once per session (tests/conftest.py: regenerate_once); every
# verify here still compares every byte of its own folder
pytestmark = pytest.mark.usefixtures("regenerate_once")


def _stage(folder: Path, out: Path, capsys, repo_id: str = "owner/mira-math") -> set:
    """Stage through the CLI; returns the files the dry run listed (and checks it is all of them)."""
    assert main(["publish", "--repo-id", repo_id, "--dry-run", "--dir", str(folder),
                 "--stage", str(out)]) == 0
    text = capsys.readouterr().out
    listed = set(re.findall(r"^  [0-9a-f]{64}\s+\d+\s+(\S+)$", text, re.MULTILINE))
    staged = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert listed == staged and "commit 1 of 1:" in text and "commit 2" not in text
    assert "dry run: nothing uploaded" in text
    return staged


def _local_dir_layout(staged: Path, local_dir: Path) -> Path:
    """``snapshot_download(repo_id, local_dir=...)``: the files, the Hub's .gitattributes, and
    huggingface_hub's ``.cache/huggingface/download/*.metadata`` for each."""
    shutil.copytree(staged, local_dir)
    (local_dir / ".gitattributes").write_bytes(GITATTRIBUTES)
    for path in sorted(p for p in staged.rglob("*") if p.is_file()):
        rel = path.relative_to(staged).as_posix()
        _local_folder.write_download_metadata(local_dir, rel, COMMIT, hashlib.sha256(path.read_bytes()).hexdigest())
    assert (local_dir / ".cache" / "huggingface" / ".gitignore").is_file()
    return local_dir


def _cache_layout(staged: Path, cache: Path, repo_id: str) -> Path:
    """``snapshot_download(repo_id)`` into the cache: blobs, refs/main, and a snapshot folder of
    symlinks; returns the snapshot folder (what snapshot_download returns)."""
    repo = cache / repo_folder_name(repo_id=repo_id, repo_type="dataset")
    snapshot = repo / "snapshots" / COMMIT
    files = {p.relative_to(staged).as_posix(): p.read_bytes() for p in staged.rglob("*") if p.is_file()}
    files[".gitattributes"] = GITATTRIBUTES
    for rel, data in files.items():
        blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
        blob.parent.mkdir(parents=True, exist_ok=True)
        blob.write_bytes(data)
        link = snapshot / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(os.path.relpath(blob, link.parent), link)
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(COMMIT)
    return snapshot


def _verify_and_eval(folder: Path, run: Path, capsys) -> None:
    assert main(["verify", str(folder)]) == 0, capsys.readouterr().out
    assert "verified" in capsys.readouterr().out
    assert main(["eval", "--solver", "reference", "--data", str(folder), "--limit", "12",
                 "--out", str(run)]) == 0
    lines = (run / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 12


def test_public_release_round_trip(tmp_path, capsys):
    staged = _stage(RELEASE, tmp_path / "staged", capsys)
    assert {"eval.yaml", "croissant.json", "CHECKSUMS.sha256", "README.md", "release_info.json"} <= staged
    manifest = (tmp_path / "staged" / "CHECKSUMS.sha256").read_text(encoding="utf-8")
    assert "  eval.yaml\n" in manifest and "  croissant.json\n" in manifest   # covered, so verify accepts it
    local = _local_dir_layout(tmp_path / "staged", tmp_path / "local")
    _verify_and_eval(local, tmp_path / "run-local", capsys)
    snapshot = _cache_layout(tmp_path / "staged", tmp_path / "hub-cache", "owner/mira-math")
    _verify_and_eval(snapshot, tmp_path / "run-cache", capsys)


def test_a_downloaded_copy_with_a_changed_byte_fails(tmp_path, capsys):
    _stage(RELEASE, tmp_path / "staged", capsys)
    local = _local_dir_layout(tmp_path / "staged", tmp_path / "local")
    target = local / "eval.yaml"
    target.write_bytes(target.read_bytes().replace(b"mira-math", b"inspect-ai", 1))
    assert main(["verify", str(local)]) == 1
    assert "eval.yaml" in capsys.readouterr().out


@pytest.fixture(scope="module")
def small_heldout(tmp_path_factory):
    out = tmp_path_factory.mktemp("heldout") / "split"
    assert main(["generate", "--seed-set", "roundtrip-test", "--out", str(out), "--families",
                 "moment_problem", "circuit_missing_resistance", "--per-type", "2/3"]) == 0
    return out


def test_heldout_split_round_trip_registers_no_benchmark(small_heldout, tmp_path, capsys):
    staged = _stage(small_heldout, tmp_path / "staged", capsys, "owner/mira-math-heldout")
    assert "eval.yaml" not in staged and "croissant.json" in staged
    local = _local_dir_layout(tmp_path / "staged", tmp_path / "local")
    _verify_and_eval(local, tmp_path / "run", capsys)
    snapshot = _cache_layout(tmp_path / "staged", tmp_path / "hub-cache", "owner/mira-math-heldout")
    assert main(["verify", str(snapshot)]) == 0


def test_a_heldout_split_published_over_the_benchmark_removes_its_eval_yaml(small_heldout):
    api = mock.create_autospec(hub.HfApi, instance=True)
    api.upload_folder.return_value = SimpleNamespace(oid="abc123")
    plan = publishing.plan(small_heldout, "owner/mira-math")
    publishing.publish(small_heldout, plan, api=api)
    kwargs = api.upload_folder.call_args.kwargs
    assert "eval.yaml" not in kwargs["allow_patterns"] and "eval.yaml" in kwargs["delete_patterns"]
    api.upload_file.assert_not_called()           # one commit: nothing uploaded apart


def test_stage_refuses_a_non_empty_folder(tmp_path, capsys):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("x")
    assert main(["publish", "--repo-id", "owner/x", "--dry-run", "--stage", str(tmp_path / "busy")]) == 1
    assert "must be a new or empty folder" in capsys.readouterr().err


def test_only_the_public_release_carries_eval_yaml(small_heldout):
    assert (RELEASE / "eval.yaml").is_file()
    assert not (small_heldout / "eval.yaml").exists()
    assert read_release_info(small_heldout)["seed_set"] == "roundtrip-test"
    meta = json.loads((small_heldout / "croissant.json").read_text(encoding="utf-8"))
    assert "held-out seed set roundtrip-test" in meta["name"]
