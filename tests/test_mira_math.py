"""Configs, the generated card, and loading every config with the real ``datasets``."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

import mira_math
from mira_math.generators import registry
from mira_math.generators.card import CARD_SOURCE, _yaml
from mira_math.generators.release import read_release_info
from mira_math.generators.requests import REQUESTS_PATH

from mira_math.generators.layout import DEFAULT_RELEASE as RELEASE


@pytest.fixture(scope="module")
def expected_rows(counts) -> dict:
    """Rows per config, from release_info.json (whose own consistency test_release.py checks)."""
    return {"all": counts.total, "type_a": counts.by_type["A"], "type_b": counts.by_type["B"],
            **counts.per_family,
            # the two-fact part
            "multi_hint": counts.multi_hint_total, "multi_hint_type_a": counts.multi_hint_by_type["A"],
            "multi_hint_type_b": counts.multi_hint_by_type["B"],
            **{f"multi_hint_{n}": c for n, c in counts.multi_hint.items()},
            # the blind tier (a type's config only where the tier has families of that type)
            "blind": counts.blind_total,
            **{f"blind_type_{t.lower()}": sum(c for n, c in counts.blind.items() if registry.type_of(n) == t)
               for t in ("A", "B") if any(registry.type_of(n) == t for n in counts.blind)},
            **{f"blind_{n}": c for n, c in counts.blind.items()},
            # the labelled request set: its own config, one request a line
            "responder_check": (RELEASE / REQUESTS_PATH).read_bytes().count(b"\n")}


def _front_matter() -> dict:
    text = (RELEASE / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n", 2)[1])


def test_configs_cover_types_and_every_family():
    cfg = mira_math.configs()
    assert list(cfg)[:3] == ["all", "type_a", "type_b"]
    assert set(cfg) == {"all", "type_a", "type_b", *registry.names(), "multi_hint", "multi_hint_type_a",
                        "multi_hint_type_b", *(f"multi_hint_{n}" for n in registry.multi_hint_names()),
                        "blind", "blind_type_a", "blind_type_b", *(f"blind_{n}" for n in registry.blind_names()),
                        "responder_check"}
    assert cfg["all"] == cfg["type_a"] + cfg["type_b"]
    assert cfg["multi_hint"] == cfg["multi_hint_type_a"] + cfg["multi_hint_type_b"]
    assert cfg["blind"] == cfg["blind_type_a"] + cfg["blind_type_b"]


def test_card_yaml_parses_and_matches_the_release(expected_rows):
    meta = _front_matter()
    assert meta["license"] == "cc-by-4.0" and meta["pretty_name"] == "MIRA-Math"
    assert [c["config_name"] for c in meta["configs"]] == [n for n, files in mira_math.configs().items() if files]
    assert [c.get("default", False) for c in meta["configs"]].count(True) == 1
    sizes = {i["config_name"]: i["splits"][0]["num_examples"] for i in meta["dataset_info"]}
    assert sizes == expected_rows
    names = [f["name"] for f in meta["dataset_info"][0]["features"]]
    assert names == ["id", "family", "type", "difficulty", "level", "seed", "seed_set",
                     "generator_version", "view", "responder", "hints", "answer",
                     "candidate_answers", "latent"]
    multi = next(i for i in meta["dataset_info"] if i["config_name"] == "multi_hint")
    assert [f["name"] for f in multi["features"]] == names + ["hint_groups"]
    blind = next(i for i in meta["dataset_info"] if i["config_name"] == "blind")
    assert [f["name"] for f in blind["features"]] == names + ["gaps"]


def test_card_body_is_the_datasheet():
    text = (RELEASE / "README.md").read_text(encoding="utf-8")
    assert text.endswith(CARD_SOURCE.read_text(encoding="utf-8"))
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
    assert yaml.safe_load("\n".join(_yaml(value))) == value


@pytest.mark.parametrize("config", [n for n, files in mira_math.configs().items() if files])
def test_load_dataset_every_config(config, expected_rows, tmp_path, monkeypatch):
    from datasets import load_dataset

    monkeypatch.chdir(RELEASE.parent)
    ds = load_dataset(RELEASE.name, config, split="test", cache_dir=str(tmp_path))
    assert ds.num_rows == expected_rows[config]
    if config in registry.names():
        assert set(ds["family"]) == {config}
    if config == "responder_check":
        assert set(ds["label"]) == {"offer", "decline"} and ds.features["difficulty"].dtype == "int64"
        return
    assert ds.features["candidate_answers"].dtype == "int64"
    assert ("hint_groups" in ds.features) == config.startswith("multi_hint")
    if config.startswith("multi_hint"):
        assert all(len(groups) == 2 for groups in ds["hint_groups"])
    assert ("gaps" in ds.features) == config.startswith("blind")
    if config.startswith("blind"):     # the proofs' optional degree reads back as null or an int
        assert {g["kind"] for g in ds["gaps"]} == {"control", "incomplete", "irrelevant_gaps"}


def test_load_dataset_default_config_is_all(counts, tmp_path, monkeypatch):
    from datasets import load_dataset

    monkeypatch.chdir(RELEASE.parent)
    ds = load_dataset(RELEASE.name, cache_dir=str(tmp_path))
    assert ds["test"].num_rows == counts.total


def test_row_count_is_checked_on_load(tmp_path):
    import shutil

    from datasets import load_dataset
    from datasets.exceptions import NonMatchingSplitsSizesError

    copy = tmp_path / RELEASE.name
    shutil.copytree(RELEASE, copy)
    path = copy / "data" / "moment_problem" / "test.jsonl"
    path.write_text("".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:-1]),
                    encoding="utf-8")
    with pytest.raises(NonMatchingSplitsSizesError):
        load_dataset(str(copy), "moment_problem", split="test", cache_dir=str(tmp_path / "c"))


def test_load_helper_decodes_the_latent_state(tmp_path):
    ds = mira_math.load("moment_problem", cache_dir=str(tmp_path))
    row = ds[0]
    first = json.loads((RELEASE / "data" / "moment_problem" / "test.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert row["id"] == first["id"] and isinstance(row["latent"], dict)
    assert mira_math.load("bayes_missing_prior", cache_dir=str(tmp_path))[0]["latent"]["prior"].__class__ is Fraction
    with pytest.raises(ValueError, match="unknown config"):
        mira_math.load("nope")


# ------------------------------------------------------------------ the protocol API on rows

def _hub_rows(config: str, tmp_path, source=RELEASE) -> list:
    from datasets import load_dataset

    return list(load_dataset(str(source), config, split="test", cache_dir=str(tmp_path / "hub")))


def _written(row) -> str:
    inst = mira_math.instance(row)
    if inst.answer.type == "tuple":
        return f"({', '.join(inst.answer.components)}) = {inst.answer.value}"
    return inst.answer.value


def _asking_chat(row):
    """A chat function that asks for the canonical slot, then answers the stored answer."""
    slot = mira_math.instance(row).hints[0].slot

    def chat(messages):
        asked = any(m["role"] == "assistant" for m in messages)
        return f"Reasoning...\nANSWER: {_written(row)}" if asked else f"REQUEST: What is the value of {slot}?"
    return chat


def _ten_line_episode(row, chat, regime="zs"):
    """The harness page's example, verbatim in spirit: budget requests, then one final turn."""
    messages = mira_math.initial_messages(row, regime)
    for used in range(mira_math.budget(row) + 1):
        reply = chat(messages)
        messages.append({"role": "assistant", "content": reply})
        answer = mira_math.extract_answer(reply)
        if answer is not None or used == mira_math.budget(row):
            return mira_math.score_answer(row, answer)
        left = mira_math.budget(row) - used - 1
        messages.append({"role": "user", "content": mira_math.respond(row, reply, left)["message"]})


def _documented_episode(document: Path):
    """The ``episode`` function exactly as a document's Python example defines it."""
    text = document.read_text(encoding="utf-8")
    block = next(b.split("```", 1)[0] for b in text.split("```python\n")[1:] if "def episode" in b)
    namespace: dict = {}
    exec(block.split("\nrows = ")[0], namespace)
    return namespace["episode"]


@pytest.mark.parametrize("document", ["docs/harness.md", "dataset_card.md"])
def test_the_documented_episode_runs_as_written(document, tmp_path, counts):
    episode = _documented_episode(RELEASE.parent / document)
    first: dict = {}
    for row in _hub_rows("type_b", tmp_path):              # one row per Type B family
        first.setdefault(row["family"], row)
    rows = list(first.values())
    assert sorted(first) == sorted(counts.of_type("B"))
    for row in rows:
        assert episode(row, _asking_chat(row)) == 1.0, row["id"]
        assert episode(row, lambda messages: "ANSWER: 123456789/7") == 0.0


def test_hub_row_and_load_row_give_the_same_instance(tmp_path):
    hub = _hub_rows("bayes_missing_prior", tmp_path)[0]
    loaded = mira_math.load("bayes_missing_prior", cache_dir=str(tmp_path))[0]
    assert isinstance(hub["latent"], str) and isinstance(loaded["latent"], dict)
    assert mira_math.instance(hub) == mira_math.instance(loaded)
    assert mira_math.initial_messages(hub) == mira_math.initial_messages(loaded)


def test_initial_messages_match_the_harness(tmp_path):
    from mira_math.game.prompts import initial_conversation

    row = _hub_rows("moment_problem", tmp_path)[0]
    messages = mira_math.initial_messages(row, "4s")
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages == initial_conversation(mira_math.instance(row), "4s")
    assert "Example 4" in messages[0]["content"] and "request(s)" in messages[1]["content"]
    oracle = mira_math.initial_messages(row, oracle_hint=True)[1]["content"]
    assert mira_math.instance(row).hints[0].constraint in oracle
    with pytest.raises(ValueError, match="regime"):
        mira_math.initial_messages(row, "3s")


def test_respond_offers_the_named_slot_and_declines_vague_requests(tmp_path):
    row = _hub_rows("bayes_missing_prior", tmp_path)[0]
    hint = mira_math.instance(row).hints[0]
    offer = mira_math.respond(row, f"I think I need it.\nREQUEST: What is {hint.slot}?", 2)
    assert offer["decision"] == "offer" and offer["shown"] == hint.constraint and offer["canonical"]
    assert offer["message"] == f"Information holder: {hint.constraint}\n2 request(s) left."
    # a one-line message without REQUEST: is what eval makes of it: a format error
    bare = mira_math.respond(row, f"What is {hint.slot}?")
    assert bare["decision"] == "format_error" and bare["shown"] is None
    plain = mira_math.respond(row, f"REQUEST: What is {hint.slot}?")
    assert plain["shown"] == hint.constraint and plain["message"] == f"Information holder: {hint.constraint}"
    vague = mira_math.respond(row, "REQUEST: Can you tell me the missing information?", 0)
    assert vague["decision"] == "decline" and vague["constraint"] is None
    assert vague["shown"] == "I do not have that information."
    assert "no requests left" in vague["message"]
    rambling = mira_math.respond(row, "Let me think.\nNo action line here.", 1)
    assert rambling["decision"] == "format_error" and rambling["shown"] is None
    assert "no action line" in rambling["message"]


def test_extract_answer_is_the_protocol_parser():
    assert mira_math.extract_answer("so...\nANSWER: 3/7") == "3/7"
    assert mira_math.extract_answer("**ANSWER:** 3/7") == "3/7"
    assert mira_math.extract_answer("ANSWER: 1\nREQUEST: what is c?") is None   # the last line counts
    assert mira_math.extract_answer("3/7") is None
    assert mira_math.extract_answer(None) is None
    assert isinstance(mira_math.extract_answer("ANSWER: 3/7"), mira_math.Answer)


def test_score_answer_and_verify_on_answers_and_messages(tmp_path):
    row = _hub_rows("bayes_missing_prior", tmp_path)[0]
    right = _written(row)
    assert mira_math.score_value(row, right) == 1.0                  # a final answer itself
    assert mira_math.score_answer(row, right) == 0.0                 # a message without an action line
    assert mira_math.verify(row, right).reason.startswith("no answer: no action line")
    assert mira_math.score_answer(row, f"Working.\nANSWER: {right}") == 1.0
    assert mira_math.score_answer(row, mira_math.extract_answer(f"ANSWER: {right}")) == 1.0
    assert mira_math.score_answer(row, "ANSWER: 999/1000") == 0.0
    assert mira_math.score_answer(row, None) == 0.0
    verdict = mira_math.verify(row, f"ANSWER: {right}")
    assert verdict.correct and verdict.expected == right and verdict.reason == "correct"
    assert mira_math.verify(row, "REQUEST: what is P(H)?").reason.startswith("no answer")
    assert mira_math.verify(row, "ANSWER: banana").reason.startswith("unreadable")


def test_bad_rows_name_the_field(tmp_path):
    row = dict(_hub_rows("bayes_missing_prior", tmp_path)[0])
    del row["hints"]
    with pytest.raises(mira_math.RowError, match="hints"):
        mira_math.score_answer(row, "1/4")
    with pytest.raises(mira_math.RowError, match="expected a dataset row"):
        mira_math.budget("bay-000000")


@pytest.mark.parametrize("config", ["type_a", "type_b"])
def test_ten_line_episode_agrees_with_the_harness_on_the_release(config, tmp_path):
    rows = _hub_rows(config, tmp_path)[::37]   # one row in 37, every family represented
    assert {r["family"] for r in rows} == set(registry.names(config[-1].upper()))
    for row in rows:
        transcript = mira_math.run_episode(row, _asking_chat(row))
        score = _ten_line_episode(row, _asking_chat(row))
        assert score == (1.0 if transcript["verdict"]["correct"] else 0.0), row["id"]
        assert transcript["ended_by"] == "answer"


def test_a_silent_solver_ends_without_an_answer(tmp_path):
    row = _hub_rows("bayes_missing_prior", tmp_path)[0]
    calls = []

    def chat(messages):
        calls.append(len(messages))
        return "thinking, no action"
    assert _ten_line_episode(row, chat) == 0.0
    transcript = mira_math.run_episode(row, chat)
    assert transcript["ended_by"] == "no_answer_in_final_turn"
    assert len(calls) == 2 * (mira_math.budget(row) + 1)   # budget turns, then the final one, twice


def test_api_on_a_held_out_split(tmp_path):
    from mira_math.cli.main import main

    out = tmp_path / "heldout"
    families = ["bayes_missing_prior", "moment_problem"]
    assert main(["generate", "--seed-set", "api-test", "--families", *families,
                 "--per-type", "1/1", "--out", str(out)]) == 0
    rows = [r for f in families for r in _hub_rows(f, tmp_path, source=out)]   # configs present
    assert len(rows) == 6 and {r["seed_set"] for r in rows} == {"api-test"}
    public = {r["latent"] for r in _hub_rows("all", tmp_path / "pub")
              if r["family"] in families}
    for row in rows:
        assert row["latent"] not in public
        assert _ten_line_episode(row, _asking_chat(row)) == 1.0, row["id"]
        assert mira_math.score_value(row, _written(row)) == 1.0
