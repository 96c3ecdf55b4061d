"""``mira-math publish`` against ``create_autospec(HfApi)``: no test reaches the real Hub."""

from __future__ import annotations

import hashlib
import shutil
from types import SimpleNamespace
from unittest import mock

import pytest
from huggingface_hub import HfApi

from mira_math.generators import publish as publishing
from mira_math.cli.main import main

from mira_math.generators.build import RELEASE_VERSION
from mira_math.generators.layout import DEFAULT_RELEASE as RELEASE

TAG = f"v{RELEASE_VERSION}"    # the one tag a release folder may be published under
# verify regenerates each release once per session (tests/conftest.py: regenerate_once); every
# verify here still compares every byte of its own folder
pytestmark = pytest.mark.usefixtures("regenerate_once")


@pytest.fixture
def api():
    fake = mock.create_autospec(HfApi, instance=True)
    fake.upload_folder.return_value = SimpleNamespace(oid="abc123")
    return fake


def test_plan_lists_every_file_with_size_and_sha256(counts):
    plan = publishing.plan(RELEASE, "owner/mira-math", tag=TAG)
    paths = [p for p, _, _ in plan.files]
    assert "README.md" in paths and "CHECKSUMS.sha256" in paths and "release_info.json" in paths
    assert "eval.yaml" in paths and "croissant.json" in paths
    assert sum(p.startswith("data/") for p in paths) == counts.data_files
    staged = publishing.staged_files(RELEASE, "owner/mira-math")
    for path, size, sha in plan.files:
        data = staged[path]
        if path not in ("README.md", "CHECKSUMS.sha256", "croissant.json"):   # these name the repo
            assert data == (RELEASE / path).read_bytes()
        assert size == len(data) and sha == hashlib.sha256(data).hexdigest()
    two_fact = counts.info["multi_hint"]["total"]      # every part, each with its generator
    assert f"{counts.total + two_fact + counts.blind_total} instances ({counts.total} one-fact" \
        in plan.commit_message
    assert f"{counts.blind_total} blind-tier, generator" in plan.commit_message


def test_publish_creates_uploads_and_tags(api):
    plan = publishing.plan(RELEASE, "owner/mira-math", tag=TAG, private=True)
    assert publishing.publish(RELEASE, plan, api=api) == "abc123"
    api.create_repo.assert_called_once_with("owner/mira-math", repo_type="dataset", private=True,
                                            exist_ok=True)
    kwargs = api.upload_folder.call_args.kwargs
    assert kwargs["repo_id"] == "owner/mira-math" and kwargs["repo_type"] == "dataset"
    assert kwargs["folder_path"] != str(RELEASE)        # a staged copy: the card names the repo
    assert sorted(kwargs["allow_patterns"]) == sorted(p for p, _, _ in plan.files)
    api.create_tag.assert_called_once_with("owner/mira-math", tag=TAG, repo_type="dataset",
                                           revision="abc123")


def test_publish_without_tag_makes_no_tag(api):
    plan = publishing.plan(RELEASE, "owner/mira-math")
    publishing.publish(RELEASE, plan, api=api)
    api.create_tag.assert_not_called()


def test_refuses_a_folder_that_fails_verify(tmp_path, api):
    copy = tmp_path / "release"
    shutil.copytree(RELEASE, copy)
    target = copy / "data" / "crt_reconstruction" / "test.jsonl"
    target.write_bytes(target.read_bytes().replace(b'"seed_set":"public-20-50"', b'"seed_set":"public-20-51"', 1))
    with pytest.raises(publishing.PublishError, match="fails verify"):
        publishing.plan(copy, "owner/mira-math")
    assert main(["publish", "--repo-id", "owner/x", "--dir", str(copy), "--dry-run"]) == 1


def test_dry_run_prints_the_plan_and_uploads_nothing(capsys, monkeypatch):
    called = []
    monkeypatch.setattr(publishing, "publish", lambda *a, **k: called.append(a))
    assert main(["publish", "--repo-id", "owner/mira-math", "--tag", TAG, "--dry-run",
                 "--dir", str(RELEASE)]) == 0
    out = capsys.readouterr().out
    assert "owner/mira-math" in out and "data/moment_problem/test.jsonl" in out
    assert f"tag: {TAG}" in out and "dry run" in out and not called


@pytest.mark.parametrize("repo_id", ["notvalid", "owner/", "/name", "a/b/c", "own er/name", "owner/na..me"])
def test_refuses_a_malformed_repo_id_before_verifying(repo_id, capsys):
    with pytest.raises(publishing.PublishError, match="OWNER/NAME"):
        publishing.plan(RELEASE / "no-such-folder", repo_id)
    assert main(["publish", "--repo-id", repo_id, "--dry-run", "--dir", str(RELEASE)]) == 1
    assert "expected OWNER/NAME" in capsys.readouterr().err


@pytest.mark.parametrize("tag", ["1.0", "v1.0", "1.0.0", "v1.0.0-rc1", "latest"])
def test_refuses_a_tag_that_is_not_vxyz(tag, capsys):
    assert main(["publish", "--repo-id", "owner/mira-math", "--tag", tag, "--dry-run",
                 "--dir", str(RELEASE)]) == 1
    assert "expected vX.Y.Z" in capsys.readouterr().err


def test_republishing_an_existing_tag_is_refused_before_the_upload(api):
    api.list_repo_refs.return_value = SimpleNamespace(tags=[SimpleNamespace(name=TAG)],
                                                      branches=[])
    plan = publishing.plan(RELEASE, "owner/mira-math", tag=TAG)
    with pytest.raises(publishing.PublishError, match=f"already has tag {TAG}"):
        publishing.publish(RELEASE, plan, api=api)
    api.create_repo.assert_not_called()
    api.upload_folder.assert_not_called()
    api.create_tag.assert_not_called()
    api.list_repo_refs.return_value = SimpleNamespace(tags=[SimpleNamespace(name="v1.2.0")],
                                                      branches=[])
    assert publishing.publish(RELEASE, plan, api=api) == "abc123"     # an earlier release's tag
    api.create_tag.assert_called_once()


def test_a_new_repo_has_no_tags(api):
    from huggingface_hub.errors import RepositoryNotFoundError

    api.list_repo_refs.side_effect = RepositoryNotFoundError("404", response=mock.Mock())
    plan = publishing.plan(RELEASE, "owner/new-repo", tag=TAG)
    assert publishing.publish(RELEASE, plan, api=api) == "abc123"


def test_the_published_card_names_the_repo_and_still_verifies(tmp_path):
    from mira_math.generators.release import verify_release

    staged = publishing.staged_files(RELEASE, "someone/mira-math")
    readme = staged["README.md"].decode("utf-8")
    assert 'ds = load_dataset("someone/mira-math", "type_b"' in readme
    assert "huggingface.co/datasets/someone/mira-math" in readme and '"OWNER/NAME"' not in readme
    assert '"OWNER/NAME"' in (RELEASE / "README.md").read_text(encoding="utf-8")   # the checkout's copy
    folder = tmp_path / "published"
    for rel, data in staged.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    assert verify_release(folder).ok                      # every data byte and the filled card
    again = publishing.staged_files(folder, "other/name")["README.md"].decode("utf-8")
    assert 'load_dataset("other/name"' in again and "someone/mira-math" not in again
    (folder / "README.md").write_text(readme.replace("someone/mira-math", "someone/else", 1), encoding="utf-8")
    assert not verify_release(folder).ok                  # a half-edited card is not the release


def test_publish_refuses_a_folder_changed_after_the_plan(tmp_path, api):
    copy = tmp_path / "release"
    shutil.copytree(RELEASE, copy)
    plan = publishing.plan(copy, "owner/mira-math")
    (copy / "release_info.json").write_bytes((copy / "release_info.json").read_bytes() + b" ")
    with pytest.raises(publishing.PublishError, match="changed since the plan"):
        publishing.publish(copy, plan, api=api)
    api.upload_folder.assert_not_called()
