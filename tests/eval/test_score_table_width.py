"""`score`'s terminal output fits 120 columns: the columns a paper's main table needs (the
two-fact ones only when a run has two-fact rows), runs named by number when their labels are
too long, `--columns all|LIST` for the rest; the scores files keep every metric whatever is
shown. `report` and `view` name runs as `score` does."""

from __future__ import annotations

import csv
import json

import pytest

from mira_math.cli.main import main
from mira_math.eval.metrics import ALL_COLUMNS, MAIN_COLUMNS, METRICS
from mira_math.eval.scoring import score
from mira_math.eval.tables import DECODING_WIDTH, WIDTH, choose_columns, decoding_cell, render_table
from tests.eval.test_report import write_run

FAMILIES = ["bayes_missing_prior", "discrete_tomography"]


def widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def metrics_header(out: str) -> str:
    """The overall table's header: the first run-by-run table after the runs table."""
    return next(line for line in out.splitlines() if line.startswith("run ") and " split " not in line)


def test_the_decoding_cell_is_bounded():
    stops = ["\nInformation holder:", "\nUser:", "\nYour message had no action line"] * 5
    cell = decoding_cell({"max_tokens": 4096, "stop": stops, "temperature": 0.6, "top_p": 0.95})
    assert cell.startswith("max_tokens=4096, stop=[15], temperature") and len(cell) <= DECODING_WIDTH
    assert decoding_cell({}) == "-"


def test_the_runs_table_is_no_wider_than_before_the_stop_list(tmp_path):
    stops = ["\nInformation holder:", "\nUser:", "\nYour message had no action line"] * 5
    long = write_run(tmp_path / "a", "model-x", "zs", [0, 1], solver_params={"temperature": 0.7, "stop": stops})
    plain = write_run(tmp_path / "b", "model-x", "zs", [0, 1], solver_params={"temperature": 0.7})
    runs_table = [render_table(score([d])).split("\n\n")[0] for d in (long, plain)]
    widths = [max(len(line) for line in t.splitlines()) for t in runs_table]
    assert widths[0] <= widths[1] + DECODING_WIDTH and widths[0] <= WIDTH


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory):
    """The demo's three runs (reference, noask, a sampler with three epochs) on two families,
    and its three two-fact runs (multi_hint: reference, first-fact, noask)."""
    base = tmp_path_factory.mktemp("demo")
    one = {"reference": [], "noask": [], "sampler": ["--temperature", "0.7", "--epochs", "3", "--seed", "1"]}
    for solver, extra in one.items():
        assert main(["eval", "--solver", solver, "--families", *FAMILIES, "--out", str(base / solver), *extra]) == 0
    for solver in ("reference", "first-fact", "noask"):
        assert main(["eval", "--config", "multi_hint", "--solver", solver, "--families", *FAMILIES,
                     "--out", str(base / "k2" / solver)]) == 0
    return [base / s for s in one], [base / "k2" / s for s in ("reference", "first-fact", "noask")]


def test_score_of_three_runs_fits_120_columns_and_the_files_keep_every_metric(demo_runs, tmp_path, capsys):
    runs, _ = demo_runs
    capsys.readouterr()
    assert main(["score", *map(str, runs), "--out", str(tmp_path / "scores")]) == 0
    out = capsys.readouterr().out
    assert widest(out) <= WIDTH
    header = metrics_header(out)
    assert "acc% [95% CI]" in header and "pass@3" in header and "1st%" in header   # epochs: pass@k with its k
    assert "all-facts%" not in header and "ask-F1" not in header                  # no two-fact rows
    assert "reference | rules | zs" in out and "#1" not in out                     # short labels kept
    assert "err, resp err: 0 in every run" in out and "--columns all" in out
    with (tmp_path / "scores" / "sampler" / "scores.csv").open(encoding="utf-8") as fh:
        written = {row[3] for row in csv.reader(fh)}
    assert set(METRICS) <= written                                               # every metric row
    doc = json.loads((tmp_path / "scores" / "sampler" / "scores.json").read_text(encoding="utf-8"))
    assert set(doc["groups"][0]["metrics"]) == set(METRICS)


def test_two_fact_columns_come_with_two_fact_rows(demo_runs, capsys):
    _, k2 = demo_runs
    capsys.readouterr()
    assert main(["score", *map(str, k2)]) == 0
    out = capsys.readouterr().out
    assert widest(out) <= WIDTH
    header = metrics_header(out).split()
    facts = [c.header for c in MAIN_COLUMNS if c.when == "facts"]
    assert facts and all(h in header for h in facts)
    assert "pass@k" not in header and "pass@1" not in header                     # one epoch: none
    first_fact = next(line for line in out.splitlines() if line.startswith("first-fact | rules | zs ")
                      and "[" in line)
    assert "0.50" in first_fact.split() and "66.7" in first_fact.split()          # credit 1/2, Ask-F1 2/3


def test_long_labels_are_numbered_and_keyed_and_still_fit(tmp_path):
    hosts = ["gpu-node-17.cluster.example.org:8000", "gpu-node-18.cluster.example.org:8000",
             "gpu-node-19.cluster.example.org:8000"]
    runs = [write_run(tmp_path / f"r{i}", f"openai:Qwen/Qwen2.5-72B-Instruct-AWQ@http://{h}/v1", "zs", [0, 1, 2],
                      solver_params={"max_tokens": 8192, "temperature": 0.6, "top_p": 0.95})
            for i, h in enumerate(hosts)]
    scores = score(runs)
    text = render_table(scores)
    assert widest(text) <= WIDTH
    for i, s in enumerate(scores):
        assert f"#{i + 1}  {s.label}" in text                     # the key names every run whole
    assert len({s.label for s in scores}) == 3 and all(len(s.label) > 40 for s in scores)
    for line in text.splitlines():                                # tables name runs by number
        assert not any(line.startswith(s.label + " ") for s in scores)


def test_columns_all_or_a_list_of_metric_names(demo_runs, capsys):
    runs, _ = demo_runs
    capsys.readouterr()
    assert main(["score", *map(str, runs), "--columns", "all"]) == 0
    header = metrics_header(capsys.readouterr().out)
    assert all(c.header in header for c in ALL_COLUMNS if "@" not in c.header and "^" not in c.header)
    assert main(["score", *map(str, runs), "--columns", "accuracy,ask_f1,instances"]) == 0
    header = metrics_header(capsys.readouterr().out)
    assert header.split()[:2] == ["run", "acc%"] and "ask-F1" in header and "instances" in header
    assert "hit%" not in header
    assert choose_columns(None) is None and choose_columns("main") is None
    assert main(["score", *map(str, runs), "--columns", "acuracy"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "'acuracy'" in err and "'accuracy'" in err


def test_score_report_and_view_name_runs_alike(demo_runs, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    runs, _ = demo_runs
    names = ["Reference", "", "Sampler T=0.7"]
    named = [arg for n in names for arg in ("--name", n)]
    capsys.readouterr()
    assert main(["score", *map(str, runs), "--out", str(tmp_path / "s"), *named]) == 0
    out = capsys.readouterr().out
    assert main(["report", *map(str, runs), "--out", str(tmp_path / "r"), *named]) == 0
    assert main(["view", *map(str, runs), "--out", str(tmp_path / "v"), *named]) == 0
    index = (tmp_path / "v" / "data" / "index.js").read_text(encoding="utf-8")
    view_labels = [r["label"] for r in json.loads(index[index.index("(") + 1:index.rindex(")")])["runs"]]
    expected = ["Reference", "noask | rules | zs", "Sampler T=0.7"]
    assert view_labels == expected
    report = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    for label in expected:
        assert label in out and label.replace("|", "\\|") in report
    with (tmp_path / "s" / "sampler" / "scores.csv").open(encoding="utf-8") as fh:
        assert {row[0] for row in list(csv.reader(fh))[1:]} == {"Sampler T=0.7"}
    capsys.readouterr()
    assert main(["view", *map(str, runs), "--out", str(tmp_path / "v2"), "--name", "A", "--name", "A"]) != 0
    assert "two runs are called 'A'" in capsys.readouterr().err
