"""The Markdown report of any set of runs, with PNG figures (matplotlib, Agg).

``report(run_dirs, out_dir)`` groups the directories into runs (declared shards merged), reuses
each run's ``scores.json`` when it matches the run's files (see
:func:`mira_math.eval.scores_file.cached_scores`) and scores the others without writing into the run
directories, then writes into ``out_dir``:

* ``report.md``: the runs (full spec, split, decoding, status), overall metrics, accuracy (95%
  CI, chance level) by type, difficulty, difficulty x type and family, request quality, the
  trace decomposition with its unreadable answers, four-shot minus zero-shot deltas, per-run
  tables of every group, and the metric definitions;
* ``fig_accuracy.png`` (accuracy per model and regime, the paper's Figure 2),
  ``fig_accuracy_by_type.png`` (Figure 3), ``fig_accuracy_by_difficulty.png`` (Figure 4),
  ``fig_family_heatmap.png`` (family x run, not-evaluated cells hatched),
  ``fig_fewshot_deltas.png`` (per-family four-shot deltas), ``fig_request_quality.png``
  (first-request success and hit rate, canonical vs any offer),
  ``fig_trace_decomposition.png`` (stacked bars with their numbers; the k-fact classes when a
  run has two-fact rows) and, with two-fact rows, ``fig_facts.png`` (all-facts rate, credit,
  ask precision, Ask-F1).

Every number written on a figure is the tables' own text (rounded once from the exact value),
and every legend sits outside the axes' labels.

Every axis is in percent. The same inputs give the same bytes: exact scores rounded once,
matplotlib's default style, fixed sizes and dpi, PNGs saved without the Software text chunk.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, List, Optional, Sequence, Tuple

from mira_math.eval.compare import Comparison, compare_runs
from mira_math.common.extras import install_command, installed
from mira_math.common.staging import staged
from mira_math.eval.metrics import DEFINITIONS, GroupMetrics, num, pct
from mira_math.eval.metrics import _facts_trace_cell as facts_trace_cell
from mira_math.eval.metrics import _interval_cell as interval_cell
from mira_math.eval.rundir.runs import assign_labels, group_runs, short_spec
from mira_math.eval.scores_file import cached_scores
from mira_math.eval.scoring import RunScores, pair_regimes, score_run
from mira_math.eval.tables import (SUMMARY_HEADER, USAGE_HEADER, Prices, accuracy_table, comparison_tables,
                                   delta_pairs, delta_tables, group_names, main_header, main_rows, md_table,
                                   name_runs, per_run_table, run_table, signed, summary_row, trace_cell,
                                   two_fact_rows, usage_rows, write_results)

FIGURES_NEED = f"figures need matplotlib ({install_command('report')})"

REPORT = "report.md"
DPI = 100
TRACE_LABELS = {"trace_no_canonical": "no canonical hint acquired",
                "trace_canonical_wrong": "canonical hint acquired, answer wrong",
                "trace_correct": "correct"}
TRACE_COLOURS = ("#bbbbbb", "#e08040", "#3070b0")
MISSING_COLOUR = "#dddddd"


@dataclass(frozen=True)
class Figure:
    file: str
    title: str
    draw: Callable[..., None]
    size: Callable[[Sequence[RunScores]], tuple]
    wanted: Callable[[Sequence[RunScores]], bool] = lambda scores: True   # False: not drawn


def model_label(s: RunScores) -> str:
    """A run's label without its regime: the 'model' the regimes are compared for."""
    parts = [p for p in s.label.split(" | ") if p != s.run.regime]
    return " | ".join(parts)


def wrap(label: str, width: int = 22) -> str:
    """A label on lines of about ``width`` characters, broken only between its " | " parts and
    at spaces: never inside a token (a model id, a host:port)."""
    lines: List[str] = []
    for part in label.split(" | "):
        pieces = textwrap.wrap(part, width, break_long_words=False, break_on_hyphens=False) or [part]
        if lines and len(lines[-1]) + 3 + len(pieces[0]) <= width:
            lines[-1] += " | " + pieces.pop(0)
        lines += pieces
    return "\n".join(lines) or label


def _pct_value(m: Optional[GroupMetrics], name: str = "accuracy") -> float:
    """A bar's height in %: the exact value as a float (geometry only; its label is
    :func:`_pct_text`)."""
    value = None if m is None else getattr(m, name)
    return float("nan") if value is None else float(value * 100)


def _pct_text(m: Optional[GroupMetrics], name: str = "accuracy") -> str:
    """A number written on a figure: rounded once from the exact value, as the tables round it
    (:func:`mira_math.eval.metrics.pct`), so a figure and a table never disagree in the last
    digit. Rounding the float height instead would: 12.1451% is 12.15 at two places, and
    ``f"{12.15:.1f}"`` is 12.2 where the table says 12.1."""
    value = None if m is None else getattr(m, name)
    return "n/a" if value is None else pct(value)


def _chance(m: Optional[GroupMetrics]) -> float:
    """The chance mark of a bar: a blind guess's expected accuracy over the bar's instances,
    where any of them has a finite answer set (else no mark: nan)."""
    return float("nan") if m is None or not m.chance_n else _pct_value(m, "chance_all")


def blind_tier(scores: Sequence[RunScores]) -> bool:
    """Whether a run holds blind-tier rows (its section and figure are then drawn)."""
    return any(s.overall.blind_n for s in scores)


BLIND_BARS = (("accuracy", "accuracy"), ("minimal_accuracy", "minimal: correct, no unnecessary request"),
              ("ask_decision_accuracy", "ask decision right"), ("over_ask_rate", "over-asked"),
              ("guess_rate", "guessed (answered before every needed fact)"))


def draw_blind(ax, scores: Sequence[RunScores]) -> None:
    """The blind tier per run: accuracy, minimal accuracy, ask-decision accuracy, over-asks and
    guesses, each with its value on the bar."""
    import numpy as np

    width = 0.8 / len(BLIND_BARS)
    x = np.arange(len(scores))
    for i, (name, text) in enumerate(BLIND_BARS):
        values = np.array([_pct_value(s.overall, name) for s in scores])
        pos = x + (i - (len(BLIND_BARS) - 1) / 2) * width
        ax.bar(pos, np.nan_to_num(values), width, label=text, color=f"C{i}")
        for p_, v, s_ in zip(pos, values, scores):
            ax.text(p_, (0 if np.isnan(v) else v) + 1, _pct_text(s_.overall, name), ha="center",
                    va="bottom", fontsize=7)
    ax.set_xticks(x, [wrap(s.label) for s in scores], fontsize=8)
    _percent_axis(ax)
    ax.set_ylabel("%")
    ax.set_title("The blind tier: answers, the decision to ask, unnecessary requests, guesses")
    _legend_below(ax, 3)


def two_fact(scores: Sequence[RunScores]) -> bool:
    """Whether a run has instances missing two or more facts (the multi_hint part)."""
    return two_fact_rows(scores)


# ------------------------------------------------------------------ figures

def _percent_axis(ax, axis: str = "y") -> None:
    (ax.set_ylim if axis == "y" else ax.set_xlim)(0, 105 if axis == "y" else 100)
    ax.grid(axis=axis, alpha=0.3)


def _legend_below(ax, ncol: int) -> None:
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=max(1, ncol), frameon=False)


CHANCE_LABEL = "chance: a blind guess's expected accuracy over the bar's instances"
LABEL_HEIGHT = 4.5      # a bar's number (fontsize 7) in points of the 0-110 % axis, with a margin


def _bars(ax, categories: List[str], series: List[Tuple[str, List[Optional[GroupMetrics]]]],
          colours: Optional[List[str]] = None, hatches: Optional[List[Optional[str]]] = None) -> None:
    """Grouped accuracy bars in %: ``series`` = [(name, one group's metrics per category)],
    each bar with its value written above it (the tables' rounding, 0 included), its 95%
    Wilson whiskers and its chance level (over exactly the instances the bar covers) a dashed
    black mark across it. ``colours``: one per category (a run), else one per series;
    ``hatches``: one per series. The legend, below the axes, names the series and then the
    chance mark."""
    import math

    import numpy as np
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    width = 0.8 / max(1, len(series))
    x = np.arange(len(categories))
    drawn = False
    handles: List[Any] = []
    for i, (name, ms) in enumerate(series):
        values = np.array([_pct_value(m) for m in ms], dtype=float)
        lows = [_pct_value(m, "accuracy_ci_low") for m in ms]
        highs = [_pct_value(m, "accuracy_ci_high") for m in ms]
        err = np.nan_to_num(np.array([[max(0.0, v - lo) for v, lo in zip(values, lows)],
                                      [max(0.0, hi - v) for v, hi in zip(values, highs)]]))
        pos = x + (i - (len(series) - 1) / 2) * width
        colour = colours if colours is not None else f"C{i % 10}"
        hatch = hatches[i] if hatches else None
        ax.bar(pos, np.nan_to_num(values), width, yerr=err, capsize=3, color=colour,
               hatch=hatch, edgecolor="white" if hatch else None)
        handles.append(Patch(facecolor="#999999" if colours is not None else f"C{i % 10}", hatch=hatch,
                             edgecolor="white" if hatch else None, label=name))
        for p, v, hi, m in zip(pos, values, highs, ms):
            if math.isnan(v):
                ax.text(p, 1, "n/a", ha="center", va="bottom", fontsize=7, color="#666666", rotation=90)
                continue
            c = _chance(m)
            top = max(v, 0.0 if math.isnan(hi) else hi)
            if not math.isnan(c) and top <= c <= top + 1.0 + LABEL_HEIGHT:
                top = c                      # the chance mark would strike the number through: above it
            ax.text(p, min(top + 1.0, 101.0), _pct_text(m), ha="center", va="bottom", fontsize=7)
            if not math.isnan(c):
                ax.hlines(c, p - width / 2, p + width / 2, colors="black", linestyles="--", linewidth=1.4)
                drawn = True
    ax.set_xticks(x, [wrap(c) for c in categories], fontsize=8)
    _percent_axis(ax)
    ax.set_ylim(0, 110)
    ax.set_ylabel("accuracy (%)")
    if drawn:
        handles.append(Line2D([], [], color="black", linestyle="--", linewidth=1.4, label=CHANCE_LABEL))
    ax.legend(handles=handles, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.18),
              ncol=min(3, len(handles)), frameon=False)


def _accuracy_series(scores: Sequence[RunScores], kind: str, names: List[str]) -> List[Tuple[str, List[Any]]]:
    return [(s.label, [s.group(kind, n) for n in names]) for s in scores]


def draw_accuracy(ax, scores: Sequence[RunScores]) -> None:
    """Figure 2: one group of bars per model (its own colour), one bar per regime (four-shot
    hatched), 95% Wilson whiskers."""
    models = list(dict.fromkeys(model_label(s) for s in scores))
    regimes = list(dict.fromkeys(s.run.regime for s in scores))
    names = {"zs": "zero-shot", "4s": "four-shot"}
    series = []
    for regime in regimes:
        ms = [next((s.overall for s in scores if s.run.regime == regime and model_label(s) == m), None)
              for m in models]
        series.append((names.get(regime, regime), ms))
    _bars(ax, models, series, colours=[f"C{i % 10}" for i in range(len(models))],
          hatches=[None if r == "zs" else "//" for r in regimes])
    ax.set_title("Accuracy (%) per model and regime, 95% Wilson CI")


def draw_by(kind: str, title: str) -> Callable[..., None]:
    def draw(ax, scores: Sequence[RunScores]) -> None:
        names = group_names(scores, kind)
        _bars(ax, names, _accuracy_series(scores, kind, names))
        ax.set_xlabel(kind)
        ax.set_title(title)
    return draw


FACT_TRACE_LABELS = {"trace_no_fact": "no fact acquired", "trace_some_facts": "some facts acquired, answer wrong",
                     "trace_all_facts_wrong": "every fact acquired, answer wrong", "trace_correct": "correct"}
FACT_TRACE_COLOURS = ("#bbbbbb", "#e8b060", "#e08040", "#3070b0")


def draw_trace(ax, scores: Sequence[RunScores]) -> None:
    """Stacked horizontal bars in %, each segment with its number; unreadable answers hatched
    inside the two wrong classes. With two-fact runs, the k-fact classes instead (no fact /
    some / every fact but wrong / correct): "a canonical hint" would call one fact of two
    acquired."""
    import numpy as np

    facts = two_fact(scores)
    classes = FACT_TRACE_LABELS if facts else TRACE_LABELS
    colours = FACT_TRACE_COLOURS if facts else TRACE_COLOURS
    labels = [wrap(s.label, 30) for s in scores]
    y = np.arange(len(scores))
    left = np.zeros(len(scores))
    for i, (name, text) in enumerate(classes.items()):
        values = np.nan_to_num(np.array([_pct_value(s.overall, name) for s in scores]))
        ax.barh(y, values, left=left, label=text, color=colours[i], height=0.6)
        if not facts and name != "trace_correct":
            attr = name + "_unreadable"
            unread = np.array([100 * getattr(s.overall, attr) / s.overall.n if s.overall.n else 0.0
                               for s in scores])
            ax.barh(y, unread, left=left, height=0.6, color="none", edgecolor="black", hatch="//",
                    linewidth=0, label="of which unreadable answer" if i == 0 else None)
        for yi, (start, v, s) in enumerate(zip(left, values, scores)):
            if v >= 4:
                ax.text(start + v / 2, yi, _pct_text(s.overall, name), ha="center", va="center", fontsize=8,
                        color="white" if i == len(classes) - 1 or (i and not facts) else "black")
        left = left + values
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlim(0, 100)
    ax.set_ylim(len(scores) - 0.5, -0.5)
    ax.set_xlabel("share of instances (%)")
    ax.set_title("Trace decomposition" + (" (k facts missing)" if facts else ""))
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.35 if len(scores) < 3 else -0.2),
              ncol=2, frameon=False)


def draw_facts(ax, scores: Sequence[RunScores]) -> None:
    """The k-fact metrics per run: the all-facts rate (95% Wilson whiskers), partial credit
    (facts acquired / k), ask precision and Ask-F1, each bar with its number."""
    import numpy as np

    bars = [("all_facts_rate", "all facts acquired", "C2"), ("partial_credit", "credit: facts acquired / k", "C0"),
            ("ask_precision", "ask precision: requests that got a new fact", "C1"),
            ("ask_f1", "Ask-F1", "C3")]
    width = 0.8 / len(bars)
    x = np.arange(len(scores))
    for i, (name, text, colour) in enumerate(bars):
        values = np.array([_pct_value(s.overall, name) for s in scores])
        pos = x + (i - (len(bars) - 1) / 2) * width
        err = None
        if name == "all_facts_rate":
            lows = np.array([_pct_value(s.overall, name + "_ci_low") for s in scores])
            highs = np.array([_pct_value(s.overall, name + "_ci_high") for s in scores])
            err = np.nan_to_num(np.array([np.maximum(0, values - lows), np.maximum(0, highs - values)]))
        ax.bar(pos, np.nan_to_num(values), width, yerr=err, capsize=3 if err is not None else 0, label=text,
               color=colour)
        for p, v, s, hi in zip(pos, values, scores, highs if err is not None else values):
            top = 0.0 if np.isnan(v) else max(v, 0 if np.isnan(hi) else hi)
            ax.text(p, top + 1, _pct_text(s.overall, name), ha="center", va="bottom", fontsize=7)
    ax.set_xticks(x, [wrap(s.label) for s in scores], fontsize=8)
    _percent_axis(ax)
    ax.set_ylim(0, 110)
    ax.set_ylabel("%")
    ax.set_title("Two missing facts: facts acquired, precision and Ask-F1")
    _legend_below(ax, 2)


def draw_heatmap(ax, scores: Sequence[RunScores]) -> None:
    """Family x run accuracy in %; a family a run did not evaluate is a hatched grey cell."""
    import numpy as np
    from matplotlib.patches import Patch, Rectangle

    families = group_names(scores, "family")
    grid = np.array([[_pct_value(s.group("family", f)) for s in scores] for f in families], dtype=float)
    image = ax.imshow(np.ma.masked_invalid(grid), cmap="viridis", vmin=0, vmax=100, aspect="auto")
    missing = False
    for r in range(len(families)):
        for c in range(len(scores)):
            if np.isnan(grid[r, c]):
                missing = True
                ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, facecolor=MISSING_COLOUR, hatch="xx",
                                       edgecolor="#999999", linewidth=0))
            else:
                ax.text(c, r, _pct_text(scores[c].group("family", families[r])), ha="center", va="center",
                        fontsize=7,
                        color="white" if grid[r, c] < 60 else "black")
    ax.set_xticks(range(len(scores)), [wrap(s.label, 30) for s in scores], rotation=30, ha="right",
                  fontsize=8)
    ax.set_yticks(range(len(families)), families, fontsize=8)
    ax.set_title("Accuracy (%) by family", pad=24 if missing else 6)
    bar = ax.figure.colorbar(image, ax=ax, fraction=0.04)
    bar.set_label("accuracy (%)")
    if missing:
        ax.legend(handles=[Patch(facecolor=MISSING_COLOUR, hatch="xx", edgecolor="#999999",
                                 label="not evaluated")], fontsize=8, loc="lower left",
                  bbox_to_anchor=(0.0, 1.0), frameon=False, borderaxespad=0.2)


def draw_deltas(ax, scores: Sequence[RunScores]) -> None:
    """Per-family four-shot minus zero-shot accuracy (points), one bar per run pair."""
    import numpy as np

    pairs = delta_pairs(scores)
    if not pairs:
        ax.text(0.5, 0.5, "no run is given in both regimes", ha="center", va="center", fontsize=11,
                transform=ax.transAxes)
        ax.set_axis_off()
        ax.set_title("Four-shot minus zero-shot accuracy by family")
        return
    families = sorted({d.group for s in pairs for d in s.deltas if d.kind == "family"})
    height = 0.8 / len(pairs)
    y = np.arange(len(families))
    for i, s in enumerate(pairs):
        by = {d.group: d.delta for d in s.deltas if d.kind == "family"}
        values = np.array([float(by[f] * 100) if f in by else np.nan for f in families])
        pos = y + (i - (len(pairs) - 1) / 2) * height
        ax.barh(pos, np.nan_to_num(values), height, label=model_label(s), color=f"C{i % 10}")
        for p, v, f in zip(pos, values, families):  # the number, so a zero delta is visible too
            if not np.isnan(v):
                ax.text(v + (0.15 if v >= 0 else -0.15), p, signed(by[f]), va="center",
                        ha="left" if v >= 0 else "right", fontsize=7)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, families, fontsize=8)
    ax.set_ylim(len(families) - 0.5, -0.5)
    limit = max(5.0, max(abs(float(d.delta)) * 100 for s in pairs for d in s.deltas) * 1.3)   # room for the number
    ax.set_xlim(-limit, limit)
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel("four-shot minus zero-shot accuracy (percentage points)")
    ax.set_title("Four-shot minus zero-shot accuracy by family")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="four-shot vs zero-shot of",
              title_fontsize=8, frameon=False)        # beside the axes: never over a bar's number


def draw_requests(ax, scores: Sequence[RunScores]) -> None:
    """First-request success and hit rate per run: canonical offers (solid) vs any offer (hatched)."""
    import numpy as np

    bars = [("first_request_success", "first request: canonical offer", "C0", None),
            ("first_request_offer", "first request: any offer", "C0", "//"),
            ("hit_rate", "hit rate: canonical offers", "C1", None),
            ("offer_rate", "hit rate: any offer", "C1", "//")]
    width = 0.2
    x = np.arange(len(scores))
    for i, (name, text, colour, hatch) in enumerate(bars):
        values = np.array([_pct_value(s.overall, name) for s in scores])
        pos = x + (i - 1.5) * width
        ax.bar(pos, np.nan_to_num(values), width, label=text, color=colour if hatch is None else "white",
               edgecolor=colour, hatch=hatch, linewidth=1.2)
        for p, v, s in zip(pos, values, scores):
            ax.text(p, (0 if np.isnan(v) else v) + 1, _pct_text(s.overall, name), ha="center",
                    va="bottom", fontsize=7)
    ax.set_xticks(x, [wrap(s.label) for s in scores], fontsize=8)
    _percent_axis(ax)
    ax.set_ylabel("%")
    ax.set_title("Request quality: canonical vs any offer (hit rate over instances with a request)")
    _legend_below(ax, 2)


def _bar_width(scores: Sequence[RunScores], categories: int) -> tuple:
    return max(8.0, 0.6 + categories * max(1.2, 0.35 * len(scores))), 5.2


FIGURES = [
    Figure("fig_accuracy.png", "Accuracy per model and regime (the paper's Figure 2)", draw_accuracy,
           lambda sc: _bar_width(sc, len({model_label(s) for s in sc}))),
    Figure("fig_accuracy_by_type.png", "Accuracy by type (Figure 3)",
           draw_by("type", "Accuracy (%) by type, 95% Wilson CI"), lambda sc: _bar_width(sc, 2)),
    Figure("fig_accuracy_by_difficulty.png", "Accuracy by difficulty (Figure 4)",
           draw_by("difficulty", "Accuracy (%) by difficulty, 95% Wilson CI"), lambda sc: _bar_width(sc, 3)),
    Figure("fig_family_heatmap.png", "Family x run accuracy heatmap", draw_heatmap,
           lambda sc: (4.5 + 1.3 * len(sc), 2.2 + 0.32 * len(group_names(sc, "family")))),
    Figure("fig_fewshot_deltas.png", "Four-shot minus zero-shot accuracy by family", draw_deltas,
           lambda sc: (8.0, 2.0 + (0.3 * len(group_names(sc, "family")) if delta_pairs(sc) else 1.0)),
           lambda sc: bool(delta_pairs(sc))),
    Figure("fig_request_quality.png", "Request quality (canonical vs any offer)", draw_requests,
           lambda sc: (max(8.0, 1.0 + 1.8 * len(sc)), 5.0)),
    Figure("fig_trace_decomposition.png", "Trace decomposition", draw_trace,
           lambda sc: (9.0, 1.6 + 0.55 * len(sc) + 0.6)),
    Figure("fig_facts.png", "Two missing facts: facts acquired, precision and Ask-F1", draw_facts,
           lambda sc: (max(8.0, 1.0 + 1.8 * len(sc)), 5.0), two_fact),
    Figure("fig_blind.png", "The blind tier: minimal answers, ask decisions, over-asks, guesses",
           draw_blind, lambda sc: (max(8.0, 1.0 + 2.2 * len(sc)), 5.4), blind_tier),
]


def render_figure(fig: Figure, scores: Sequence[RunScores]) -> Any:
    """A figure drawn and laid out (matplotlib's default style, Agg), not yet saved."""
    from matplotlib import style
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    with style.context("default"):
        canvas = FigureCanvasAgg(MplFigure(figsize=fig.size(scores), dpi=DPI))
        figure = canvas.figure
        fig.draw(figure.subplots(), scores)
        figure.tight_layout()
    return figure


def save_figure(fig: Figure, scores: Sequence[RunScores], path: Path) -> None:
    from matplotlib import style

    figure = render_figure(fig, scores)
    with style.context("default"):
        figure.savefig(path, format="png", dpi=DPI, metadata={"Software": None}, bbox_inches="tight",
                       pad_inches=0.15)


# ------------------------------------------------------------------ markdown

def same_split_pairs(scores: Sequence[RunScores]) -> List[Tuple[RunScores, RunScores]]:
    """Every pair of runs on the same split (dataset checksum and seed sets)."""
    return [(a, b) for i, a in enumerate(scores) for b in scores[i + 1:]
            if a.run.dataset_checksum == b.run.dataset_checksum and a.run.split == b.run.split]


def render_markdown(scores: Sequence[RunScores], comparisons: Sequence[Comparison] = (),
                    prices: Optional[Prices] = None, names: Optional[Sequence[str]] = None,
                    figures: bool = True) -> str:
    fig = {f.file: f for f in FIGURES}
    drawn = {f.file for f in FIGURES if f.wanted(scores)}

    def figure(name: str) -> str:
        if not figures:
            return f"Figure `{name}` not drawn: {FIGURES_NEED}."
        if name not in drawn:
            return ""
        return f"![{fig[name].title}]({name})\n\nFigure file: `{name}`"

    def o(s):
        return s.overall
    trace_rows = [[s.label, str(o(s).n), trace_cell(o(s)), f"{pct(o(s).unreadable)} ({o(s).unreadable_n})",
                   str(o(s).noncanonical_offers), pct(o(s).noncanonical_offer_share)] for s in scores]
    request_rows = [[s.label, pct(o(s).first_request_success), pct(o(s).first_request_offer),
                     pct(o(s).hit_rate), pct(o(s).offer_rate), str(o(s).hit_rate_n),
                     f"{pct(o(s).fallback_share)} ({o(s).fallback_answers} of {o(s).answered})"]
                    for s in scores]
    incomplete = [s.label for s in scores if not s.run.complete]
    parts = [
        "# MIRA-Math evaluation report",
        "Computed from transcripts and the dataset alone (no model calls). Percentages; accuracy "
        "is followed by its 95% Wilson interval (instances as the unit when a run has several "
        "epochs; docs/benchmark.md §7), its n and, where some instances leave finitely many "
        "answers, a blind guess's expected accuracy over the same n instances. Errored "
        "transcripts are counted in `err` and excluded from every other metric.",
        "## Runs", run_table(scores),
        "## Results table",
        "The table of `results.md` (and `results.tex`, for LaTeX with booktabs):",
        md_table(main_header(scores, prices), main_rows(scores, prices, names)),
        "## Tokens and cost",
        "Solver tokens as the backends reported them (turn meta usage; n/a: none reported). The "
        "paper's words x 1.3 estimate stays in `tok est`.",
        md_table(USAGE_HEADER, usage_rows(scores, prices)),
        "## Paired comparisons",
        "Every pair of runs on the same split, over their shared instances: A - B with Newcombe's "
        "paired interval (one epoch each; else the normal interval of the mean per-instance "
        "difference) and McNemar's exact p-value (a sign test with epochs); no correction for "
        "the many groups.",
    ]
    parts += comparison_tables(comparisons) or ["No two runs share a split."]
    if incomplete:
        parts.append("**INCOMPLETE runs** (a shard or transcripts missing; their numbers cover only "
                     "what was run): " + "; ".join(incomplete))
    parts += [
        "## Overall", md_table(SUMMARY_HEADER, [[s.label] + summary_row(s.overall) for s in scores]),
        "Columns: acc% with its 95% CI; chance% (instances with a finite chance level); hit% canonical "
        "hit rate (instances without any request); offer% the any-offer hit rate; 1st% first-request "
        "success (canonical offer), 1st-any% with any offer; req, decl, hints per instance; req<offer "
        "declined requests before the first offer; tokens per instance; fmt format errors; unread% "
        "unreadable answers; fallback% answers taken without an ANSWER: line; trace shares (no "
        "canonical / canonical but wrong / correct, unreadable counts in brackets); noncanon "
        "noncanonical offers.",
        figure("fig_accuracy.png"),
        "## Accuracy by type", accuracy_table(scores, "type"), figure("fig_accuracy_by_type.png"),
        "## Accuracy by difficulty", accuracy_table(scores, "difficulty"),
        figure("fig_accuracy_by_difficulty.png"),
        "## Accuracy by difficulty x type", accuracy_table(scores, "difficulty_type"),
        "## Accuracy by family", accuracy_table(scores, "family"), figure("fig_family_heatmap.png"),
        "## Request quality",
        "Canonical: the offered line is a hint of the instance's hint specification; any offer: the "
        "paper's literal metric, which also counts facts the solver already held.",
        md_table(["run", "1st request canonical %", "1st request any offer %", "hit rate canonical %",
                  "hit rate any offer %", "instances with a request", "fallback answers % (of answered)"],
                 request_rows),
        figure("fig_request_quality.png"),
        "## Trace decomposition",
        md_table(["run", "n", "no canonical (unreadable) / canonical wrong (unreadable) / correct %",
                  "unreadable % (n)", "noncanonical offers", "instances with one"], trace_rows),
        figure("fig_trace_decomposition.png"),
    ]
    if two_fact(scores):
        parts += ["## Two missing facts",
                  "Instances whose view lacks k facts (the multi_hint part; docs/benchmark.md §10): a fact "
                  "is acquired by a canonical offer of any hint of its group; credit is facts acquired / k "
                  "(the recall of Ask-F1), ask precision the requests that acquired a new fact.",
                  md_table(["run", "n", "k (mean)", "facts acquired", "all facts % [95% CI]", "credit %",
                            "ask precision %", "Ask-F1 %", "no fact / some / all but wrong / correct %"],
                           [[s.label, str(o(s).n), num(o(s).facts_needed), num(o(s).avg_facts),
                             interval_cell(o(s), "all_facts_rate"), pct(o(s).partial_credit),
                             pct(o(s).ask_precision), pct(o(s).ask_f1), facts_trace_cell(o(s))] for s in scores]),
                  figure("fig_facts.png")]
    if blind_tier(scores):
        parts += ["## The blind tier",
                  "The solver is not told whether anything is missing (docs/decisions/data-blind-tier.md). "
                  "minimal: correct with no unnecessary request (a request on a control, an offer of an "
                  "irrelevant gap's line); ask decision: asked iff the row needs a fact; over-ask: rows "
                  "with an unnecessary request; controls asked and irrelevant gaps asked: shares of "
                  "those rows; guess: rows needing a fact answered before every needed fact was "
                  "acquired; ask precision, recall and F1 over the needed facts.",
                  md_table(["run", "n", "accuracy % [95% CI]", "minimal % [95% CI]",
                            "ask decision % [95% CI]", "over-ask %", "controls asked %",
                            "irrelevant gaps asked %", "guess %", "ask P / R / F1 %"],
                           [[s.label, str(o(s).blind_n), interval_cell(o(s), "accuracy"),
                             interval_cell(o(s), "minimal_accuracy"),
                             interval_cell(o(s), "ask_decision_accuracy"), pct(o(s).over_ask_rate),
                             pct(o(s).control_ask_rate), pct(o(s).irrelevant_ask_rate),
                             pct(o(s).guess_rate),
                             f"{pct(o(s).ask_precision)} / {pct(o(s).ask_recall)} / {pct(o(s).ask_f1)}"]
                            for s in scores]),
                  figure("fig_blind.png")]
    parts += [
        "## Four-shot minus zero-shot",
    ]
    deltas = delta_tables(scores)
    parts += deltas or ["No run is given in both regimes (no four-shot figure)."]
    if figure("fig_fewshot_deltas.png"):
        parts.append(figure("fig_fewshot_deltas.png"))
    parts.append("## Every group, per run")
    for s in scores:
        parts += [f"### {s.label}", per_run_table(s)]
    parts = [p for p in parts if p]
    parts.append("## Definitions")
    parts.append("\n".join(f"- `{k}`: {v}" for k, v in DEFINITIONS.items()))
    return "\n\n".join(parts) + "\n"


def load_scores(run_dirs: Sequence[Path]) -> List[RunScores]:
    """Every run's scores: its scores.json when current, else scored now (nothing written)."""
    infos = group_runs([Path(d) for d in run_dirs])
    scores = [cached_scores(info) or score_run(info) for info in infos]
    assign_labels(infos)
    pair_regimes(scores)
    return scores


def report(run_dirs: Sequence[Path], out_dir: Path, prices: Optional[Prices] = None,
           names: Optional[Sequence[str]] = None) -> List[Path]:
    """Score (or reuse the scores of) ``run_dirs`` and write ``report.md``, ``results.md``,
    ``results.tex`` and the figures (a figure with nothing to show is not written); without
    matplotlib the tables alone, saying what the figures need."""
    can_draw = installed("matplotlib")                      # checked, not imported: scoring first
    scores = load_scores(run_dirs)
    if names:          # --name: the display names in every section and figure, not the table alone
        name_runs([s_.run for s_ in scores], names)
        pair_regimes(scores)
    comparisons = [compare_runs(a.run, b.run) for a, b in same_split_pairs(scores)]
    markdown = render_markdown(scores, comparisons, prices, names, figures=can_draw)
    return write_report(Path(out_dir), scores, markdown, prices, names, can_draw)


def write_report(out_dir: Path, scores: Sequence[RunScores], markdown: str, prices: Optional[Prices],
                 names: Optional[Sequence[str]], can_draw: bool) -> List[Path]:
    """The only step that writes into ``out_dir``: the figures, ``report.md`` and the results
    tables, everything computed before it, built beside the previous report and swapped in
    whole (a full disk keeps the previous report). Returns report.md, the tables, then the
    figures written."""
    unwanted = [fig.file for fig in FIGURES if can_draw and not fig.wanted(scores)]  # nor an old run's
    with staged(out_dir, remove=unwanted) as stage:
        written = []
        for fig in FIGURES if can_draw else ():
            if fig.file in unwanted:
                continue
            save_figure(fig, scores, stage / fig.file)
            written.append(fig.file)
        (stage / REPORT).write_text(markdown, encoding="utf-8")
        tables = [p.name for p in write_results(scores, stage, prices, names)]
    return [out_dir / name for name in [REPORT, *tables, *written]]


__all__ = ["FIGURES", "REPORT", "load_scores", "model_label", "render_figure", "render_markdown", "report",
           "short_spec", "write_report"]
