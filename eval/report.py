"""The Markdown report of one or more scored runs, with PNG figures (matplotlib, Agg).

``report(run_dirs, out_dir)`` scores the runs (``eval.scoring.score``: shards merged, nothing
written into the run directories) and writes into ``out_dir``:

* ``report.md``: the runs, overall metrics, accuracy (with its 95% CI and the chance level)
  by type, difficulty, difficulty x type and family, the trace decomposition, four-shot minus
  zero-shot deltas, per-run tables of every group, and the metric definitions;
* ``fig_accuracy.png`` (accuracy per model and regime, the paper's Figure 2),
  ``fig_accuracy_by_type.png`` (Figure 3), ``fig_accuracy_by_difficulty.png`` (Figure 4),
  ``fig_trace_decomposition.png`` (stacked bars), ``fig_family_heatmap.png`` (family x run).

The same inputs give the same bytes: exact scores rounded once, matplotlib's default style,
fixed figure sizes and dpi, and PNGs saved without the Software (version) text chunk.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence

from eval.scoring import (DEFINITIONS, GroupMetrics, RunKey, RunScores, SUMMARY_HEADER, fixed, pct,
                          score, summary_row)

REPORT = "report.md"
DPI = 100
TRACE_LABELS = {"trace_no_canonical": "no canonical hint acquired",
                "trace_canonical_wrong": "canonical hint acquired, answer wrong",
                "trace_correct": "correct"}


@dataclass(frozen=True)
class Figure:
    file: str
    title: str
    draw: Callable[..., None]


def model_label(key: RunKey) -> str:
    """A run's label without its regime: the 'model' the regimes are compared for."""
    parts = [key.solver, key.responder]
    if key.condition != "standard":
        parts.append(key.condition)
    if key.protocol != "paper":
        parts.append(key.protocol)
    return " | ".join(parts)


def _value(m: Optional[GroupMetrics], name: str = "accuracy") -> float:
    value = None if m is None else getattr(m, name)
    return float("nan") if value is None else float(fixed(value))


def _group_names(scores: Sequence[RunScores], kind: str) -> List[str]:
    return sorted({g.group for s in scores for g in s.groups if g.kind == kind})


# ------------------------------------------------------------------ figures

def _bars(ax, categories: List[str], series: List[tuple], ylabel: str = "accuracy") -> None:
    """Grouped bars: ``series`` = [(name, values, lows, highs)], one bar per category each."""
    import numpy as np

    width = 0.8 / max(1, len(series))
    x = np.arange(len(categories))
    for i, (name, values, lows, highs) in enumerate(series):
        values = np.array(values, dtype=float)
        err = np.array([[max(0.0, v - lo) for v, lo in zip(values, lows)],
                        [max(0.0, hi - v) for v, hi in zip(values, highs)]])
        err = np.nan_to_num(err)
        ax.bar(x + (i - (len(series) - 1) / 2) * width, np.nan_to_num(values), width, label=name,
               yerr=err, capsize=3, color=f"C{i % 10}")
    ax.set_xticks(x, categories)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))


def _accuracy_series(scores: Sequence[RunScores], kind: str, names: List[str]) -> List[tuple]:
    out = []
    for s in scores:
        ms = [s.group(kind, n) for n in names]
        out.append((s.label, [_value(m) for m in ms], [_value(m, "accuracy_ci_low") for m in ms],
                    [_value(m, "accuracy_ci_high") for m in ms]))
    return out


def draw_accuracy(ax, scores: Sequence[RunScores]) -> None:
    """Figure 2: one group of bars per model, one bar per regime, 95% CI whiskers."""
    models = list(dict.fromkeys(model_label(s.run.key) for s in scores))
    regimes = list(dict.fromkeys(s.run.key.regime for s in scores))
    series = []
    for regime in regimes:
        ms = [next((s.overall for s in scores if s.run.key.regime == regime
                    and model_label(s.run.key) == m), None) for m in models]
        series.append((regime, [_value(m) for m in ms], [_value(m, "accuracy_ci_low") for m in ms],
                       [_value(m, "accuracy_ci_high") for m in ms]))
    _bars(ax, models, series)
    ax.set_title("Accuracy per model and regime (95% CI)")


def draw_by(kind: str, title: str) -> Callable[..., None]:
    def draw(ax, scores: Sequence[RunScores]) -> None:
        names = _group_names(scores, kind)
        _bars(ax, names, _accuracy_series(scores, kind, names))
        ax.set_xlabel(kind)
        ax.set_title(title)
    return draw


def draw_trace(ax, scores: Sequence[RunScores]) -> None:
    import numpy as np

    labels = [s.label for s in scores]
    bottom = np.zeros(len(scores))
    for i, (name, text) in enumerate(TRACE_LABELS.items()):
        values = np.nan_to_num(np.array([_value(s.overall, name) for s in scores]))
        ax.barh(labels, values, left=bottom, label=text, color=("#bbbbbb", "#e08040", "#3070b0")[i])
        bottom = bottom + values
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.set_xlabel("share of instances")
    ax.set_title("Trace decomposition")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=3)


def draw_heatmap(ax, scores: Sequence[RunScores]) -> None:
    import numpy as np

    families = _group_names(scores, "family")
    grid = np.array([[_value(s.group("family", f)) for s in scores] for f in families], dtype=float)
    image = ax.imshow(np.ma.masked_invalid(grid), cmap="viridis", vmin=0, vmax=1, aspect="auto")
    for r in range(len(families)):
        for c in range(len(scores)):
            if not np.isnan(grid[r, c]):
                ax.text(c, r, f"{grid[r, c] * 100:.0f}", ha="center", va="center", fontsize=7,
                        color="white" if grid[r, c] < 0.6 else "black")
    ax.set_xticks(range(len(scores)), [s.label for s in scores], rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(families)), families, fontsize=8)
    ax.set_title("Accuracy (%) by family")
    ax.figure.colorbar(image, ax=ax, fraction=0.04)


FIGURES = [
    Figure("fig_accuracy.png", "Accuracy per model and regime (the paper's Figure 2)", draw_accuracy),
    Figure("fig_accuracy_by_type.png", "Accuracy by type (Figure 3)", draw_by("type", "Accuracy by type")),
    Figure("fig_accuracy_by_difficulty.png", "Accuracy by difficulty (Figure 4)",
           draw_by("difficulty", "Accuracy by difficulty")),
    Figure("fig_trace_decomposition.png", "Trace decomposition", draw_trace),
    Figure("fig_family_heatmap.png", "Family x run accuracy heatmap", draw_heatmap),
]


def _size(fig: Figure, scores: Sequence[RunScores]) -> tuple:
    if fig.file == "fig_family_heatmap.png":
        return 2.5 + 1.2 * len(scores), 1.5 + 0.3 * len(_group_names(scores, "family"))
    if fig.file == "fig_trace_decomposition.png":
        return 9.0, 2.4 + 0.5 * len(scores)
    return max(9.0, 1.5 * len(scores) + 6), 4.5


def save_figure(fig: Figure, scores: Sequence[RunScores], path: Path) -> None:
    from matplotlib import style
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    with style.context("default"):
        canvas = FigureCanvasAgg(MplFigure(figsize=_size(fig, scores), dpi=DPI))
        figure = canvas.figure
        fig.draw(figure.subplots(), scores)
        figure.tight_layout()
        figure.savefig(path, format="png", dpi=DPI, metadata={"Software": None})


# ------------------------------------------------------------------ markdown

def md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    esc = lambda c: str(c).replace("|", "\\|")
    lines = ["| " + " | ".join(esc(h) for h in header) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    return "\n".join(lines + ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows])


def acc_cell(m: Optional[GroupMetrics]) -> str:
    if m is None or m.accuracy is None:
        return "-"
    text = f"{pct(m.accuracy)} [{pct(m.accuracy_ci_low)}, {pct(m.accuracy_ci_high)}]"
    return text + (f" (chance {pct(m.chance)}, n={m.chance_n})" if m.chance_n else "")


def accuracy_table(scores: Sequence[RunScores], kind: str) -> str:
    names = _group_names(scores, kind)
    rows = [[n] + [acc_cell(s.group(kind, n)) for s in scores] for n in names]
    return md_table([kind] + [s.label for s in scores], rows)


def run_table(scores: Sequence[RunScores]) -> str:
    rows = []
    for s in scores:
        r = s.run
        rows.append([s.label, ", ".join(d.name for d in r.dirs), r.run_hash[:12], str(len(r.records)),
                     str(r.expected), str(max(0, r.expected - len(r.records)))])
    return md_table(["run", "directories (shards)", "run_hash", "transcripts", "selected", "missing"], rows)


def per_run_table(s: RunScores) -> str:
    rows = [[f"{g.kind}: {g.group}"] + summary_row(g.metrics) for g in s.groups]
    return md_table(["group"] + SUMMARY_HEADER[1:], rows)


def delta_tables(scores: Sequence[RunScores]) -> List[str]:
    out = []
    for s in scores:
        if s.deltas and s.run.key.regime == "4s":
            rows = [[d.group, pct(d.zero_shot), pct(d.four_shot), pct(d.delta)] for d in s.deltas]
            out.append(f"**{s.label}** minus **{s.paired_with}** (percentage points):\n\n"
                       + md_table(["group", "zero-shot %", "four-shot %", "delta"], rows))
    return out


def render_markdown(scores: Sequence[RunScores]) -> str:
    fig = {f.file: f for f in FIGURES}

    def figure(name: str) -> str:
        return f"![{fig[name].title}]({name})\n\nFigure file: `{name}`"

    trace_rows = [[s.label, str(s.overall.n)] + [pct(getattr(s.overall, k)) for k in TRACE_LABELS]
                  + [str(s.overall.noncanonical_offers), pct(s.overall.noncanonical_offer_share)]
                  for s in scores]
    parts = [
        "# MIRA-Math evaluation report",
        "Computed from transcripts and the dataset alone (no model calls). Percentages; accuracy "
        "is followed by its 95% bootstrap CI and, where the solver's view leaves finitely many "
        "answers, the chance level of a blind guess (over the n instances where it is finite). "
        "Errored transcripts are counted in `err` and excluded from every other metric.",
        "## Runs", run_table(scores),
        "## Overall", md_table(SUMMARY_HEADER, [[s.label] + summary_row(s.overall) for s in scores]),
        "Columns: acc% with its 95% CI; chance% (instances with a finite chance level); hit% "
        "(instances without any request); 1st% first-request success; req, decl, hints per "
        "instance; req<offer declined requests before the first offer; tokens per instance; fmt "
        "format errors; trace shares (no canonical / canonical but wrong / correct); noncanon "
        "noncanonical offers.",
        figure("fig_accuracy.png"),
        "## Accuracy by type", accuracy_table(scores, "type"), figure("fig_accuracy_by_type.png"),
        "## Accuracy by difficulty", accuracy_table(scores, "difficulty"),
        figure("fig_accuracy_by_difficulty.png"),
        "## Accuracy by difficulty x type", accuracy_table(scores, "difficulty_type"),
        "## Accuracy by family", accuracy_table(scores, "family"), figure("fig_family_heatmap.png"),
        "## Trace decomposition",
        md_table(["run", "n"] + list(TRACE_LABELS.values()) + ["noncanonical offers",
                                                                 "instances with one"], trace_rows),
        figure("fig_trace_decomposition.png"),
        "## Four-shot minus zero-shot",
    ]
    deltas = delta_tables(scores)
    parts += deltas or ["No run is given in both regimes."]
    parts.append("## Every group, per run")
    for s in scores:
        parts += [f"### {s.label}", per_run_table(s)]
    parts.append("## Definitions")
    parts.append("\n".join(f"- `{k}`: {v}" for k, v in DEFINITIONS.items()))
    return "\n\n".join(parts) + "\n"


def report(run_dirs: Sequence[Path], out_dir: Path) -> List[Path]:
    """Score ``run_dirs`` and write ``report.md`` and the figures into ``out_dir``."""
    scores = score([Path(d) for d in run_dirs])
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for fig in FIGURES:
        save_figure(fig, scores, out_dir / fig.file)
        written.append(out_dir / fig.file)
    (out_dir / REPORT).write_text(render_markdown(scores), encoding="utf-8")
    return [out_dir / REPORT] + written


__all__ = ["FIGURES", "REPORT", "model_label", "render_markdown", "report"]
