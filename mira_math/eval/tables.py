"""Every table the harness shows, in one place: the cell formatters, the terminal summary of
``score`` (:func:`render_table`), the results table a paper takes (one row per run, as Markdown
``results.md`` and LaTeX ``results.tex``, booktabs), the report's Markdown tables and the paired
comparisons of ``compare`` (:func:`render_comparison`) and the report. Scores are
exact fractions (:mod:`mira_math.eval.scoring`), rounded here only when shown.

Costs come from reported usage and prices per million tokens (:class:`Prices`); a run whose
backend reported no usage shows "n/a", never an estimate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from mira_math.eval.compare import Comparison
from mira_math.eval.metrics import (ALL_COLUMNS, MAIN_COLUMNS, ROWS, Column, GroupMetrics, column_for, cost, fixed,
                                    num, pct, table_cells, table_header, wanted)
from mira_math.eval.metrics import _trace_cell as trace_cell
from mira_math.eval.responder_standard import is_standard
from mira_math.eval.rundir.files import ScoringError
from mira_math.eval.scoring import RunScores

PLACES = 4                        # decimals written for every ratio / mean


def cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, Fraction):
        return fixed(value, PLACES)
    return str(value)


def group_names(scores: Sequence[RunScores], kind: str) -> List[str]:
    """The groups of ``kind`` any run has, difficulties in numeric order."""
    names = {g.group for s in scores for g in s.groups if g.kind == kind}
    return sorted(names, key=lambda n: (int(n), n) if n.isdigit() else (0, n))


def delta_pairs(scores: Sequence[RunScores]) -> List[RunScores]:
    """The four-shot runs paired with a zero-shot run (their deltas are shown)."""
    return [s for s in scores if s.deltas and s.run.regime == "4s"]


# ------------------------------------------------------------------ results.md and results.tex

RESULTS_MD = "results.md"
RESULTS_TEX = "results.tex"


# ------------------------------------------------------------------ prices

@dataclass(frozen=True)
class Price:
    prompt: Fraction            # per million prompt tokens
    completion: Fraction        # per million completion tokens


def _price_value(text: object, where: str) -> Fraction:
    try:
        value = Fraction(Decimal(str(text)))
    except (InvalidOperation, ValueError):
        raise ScoringError(f"{where}: expected a price per million tokens, got {text!r}") from None
    if value < 0:
        raise ScoringError(f"{where}: a price cannot be negative, got {text}")
    return value


@dataclass
class Prices:
    """A default price (``--price-in/--price-out``) and a table by solver spec or run label."""

    default: Optional[Price] = None
    table: Optional[Dict[str, Price]] = None

    @classmethod
    def from_options(cls, price_in: Optional[str], price_out: Optional[str],
                     path: Optional[Path]) -> "Prices":
        if (price_in is None) != (price_out is None):
            raise ScoringError("--price-in and --price-out go together (prices per million tokens)")
        default = None if price_in is None else Price(_price_value(price_in, "--price-in"),
                                                      _price_value(price_out, "--price-out"))
        table: Dict[str, Price] = {}
        if path is not None:
            try:
                data = json.loads(Path(path).read_text(encoding="utf-8"))
            except OSError as err:
                raise ScoringError(f"{path}: cannot read the price table ({err.strerror})") from None
            except (ValueError, RecursionError) as err:   # bad UTF-8 or JSON, too deep, huge integers
                raise ScoringError(f"{path}: not JSON ({str(err)[:80] or 'nested too deeply'})") from None
            if not isinstance(data, dict):
                raise ScoringError(f'{path}: expected {{"SOLVER SPEC": {{"in": PRICE, "out": PRICE}}}}')
            for name, entry in data.items():
                if not isinstance(entry, dict) or set(entry) != {"in", "out"}:
                    raise ScoringError(f'{path}: entry {name!r}: expected {{"in": PRICE, "out": PRICE}}')
                table[name] = Price(_price_value(entry["in"], f"{path}: entry {name!r}: field 'in'"),
                                    _price_value(entry["out"], f"{path}: entry {name!r}: field 'out'"))
        return cls(default, table)

    def for_run(self, s: RunScores) -> Optional[Price]:
        table = self.table or {}
        return table.get(s.run.get("solver", ""), table.get(s.label, self.default))

    @property
    def any(self) -> bool:
        return self.default is not None or bool(self.table)


def run_cost(s: RunScores, prices: Optional[Prices], m: Optional[GroupMetrics] = None) -> Optional[Fraction]:
    price = prices.for_run(s) if prices else None
    if price is None:
        return None
    return cost(m or s.overall, price.prompt, price.completion)


def cost_cell(s: RunScores, prices: Optional[Prices]) -> str:
    if prices is None or prices.for_run(s) is None:
        return "-"
    value = run_cost(s, prices)
    return "n/a" if value is None else num(value, 4)


def tokens_cell(m: GroupMetrics) -> str:
    if m.prompt_tokens is None:
        return "n/a"
    return f"{m.prompt_tokens} + {m.completion_tokens}"


# ------------------------------------------------------------------ the table

def _interval(m: GroupMetrics, name: str) -> str:
    value = getattr(m, name)
    if value is None:
        return "-"
    return f"{pct(value)} [{pct(getattr(m, name + '_ci_low'))}, {pct(getattr(m, name + '_ci_high'))}]"


def name_runs(runs: Sequence[Any], names: Optional[Sequence[str]]) -> None:
    """``--name`` of ``score``, ``report`` and ``view``: run i (in the order given, shards
    merged) takes the i-th name as its label everywhere; an empty name keeps the label. More
    names than runs, or two runs of one name, is an error."""
    names = list(names or [])
    if len(names) > len(runs):
        raise ScoringError(f"--name: {len(names)} names for {len(runs)} run(s); give one per run, in "
                           "the order the runs are given")
    for run, name in zip(runs, names):
        if name:
            run.label = name
    labels = [r.label for r in runs]
    twice = sorted({label for label in labels if labels.count(label) > 1})
    if twice:
        raise ScoringError(f"--name: two runs are called {twice[0]!r}; every run needs its own name")


def display_names(scores: Sequence[RunScores], names: Optional[Sequence[str]] = None) -> List[str]:
    """Display names: the ones given (in run order), else each run's label."""
    names = list(names or [])
    return [names[i] if i < len(names) and names[i] else s.label for i, s in enumerate(scores)]


def main_rows(scores: Sequence[RunScores], prices: Optional[Prices],
              names: Optional[Sequence[str]] = None) -> List[List[str]]:
    epochs = any((s.overall.epochs or 1) > 1 for s in scores)
    facts = two_fact_rows(scores)
    rows = []
    for name, s in zip(display_names(scores, names), scores):
        m = s.overall
        row = [name, str(m.instances if m.instances is not None else m.n), _interval(m, "accuracy")]
        if epochs:
            row += ["-" if m.pass_at_k is None else f"{pct(m.pass_at_k)} (k={m.pass_k})",
                    "-" if m.pass_hat_k is None else pct(m.pass_hat_k),
                    "-" if m.epoch_accuracy_sd is None else pct(m.epoch_accuracy_sd)]
        row += [_interval(m, "first_request_success"), pct(m.hit_rate), num(m.avg_requests)]
        if facts:
            row += [_interval(m, "all_facts_rate"), num(m.partial_credit), pct(m.ask_f1)]
        row += ["n/a" if m.avg_tokens_used is None else num(m.avg_tokens_used, 0), num(m.avg_tokens, 0),
                str(m.responder_errors)]
        rows.append(row)     # per-instance columns only: the run's cost has its own table
    return rows


COST_UNIT = "in the prices' currency"
COST_HEADER = ["run", "instances", "prompt + completion tokens", f"cost ({COST_UNIT})",
               f"cost / instance ({COST_UNIT})"]


def cost_rows(scores: Sequence[RunScores], prices: Optional[Prices],
              names: Optional[Sequence[str]] = None) -> List[List[str]]:
    """Per run: its reported tokens and what they cost at the given prices (per million tokens):
    a total for the run, and per instance; n/a where no usage was reported."""
    rows = []
    for name, s in zip(display_names(scores, names), scores):
        m = s.overall
        n = m.instances if m.instances is not None else m.n
        total = run_cost(s, prices)
        per = None if total is None or not n else total / n
        rows.append([name, str(n), tokens_cell(m), cost_cell(s, prices),
                     "-" if prices is None or prices.for_run(s) is None else ("n/a" if per is None else num(per, 6))])
    return rows


def main_header(scores: Sequence[RunScores], prices: Optional[Prices]) -> List[str]:
    epochs = any((s.overall.epochs or 1) > 1 for s in scores)
    header = ["run", "instances", "accuracy % [95% CI]"]
    if epochs:
        header += ["pass@k %", "pass^k %", "epoch sd"]
    header += ["first request % [95% CI]", "hit rate %", "avg requests"]
    if two_fact_rows(scores):
        header += ["all facts % [95% CI]", "credit", "Ask-F1 %"]
    return header + ["tokens used / inst.", "tokens est. / inst.", "responder errors"]


def two_fact_rows(scores: Sequence[RunScores]) -> bool:
    """Whether a run has instances missing two or more facts: the tables then show the k-fact
    metrics (the columns of :data:`MAIN_COLUMNS` shown "facts")."""
    facts = [c for c in MAIN_COLUMNS if c.when == "facts"]
    return bool(facts) and wanted(facts[0], [s.overall for s in scores])


def by_rows(scores: Sequence[RunScores], kind: str, names: Optional[Sequence[str]] = None) -> List[List[str]]:
    labels = display_names(scores, names)
    def cell(m: Optional[GroupMetrics]) -> str:
        return "-" if m is None else _interval(m, "accuracy")
    return [[label] + [cell(s.group(kind, g)) for g in group_names(scores, kind)]
            for label, s in zip(labels, scores)]


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    def esc(c):
        return str(c).replace("|", "\\|")
    lines = ["| " + " | ".join(esc(h) for h in header) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    return "\n".join(lines + ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows])


def results_markdown(scores: Sequence[RunScores], prices: Optional[Prices] = None,
                     names: Optional[Sequence[str]] = None) -> str:
    parts = ["# Results", "Accuracy and first-request success with 95% Wilson intervals (instances "
             "as the unit when a run has several epochs); tokens used: solver prompt + completion "
             "tokens per instance as the backend reported them (n/a: no usage reported); tokens est.: "
             "the paper's words x 1.3 estimate." + (" Cost: from reported usage and prices per "
                                                     "million tokens, below." if prices and prices.any else ""),
             md_table(main_header(scores, prices), main_rows(scores, prices, names))]
    if prices is not None and prices.any:
        parts += [f"## Cost ({COST_UNIT}, from reported usage and prices per million tokens)",
                  md_table(COST_HEADER, cost_rows(scores, prices, names))]
    for kind in ("type", "difficulty"):
        parts += [f"## Accuracy % by {kind} [95% CI]",
                  md_table(["run"] + group_names(scores, kind), by_rows(scores, kind, names))]
    return "\n\n".join(parts) + "\n"


_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
        "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "…": r"\ldots{}"}


def tex_escape(text: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in str(text))


# A table this many columns wide or wider spans both columns of a two-column paper (table*);
# every table is scaled down to its width where it would overflow (\resizebox, graphicx).
WIDE_COLUMNS = 6


def tex_table(header: Sequence[str], rows: Sequence[Sequence[str]], caption: str, label: str) -> str:
    spec = "l" + "r" * (len(header) - 1)
    env = "table*" if len(header) >= WIDE_COLUMNS else "table"
    width = r"\textwidth" if env == "table*" else r"\columnwidth"
    lines = [f"\\begin{{{env}}}[t]", r"\centering", r"\small", f"\\caption{{{tex_escape(caption)}}}",
             f"\\label{{{label}}}", f"\\resizebox{{\\ifdim\\width>{width}{width}\\else\\width\\fi}}{{!}}{{%",
             f"\\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(tex_escape(h) for h in header) + r" \\", r"\midrule"]
    lines += [" & ".join(tex_escape(c) for c in r) + r" \\" for r in rows]
    lines += [r"\bottomrule", r"\end{tabular}}", f"\\end{{{env}}}"]
    return "\n".join(lines)


def results_tex(scores: Sequence[RunScores], prices: Optional[Prices] = None,
                names: Optional[Sequence[str]] = None) -> str:
    """Tables for a paper (needs ``\\usepackage{booktabs,graphicx}``): wide tables span both
    columns (``table*``) and every table is scaled down to fit where it would overflow."""
    parts = ["% MIRA-Math results (mira-math report); needs \\usepackage{booktabs,graphicx}",
             tex_table(main_header(scores, prices), main_rows(scores, prices, names),
                       "MIRA-Math results: accuracy and first-request success with 95% Wilson "
                       "intervals.", "tab:mira-results")]
    if prices is not None and prices.any:
        parts.append(tex_table(COST_HEADER, cost_rows(scores, prices, names),
                               f"MIRA-Math cost ({COST_UNIT}) from reported usage.", "tab:mira-cost"))
    for kind in ("type", "difficulty"):
        parts.append(tex_table(["run"] + group_names(scores, kind), by_rows(scores, kind, names),
                               f"MIRA-Math accuracy (%) by {kind}, 95% Wilson intervals.",
                               f"tab:mira-{kind}"))
    return "\n\n".join(parts) + "\n"


def write_results(scores: Sequence[RunScores], out_dir: Path, prices: Optional[Prices] = None,
                  names: Optional[Sequence[str]] = None) -> List[Path]:
    out_dir = Path(out_dir)
    (out_dir / RESULTS_MD).write_text(results_markdown(scores, prices, names), encoding="utf-8")
    (out_dir / RESULTS_TEX).write_text(results_tex(scores, prices, names), encoding="utf-8")
    return [out_dir / RESULTS_MD, out_dir / RESULTS_TEX]


# ------------------------------------------------------------------ the terminal table

def text_table(header: List[str], rows: List[List[str]]) -> str:
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    def line(r):
        return "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])


def summary_row(m: GroupMetrics) -> List[str]:
    """A group's cells for every metric row with a column (:data:`mira_math.eval.metrics.TABLE_ROWS`)."""
    return table_cells(m)


SUMMARY_HEADER = ["run"] + table_header()


def usage_rows(scores: Sequence[RunScores], prices: Any = None) -> List[List[str]]:
    """Per run: reported solver tokens (prompt + completion, reasoning), coverage, cost."""
    return [[s.label, tokens_cell(s.overall),
             "n/a" if s.overall.reasoning_tokens is None else str(s.overall.reasoning_tokens),
             pct(s.overall.usage_coverage), cost_cell(s, prices)] for s in scores]


USAGE_HEADER = ["run", "tokens used (prompt + completion)", "reasoning", "turns with usage %",
                "cost (run total, prices' currency)"]


DECODING_WIDTH = 40   # the terminal table's decoding cell; scores.json keeps every parameter


def decoding_cell(params: Dict[str, Any]) -> str:
    """Decoding parameters in at most :data:`DECODING_WIDTH` characters: a list (the stop
    sequences) as its length, the rest cut with an ellipsis."""
    text = ", ".join(f"{k}=[{len(v)}]" if isinstance(v, (list, tuple)) else f"{k}={v}"
                     for k, v in sorted(params.items())) or "-"
    return text if len(text) <= DECODING_WIDTH else text[:DECODING_WIDTH - 1] + "\u2026"


WIDTH = 120    # columns: every line of ``score``'s default output fits a terminal this wide


def _width(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)


def choose_columns(spec: Optional[str]) -> Optional[List[Column]]:
    """``--columns``: None or "main" (the default table), "all" (every metric row with a
    column) or a comma-separated list of metric names (any row of scores.json). ValueError
    naming the unknown name and the nearest one."""
    if spec is None or spec.strip() == "main":
        return None
    if spec.strip() == "all":
        return list(ALL_COLUMNS)
    names = [n.strip() for n in spec.split(",") if n.strip()]
    if not names:
        raise ValueError("--columns: expected main, all or a comma-separated list of metric names")
    out = []
    for name in names:
        try:
            out.append(column_for(name))
        except KeyError:
            import difflib

            near = difflib.get_close_matches(name, list(ROWS), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise ValueError(f"--columns: unknown metric {name!r}{hint}; the names are the metrics "
                             "of scores.json, e.g. accuracy,ask_f1,hit_rate") from None
    return out


def _header(c: Column, scores: Sequence[RunScores]) -> str:
    """A column's header; pass@k and pass^k name their k when the runs share one."""
    ks = {s.overall.pass_k for s in scores} - {None}
    if c.metric in ("pass_at_k", "pass_hat_k") and len(ks) == 1 and c.header.endswith("k"):
        return c.header[:-1] + str(ks.pop())
    return c.header


def metric_table(scores: Sequence[RunScores], names: Sequence[str], columns: Sequence[Column]) -> str:
    return text_table(["run"] + [_header(c, scores) for c in columns],
                      [[name] + [c.cell(s.overall) for c in columns] for name, s in zip(names, scores)])


def default_columns(scores: Sequence[RunScores], names: Sequence[str],
                    width: int = WIDTH) -> Tuple[List[Column], List[Column]]:
    """The default table's columns for these runs (see :class:`mira_math.eval.metrics.Column`)
    and those left out to fit ``width`` (the least needed first), in table order."""
    groups = [s.overall for s in scores]
    shown = [c for c in MAIN_COLUMNS if wanted(c, groups)]
    dropped: List[Column] = []
    while len(shown) > 1 and _width(metric_table(scores, names, shown)) > width:
        least = min(shown, key=lambda c: c.keep)
        shown.remove(least)
        dropped.append(least)
    return shown, [c for c in MAIN_COLUMNS if c in dropped]


def _chance_shared(scores: Sequence[RunScores], kind: str, groups: Sequence[str]) -> bool:
    """Whether every run that has a group has the same chance level there (the same instances):
    the table then shows it once, in its own column."""
    for g in groups:
        chances = {m.chance for m in (s.group(kind, g) for s in scores) if m is not None}
        if len(chances) > 1:
            return False
    return True


def by_kind_table(scores: Sequence[RunScores], kind: str, names: Sequence[str]) -> str:
    groups = group_names(scores, kind)
    shared = _chance_shared(scores, kind, groups)
    rows = []
    for g in groups:
        ms = [s.group(kind, g) for s in scores]
        if shared:
            chance = next((m.chance for m in ms if m is not None), None)
            rows.append([g, pct(chance)] + ["-" if m is None else pct(m.accuracy) for m in ms])
        else:
            rows.append([g] + ["-" if m is None else f"{pct(m.accuracy)} (chance {pct(m.chance)})" for m in ms])
    return text_table([kind] + (["chance%"] if shared else []) + list(names), rows)


SHORT_USAGE_HEADER = ["run", "tokens (prompt + completion)", "reasoning", "usage %", "cost"]


def render_table(scores: Sequence[RunScores], prices: Any = None, columns: Optional[Sequence[Column]] = None,
                 width: int = WIDTH) -> str:
    """``score``'s output: the runs (with status), the overall metrics (by default the columns
    a paper's main table needs, fitted to ``width``; ``columns``: these instead), reported
    tokens and cost, accuracy by type / difficulty / family and the four-shot deltas. Where a
    table with the runs' labels would be wider than ``width``, every table names the runs
    #1, #2, ... and a key comes first."""
    def runs_table(names: Sequence[str]) -> str:
        return text_table(["run", "split", "decoding", "epochs", "transcripts", "selected", "status"],
                          [[name, s.run.split, decoding_cell(s.run.get("solver_params") or {}),
                            str(s.run.get("epochs", 1)), str(s.run.transcripts), str(s.run.expected),
                            s.run.status] for name, s in zip(names, scores)])

    usage = prices is not None and prices.any or any(s.overall.avg_tokens_used is not None for s in scores)

    def usage_table(names: Sequence[str]) -> str:
        rows = usage_rows(scores, prices)
        return text_table(SHORT_USAGE_HEADER, [[name] + row[1:] for name, row in zip(names, rows)])

    kinds = ("type", "difficulty", "family")
    labels = [s.label for s in scores]
    main = default_columns(scores, labels, width)[0] if columns is None else list(columns)
    candidates = [runs_table(labels)] + [by_kind_table(scores, k, labels) for k in kinds]
    candidates += [usage_table(labels)] if usage else []
    candidates += [metric_table(scores, labels, main)] if columns is None else []
    numbered = any(_width(t) > width for t in candidates)
    names = [f"#{i + 1}" for i in range(len(scores))] if numbered else labels
    parts = []
    if numbered:
        parts.append(f"runs (numbered: their labels would make the tables wider than {width} columns):\n"
                     + "\n".join(f"{n}  {label}" for n, label in zip(names, labels)))
    parts.append(runs_table(names))
    if columns is None:
        main, dropped = default_columns(scores, names, width)
    else:
        dropped = []
    metrics = metric_table(scores, names, main)
    if columns is None:
        shown = {c.metric for c in main}
        unshown = [c.header for c in MAIN_COLUMNS if c.metric not in shown and c.when == "nonzero"]
        notes = []
        if unshown:
            notes.append(f"{', '.join(unshown)}: 0 in every run")
        if dropped:
            notes.append(f"left out to fit {width} columns: {', '.join(c.header for c in dropped)}")
        notes.append("--columns all: every metric (scores.json and scores.csv keep them all)")
        metrics += "\n" + _wrap("; ".join(notes), width)
    parts.append(metrics)
    if usage:
        parts.append(_wrap("solver tokens as the backends reported them (n/a: none reported); usage %: solver "
                           "turns that reported usage; cost: the run's total in the prices' currency, from "
                           "--price-in/--price-out or --prices:", width) + "\n" + usage_table(names))
    else:
        parts.append("solver tokens: no backend reported usage ('tok est' is the paper's words x 1.3 estimate)")
    for kind in kinds:
        parts.append(f"accuracy % by {kind}:\n" + by_kind_table(scores, kind, names))
    by_label = dict(zip(labels, names))
    for name, s in zip(names, scores):
        if s.deltas and s.run.regime == "4s":
            rows = [[d.group, pct(d.zero_shot), pct(d.four_shot), pct(d.delta)] for d in s.deltas]
            other = by_label.get(s.paired_with or "", s.paired_with)
            parts.append(_wrap(f"four-shot minus zero-shot accuracy (points), {name} vs {other}:", width) + "\n"
                         + text_table(["group", "zs%", "4s%", "delta"], rows))
    incomplete = [name for name, s in zip(names, scores) if not s.run.complete]
    if incomplete:
        parts.append(_wrap("INCOMPLETE runs (a shard or transcripts missing; resume them before comparing): "
                           + "; ".join(incomplete), width))
    parts.append(_wrap("errored transcripts are excluded from every metric but 'err'; hit% and 1st% count "
                       "canonical offers (offer% and 1st-any% of --columns all: any offer); hit% is over "
                       "instances with >= 1 request" + (
                           "; all-facts%: instances that acquired every missing fact, credit: facts acquired / "
                           "k, ask-F1: of request precision and credit (docs/benchmark.md §10)"
                           if two_fact_rows(scores) else ""), width))
    return "\n\n".join(parts) + "\n"


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)) or text


# ------------------------------------------------------------------ the report's Markdown tables

def acc_cell(m: Optional[GroupMetrics]) -> str:
    """Accuracy [95% Wilson CI] (n), and the blind-guess chance over the same n instances
    (instances without a finite answer set count 0)."""
    if m is None or m.accuracy is None:
        return "not evaluated"
    text = f"{pct(m.accuracy)} [{pct(m.accuracy_ci_low)}, {pct(m.accuracy_ci_high)}] (n={m.n})"
    return text + (f" (chance {pct(m.chance_all)})" if m.chance_n else "")


def accuracy_table(scores: Sequence[RunScores], kind: str) -> str:
    names = group_names(scores, kind)
    rows = [[n] + [acc_cell(s.group(kind, n)) for s in scores] for n in names]
    return md_table([kind] + [s.label for s in scores], rows)


def run_table(scores: Sequence[RunScores]) -> str:
    rows = []
    for s in scores:
        r = s.run
        responder = "none (oracle hint)" if r.condition == "oracle_hint" else f"`{r.get('responder')}`"
        if not is_standard(r.get("responder"), r.condition):   # never mixed silently
            responder += " (not the standard responder)"
        shards = "-" if r.shard_count is None else f"{len(r.shards_present)}/{r.shard_count}"
        rows.append([s.label, f"`{r.get('solver')}`", responder, r.regime, r.condition,
                     r.get("protocol", "paper"), r.split, r.dataset_checksum[:12] or "-", r.decoding,
                     ", ".join(d.name for d in r.dirs), shards, r.run_hash[:12], str(r.transcripts),
                     str(r.expected), r.status])
    return md_table(["run", "solver", "responder", "regime", "condition", "protocol", "split (seed sets)",
                     "dataset sha256", "decoding", "directories", "shards", "run_hash", "transcripts",
                     "selected", "status"], rows)


def per_run_table(s: RunScores) -> str:
    rows = [[f"{g.kind}: {g.group}"] + summary_row(g.metrics) for g in s.groups]
    return md_table(["group"] + SUMMARY_HEADER[1:], rows)


def delta_tables(scores: Sequence[RunScores]) -> List[str]:
    out = []
    for s in delta_pairs(scores):
        rows = [[d.group, pct(d.zero_shot), pct(d.four_shot), pct(d.delta)] for d in s.deltas]
        out.append(f"**{s.label}** minus **{s.paired_with}** (percentage points):\n\n"
                   + md_table(["group", "zero-shot %", "four-shot %", "delta"], rows))
    return out



# ------------------------------------------------------------------ paired comparisons (compare)

def p_text(p: Fraction) -> str:
    """A p-value as shown (four places, or "<0.0001")."""
    return "<0.0001" if p < Fraction(1, 10000) else f"{float(p):.4f}"


def signed(value: Optional[Fraction]) -> str:
    """A difference in percentage points with its sign."""
    if value is None:
        return "-"
    text = pct(value)
    return text if text.startswith("-") else "+" + text


def comparison_rows(c: Comparison) -> List[List[str]]:
    return [[r.metric, f"{r.kind}: {r.group}" if r.kind != "all" else "all", str(r.n), pct(r.rate_a),
             pct(r.rate_b), signed(r.difference), f"[{signed(r.low)}, {signed(r.high)}]",
             f"{r.a_better}/{r.b_better}", p_text(r.p_value)] for r in c.rows]


COMPARISON_HEADER = ["metric", "group", "shared", "A %", "B %", "A - B (points)", "95% CI", "A better/B better",
          "McNemar p"]


def render_comparison(c: Comparison) -> str:
    """``mira-math compare``'s output: the two runs, the shared instances, the paired table."""
    lines = [f"A: {c.label_a}", f"B: {c.label_b}",
             f"shared instances: {c.rows[0].n if c.rows else 0} (only in A: {c.only_a}, only in B: {c.only_b})",
             "", text_table(COMPARISON_HEADER, comparison_rows(c)), "",
             "interval: Newcombe's paired score interval (one epoch each), else the normal interval of "
             "the mean per-instance difference; p: McNemar's exact test (a sign test over instances "
             "with several epochs); no correction for the many groups"]
    return "\n".join(lines) + "\n"


def comparison_tables(comparisons: Sequence[Comparison]) -> List[str]:
    """The report's paired comparisons, one Markdown table each."""
    out = []
    for c in comparisons:
        shared = c.rows[0].n if c.rows else 0
        out.append(f"**A = {c.label_a}** vs **B = {c.label_b}**: {shared} shared instances "
                   f"(only in A: {c.only_a}, only in B: {c.only_b})\n\n"
                   + md_table(COMPARISON_HEADER, comparison_rows(c)))
    return out


__all__ = ["COST_HEADER", "WIDTH", "by_kind_table", "choose_columns", "cost_rows", "decoding_cell",
           "default_columns", "metric_table", "name_runs", "two_fact_rows",
           "COMPARISON_HEADER", "PLACES", "Price", "Prices", "RESULTS_MD", "RESULTS_TEX", "SUMMARY_HEADER",
           "USAGE_HEADER", "acc_cell", "accuracy_table", "by_rows", "cell", "comparison_rows", "comparison_tables",
           "cost_cell", "delta_pairs", "delta_tables", "display_names", "group_names", "main_header", "main_rows",
           "md_table", "num", "p_text", "per_run_table", "render_comparison", "render_table", "results_markdown",
           "results_tex", "run_cost", "run_table", "signed", "summary_row", "tex_escape", "tex_table", "text_table",
           "tokens_cell", "trace_cell", "usage_rows", "write_results"]
