"""The report's figures: every number written on one is the tables' own text (rounded once
from the exact value), and no legend covers a label, for the v1.1 runs and the two-fact ones."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

pytest.importorskip("matplotlib")

from mira_math.cli.main import main  # noqa: E402
from mira_math.eval.metrics import GroupMetrics, fixed, pct  # noqa: E402
from mira_math.eval.report import FIGURES, REPORT, _pct_text, load_scores, render_figure, report  # noqa: E402
from tests.eval.test_report import runs, write_run  # noqa: E402,F401  (the fixture)

NUMBER = re.compile(r"^[+-]?\d+\.\d$")


@pytest.fixture(scope="module")
def k2_runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("k2")
    for solver in ("reference", "first-fact", "noask"):
        assert main(["eval", "--config", "multi_hint", "--solver", solver, "--out", str(base / solver),
                     "--families", "bayes_missing_prior", "crt_reconstruction", "laplace_grid"]) == 0
    return [base / s for s in ("reference", "first-fact", "noask")]


def drawn(run_dirs):
    """(figure file, the laid-out matplotlib figure) of every figure the report draws."""
    scores = load_scores(run_dirs)
    out = []
    for f in FIGURES:
        if f.wanted(scores):
            figure = render_figure(f, scores)
            figure.canvas.draw()                 # the artists' places as saved
            out.append((f.file, figure))
    return out


def texts(figure):
    """Every text artist of a figure but the legends' own: bar numbers, ticks, axis labels, titles."""
    out = []
    for ax in figure.axes:
        out += list(ax.texts) + ax.get_xticklabels() + ax.get_yticklabels()
        out += [ax.xaxis.label, ax.yaxis.label, ax.title]
    return [t for t in out if t.get_visible() and t.get_text().strip()]


def test_a_number_is_rounded_once_from_its_exact_value():
    value = Fraction(121451, 1000000)                 # 12.1451 %
    m = GroupMetrics(accuracy=value)
    assert _pct_text(m) == pct(value) == "12.1"
    assert f"{float(fixed(value * 100, 2)):.1f}" == "12.2"   # rounding the rounded height disagrees
    assert _pct_text(GroupMetrics(accuracy=None)) == "n/a"


@pytest.mark.parametrize("which", ["v1.1", "two facts"])
def test_every_number_on_a_figure_is_in_the_report_tables(which, runs, k2_runs, tmp_path):  # noqa: F811
    run_dirs = runs if which == "v1.1" else k2_runs
    report(run_dirs, tmp_path / "out")
    text = (tmp_path / "out" / REPORT).read_text(encoding="utf-8")
    tables = set(re.findall(r"[+-]?\d+\.\d\b", "\n".join(ln for ln in text.splitlines() if ln.startswith("|"))))
    shown = 0
    for name, figure in drawn(run_dirs):
        numbers = [t.get_text() for t in texts(figure) if NUMBER.match(t.get_text())]
        missing = [n for n in numbers if n.lstrip("+") not in tables]
        assert not missing, f"{name}: {missing} are in no table of the report"
        shown += len(numbers)
    assert shown > 20
    if which == "two facts":
        assert "## Two missing facts" in text and "fig_facts.png" in text


@pytest.mark.parametrize("which", ["v1.1", "two facts"])
def test_no_legend_overlaps_a_label(which, runs, k2_runs):  # noqa: F811
    checked = 0
    for name, figure in drawn(runs if which == "v1.1" else k2_runs):
        renderer = figure.canvas.get_renderer()
        legends = [ax.get_legend() for ax in figure.axes if ax.get_legend() is not None]
        checked += len(legends)
        for legend in legends:
            box = legend.get_window_extent(renderer)
            for t in texts(figure):
                other = t.get_window_extent(renderer)
                overlap = min(box.x1, other.x1) - max(box.x0, other.x0) > 0.5 and \
                    min(box.y1, other.y1) - max(box.y0, other.y0) > 0.5
                assert not overlap, f"{name}: the legend covers {t.get_text()!r}"
    assert checked >= 5                       # every bar chart has one


def test_the_facts_figure_comes_with_two_fact_runs_only(runs, k2_runs, tmp_path):  # noqa: F811
    assert "fig_facts.png" not in [name for name, _ in drawn(runs)]
    assert "fig_facts.png" in [name for name, _ in drawn(k2_runs)]


@pytest.mark.parametrize("which", ["v1.1", "two facts"])
def test_no_chance_mark_strikes_a_bar_number(which, runs, k2_runs):  # noqa: F811
    from matplotlib.collections import LineCollection

    marks = 0
    for name, figure in drawn(runs if which == "v1.1" else k2_runs):
        renderer = figure.canvas.get_renderer()
        for ax in figure.axes:
            segments = [ax.transData.transform(seg) for c in ax.collections if isinstance(c, LineCollection)
                        for seg in c.get_segments()]
            marks += len(segments)
            for t in ax.texts:
                if not NUMBER.match(t.get_text()):
                    continue
                box = t.get_window_extent(renderer)
                for (x0, y0), (x1, _) in segments:
                    crosses = box.y0 < y0 < box.y1 and min(box.x1, max(x0, x1)) > max(box.x0, min(x0, x1))
                    assert not crosses, f"{name}: a chance mark strikes {t.get_text()!r} through"
    assert marks > 0


def test_the_results_table_has_the_fact_columns_with_two_fact_runs_only(runs, k2_runs, tmp_path):  # noqa: F811
    from mira_math.eval.metrics import num

    report(runs, tmp_path / "one")
    report(k2_runs, tmp_path / "two")
    one = (tmp_path / "one" / "results.md").read_text(encoding="utf-8")
    two = (tmp_path / "two" / "results.md").read_text(encoding="utf-8")
    assert "all facts % [95% CI]" not in one and "Ask-F1" not in one
    assert "| all facts % [95% CI] | credit | Ask-F1 % |" in two
    first_fact = next(s for s in load_scores(k2_runs) if s.label.startswith("first-fact"))
    row = next(line for line in two.splitlines() if line.startswith("| first-fact"))
    assert f"| {num(first_fact.overall.partial_credit)} | {pct(first_fact.overall.ask_f1)} |" in row
    assert "Ask-F1" in (tmp_path / "two" / "results.tex").read_text(encoding="utf-8")
