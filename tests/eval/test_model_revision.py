"""The model revision in every run manifest and in ``.eval_results``: the Hub commit
sha read from the local Hugging Face cache (never the network), a sha256 for a local path."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mira_math.eval.model_revision import model_revision, revision_label, with_revisions
from mira_math.game.protocol import PROTOCOL_VERSION

ROOT = Path(__file__).resolve().parents[2]
SHA = "a" * 40
OTHER = "b" * 40


@pytest.fixture
def cache(tmp_path):
    """A hub cache as huggingface_hub leaves it: refs/main, snapshots/<sha>/ (no network)."""
    repo = tmp_path / "hub" / "models--org--tiny-model"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(SHA)
    (repo / "refs" / "v2").write_text(OTHER)
    for sha in (SHA, OTHER):
        (repo / "snapshots" / sha).mkdir(parents=True)
        (repo / "snapshots" / sha / "config.json").write_text("{}")
    return tmp_path / "hub"


def test_a_hub_model_is_named_by_its_cached_commit_sha(cache):
    assert model_revision("org/tiny-model", cache=cache) == {"source": "hub", "repo": "org/tiny-model", "sha": SHA}
    assert model_revision("org/tiny-model", "v2", cache=cache)["sha"] == OTHER
    assert model_revision("org/tiny-model", OTHER, cache=cache)["sha"] == OTHER
    missing = model_revision("org/not-cached", cache=cache)
    assert missing["source"] is None and "not in the local Hugging Face cache" in missing["why"]


def test_the_cache_is_found_through_the_environment(cache, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    assert model_revision("org/tiny-model")["sha"] == SHA


def test_a_snapshot_path_and_a_local_path(cache, tmp_path):
    snapshot = cache / "models--org--tiny-model" / "snapshots" / OTHER
    assert model_revision(str(snapshot)) == {"source": "hub", "repo": "org/tiny-model", "sha": OTHER}
    weights = tmp_path / "model.gguf"
    weights.write_bytes(b"weights")
    assert model_revision(str(weights)) == {"source": "local", "sha256": hashlib.sha256(b"weights").hexdigest()}
    folder = tmp_path / "local-model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    first = model_revision(str(folder))["sha256"]
    (folder / "config.json").write_text('{"x": 1}')
    assert model_revision(str(folder))["sha256"] != first


def test_every_role_gets_a_revision(cache, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    models = with_revisions({"solver": {"backend": "vllm", "model": "org/tiny-model", "revision": "v2"},
                             "responder": {"name": "rules"}})
    assert models["solver"]["model_revision"]["sha"] == OTHER and models["solver"]["revision"] == "v2"
    assert models["responder"]["model_revision"]["source"] is None
    assert revision_label(models["solver"]) == OTHER and revision_label(models["responder"]) == "unknown"
    api = with_revisions({"solver": {"backend": "openai", "model": "gpt-x"}})
    assert api["solver"]["model_revision"]["source"] is None


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mira_math.cli", *args], cwd=ROOT, capture_output=True, text=True)


def test_the_manifest_and_eval_results_carry_the_revision(tmp_path):
    yaml = pytest.importorskip("yaml")
    run = tmp_path / "run"
    assert _cli("eval", "--solver", "reference", "--config", "type_a", "--out", str(run)).returncode == 0
    manifest = json.loads((run / "manifest.json").read_text())
    assert "model_revision" in manifest["models"]["solver"] and "model_revision" in manifest["models"]["responder"]
    # a run whose solver came from the Hub: its manifest as the runner writes it for such a model
    manifest["models"]["solver"] = with_revisions({"solver": {"model": "org/tiny-model"}})["solver"]
    manifest["models"]["solver"]["model_revision"] = {"source": "hub", "repo": "org/tiny-model", "sha": SHA}
    (run / "manifest.json").write_text(json.dumps(manifest, indent=2))
    out = _cli("score", str(run), "--eval-results", str(tmp_path / "model"), "--dataset-id", "owner/mira-math")
    assert out.returncode == 0, out.stderr
    (path,) = (tmp_path / "model" / ".eval_results").glob("*.yaml")
    (entry,) = yaml.safe_load(path.read_text())
    assert f"model revision {SHA}" in entry["notes"] and "responder rules" in entry["notes"]
    assert f"protocol {PROTOCOL_VERSION}" in entry["notes"] and entry["evaluation_framework"] == "mira-math"
