"""What a person meets at the command line: help, version, validation, suggestions, paths."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mira_math.cli.main import build_parser, main
from mira_math.generators.layout import DEFAULT_RELEASE

ROOT = Path(__file__).resolve().parents[2]
RELEASE = DEFAULT_RELEASE
FIXTURE = ROOT / "tests" / "fixtures" / "reference_sample.jsonl"


def _help(capsys, *argv) -> str:
    with pytest.raises(SystemExit) as done:
        main([*argv, "--help"])
    assert done.value.code == 0
    return capsys.readouterr().out


def test_version(capsys):
    with pytest.raises(SystemExit):
        main(["--version"])
    out = capsys.readouterr().out
    assert out.startswith("mira-math ") and out.strip().split()[-1][0].isdigit()


def test_top_level_help_describes_the_benchmark_and_lists_every_command(capsys):
    out = _help(capsys)
    assert "missing" in out and "Quick start" in out
    for command in ("generate", "validate", "verify", "check-disjoint", "publish",
                    "import-reference", "eval", "score", "report", "audit"):
        assert command in out


def test_every_option_with_a_default_shows_it_and_every_positional_has_help(capsys):
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, command in sub.choices.items():
        text = _help(capsys, name)
        for action in command._actions:
            if action.dest == "help":
                continue
            if not action.option_strings:
                assert action.help, f"{name} {action.dest}: positional without help"
            elif action.default is not None and action.default is not False:
                assert "default" in (action.help or "") or "(default:" in text, (name, action.dest)
    eval_help = _help(capsys, "eval")
    assert "(default: 4096)" in eval_help and "(default: 0.0)" in eval_help
    assert "reasoning models" in eval_help


@pytest.mark.parametrize("argv,field", [
    (["--limit", "-1"], "--limit"), (["--limit", "0"], "--limit"), (["--window", "0"], "--window"),
    (["--max-tokens", "0"], "--max-tokens"), (["--sample", "0"], "--sample"),
    (["--concurrency", "x"], "--concurrency"), (["--timeout", "-2"], "--timeout"),
])
def test_eval_rejects_counts_out_of_range(argv, field, tmp_path, capsys):
    with pytest.raises(SystemExit) as done:
        main(["eval", "--solver", "reference", "--out", str(tmp_path / "r"), *argv])
    assert done.value.code == 2
    assert f"argument {field}" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("argv,expected", [
    (["--solver", "refrence"], "did you mean 'reference'?"),
    (["--solver", "vlm:some/model"], "did you mean 'vllm'?"),
    (["--solver", "openai"], "needs a model: openai:MODEL"),
    (["--solver", "reference", "--families", "momentproblem"], "did you mean 'moment_problem'?"),
    (["--solver", "reference", "--config", "type_c"], "did you mean 'type_b'?"),
])
def test_eval_suggests_the_nearest_name(argv, expected, tmp_path, capsys):
    assert main(["eval", *argv, "--out", str(tmp_path / "r")]) == 2
    assert expected in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_generate_suggests_the_nearest_family(tmp_path, capsys):
    assert main(["generate", "--families", "bayes_missing_prio", "--out", str(tmp_path)]) == 2
    assert "did you mean 'bayes_missing_prior'?" in capsys.readouterr().err


def test_missing_backend_gives_the_readme_install_hint(tmp_path, capsys, monkeypatch):
    import mira_math.eval.solvers as solvers
    def missing(spec, **_):
        raise ImportError("No module named 'openai'")
    monkeypatch.setattr(solvers, "make_backend", missing)
    assert main(["eval", "--solver", "openai:gpt-x", "--limit", "1",
                 "--out", str(tmp_path / "r")]) == 2
    assert "pip install 'mira-math[openai]'" in capsys.readouterr().err


def test_sample_is_seeded_spread_and_in_release_order(tmp_path):
    from mira_math.eval.runner import data_files, load_data

    files = data_files(None, None, RELEASE)
    first = load_data(files, sample=(30, 7)).instances
    again = load_data(files, sample=(30, 7)).instances
    other = load_data(files, sample=(30, 8)).instances
    assert [i.id for i in first] == [i.id for i in again] and len(first) == 30
    assert [i.id for i in first] != [i.id for i in other]
    index = [int(i.id.split("-")[1]) for i in first]
    assert index == sorted(index)                                      # release order
    assert len({i.family for i in first}) > 5                          # unlike --limit 30
    assert {i.family for i in load_data(files, limit=30).instances} == {"bayes_missing_prior"}
    shards = [load_data(files, sample=(30, 7), shard=(k, 3)).instances for k in range(3)]
    assert sorted(i.id for s in shards for i in s) == sorted(i.id for i in first)


def test_eval_sample_is_recorded_in_the_manifest(tmp_path):
    out = tmp_path / "run"
    assert main(["eval", "--solver", "reference", "--sample", "5", "--sample-seed", "3",
                 "--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["config"]["selection"]["sample"] == [5, 3]
    assert manifest["dataset"]["instances"] == 5


def test_eval_and_score_from_other_directories(tmp_path, monkeypatch, capsys):
    heldout = tmp_path / "heldout"
    assert main(["generate", "--seed-set", "cwd-test", "--families", "bayes_missing_prior",
                 "--per-type", "1/1", "--out", str(heldout)]) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["eval", "--solver", "reference", "--config", "moment_problem", "--limit", "2",
                 "--out", "public"]) == 0
    assert main(["eval", "--solver", "reference", "--data", "../heldout", "--out", "held"]) == 0
    files = {name: json.loads((elsewhere / name / "manifest.json").read_text())["dataset"]["files"]
             for name in ("public", "held")}
    assert files["public"] == ["mira-math/data/moment_problem/test.jsonl"]   # repo-relative
    assert Path(files["held"][0]).is_absolute()
    away = tmp_path / "away"
    away.mkdir()
    monkeypatch.chdir(away)
    capsys.readouterr()
    for name in ("public", "held"):
        assert main(["score", str(elsewhere / name)]) == 0
        assert "missing" not in capsys.readouterr().err


def test_check_disjoint_output_is_bounded_and_sorted(tmp_path, capsys):
    copy = tmp_path / "copy"
    (copy / "data" / "bayes_missing_prior").mkdir(parents=True)   # the one-fact file only
    shutil.copy(RELEASE / "data" / "bayes_missing_prior" / "test.jsonl",
                copy / "data" / "bayes_missing_prior" / "test.jsonl")
    assert main(["check-disjoint", str(RELEASE), str(copy), "--max-shown", "5"]) == 1
    lines = capsys.readouterr().out.splitlines()
    shared = [line for line in lines if line.startswith("SHARED")]
    assert len(shared) == 5
    ids = [line.split(f"{RELEASE} ")[1].split()[0] for line in shared]
    assert ids == sorted(ids)
    assert any(line.startswith("... and ") and "more" in line for line in lines)
    assert lines[-1].endswith("shared complete problems or solver views") and " 120 shared" in lines[-1]


def test_eval_warns_when_the_rules_responder_cannot_read_imported_families(tmp_path, capsys):
    imported = tmp_path / "imported"
    assert main(["import-reference", str(FIXTURE), "--out", str(imported)]) == 0
    capsys.readouterr()
    assert main(["eval", "--solver", "reference", "--data", str(imported),
                 "--out", str(tmp_path / "run")]) == 0
    err = capsys.readouterr().err
    assert "warning: the rules responder cannot read" in err
    for family in ("geometry_coordinates", "laplace_grid", "portfolio_variance_missing_corr",
                   "steady_state_missing_emission"):
        assert family in err
    assert "bayes_missing_prior" not in err
    assert main(["eval", "--solver", "reference", "--data", str(imported), "--condition",
                 "oracle-hint", "--out", str(tmp_path / "oracle")]) == 0
    assert "warning" not in capsys.readouterr().err


def test_no_warning_for_the_regenerable_release(tmp_path, capsys):
    assert main(["eval", "--solver", "reference", "--data", str(RELEASE), "--limit", "1",
                 "--out", str(tmp_path / "run")]) == 0
    assert "warning" not in capsys.readouterr().err


def test_decoding_options_on_a_scripted_solver_are_said_to_change_nothing(tmp_path, capsys):
    import json as _json

    runs = []
    for name, extra in (("plain", []), ("hot", ["--temperature", "0.7", "--max-tokens", "64"])):
        assert main(["eval", "--solver", "reference", "--data", str(RELEASE), "--limit", "1",
                     *extra, "--out", str(tmp_path / name)]) == 0
        runs.append(_json.loads((tmp_path / name / "manifest.json").read_text())["run_hash"])
        err = capsys.readouterr().err
        assert ("do not change the scripted solver" in err) == bool(extra)
    assert runs[0] == runs[1]


def test_check_disjoint_on_a_missing_folder_says_so(tmp_path, capsys):
    """A typo in a folder name said "holds no instances"."""
    assert main(["check-disjoint", str(RELEASE), str(tmp_path / "typo")]) == 1
    assert capsys.readouterr().err.strip() == f"mira-math check-disjoint: {tmp_path / 'typo'}: no such folder"
