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
from mira_math.generators.build import RELEASE_VERSION  # noqa: E402
from mira_math.generators.layout import DEFAULT_RELEASE  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
# The Hub's .eval_results entry (hub-docs eval-results.md and eval_results.yaml): every key it knows
ENTRY_FIELDS = {"dataset", "value", "verifyToken", "date", "source", "evaluation_framework", "notes"}
DATASET_FIELDS = {"id", "task_id", "config", "split", "revision"}
SOURCE_FIELDS = {"url", "name", "user", "org"}
RELEASE = DEFAULT_RELEASE

# verify regenerates each release once per session (tests/conftest.py: regenerate_once); every
# verify here still compares every byte of its own folder
pytestmark = pytest.mark.usefixtures("regenerate_once")


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
    # nothing huggingface_hub's schema lacks but the spec's optional evaluation_framework
    (raw,) = data
    assert set(raw) <= ENTRY_FIELDS and {"dataset", "value"} <= set(raw)
    assert set(raw["dataset"]) <= DATASET_FIELDS and {"id", "task_id"} <= set(raw["dataset"])
    assert set(raw["source"]) <= SOURCE_FIELDS and "url" in raw["source"]
    registered = yaml.safe_load(publishing.eval_yaml("1.1.0"))
    assert raw["evaluation_framework"] == registered["evaluation_framework"]   # as eval.yaml declares
    assert raw.pop("evaluation_framework") == "mira-math"
    assert hub.eval_result_entries_to_yaml([entry]) == data
    assert "responder rules" in entry.notes and "protocol 1." in entry.notes
    assert "model revision unknown" in entry.notes   # the reference solver has no weights
    declared = {t["id"] for t in yaml.safe_load(publishing.eval_yaml("1.1.0"))["tasks"]}
    assert entry.task_id in declared


def test_publish_uploads_eval_yaml_in_the_one_tagged_commit():
    api = mock.create_autospec(hub.HfApi, instance=True)
    api.upload_folder.return_value = SimpleNamespace(oid="abc123")
    plan = publishing.plan(RELEASE, "owner/mira-math", tag=f"v{RELEASE_VERSION}")
    assert len(plan.commits) == 1
    assert publishing.publish(RELEASE, plan, api=api) == "abc123"
    api.upload_file.assert_not_called()
    kwargs = api.upload_folder.call_args.kwargs
    assert "eval.yaml" in kwargs["allow_patterns"]
    registration = yaml.safe_load(publishing.staged_files(RELEASE, "owner/mira-math")["eval.yaml"])
    assert registration["name"] == "MIRA-Math" and registration["evaluation_framework"] == "mira-math"
    assert [(t["id"], t["config"], t["split"]) for t in registration["tasks"]] == [
        ("all", "all", "test"), ("type_a", "type_a", "test"), ("type_b", "type_b", "test")]
    names = [c[0] for c in api.method_calls]
    assert names.index("upload_folder") < names.index("create_tag")
