"""``mira-math import-reference``: the paper authors' released JSONL in our schema.

The fixture holds real lines of their release (``family_types_20_50_few_shot.jsonl``, few-shot
examples trimmed), written out by hand: Type A and Type B families, the three kinds of finding
the source data has (a Laplace grid that withholds a corner, an HMM whose row sum gives the
withheld emission, a portfolio whose correlations are not positive semidefinite), and families
whose hint line the rules responder cannot read.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mira_math.cli.main import main
from mira_math.reference_import import (CHECK_REPORT, FormatError, import_reference,
                                         read_source)
from mira_math.generators.release import check_manifest, data_path
from mira_math.generators.schema import read_jsonl

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "reference_sample.jsonl"
READABLE = ["bayes_missing_prior", "crt_reconstruction", "graph_path_sums",
            "recurrence_missing_init", "birth_death_missing_rate", "circuit_missing_resistance",
            "discrete_tomography", "eigenvector_missing_entry", "markov_missing_transition",
            "poly_interpolation"]
UNREADABLE = ["geometry_coordinates", "laplace_grid", "portfolio_variance_missing_corr",
              "steady_state_missing_emission"]
OUR_TYPES = {"bayes_missing_prior": "fraction", "crt_reconstruction": "int",
             "geometry_coordinates": "int", "graph_path_sums": "tuple",
             "recurrence_missing_init": "int", "birth_death_missing_rate": "fraction",
             "circuit_missing_resistance": "fraction", "discrete_tomography": "cell",
             "eigenvector_missing_entry": "int", "laplace_grid": "int",
             "markov_missing_transition": "fraction", "poly_interpolation": "int",
             "portfolio_variance_missing_corr": "fraction",
             "steady_state_missing_emission": "fraction"}


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "imported"
    assert main(["import-reference", str(FIXTURE), "--out", str(out), "--check"]) == 0
    return out


def _source() -> dict:
    return {json.loads(line)["id"]: json.loads(line)
            for line in FIXTURE.read_text(encoding="utf-8").splitlines()}


def _instances(folder: Path) -> dict:
    from mira_math.generators.release import family_files

    return {inst.id: inst for path in family_files(folder) for inst in read_jsonl(path)}


def test_every_record_converts_keeping_ids_and_text_verbatim(imported):
    source, insts = _source(), _instances(imported)
    assert set(insts) == set(source)
    for inst_id, raw in source.items():
        inst = insts[inst_id]
        a, b = (v["private_data"] for v in raw["agent_views"])
        assert (inst.family, inst.difficulty) == (raw["family"], raw["difficulty"])
        assert inst.view.facts == a["constraints_text"]
        assert inst.responder == b["constraints_text"]
        (hint,) = inst.hints
        assert hint.constraint in b["constraints_text"]
        assert inst.answer.type == OUR_TYPES[inst.family]
        assert inst.generator_version.startswith("reference-import")
    assert insts["bay-000000"].answer.value == "2/5"
    assert insts["crt-000061"].answer.value == "1417"
    assert insts["gra-000182"].answer.value == "(3, 3, 1)"
    assert insts["gra-000182"].answer.components == ["e01", "e12", "e20"]
    assert insts["dis-001124"].answer.value == "0"
    assert insts["ste-002180"].hints[0].constraint == "e(1, 1) = 1/2"
    assert insts["lap-001426"].hints[0].constraint == "u_3_3 = 0"
    assert insts["crt-000061"].candidate_answers == 19        # our chance level, same setup


def test_folder_is_a_release_with_checksums_card_and_source_credit(imported):
    assert check_manifest(imported) == []
    info = json.loads((imported / "release_info.json").read_text(encoding="utf-8"))
    assert info["regenerable"] is False
    assert info["source"]["repository"] == "https://github.com/cedar-lau/mira-math"
    assert info["source"]["license"] == "code MIT, data CC BY 4.0" and info["license"] == "cc-by-4.0"
    assert info["total"] == len(_source()) and info["not_converted"] == []
    readme = (imported / "README.md").read_text(encoding="utf-8")
    assert readme.startswith("---\npretty_name: \"MIRA-Math (reference release, imported)\"")
    assert 'license: "cc-by-4.0"' in readme and "cedar-lau/mira-math" in readme
    assert "MIRA-Math contributors" in readme and "sha256sum -c" in readme
    assert (imported / data_path("laplace_grid")).is_file()


def test_check_agrees_per_family_and_reports_findings(imported):
    report = json.loads((imported / CHECK_REPORT).read_text(encoding="utf-8"))
    fams = report["families"]
    assert set(fams) == set(OUR_TYPES)
    for name, f in fams.items():
        assert (f["agree"], f["disagree"], f["unchecked"]) == (f["instances"], 0, 0), name
    assert report["total"]["agree"] == len(_source())
    by_id = {c["id"]: c for c in report["instances"]}
    for c in by_id.values():       # their text is not our rendering: expected, every instance
        assert any(f["property"] == "consistency" for f in c["findings"])

    def props(inst_id):
        return {f["property"] for f in by_id[inst_id]["findings"]}

    # A solver view that already determines the answer (HMM row sum, Laplace corner).
    assert "local_underdetermination" in props("ste-002180")
    assert "local_underdetermination" in props("lap-001426")
    assert fams["steady_state_missing_emission"]["instances_with_finding"][
        "local_underdetermination"] == 1
    # Correlations no portfolio can have.
    assert "global_uniqueness" in props("por-002069")
    # Clean instances carry no finding about the source data.
    real = set(report["properties"]["findings_about_the_source_data"])
    for inst_id in ("bay-000000", "crt-000061", "gra-000182", "rec-000602", "bir-000735",
                    "mar-001765", "eig-001271", "dis-001124"):
        assert not props(inst_id) & real, inst_id
    assert report["total"]["instances_with_real_finding"] == 3


def test_rules_responder_reads_the_hint_line_where_the_notation_allows(imported):
    report = json.loads((imported / CHECK_REPORT).read_text(encoding="utf-8"))
    reads = {c["family"]: c["hint"]["rules_responder_reads_it"] for c in report["instances"]}
    assert all(reads[f] for f in READABLE)
    # The others (documented in docs/reference_import.md) are reported as game/slots/ reads
    # them today: their lines are unlabelled or 0-based.
    from mira_math.game.slots import line_slot

    for c in report["instances"]:
        if c["family"] in UNREADABLE:
            assert c["hint"]["rules_responder_reads_it"] == (
                line_slot(c["family"], c["hint"]["line"]) == c["hint"]["slot"])


def test_reference_solver_with_rules_responder_is_exact_on_the_converted_folder(imported, tmp_path):
    run = tmp_path / "run"
    assert main(["eval", "--solver", "reference", "--responder", "rules", "--data", str(imported),
                 "--families", *READABLE, "--out", str(run)]) == 0
    rows = [json.loads(line) for line in (run / "transcripts.jsonl").read_text().splitlines()]
    assert len(rows) == len(READABLE)
    assert all(r["verdict"]["correct"] and r["error"] is None for r in rows)
    assert main(["score", str(run)]) == 0
    assert main(["report", str(run), "--out", str(tmp_path / "report")]) == 0


def test_oracle_hint_condition_is_exact_on_every_family(imported, tmp_path):
    run = tmp_path / "oracle"
    assert main(["eval", "--solver", "reference", "--condition", "oracle-hint",
                 "--data", str(imported), "--out", str(run)]) == 0
    rows = [json.loads(line) for line in (run / "transcripts.jsonl").read_text().splitlines()]
    assert len(rows) == len(_source()) and all(r["verdict"]["correct"] for r in rows)


def _edited(tmp_path: Path, inst_id: str, solution: dict) -> Path:
    lines = []
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        raw = json.loads(line)
        if raw["id"] == inst_id:
            raw["global_solution"] = solution
        lines.append(json.dumps(raw, ensure_ascii=False))
    path = tmp_path / "edited.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_disagreement_is_listed_with_both_values_and_fails(tmp_path, capsys):
    src = _edited(tmp_path, "bay-000000", {"numerator": 3, "denominator": 5})
    out = tmp_path / "out"
    assert main(["import-reference", str(src), "--out", str(out), "--check"]) == 1
    printed = capsys.readouterr().out
    assert "DISAGREE bay-000000: theirs 3/5, ours 2/5" in printed
    report = json.loads((out / CHECK_REPORT).read_text(encoding="utf-8"))
    (c,) = [c for c in report["instances"] if c["id"] == "bay-000000"]
    assert c["answer"] == {"status": "disagree", "theirs": "3/5", "ours": "2/5"}
    assert report["families"]["bayes_missing_prior"]["disagree"] == 1
    # The instance is kept, with their answer: nothing is dropped.
    (inst,) = [i for i in read_jsonl(out / data_path("bayes_missing_prior"))]
    assert inst.answer.value == "3/5"


def test_without_check_findings_and_answers_are_not_judged(tmp_path):
    src = _edited(tmp_path, "bay-000000", {"numerator": 3, "denominator": 5})
    out = tmp_path / "out"
    assert main(["import-reference", str(src), "--out", str(out)]) == 0
    assert not (out / CHECK_REPORT).exists() and check_manifest(out) == []


def test_strict_makes_findings_about_the_source_fatal(tmp_path, capsys):
    out = tmp_path / "strict"
    assert main(["import-reference", str(FIXTURE), "--out", str(out), "--strict"]) == 1
    printed = capsys.readouterr().out
    assert "FINDING ste-002180: local_underdetermination" in printed
    assert "FINDING por-002069: global_uniqueness" in printed
    clean = tmp_path / "clean.jsonl"
    keep = [line for line in FIXTURE.read_text(encoding="utf-8").splitlines()
            if json.loads(line)["id"] in ("bay-000000", "crt-000061", "mar-001765")]
    clean.write_text("\n".join(keep) + "\n", encoding="utf-8")
    assert main(["import-reference", str(clean), "--out", str(tmp_path / "ok"), "--strict"]) == 0


def test_reimport_into_the_same_folder_and_refusal_of_foreign_folders(tmp_path):
    out = tmp_path / "out"
    assert main(["import-reference", str(FIXTURE), "--out", str(out)]) == 0
    assert main(["import-reference", str(FIXTURE), "--out", str(out), "--check"]) == 0
    assert check_manifest(out) == []
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine\n")
    assert main(["import-reference", str(FIXTURE), "--out", str(foreign)]) == 2
    assert (foreign / "notes.txt").read_text() == "mine\n"


def test_format_errors_name_the_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    raw = json.loads(FIXTURE.read_text(encoding="utf-8").splitlines()[0])
    del raw["minimal_hint_spec"]
    bad.write_text(json.dumps(raw) + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match="bad.jsonl:1: field 'minimal_hint_spec' missing"):
        read_source(bad)
    assert main(["import-reference", str(bad), "--out", str(tmp_path / "o")]) == 2
    twice = tmp_path / "twice.jsonl"
    line = FIXTURE.read_text(encoding="utf-8").splitlines()[0]
    twice.write_text(line + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match="duplicate id 'bay-000000'"):
        read_source(twice)


def test_an_unknown_family_is_reported_not_dropped(tmp_path, capsys):
    raw = json.loads(FIXTURE.read_text(encoding="utf-8").splitlines()[0])
    raw["id"], raw["family"] = "xyz-000001", "no_such_family"
    src = tmp_path / "mixed.jsonl"
    src.write_text(FIXTURE.read_text(encoding="utf-8") + json.dumps(raw) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["import-reference", str(src), "--out", str(out), "--check"]) == 1
    assert "NOT CONVERTED xyz-000001" in capsys.readouterr().out
    info = json.loads((out / "release_info.json").read_text(encoding="utf-8"))
    assert [f["id"] for f in info["not_converted"]] == ["xyz-000001"]
    report = json.loads((out / CHECK_REPORT).read_text(encoding="utf-8"))
    assert [f["id"] for f in report["not_converted"]] == ["xyz-000001"]


def test_in_memory_api_matches_the_folder(imported):
    result = import_reference(FIXTURE, check=True)
    for rel, data in result.files.items():
        assert (imported / rel).read_bytes() == data, rel


def test_the_folder_loads_with_datasets(imported, tmp_path):
    datasets = pytest.importorskip("datasets")
    # A folder with some families only gets their per-family configs (like a subset build).
    ds = datasets.load_dataset(str(imported), "steady_state_missing_emission", split="test",
                               cache_dir=str(tmp_path))
    assert ds["id"] == ["ste-002180"]
    assert ds[0]["hints"][0]["constraint"] == "e(1, 1) = 1/2"


def test_the_paper_families_each_have_a_converter():
    """Every family in the fixture (real lines of the paper's release) is converted above; a
    converter registered for no family of ours would be dead code."""
    from mira_math.generators import registry
    from mira_math.reference_import.converters import CONVERTERS

    assert set(CONVERTERS) <= set(registry.names())
    assert {r["family"] for r in _source().values()} <= set(CONVERTERS)


@pytest.fixture
def extra_family(monkeypatch):
    """A registered family the paper never had (a copy of moment_problem under a new name)."""
    from mira_math.generators import registry

    base = type(registry.get("moment_problem"))
    toy = type("ToyExtra", (base,), {"name": "toy_extra", "type": "B"})()
    monkeypatch.setattr(registry, "TYPE_B", registry.TYPE_B + ("toy_extra",))
    monkeypatch.setitem(registry._cache, "toy_extra", toy)
    return "toy_extra"


def test_a_family_without_a_paper_source_is_listed_not_stubbed(extra_family, tmp_path, capsys):
    from mira_math.reference_import.converters import CONVERTERS, without_source

    from mira_math.generators import registry

    assert extra_family not in CONVERTERS and without_source([extra_family]) == [extra_family]
    result = import_reference(FIXTURE)
    assert result.without_source == without_source(registry.names()) and result.failures == []
    assert result.without_source[-1] == extra_family
    out = tmp_path / "out"
    assert main(["import-reference", str(FIXTURE), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    line = next(x for x in printed.splitlines() if x.startswith("no paper source"))
    assert line.endswith(f": {', '.join(result.without_source)}") and extra_family in line
    assert not (out / data_path(extra_family)).exists()
    # a record that claims the family is refused with a line that says why
    raw = json.loads(FIXTURE.read_text(encoding="utf-8").splitlines()[0])
    raw["id"], raw["family"] = "toy-000001", extra_family
    src = tmp_path / "claims.jsonl"
    src.write_text(json.dumps(raw) + "\n", encoding="utf-8")
    (failure,) = import_reference(src).failures
    assert failure["id"] == "toy-000001" and "has no paper source" in failure["error"]

