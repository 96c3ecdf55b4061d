"""The Hub's evaluation results, offline: ``score --eval-results`` files parse with
huggingface_hub's own ``.eval_results`` reader and match its writer byte for byte in content;
``publish`` uploads ``eval.yaml`` declaring the task ids those files name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import pytest

yaml = pytest.importorskip("yaml")
hub = pytest.importorskip("huggingface_hub")
if not hasattr(hub, "parse_eval_result_entries"):
    pytest.skip("huggingface_hub without the .eval_results helpers", allow_module_level=True)

from mira_math.generators import publish as publishing  # noqa: E402
from mira_math.generators.layout import DEFAULT_RELEASE  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RELEASE = DEFAULT_RELEASE


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mira_math.cli", *args], cwd=ROOT,
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("runs")
    for name, extra in (("full_b", ["--config", "type_b"]), ("limited", ["--limit", "5"]),
                        ("fam", ["--config", "crt_reconstruction"])):
        out = _cli("eval", "--solver", "reference", "--out", str(base / name), *extra)
        assert out.returncode == 0, out.stderr
    return base


def test_score_writes_eval_results_that_the_hub_reads(runs, tmp_path):
    model_repo = tmp_path / "model"
    out = _cli("score", str(runs / "full_b"), str(runs / "limited"), str(runs / "fam"),
               "--eval-results", str(model_repo), "--dataset-id", "owner/mira-math",
               "--source-url", "https://example.org/run")
    assert out.returncode == 0, out.stderr
    files = sorted((model_repo / ".eval_results").glob("*.yaml"))
    assert len(files) == 1 and files[0].name.startswith("mira-math-type_b-reference-zs-")
    assert "a subset (--ids, --limit or --sample)" in out.stdout
    assert "none of the tasks eval.yaml declares" in out.stdout
    data = yaml.safe_load(files[0].read_text(encoding="utf-8"))
    (entry,) = hub.parse_eval_result_entries(data)
    assert (entry.dataset_id, entry.task_id, entry.value) == ("owner/mira-math", "type_b", 1.0)
    assert entry.source_url == "https://example.org/run" and entry.source_name == "mira-math"
    assert entry.date and entry.date.endswith("Z") and "solver reference" in entry.notes
    assert hub.eval_result_entries_to_yaml([entry]) == data       # nothing the schema lacks
    declared = {t["id"] for t in yaml.safe_load(publishing.eval_yaml("1.1.0"))["tasks"]}
    assert entry.task_id in declared


def test_publish_uploads_eval_yaml_before_the_tagged_commit():
    api = mock.create_autospec(hub.HfApi, instance=True)
    api.upload_folder.return_value = SimpleNamespace(oid="abc123")
    plan = publishing.plan(RELEASE, "owner/mira-math", tag="v1.0.0")
    assert publishing.publish(RELEASE, plan, api=api) == "abc123"
    kwargs = api.upload_file.call_args.kwargs
    assert kwargs["path_in_repo"] == "eval.yaml" and kwargs["repo_type"] == "dataset"
    registration = yaml.safe_load(kwargs["path_or_fileobj"].decode("utf-8"))
    assert registration["name"] == "MIRA-Math" and registration["evaluation_framework"] == "inspect-ai"
    assert [(t["id"], t["config"], t["split"]) for t in registration["tasks"]] == [
        ("all", "all", "test"), ("type_a", "type_a", "test"), ("type_b", "type_b", "test")]
    names = [c[0] for c in api.method_calls]
    assert names.index("upload_file") < names.index("upload_folder") < names.index("create_tag")
