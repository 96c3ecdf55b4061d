"""score re-verifies answers and checks ids and counts against the run's selection (issue 22)."""

from __future__ import annotations

import json

import pytest

from mira_math.cli.main import main
from mira_math.eval.scoring import ScoringError, score


@pytest.fixture
def noask_run(tmp_path):
    out = tmp_path / "run"
    assert main(["eval", "--solver", "noask", "--limit", "6", "--out", str(out)]) == 0
    return out


def _lines(run):
    return (run / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()


def _write(run, rows):
    (run / "transcripts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_an_honest_run_scores(noask_run):
    (s,) = score([noask_run])
    assert s.overall.n == 6


def test_a_flipped_verdict_is_refused_naming_the_line(noask_run, capsys):
    rows = [json.loads(line) for line in _lines(noask_run)]
    wrong = next(n for n, r in enumerate(rows) if r["verdict"]["correct"] is False)
    rows[wrong]["verdict"]["correct"] = True
    _write(noask_run, rows)
    with pytest.raises(ScoringError, match=rf"transcripts.jsonl:{wrong + 1}: field 'verdict.correct'"):
        score([noask_run])
    assert main(["score", str(noask_run)]) != 0
    err = capsys.readouterr().err
    assert f"transcripts.jsonl:{wrong + 1}" in err and "Traceback" not in err


def test_an_appended_line_outside_the_selection_is_refused(noask_run):
    rows = [json.loads(line) for line in _lines(noask_run)]
    extra = dict(rows[0], id="bay-000045")        # in the dataset, not in this run's --limit 6
    _write(noask_run, rows + [extra])
    with pytest.raises(ScoringError, match=r"transcripts.jsonl:7: instance bay-000045 is not in this run's selection"):
        score([noask_run])


def test_an_edited_instance_count_is_refused(noask_run):
    path = noask_run / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["dataset"]["instances"] = 5
    path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ScoringError, match=r"field 'dataset.instances': 5, but the run's selection picks 6"):
        score([noask_run])
