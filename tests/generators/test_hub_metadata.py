"""The release's Hub metadata: ``eval.yaml`` against the Hub's eval-results spec
fields, ``croissant.json`` against Croissant 1.1 and its responsible-AI vocabulary, the card's
datasheet fields, and the canary GUID (in the card and every data file's documentation, never
inside the frozen v1.1 instance bytes).

``mlcroissant`` (with pandas, scipy, rdflib: ~370 MB) is not in the ``test`` extra; the field
checks here run everywhere, and :func:`test_mlcroissant_reads_every_record` runs where it is
installed (docs/decisions/release.md)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from mira_math.generators.card import configs
from mira_math.generators.hub_files import CANARY, CANARY_GUID, FRAMEWORK_ID, RAI
from mira_math.generators.release import family_files

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]
RELEASE = ROOT / "mira-math"

# The Hub's eval.yaml (hub-docs, "Registering a Benchmark"): these keys, tasks of id/config/split.
EVAL_YAML_FIELDS = {"name": str, "description": str, "evaluation_framework": str, "tasks": list}
EVAL_TASK_FIELDS = {"id", "config", "split"}
# Croissant 1.1: what a Dataset must state, and the RAI vocabulary venues ask for.
CROISSANT_REQUIRED = {"@context", "@type", "conformsTo", "name", "description", "license", "url",
                      "distribution", "recordSet", "creator", "datePublished", "version", "citeAs"}
RAI_REQUIRED = {"rai:dataLimitations", "rai:dataBiases", "rai:dataUseCases",
                "rai:personalSensitiveInformation", "rai:dataCollectionType", "rai:hasSyntheticData",
                "rai:dataSocialImpact", "rai:dataReleaseMaintenancePlan"}


def _front_matter() -> dict:
    text = (RELEASE / "README.md").read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---\n")[1])


def test_eval_yaml_has_the_spec_fields_and_names_configs():
    doc = yaml.safe_load((RELEASE / "eval.yaml").read_text(encoding="utf-8"))
    assert set(doc) == set(EVAL_YAML_FIELDS)
    assert all(isinstance(doc[k], kind) for k, kind in EVAL_YAML_FIELDS.items())
    assert doc["evaluation_framework"] == FRAMEWORK_ID == "mira-math"   # MIRA's own harness, not inspect-ai
    assert re.fullmatch(r"[a-z0-9][a-z0-9-]*", doc["evaluation_framework"])
    card_configs = {c["config_name"] for c in _front_matter()["configs"]}
    for task in doc["tasks"]:
        assert set(task) == EVAL_TASK_FIELDS
        assert task["config"] in card_configs and task["config"] in configs() and task["split"] == "test"
    assert [t["id"] for t in doc["tasks"]] == ["all", "type_a", "type_b"]


def test_card_has_the_datasheet_fields():
    meta = _front_matter()
    assert meta["annotations_creators"] == ["machine-generated"]
    assert meta["language_creators"] == ["machine-generated"]
    assert meta["multilinguality"] == ["monolingual"]
    assert meta["source_datasets"] == ["original"]


def test_croissant_has_the_core_and_rai_fields_and_every_file_sha256():
    doc = json.loads((RELEASE / "croissant.json").read_text(encoding="utf-8"))
    assert CROISSANT_REQUIRED <= set(doc) and RAI_REQUIRED <= set(doc)
    assert doc["@type"] == "sc:Dataset" and doc["conformsTo"] == "http://mlcommons.org/croissant/1.1"
    assert doc["@context"]["rai"] == "http://mlcommons.org/croissant/RAI/"
    assert doc["rai:hasSyntheticData"] is True and doc["rai:dataCollectionType"] == ["Synthetic data"]
    assert all(doc[k] == v for k, v in RAI.items())
    objects = [d for d in doc["distribution"] if d["@type"] == "cr:FileObject"]
    files = family_files(RELEASE)
    assert [o["contentUrl"] for o in objects] == [f.relative_to(RELEASE).as_posix() for f in files]
    for obj, path in zip(objects, files):
        assert obj["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert obj["encodingFormat"] == "application/jsonlines"
    fields = doc["recordSet"][0]["field"]
    first = json.loads(files[0].read_text(encoding="utf-8").splitlines()[0])
    assert {f["name"] for f in fields} <= set(first)            # every declared column exists


def test_canary_is_in_the_card_and_every_data_files_documentation_not_in_the_data(counts):
    readme = (RELEASE / "README.md").read_text(encoding="utf-8")
    assert CANARY_GUID in readme and CANARY_GUID in (ROOT / "dataset_card.md").read_text(encoding="utf-8")
    doc = json.loads((RELEASE / "croissant.json").read_text(encoding="utf-8"))
    described = [d for d in doc["distribution"] if d["@type"] in ("cr:FileObject", "cr:FileSet")]
    # one FileObject per one-fact data file, and the FileSet of every JSONL file
    assert len(described) == len(counts.families) + 1 and all(CANARY in d["description"] for d in described)
    assert CANARY in doc["description"]
    for path in family_files(RELEASE):                          # the frozen v1.1 bytes carry none
        assert CANARY_GUID.encode() not in path.read_bytes()


def test_release_checksums_cover_the_new_files(counts):
    listed = {line.split("  ", 1)[1] for line in (RELEASE / "CHECKSUMS.sha256").read_text().splitlines()}
    assert {"eval.yaml", "croissant.json", "README.md", "release_info.json"} <= listed
    assert sum(p.startswith("data/") for p in listed) == counts.data_files


def test_mlcroissant_reads_every_record(counts):
    mlc = pytest.importorskip("mlcroissant")   # optional: not in the test extra (see module doc)
    dataset = mlc.Dataset(jsonld=str(RELEASE / "croissant.json"))
    assert not dataset.metadata.ctx.issues.errors and not dataset.metadata.ctx.issues.warnings
    assert dataset.metadata.data_limitations == RAI["rai:dataLimitations"]
    assert sum(1 for _ in dataset.records("instances")) == counts.total
