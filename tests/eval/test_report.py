"""The Markdown report: a figure file for each plot, named in the report; the same inputs give
the same bytes; several models and both regimes side by side."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from mira_math.game.protocol import DECLINE_TEXT  # noqa: E402
from mira_math.eval.report import FIGURES, REPORT, report  # noqa: E402
from mira_math.eval.runner import load_data  # noqa: E402
from mira_math.game.transcript import ResponderTurn, SolverTurn, Transcript  # noqa: E402
from mira_math.cli.main import main  # noqa: E402
from mira_math.generators.schema import read_jsonl  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FILES = ["mira-math/data/bayes_missing_prior/test.jsonl", "mira-math/data/discrete_tomography/test.jsonl"]
INSTANCES = [i for f in FILES for i in list(read_jsonl(ROOT / f))[::25]]   # both types, d1-d3
CHECKSUM = load_data([ROOT / f for f in FILES]).checksum
EXPECTED_FIGURES = ["fig_accuracy.png", "fig_accuracy_by_type.png", "fig_accuracy_by_difficulty.png",
                    "fig_family_heatmap.png", "fig_fewshot_deltas.png", "fig_request_quality.png",
                    "fig_trace_decomposition.png"]


def episode(inst, kind):
    """kind 0: ask, get the canonical line, answer right; 1: ask, declined, answer wrong;
    2: no request, answer wrong."""
    line = inst.hints[0].constraint
    said = inst.answer.value if kind == 0 else "x"
    turns = [SolverTurn(f"ANSWER: {said}", "answer", said, False)]
    if kind < 2:
        turns = [SolverTurn("REQUEST: x", "request", "x", False),
                 ResponderTurn("x", "offer", line, True, line) if kind == 0
                 else ResponderTurn("x", "decline", None, False, DECLINE_TEXT)] + turns
    return turns


def write_run(run_dir, solver, regime, pattern, instances=INSTANCES, selected=None, **config):
    run_dir.mkdir(parents=True)
    rows = []
    for n, inst in enumerate(instances):
        kind = pattern[n % len(pattern)]
        rows.append(Transcript(
            id=inst.id, family=inst.family, type=inst.type, difficulty=inst.difficulty, budget=inst.budget,
            solver=solver, responder="rules", regime=regime, condition="standard", turns=episode(inst, kind),
            final_answer=inst.answer.value if kind == 0 else "x", ended_by="answer",  # score re-reads it
            verdict={"correct": kind == 0, "expected": inst.answer.value, "parsed": "0", "reason": ""},
            tokens_est=1.3 * (n + 1)).to_json_line())
    ids = [i.id for i in instances]             # score checks every id against the selection
    ids += [i.id for i in INSTANCES if i.id not in set(ids)][:max(0, (selected or 0) - len(ids))]
    manifest = {"config_hash": f"{solver}-{regime}", "run_hash": f"{solver}-{regime}",
                "config": {"solver": solver, "responder": "rules", "regime": regime, "condition": "standard",
                           "protocol": "paper", "selection": {"ids": ids}, **config},
                "dataset": {"files": FILES, "checksum": CHECKSUM,
                            "instances": len(rows) if selected is None else selected}}
    (run_dir / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (run_dir / "transcripts.jsonl").write_text("".join(rows), encoding="utf-8")
    return run_dir


@pytest.fixture
def runs(tmp_path):
    return [write_run(tmp_path / "x-zs", "model-x", "zs", [0, 1, 2]),
            write_run(tmp_path / "x-4s", "model-x", "4s", [0, 0, 1]),
            write_run(tmp_path / "y-zs", "model-y", "zs", [2, 1])]


def digests(folder: Path):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_every_figure_is_written_and_named(runs, tmp_path):
    written = report(runs, tmp_path / "out")
    tables = ["results.md", "results.tex"]
    assert [p.name for p in written] == [REPORT] + tables + EXPECTED_FIGURES == \
        [REPORT] + tables + [f.file for f in FIGURES
                             if f.file not in ("fig_facts.png", "fig_blind.png")]   # no two-fact or blind rows
    text = (tmp_path / "out" / REPORT).read_text(encoding="utf-8")
    for name in EXPECTED_FIGURES:
        data = (tmp_path / "out" / name).read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 2000
        assert b"matplotlib" not in data.lower()                  # no version / software stamp
        assert f"]({name})" in text and f"`{name}`" in text
    # models side by side, chance beside accuracy, deltas, definitions
    for label in ("model-x | rules | zs", "model-x | rules | 4s", "model-y | rules | zs"):
        assert label in text
    assert "(chance 50.0)" in text                                   # discrete_tomography: 2 candidates
    assert "**model-x | rules | 4s** minus **model-x | rules | zs**" in text
    assert "## Definitions" in text and "`trace_canonical_wrong`" in text


def test_same_inputs_give_the_same_files(runs, tmp_path):
    report(runs, tmp_path / "a")
    assert main(["report", *map(str, runs), "--out", str(tmp_path / "b")]) == 0
    assert digests(tmp_path / "a") == digests(tmp_path / "b")
    assert len(digests(tmp_path / "a")) == 3 + len(EXPECTED_FIGURES)
    report(runs[:1], tmp_path / "c")                                 # other inputs, other figures
    assert digests(tmp_path / "c")["fig_accuracy.png"] != digests(tmp_path / "a")["fig_accuracy.png"]
    text = (tmp_path / "c" / REPORT).read_text(encoding="utf-8")
    assert "No run is given in both regimes (no four-shot figure)." in text


def test_report_writes_nothing_into_the_run_dirs(runs, tmp_path):
    before = [digests(r) for r in runs]
    report(runs, tmp_path / "out")
    assert [digests(r) for r in runs] == before


def test_report_reuses_current_scores_and_rescores_changed_runs(runs, tmp_path, monkeypatch):
    import mira_math.eval.report as report_module
    assert main(["score", *map(str, runs)]) == 0
    report(runs, tmp_path / "scored")                            # scores.json written by score
    calls = []
    monkeypatch.setattr(report_module, "score_run", lambda info: calls.append(info) or 1 / 0)
    report(runs, tmp_path / "reused")                                 # no scoring at all
    assert calls == [] and digests(tmp_path / "reused") == digests(tmp_path / "scored")
    with (runs[0] / "transcripts.jsonl").open("a", encoding="utf-8") as fh:
        fh.write("\n")                                              # the files changed: score again
    with pytest.raises(ZeroDivisionError):
        report(runs, tmp_path / "changed")
    assert len(calls) == 1 and calls[0].out_dir == runs[0]


def test_runs_table_incomplete_runs_long_labels_and_missing_families(tmp_path):
    url = "openai:Qwen/Qwen2.5-7B-Instruct@http://gpu-node-17.cluster.example.org:8000/v1"
    bayes = [i for i in INSTANCES if i.family == "bayes_missing_prior"]
    runs = [write_run(tmp_path / "a", url, "zs", [0, 1], solver_params={"temperature": 0.7}),
            write_run(tmp_path / "b", "model-y", "zs", [2], instances=bayes, selected=len(bayes) + 3)]
    report(runs, tmp_path / "out")
    text = (tmp_path / "out" / REPORT).read_text(encoding="utf-8")
    assert "openai:Qwen2.5-7B-Instruct@gpu-node-17:8000 \\| rules \\| zs" in text      # short label
    assert f"`{url}`" in text and "temperature=0.7" in text and "public-20-50" in text   # full spec, decoding, split
    assert "INCOMPLETE (3 missing)" in text and "**INCOMPLETE runs**" in text
    assert "not evaluated" in text                                   # model-y never saw tomography
    assert "hit rate any offer %" in text and "unreadable % (n)" in text


def test_results_tables_paired_comparisons_and_no_empty_four_shot_figure(runs, tmp_path):
    out = tmp_path / "only-zs"
    assert main(["report", str(runs[0]), str(runs[2]), "--out", str(out), "--name", "Model X",
                 "--price-in", "1", "--price-out", "2"]) == 0
    assert not (out / "fig_fewshot_deltas.png").exists()
    text = (out / REPORT).read_text(encoding="utf-8")
    assert "fig_fewshot_deltas.png" not in text and "## Paired comparisons" in text
    assert "**A = Model X** vs **B = model-y | rules | zs**" in text      # --name in every section
    assert "model-x | rules | zs" not in text.replace("\\|", "|").split("## Runs")[0]
    md = (out / "results.md").read_text(encoding="utf-8")
    assert "| Model X |" in md and "| model-y \\| rules \\| zs |" in md
    (main_header,) = [line for line in md.splitlines() if line.startswith("| run | instances | accuracy")]
    assert "cost" not in main_header                         # not beside the per-instance columns
    assert "## Cost (in the prices' currency" in md and "| cost (in the prices' currency) |" in md
    assert "| n/a |" in md                                   # no usage reported: no cost either
    tex = (out / "results.tex").read_text(encoding="utf-8")
    assert "\\begin{tabular}" in tex and "accuracy \\% [95\\% CI]" in tex and "Model X" in tex
    assert "\\begin{table*}" in tex and "\\resizebox{" in tex and "graphicx" in tex   # fits the page


def test_report_names_reach_the_figures(runs, tmp_path, monkeypatch):
    import mira_math.eval.report as report_mod

    seen = []
    monkeypatch.setattr(report_mod, "installed", lambda name: True)
    monkeypatch.setattr(report_mod, "save_figure", lambda fig, scores, path: seen.append([s.label for s in scores]))
    report(runs, tmp_path / "named", names=["X zero-shot", "X four-shot", "Y"])
    assert seen and all(labels == ["X zero-shot", "X four-shot", "Y"] for labels in seen)
    text = (tmp_path / "named" / REPORT).read_text(encoding="utf-8")
    assert "X four-shot" in text and "model-x | rules | 4s" not in text.replace("\\|", "|").split("## Runs")[0]


def test_labels_wrap_between_parts_never_inside_a_token():
    from mira_math.eval.report import wrap

    label = "openai:stub@127.0.0.1:18080 | rules | zs"
    lines = wrap(label).split("\n")
    assert "openai:stub@127.0.0.1:18080" in lines and all(" | " not in ln or len(ln) <= 22 for ln in lines)
