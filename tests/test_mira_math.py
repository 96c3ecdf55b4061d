"""Configs, the generated card, and loading every config with the real ``datasets``."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
import yaml

import mira_math
from generators import registry
from generators.release import read_release_info

RELEASE = Path(__file__).resolve().parents[1] / "mira-math"
EXPECTED_ROWS = {"all": 2310, "type_a": 660, "type_b": 1650,
                 **{n: 60 if registry.type_of(n) == "A" else 150 for n in registry.names()}}


def _front_matter() -> dict:
    text = (RELEASE / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n", 2)[1])


def test_configs_cover_types_and_every_family():
    cfg = mira_math.configs()
    assert list(cfg)[:3] == ["all", "type_a", "type_b"]
    assert set(cfg) == {"all", "type_a", "type_b", *registry.names()}
    assert cfg["all"] == cfg["type_a"] + cfg["type_b"]


def test_card_yaml_parses_and_matches_the_release():
    meta = _front_matter()
    assert meta["license"] == "cc-by-4.0" and meta["pretty_name"] == "MIRA-Math"
    assert [c["config_name"] for c in meta["configs"]] == list(mira_math.configs())
    assert [c.get("default", False) for c in meta["configs"]].count(True) == 1
    sizes = {i["config_name"]: i["splits"][0]["num_examples"] for i in meta["dataset_info"]}
    assert sizes == EXPECTED_ROWS
    names = [f["name"] for f in meta["dataset_info"][0]["features"]]
    assert names == ["id", "family", "type", "difficulty", "level", "seed", "seed_set",
                     "generator_version", "view", "responder", "hints", "answer",
                     "candidate_answers", "latent"]


def test_card_body_is_the_datasheet():
    text = (RELEASE / "README.md").read_text(encoding="utf-8")
    assert text.endswith(mira_math.CARD_SOURCE.read_text(encoding="utf-8"))
    for section in ("## Summary", "## Access", "## Composition", "## Fields", "## Generation procedure",
                    "## Labels, hints and verifiers", "## Interaction protocol", "## Metrics",
                    "## Quality controls", "## Intended uses", "## Out-of-scope uses", "## Limitations",
                    "## Licensing", "## Maintenance and versioning", "## Ethics", "## Changelog"):
        assert section in text, section
    info = read_release_info(RELEASE)
    assert f"generator version {info['generator_version']}" in text


def test_yaml_emitter_round_trips_awkward_strings():
    value = {"a": ["x: y", "- z", "#hash", "quote \" and \\ backslash", "ünïcode ≡"],
             "b": [{"c": 1, "d": [True, {"e": "f"}]}], "g": [], "h": "1<n<10K"}
    assert yaml.safe_load("\n".join(mira_math._yaml(value))) == value


@pytest.mark.parametrize("config", list(mira_math.configs()))
def test_load_dataset_every_config(config, tmp_path, monkeypatch):
    from datasets import load_dataset

    monkeypatch.chdir(RELEASE.parent)
    ds = load_dataset("mira-math", config, split="test", cache_dir=str(tmp_path))
    assert ds.num_rows == EXPECTED_ROWS[config]
    if config in registry.names():
        assert set(ds["family"]) == {config}
    assert ds.features["candidate_answers"].dtype == "int64"


def test_load_dataset_default_config_is_all(tmp_path, monkeypatch):
    from datasets import load_dataset

    monkeypatch.chdir(RELEASE.parent)
    ds = load_dataset("mira-math", cache_dir=str(tmp_path))
    assert ds["test"].num_rows == 2310


def test_row_count_is_checked_on_load(tmp_path):
    import shutil

    from datasets import load_dataset
    from datasets.exceptions import NonMatchingSplitsSizesError

    copy = tmp_path / "mira-math"
    shutil.copytree(RELEASE, copy)
    path = copy / "data" / "moment_problem" / "test.jsonl"
    path.write_text("".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:-1]),
                    encoding="utf-8")
    with pytest.raises(NonMatchingSplitsSizesError):
        load_dataset(str(copy), "moment_problem", split="test", cache_dir=str(tmp_path / "c"))


def test_load_helper_decodes_the_latent_state(tmp_path):
    ds = mira_math.load("moment_problem", cache_dir=str(tmp_path))
    row = ds[0]
    assert row["id"] == "mom-000360" and isinstance(row["latent"], dict)
    assert mira_math.load("bayes_missing_prior", cache_dir=str(tmp_path))[0]["latent"]["prior"].__class__ is Fraction
    with pytest.raises(ValueError, match="unknown config"):
        mira_math.load("nope")
