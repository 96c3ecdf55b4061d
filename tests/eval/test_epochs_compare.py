"""--seed/--epochs, the sampler solver, resume per (instance, epoch), pass@k in the scores,
the paired comparison, responder health."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from mira_math.cli.main import main
from mira_math.eval.compare import compare, compare_stats
from mira_math.eval.runner import RunConfig, data_files, load_data, run
from mira_math.eval.scoring import score
from mira_math.eval.solvers import ReferenceSolver
from mira_math.game.messages import epoch_seed
from mira_math.game.responders.base import decline
from mira_math.generators.layout import DEFAULT_RELEASE

ROOT = Path(__file__).resolve().parents[2]
BASE = ["--release", str(DEFAULT_RELEASE), "--families", "bayes_missing_prior", "crt_reconstruction",
        "--limit", "12"]


def _rows(out):
    return [json.loads(line) for line in (out / "transcripts.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("epochs")
    assert main(["eval", "--solver", "sampler", "--temperature", "0.8", "--epochs", "3",
                 "--out", str(base / "sampler"), *BASE]) == 0
    assert main(["eval", "--solver", "reference", "--out", str(base / "reference"), *BASE]) == 0
    return base


def test_epochs_are_independent_seeded_samples(runs, tmp_path):
    rows = _rows(runs / "sampler")
    assert len(rows) == 36
    assert sorted({r.get("epoch", 0) for r in rows}) == [0, 1, 2]
    manifest = json.loads((runs / "sampler" / "manifest.json").read_text())
    assert manifest["config"]["epochs"] == 3 and manifest["config"]["run_seed"] == 1234
    by_epoch = {e: [r["final_answer"] for r in rows if r.get("epoch", 0) == e] for e in range(3)}
    assert len({tuple(v) for v in by_epoch.values()}) > 1            # the epochs differ
    # the same seed gives the same bytes; another seed another run (another hash)
    assert main(["eval", "--solver", "sampler", "--temperature", "0.8", "--epochs", "3",
                 "--out", str(tmp_path / "again"), *BASE]) == 0
    again = _rows(tmp_path / "again")
    assert [(r["id"], r.get("epoch"), r["final_answer"]) for r in again] == \
        [(r["id"], r.get("epoch"), r["final_answer"]) for r in rows]
    assert main(["eval", "--solver", "sampler", "--temperature", "0.8", "--epochs", "3", "--seed", "7",
                 "--out", str(tmp_path / "other"), *BASE]) == 0
    other = json.loads((tmp_path / "other" / "manifest.json").read_text())
    assert other["config_hash"] != manifest["config_hash"] and other["config"]["run_seed"] == 7
    assert epoch_seed(1234, 0) == 1234 and epoch_seed(1234, 1) != epoch_seed(1234, 2)


def test_one_epoch_keeps_its_old_configuration_hash():
    assert "epochs" not in RunConfig(solver="reference", responder="rules").as_dict()
    assert RunConfig(solver="s", responder="r", epochs=2).as_dict()["epochs"] == 2


def test_resume_works_per_instance_and_epoch(runs, tmp_path):
    out = tmp_path / "partial"
    args = ["eval", "--solver", "sampler", "--temperature", "0.8", "--epochs", "3", "--out", str(out), *BASE]
    assert main(args) == 0
    lines = (out / "transcripts.jsonl").read_text().splitlines(keepends=True)
    kept = lines[:5] + lines[14:20]                   # drop some of epoch 0 and of epoch 1
    (out / "transcripts.jsonl").write_text("".join(kept))
    assert main(args + ["--resume"]) == 0
    keys = sorted((r["id"], r.get("epoch", 0), r["final_answer"]) for r in _rows(out))
    assert keys == sorted((r["id"], r.get("epoch", 0), r["final_answer"]) for r in _rows(runs / "sampler"))


def test_deterministic_solver_with_epochs_is_refused(tmp_path, capsys):
    assert main(["eval", "--solver", "reference", "--epochs", "2", "--out", str(tmp_path / "x"), *BASE]) == 2
    assert "deterministic" in capsys.readouterr().err
    assert main(["eval", "--solver", "sampler", "--epochs", "2", "--out", str(tmp_path / "y"), *BASE]) == 2
    assert not (tmp_path / "x").exists()


def test_scores_of_epochs_pass_at_k_and_clustered_interval(runs):
    (s,) = score([runs / "sampler"])
    m = s.overall
    assert m.n == 36 and m.instances == 12 and m.epochs == 3 and m.pass_k == 3
    rows = _rows(runs / "sampler")
    per = {}
    for r in rows:
        per.setdefault(r["id"], []).append(r["verdict"]["correct"])
    assert m.accuracy == Fraction(sum(sum(v) for v in per.values()), 36)
    assert m.pass_at_k == Fraction(sum(any(v) for v in per.values()), 12)      # k = n: any correct
    assert m.pass_hat_k == Fraction(sum(all(v) for v in per.values()), 12)     # k = n: all correct
    epoch_acc = [Fraction(sum(r["verdict"]["correct"] for r in rows if r.get("epoch", 0) == e), 12)
                 for e in range(3)]
    assert m.epoch_accuracy_min == min(epoch_acc) and m.epoch_accuracy_max == max(epoch_acc)
    assert m.accuracy_ci_low < m.accuracy < m.accuracy_ci_high
    assert s.run.expected == 36 and s.run.complete


def test_paired_comparison(runs, capsys):
    c = compare(runs / "reference", runs / "sampler")
    overall = next(r for r in c.rows if r.metric == "accuracy" and r.kind == "all")
    assert overall.n == 12 and overall.rate_a == 1 and overall.difference > 0
    assert overall.low is not None and overall.low < overall.difference <= overall.high
    assert {r.kind for r in c.rows} == {"all", "type", "family"}
    assert main(["compare", str(runs / "reference"), str(runs / "sampler")]) == 0
    assert "McNemar p" in capsys.readouterr().out


def test_mcnemar_on_binary_pairs():
    from mira_math.eval.scoring import InstanceStats

    def st(i, correct):
        return InstanceStats(("s", f"x{i}"), "fam", "A", 1, False, correct, 1, 1, 1, True, True, 0, 0, 0,
                             0, 1, True, False, False, None)
    a = [st(i, i < 8) for i in range(10)]
    b = [st(i, i < 2) for i in range(10)]
    c = compare_stats("a", a, "b", b)
    row = c.rows[0]
    assert (row.a_better, row.b_better, row.difference) == (6, 0, Fraction(6, 10))
    assert row.p_value == Fraction(2, 64)


class _BrokenResponder:
    def respond(self, turns):
        return [decline(["parse error: not JSON"], raw="garbage") for _ in turns]

    def describe(self):
        return {"spec": "broken"}


def test_responder_errors_are_counted_and_shown(tmp_path, capsys):
    files = data_files(None, None, DEFAULT_RELEASE)
    selection = load_data(files, families=["bayes_missing_prior"], limit=4)
    result = run(tmp_path / "r", selection, RunConfig(solver="reference", responder="broken"),
                 ReferenceSolver(), _BrokenResponder(), progress=False)
    assert result.responder_turns > 0 and result.responder_errors == result.responder_turns
    assert main(["score", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("run ") and "resp err" in line)
    row = [line for line in lines if line.startswith("reference | broken")][1]     # the metrics row
    at = header.index("resp err") + len("resp err")          # right-aligned under its header
    assert row[:at].split()[-1] == str(result.responder_turns)
