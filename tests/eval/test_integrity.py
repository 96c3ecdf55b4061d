"""score re-verifies answers and checks ids and counts against the run's selection."""

from __future__ import annotations

import json

import pytest

from mira_math.cli.main import main
from mira_math.eval.scoring import ScoringError, score
from mira_math.generators.layout import DEFAULT_RELEASE


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


def test_judges_read_from_raw_rows_are_context_for_on_every_release_instance():
    """score's judges come from the raw JSON rows (no Instance built): the answer and context
    must be the verifier's own, on every instance the release ships."""

    from mira_math.eval.rundir.dataset import judge_of
    from mira_math.generators.schema import instance_from_dict
    from mira_math.verifiers.verify import context_for

    files = sorted((DEFAULT_RELEASE / "data").glob("*/*.jsonl"))
    assert files
    licensed = 0
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            row = json.loads(line)
            inst = instance_from_dict(row, str(path), number)
            ctx = context_for(inst)
            assert judge_of(row) == (inst.answer.type, inst.answer.value, tuple(inst.answer.components),
                                     ctx.units, ctx.modulus, ctx.aliases), f"{path}:{number}"
            licensed += ctx.units != () or ctx.modulus is not None or ctx.aliases != ()
    assert licensed > 0          # units, moduli and edge aliases all occur in the release


def test_group_sums_by_cell_equal_each_group_scored_alone(tmp_path):
    """score sums each (type, family, difficulty) cell once and adds cells into groups: every
    group must equal the same transcripts scored as one group."""
    from mira_math.eval.scoring import group_metrics, group_names, group_runs, grouped_metrics, load_run

    runs = []
    for solver in ("noask", "reference"):
        out = tmp_path / solver
        assert main(["eval", "--solver", solver, "--sample", "60", "--sample-seed", "3", "--out", str(out)]) == 0
        runs.append(out)
    stats = [s for run in runs for s in load_run(group_runs([run])[0]).stats]
    groups = grouped_metrics(stats)
    assert len({g.kind for g in groups}) == 5 and len({g.group for g in groups if g.kind == "family"}) > 3
    for g in groups:
        members = [s for s in stats if (g.kind, g.group) in group_names(s)]
        assert members and g.metrics.values == group_metrics(members).values, (g.kind, g.group)


def test_a_repeated_instance_line_is_judged_by_its_first_line_as_the_index_reads_it(tmp_path):
    """A data file whose (seed set, id) repeats with another answer: the index keeps the first
    line, so re-verification must judge by the first line's answer too (it took the last)."""
    import hashlib

    from mira_math.eval.rundir import clear_caches

    first = (DEFAULT_RELEASE / "data" / "bayes_missing_prior" / "test.jsonl").read_text(encoding="utf-8")
    line = json.loads(first.splitlines()[0])
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(line) + "\n", encoding="utf-8")
    run = tmp_path / "run"
    assert main(["eval", "--solver", "reference", "--data", str(data), "--out", str(run)]) == 0
    other = dict(line, answer=dict(line["answer"], value=line["answer"]["value"] + "1"))
    with data.open("a", encoding="utf-8") as fh:                  # the same instance again, another answer
        fh.write(json.dumps(other) + "\n")
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    manifest["dataset"]["checksum"] = hashlib.sha256(hashlib.sha256(data.read_bytes()).digest()).hexdigest()
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    clear_caches()
    (s,) = score([run])
    assert s.overall.n == 1 and s.overall.correct == 1
