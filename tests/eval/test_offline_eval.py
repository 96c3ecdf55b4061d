"""The offline evaluation (docs/evaluate.md) end to end: reference and noask solvers with the rules
responder on the whole release, through the CLI, then score and report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mira_math.cli.main import main
from mira_math.generators.layout import DEFAULT_RELEASE

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("runs")
    assert main(["eval", "--solver", "reference", "--responder", "rules", "--release",
                 str(DEFAULT_RELEASE), "--out", str(base / "reference")]) == 0
    assert main(["eval", "--solver", "noask", "--release", str(DEFAULT_RELEASE),
                 "--out", str(base / "noask")]) == 0
    assert main(["score", str(base / "reference"), str(base / "noask")]) == 0
    return base


def _metric(run_dir: Path, name: str):
    text = (run_dir / "scores.csv").read_text().splitlines()
    for line in text[1:]:
        cells = line.split(",")
        if cells[1] == "all" and cells[3] == name:
            return float(cells[4])
    raise KeyError(name)


def test_reference_with_rules_is_perfect_on_the_whole_release(runs, counts):
    rows = [json.loads(line) for line in (runs / "reference" / "transcripts.jsonl").read_text().splitlines()]
    assert len(rows) == counts.total
    assert all(r["verdict"]["correct"] for r in rows)
    assert all(r["turns"][1]["decision"] == "offer" and r["turns"][1]["canonical"] for r in rows)
    assert _metric(runs / "reference", "accuracy") == 1.0
    assert _metric(runs / "reference", "first_request_success") == 1.0


def test_noask_is_near_zero(runs):
    assert _metric(runs / "noask", "accuracy") < 0.1
    assert _metric(runs / "noask", "first_request_success") == 0.0


def test_report_of_the_offline_runs(runs, tmp_path):
    out = tmp_path / "report"
    assert main(["report", str(runs / "reference"), str(runs / "noask"), "--out", str(out)]) == 0
    text = (out / "report.md").read_text()
    for png in sorted(out.glob("*.png")):
        assert png.name in text
    assert len(list(out.glob("*.png"))) == 6          # FIGURES but the four-shot one (no 4s run)
    assert (out / "results.md").is_file() and "\\toprule" in (out / "results.tex").read_text()


def test_four_shot_regime_and_oracle_condition_run(tmp_path):
    for extra in (["--regime", "4s"], ["--condition", "oracle-hint"]):
        out = tmp_path / "-".join(extra)
        assert main(["eval", "--solver", "reference", "--release", str(DEFAULT_RELEASE),
                     "--families", "moment_problem", "circuit_missing_resistance", "--out", str(out),
                     *extra]) == 0
        rows = [json.loads(line) for line in (out / "transcripts.jsonl").read_text().splitlines()]
        assert len(rows) == 210 and all(r["verdict"]["correct"] for r in rows)


def test_eval_refuses_bad_data_before_any_model_call(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    line = (DEFAULT_RELEASE / "data" / "bayes_missing_prior" / "test.jsonl").read_text().splitlines()[0]
    row = json.loads(line)
    del row["answer"]
    bad.write_text(line + "\n" + json.dumps(row) + "\n")
    assert main(["eval", "--solver", "reference", "--data", str(bad), "--out", str(tmp_path / "r")]) == 1
    assert f"{bad}:2" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
