"""The results table a paper takes: one row per run (display name, accuracy with its 95% Wilson
interval, pass@k where runs have epochs, first-request success, hit rate, requests, tokens,
cost), then accuracy per type and per difficulty; as Markdown (``results.md``) and LaTeX
(``results.tex``, booktabs). Costs come from reported usage and prices per million tokens
(:class:`Prices`); a run whose backend reported no usage shows "n/a", never an estimate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from mira_math.eval.metrics import GroupMetrics, cost, num, pct
from mira_math.eval.scoring import RunScores, ScoringError

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


def _group_names(scores: Sequence[RunScores], kind: str) -> List[str]:
    names = {g.group for s in scores for g in s.groups if g.kind == kind}
    return sorted(names, key=lambda n: (int(n), n) if n.isdigit() else (0, n))


def display_names(scores: Sequence[RunScores], names: Optional[Sequence[str]] = None) -> List[str]:
    """Display names: the ones given (in run order), else each run's label."""
    names = list(names or [])
    return [names[i] if i < len(names) and names[i] else s.label for i, s in enumerate(scores)]


def main_rows(scores: Sequence[RunScores], prices: Optional[Prices],
              names: Optional[Sequence[str]] = None) -> List[List[str]]:
    epochs = any((s.overall.epochs or 1) > 1 for s in scores)
    rows = []
    for name, s in zip(display_names(scores, names), scores):
        m = s.overall
        row = [name, str(m.instances if m.instances is not None else m.n), _interval(m, "accuracy")]
        if epochs:
            row += ["-" if m.pass_at_k is None else f"{pct(m.pass_at_k)} (k={m.pass_k})",
                    "-" if m.pass_hat_k is None else pct(m.pass_hat_k),
                    "-" if m.epoch_accuracy_sd is None else pct(m.epoch_accuracy_sd)]
        row += [_interval(m, "first_request_success"), pct(m.hit_rate), num(m.avg_requests),
                "n/a" if m.avg_tokens_used is None else num(m.avg_tokens_used, 0), num(m.avg_tokens, 0),
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
    header += ["first request % [95% CI]", "hit rate %", "avg requests", "tokens used / inst.",
               "tokens est. / inst.", "responder errors"]
    return header


def by_rows(scores: Sequence[RunScores], kind: str, names: Optional[Sequence[str]] = None) -> List[List[str]]:
    labels = display_names(scores, names)
    def cell(m: Optional[GroupMetrics]) -> str:
        return "-" if m is None else _interval(m, "accuracy")
    return [[label] + [cell(s.group(kind, g)) for g in _group_names(scores, kind)]
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
                  md_table(["run"] + _group_names(scores, kind), by_rows(scores, kind, names))]
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
        parts.append(tex_table(["run"] + _group_names(scores, kind), by_rows(scores, kind, names),
                               f"MIRA-Math accuracy (%) by {kind}, 95% Wilson intervals.",
                               f"tab:mira-{kind}"))
    return "\n\n".join(parts) + "\n"


def write_results(scores: Sequence[RunScores], out_dir: Path, prices: Optional[Prices] = None,
                  names: Optional[Sequence[str]] = None) -> List[Path]:
    out_dir = Path(out_dir)
    (out_dir / RESULTS_MD).write_text(results_markdown(scores, prices, names), encoding="utf-8")
    (out_dir / RESULTS_TEX).write_text(results_tex(scores, prices, names), encoding="utf-8")
    return [out_dir / RESULTS_MD, out_dir / RESULTS_TEX]


__all__ = ["COST_HEADER", "Price", "Prices", "RESULTS_MD", "RESULTS_TEX", "cost_cell", "cost_rows", "display_names",
           "results_markdown",
           "results_tex", "run_cost", "tex_escape", "tokens_cell", "write_results"]
