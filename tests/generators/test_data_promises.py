"""What the data promises, each checked where it used to fail: a committed split's every part is
private, the train source avoids both parts of a held-out split and says how many keys, a stream
that runs out says so and ends, ``generate`` never writes into the installed package, the
versions agree everywhere, and the card's known-issues table is what the rows show."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from mira_math.cli.main import main
from mira_math.generators import known_issues
from mira_math.generators.build import GENERATOR_VERSION, MULTI_HINT_VERSION, RELEASE_VERSION, instance_keys
from mira_math.generators.commitment import beside
from mira_math.generators.layout import CARD_SOURCE, DEFAULT_RELEASE, PACKAGE_DIR
from mira_math.generators.release import multi_hint_files, read_release_info
from mira_math.generators.schema import read_jsonl
from mira_math.integrations import sources

SMALL = ["--families", "rankdef_linear_shared", "circuit_missing_resistance", "--per-type", "2/2",
         "--multi-hint-per-type", "2/2", "--blind-per-type", "6/6"]


def _keys(folder: Path) -> set:
    from mira_math.generators.release import blind_files, family_files

    return {k for path in family_files(folder) + multi_hint_files(folder) + blind_files(folder)
            for inst in read_jsonl(path) for k in instance_keys(inst)}


# ------------------------------------------------------------------ committed splits


@pytest.fixture(scope="module")
def committed(tmp_path_factory):
    out = tmp_path_factory.mktemp("private") / "split"
    assert main(["generate", "--seed-set", "secret-2028", "--out", str(out), "--commit", *SMALL]) == 0
    assert main(["reveal", str(out)]) == 0
    return out


def test_regenerating_a_committed_split_by_its_name_shares_nothing(committed, tmp_path):
    """Every part: the two-fact part's and the blind tier's seeds come from the random master
    seed, not the name."""
    by_name = tmp_path / "by-name"
    assert main(["generate", "--seed-set", "secret-2028", "--out", str(by_name), *SMALL]) == 0
    assert multi_hint_files(committed) and multi_hint_files(by_name)
    assert not _keys(committed) & _keys(by_name)
    info, named = read_release_info(committed), read_release_info(by_name)
    assert info["multi_hint"]["master_seed"] != named["multi_hint"]["master_seed"]
    secret = json.loads(beside(committed, "secret").read_text())
    assert secret["seed_material"]["multi_hint"]["master_seed"] == info["multi_hint"]["master_seed"]
    from mira_math.generators.release import blind_files

    assert blind_files(committed) and info["blind"]["master_seed"] != named["blind"]["master_seed"]
    assert secret["seed_material"]["blind"]["master_seed"] == info["blind"]["master_seed"]


@pytest.mark.parametrize("field,value", [("seed_set", "someone-else"), ("note", "extra"),
                                         ("kind", "mira-math split reveal v0")])
def test_a_reveal_with_any_field_changed_fails(committed, tmp_path, capsys, field, value):
    reveal = json.loads(beside(committed, "reveal").read_text())
    reveal[field] = value
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(reveal))
    capsys.readouterr()
    code = main(["verify", "--commitment", str(beside(committed, "commitment")), "--reveal",
                 str(forged), str(committed)])
    assert code == 1
    out = capsys.readouterr()
    assert (out.out + out.err).strip()


def test_a_commitment_with_a_changed_label_fails(committed, tmp_path, capsys):
    commitment = json.loads(beside(committed, "commitment").read_text())
    for key, value in (("seed_set", "other"), ("total", commitment["total"] + 1),
                       ("generator_version", "0.0.1")):
        path = tmp_path / f"commitment-{key}.json"
        path.write_text(json.dumps({**commitment, key: value}))
        capsys.readouterr()
        assert main(["verify", "--commitment", str(path), "--reveal", str(beside(committed, "reveal")),
                     str(committed)]) == 1
        assert f"commitment's {key}" in capsys.readouterr().out


def test_the_unchanged_reveal_still_verifies(committed, capsys):
    assert main(["verify", "--commitment", str(beside(committed, "commitment")), str(committed)]) == 0


# ------------------------------------------------------------------ the train source


def test_the_train_source_excludes_both_parts_of_a_held_out_split(tmp_path, capsys):
    split = tmp_path / "heldout"
    assert main(["generate", "--seed-set", "heldout-train-test", "--out", str(split), *SMALL]) == 0
    two_fact = {k for path in multi_hint_files(split) for inst in read_jsonl(path)
                for k in instance_keys(inst)}
    assert two_fact
    excluded = sources.excluded_keys([split])
    assert two_fact <= excluded and _keys(split) <= excluded
    capsys.readouterr()
    drawn = list(itertools.islice(
        sources.instances("train", parts=(1, 2), held_out=[str(split)]), 3))
    note = capsys.readouterr().err
    extra = len(excluded) - len(sources.release_keys())
    assert f"avoiding {len(sources.release_keys())} keys" in note and f"and {extra} more" in note
    assert not {k for inst in drawn for k in instance_keys(inst)} & excluded


# ------------------------------------------------------------------ streams that run out


def test_a_stream_drained_to_its_end_says_so_and_stops():
    """graph_path_sums alone: every block runs out; the stream moves on past each spent block
    (one line each) and ends with one line naming its capacity, never a traceback."""
    lines: list = []
    drawn = list(sources.stream(families=["graph_path_sums"], note=lines.append))
    spent = [line for line in lines if "has no more distinct problems" in line]
    assert len(spent) == 3 and all("moving on" in line for line in spent)
    assert lines[-1].endswith(f"its capacity is {len(drawn)} instances "
                              "(`mira-math stream-capacity` lists every stream's)")
    keys = [k for inst in drawn for k in instance_keys(inst)]
    assert len(keys) == len(set(keys)) and not set(keys) & sources.release_keys()
    counts = {d: sum(1 for i in drawn if i.difficulty == d) for d in (1, 2, 3)}
    assert [f"d={d} has no more distinct problems after {counts[d]} instances" in " ".join(spent)
            for d in (1, 2, 3)] == [True] * 3


def test_a_spent_block_does_not_stop_the_others():
    lines: list = []
    stream = sources.train_stream(families=["graph_path_sums", "rankdef_linear_shared"],
                                  note=lines.append)
    drawn = list(itertools.islice(stream, 150))
    assert len(drawn) == 150 and any("graph_path_sums d=1" in line for line in lines)
    assert drawn[-1].family == "rankdef_linear_shared"


def test_stream_capacity_is_a_command(capsys):
    assert main(["stream-capacity", "--source", "stream", "--families", "graph_path_sums",
                 "--parts", "1"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    count = len(list(sources.stream(families=["graph_path_sums"], note=lambda line: None)))
    first = sources.capacity("stream", families=["graph_path_sums"]).full_mix
    assert out == [f"stream rl-stream-1 (part k=1): capacity {count} instances (every block spent); "
                   f"every block in turn for the first {first}"]


# ------------------------------------------------------------------ generate and the package


def test_generate_without_out_writes_the_working_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("mira_math.cli.data.DEFAULT_RELEASE", tmp_path / "package-release")
    assert main(["generate", "--families", "moment_problem", "--per-type", "1/0",
                 "--multi-hint-per-type", "0/0"]) == 0
    assert (tmp_path / "mira-math" / "release_info.json").is_file()
    assert not (tmp_path / "package-release").exists()


def test_generate_refuses_a_folder_inside_the_installed_package(tmp_path, monkeypatch, capsys):
    target = PACKAGE_DIR / "_bundle" / "mira-math-test-target"
    assert main(["generate", "--families", "moment_problem", "--out", str(target)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "inside the installed package" in err[0]
    assert not target.exists()
    monkeypatch.chdir(PACKAGE_DIR)                      # ./mira-math would be inside it
    assert main(["generate", "--families", "moment_problem"]) == 2
    assert not (PACKAGE_DIR / "mira-math").exists()


def test_verify_of_a_modified_bundled_release_fails(tmp_path, monkeypatch, capsys):
    bundle = tmp_path / "bundle" / "mira-math"
    assert main(["generate", "--families", "moment_problem", "--out", str(bundle)]) == 0
    monkeypatch.setattr("mira_math.generators.release.DEFAULT_RELEASE", bundle)
    capsys.readouterr()
    assert main(["verify", str(bundle)]) == 1
    assert "not the public release's" in capsys.readouterr().out


# ------------------------------------------------------------------ one version story


def test_every_place_states_the_same_versions(capsys, tmp_path, regenerate_once):
    from mira_math.generators.publish import plan

    info = read_release_info(DEFAULT_RELEASE)
    part = info["multi_hint"]
    assert info["release_version"] == RELEASE_VERSION
    assert info["generator_version"] == GENERATOR_VERSION and part["generator_version"] == MULTI_HINT_VERSION
    assert {i.generator_version for p in multi_hint_files(DEFAULT_RELEASE) for i in read_jsonl(p)} \
        == {MULTI_HINT_VERSION}
    with pytest.raises(SystemExit):
        main(["--version"])
    printed = capsys.readouterr().out
    assert f"release {RELEASE_VERSION} (public-20-50; generators {GENERATOR_VERSION}, " \
           f"{MULTI_HINT_VERSION}, {info['blind']['generator_version']})" in printed
    the_plan = plan(DEFAULT_RELEASE, "owner/mira-math", tag=f"v{RELEASE_VERSION}")
    assert the_plan.commit_message.startswith(f"MIRA-Math {RELEASE_VERSION}: ")
    assert f"{info['total'] + part['total'] + info['blind']['total']} instances" in the_plan.commit_message
    from mira_math.generators.publish import PublishError

    with pytest.raises(PublishError, match=f"its tag is v{RELEASE_VERSION}"):
        plan(DEFAULT_RELEASE, "owner/mira-math", tag=f"v{GENERATOR_VERSION}")
    card = CARD_SOURCE.read_text(encoding="utf-8")
    assert f"Dataset release {RELEASE_VERSION} (seed set public-20-50)" in card
    assert f"goes with release {RELEASE_VERSION}" in card and f"(`v{RELEASE_VERSION}`" in card
    assert f"version of these rows is {MULTI_HINT_VERSION}" in card
    for config, version in (("multi_hint", MULTI_HINT_VERSION), ("moment_problem", GENERATOR_VERSION)):
        run = tmp_path / config
        assert main(["eval", "--config", config, "--solver", "noask", "--limit", "2", "--out", str(run)]) == 0
        recorded = json.loads((run / "manifest.json").read_text())["mira_math"]
        assert recorded["generator"] == version and recorded["release"] == RELEASE_VERSION


def test_a_held_out_card_names_its_own_seed_set(tmp_path):
    split = tmp_path / "heldout"
    assert main(["generate", "--seed-set", "heldout-card-test", "--out", str(split),
                 "--families", "moment_problem", "--per-type", "1/0", "--multi-hint-per-type", "0/0"]) == 0
    readme = (split / "README.md").read_text(encoding="utf-8")
    assert f"Dataset release {RELEASE_VERSION} (seed set heldout-card-test)" in readme
    assert "(seed set public-20-50)" not in readme and "(here `heldout-card-test`)" in readme


# ------------------------------------------------------------------ known issues of v1.1


def test_the_cards_known_issues_table_is_what_the_rows_show():
    card = CARD_SOURCE.read_text(encoding="utf-8")
    section = card.split("## Known issues of v1.1", 1)[1].split("\n## ", 1)[0]
    counts = known_issues.count(DEFAULT_RELEASE)
    assert known_issues.markdown(counts) in section
    total = sum(c["domain_names_slot"] for c in counts.values())
    assert total == len([1 for name in counts for i in read_jsonl(DEFAULT_RELEASE / "data" / name / "test.jsonl")
                         if known_issues.names_slot_in_domain(i)])
    assert re.search(r"\*\*all\*\* \| \| \| \*\*\d+\*\*", section)
    assert counts["phase_retrieval"]["slot_outside_notation"] == counts["phase_retrieval"]["rows"]
