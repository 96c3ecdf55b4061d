"""``mira-math responder-check``: a responder measured on the labelled request set (the
release's ``responder_check`` config, :mod:`mira_math.generators.requests`) before a run is
trusted to it. The result is a *responder card* (JSON and Markdown): per stratum and overall,
recall (correct offers on precise requests), leaks (offers on requests that must be declined),
wrong facts (an offer of another line on a precise request), agreement with the gold label,
each with a Wilson interval, responder errors, time and tokens, and every disagreement with
the decision the project took on it (:data:`DECIDED`).

The ``rules`` responder is the standard one (:data:`STANDARD_RESPONDER`): run manifests, scores
and ``.eval_results`` name the responder and this card's version (:data:`CARD_VERSION`), and
``score``/``report`` flag results from any other responder.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from mira_math.common.errors import MiraError
from mira_math.eval.metrics import fixed
from mira_math.eval.responder_standard import CARD_VERSION, STANDARD_RESPONDER
from mira_math.eval.stats import wilson
from mira_math.generators.requests import REQUEST_SET_VERSION, REQUESTS_PATH, RequestRow, read_request_set
from mira_math.game.responders.base import ResponderResult, ResponderCall

CARD_JSON = "responder_card.json"
CARD_MD = "responder_card.md"
BATCH = 64
REPLY_CHARS = 400         # of a disagreeing reply kept in the card
PAPER_STRATUM = "paper"   # labelled with the paper's responder's decisions: reported on its own

# Requests on which the project's decision differs from the row's gold label, with the
# decision (docs/decisions/responder.md). Keyed by (stratum, family, request).
_MOMENT_2 = ("precise: q1 + 4q2 is D times the second moment (weights at 0, 1, 2), so the "
             "2nd moment names the held fact; the project offers it, the paper's responder declined")
DECIDED: Dict[Tuple[str, str, str], str] = {
    ("paper", "moment_problem", "the 2nd moment"): _MOMENT_2,
    ("paper", "moment_problem", "the value of moment_2"): _MOMENT_2 + " (moment_2 is moment 2)",
}


# Kinds where the standard responder's miss is a known, accepted limit (the gold label stands).
RULES_LIMITS: Dict[str, str] = {
    "native": ("precise, and the label stands; the rules grammar reads notation and English words, "
               "so a request wholly in another language is declined unless it writes the notation: "
               "a known limit of the standard responder (docs/decisions/responder.md)"),
}


def decision_for(spec: str, row: RequestRow) -> Optional[str]:
    """The project's decision on a disagreement: a request the project decides otherwise than
    the row's source (:data:`DECIDED`), or a known limit of the rules responder."""
    decided = DECIDED.get((row.stratum, row.family, row.request))
    if decided is None and spec == STANDARD_RESPONDER:
        decided = RULES_LIMITS.get(row.construction.kind)
    return decided


class RequestSetError(MiraError):
    """The request set cannot be read (missing file, a malformed row)."""


def load_rows(folder: Path) -> List[RequestRow]:
    """The request set of a release folder; a missing or malformed file is a clear error."""
    path = Path(folder) / REQUESTS_PATH
    if not path.is_file():
        raise RequestSetError(f"{path}: no request set here (the public release carries "
                              f"{REQUESTS_PATH}; held-out and imported folders do not)")
    try:
        return read_request_set(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise RequestSetError(f"{path}: cannot read ({exc})") from None


def subset(rows: Sequence[RequestRow], max_rows: Optional[int]) -> List[RequestRow]:
    """At most ``max_rows`` rows per stratum, evenly spaced in set order (every stratum kept)."""
    if max_rows is None:
        return list(rows)
    by: Dict[str, List[RequestRow]] = {}
    for row in rows:
        by.setdefault(row.stratum, []).append(row)
    keep = {id(group[(j * len(group)) // max_rows] if len(group) > max_rows else group[j])
            for group in by.values() for j in range(min(max_rows, len(group)))}
    return [r for r in rows if id(r) in keep]


@dataclass
class Tally:
    """Counts for one group of rows."""

    n: int = 0
    precise: int = 0
    recalled: int = 0        # precise rows offered the gold line
    wrong_facts: int = 0     # precise rows offered another line
    declines: int = 0
    leaks: int = 0           # decline rows offered any line
    agree: int = 0
    errors: int = 0          # responder turns that logged an error (unparsable reply, ...)

    def add(self, row: RequestRow, result: ResponderResult) -> bool:
        offered = result.decision == "offer" and bool(result.quoted_constraint)
        self.n += 1
        self.errors += bool(result.errors)
        if row.label == "offer":
            self.precise += 1
            ok = offered and result.quoted_constraint == row.gold_line
            self.recalled += ok
            self.wrong_facts += offered and not ok
        else:
            self.declines += 1
            self.leaks += offered
            ok = not offered
        self.agree += ok
        return ok

    def as_dict(self) -> Dict[str, Any]:
        return {"n": self.n, "precise": self.precise, "declines": self.declines,
                "recall": _rate(self.recalled, self.precise), "leaks": _rate(self.leaks, self.declines),
                "wrong_facts": _rate(self.wrong_facts, self.precise),
                "agreement": _rate(self.agree, self.n), "responder_errors": self.errors}


def _rate(k: int, n: int) -> Dict[str, Any]:
    """``k`` of ``n`` with the rate and its 95% Wilson interval, as exact decimal text."""
    interval = wilson(k, n)
    return {"k": k, "n": n, "rate": fixed(Fraction(k, n)) if n else None,
            "wilson95": [fixed(interval[0]), fixed(interval[1])] if interval else None}


@dataclass
class Card:
    responder: Dict[str, Any]
    spec: str
    rows: int
    data_sha256: str
    strata: Dict[str, Tally] = field(default_factory=dict)
    overall: Tally = field(default_factory=Tally)
    by_kind: Dict[str, Tally] = field(default_factory=dict)
    exceptions: List[Dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    tokens: Dict[str, int] = field(default_factory=lambda: {"prompt": 0, "completion": 0})
    # what the responder errors were ("json parse error", "fabricated quote", ...): an error rate
    # says how often a responder breaks the protocol, the reasons say how
    error_reasons: "Counter[str]" = field(default_factory=Counter)

    @property
    def standard(self) -> bool:
        return self.spec == STANDARD_RESPONDER

    def as_dict(self) -> Dict[str, Any]:
        return {
            "card_version": CARD_VERSION, "request_set": REQUEST_SET_VERSION, "responder_spec": self.spec,
            "standard_responder": self.standard, "responder": self.responder,
            "data": {"path": REQUESTS_PATH, "sha256": self.data_sha256, "rows": self.rows},
            "overall": self.overall.as_dict(),
            "strata": {k: t.as_dict() for k, t in sorted(self.strata.items())},
            "by_kind": {k: t.as_dict() for k, t in sorted(self.by_kind.items())},
            "undecided_exceptions": sum(e["decision"] is None for e in self.exceptions),
            "responder_error_reasons": dict(sorted(self.error_reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
            "exceptions": self.exceptions,
            "seconds": round(self.seconds, 3), "tokens": dict(self.tokens),
        }


def _turn(row: RequestRow) -> ResponderCall:
    return ResponderCall(list(row.constraints), row.request, row.family, 0)


def check(responder: Any, rows: Sequence[RequestRow], spec: str, data_sha256: str = "",
          progress: Any = None) -> Card:
    """Run ``responder`` on every row (in batches) and tally the card."""
    card = Card(responder.describe(), spec, len(rows), data_sha256)
    start = time.monotonic()
    for at in range(0, len(rows), BATCH):
        batch = rows[at:at + BATCH]
        results = responder.respond([_turn(r) for r in batch])
        if len(results) != len(batch):
            raise RuntimeError(f"responder returned {len(results)} results for {len(batch)} requests")
        for row, result in zip(batch, results):
            _tally(card, row, result)
        if progress is not None:
            progress(len(batch))
    card.seconds = time.monotonic() - start
    return card


def _tally(card: Card, row: RequestRow, result: ResponderResult) -> None:
    ok = card.strata.setdefault(row.stratum, Tally()).add(row, result)
    if row.stratum != PAPER_STRATUM:     # overall: the strata labelled by construction
        card.overall.add(row, result)
    card.by_kind.setdefault(row.construction.kind, Tally()).add(row, result)
    if result.errors:
        card.error_reasons[error_reason(result.errors[0])] += 1
    usage = (result.meta or {}).get("usage") or {}
    for key in ("prompt", "completion"):
        value = usage.get(f"{key}_tokens")
        if isinstance(value, int):
            card.tokens[key] += value
    if not ok:
        card.exceptions.append({
            "id": row.id, "stratum": row.stratum, "family": row.family, "instance_id": row.instance_id,
            "request": row.request, "kind": row.construction.kind, "template": row.construction.template,
            "label": row.label, "gold_line": row.gold_line, "decision": decision_for(card.spec, row),
            "responder_decision": result.decision, "responder_line": result.quoted_constraint,
            "why": (result.meta or {}).get("rule") or "; ".join(result.errors) or None,
            # an LLM responder's own words (what it quoted, how it was cut off); none for rules
            "reply": result.raw[:REPLY_CHARS] if result.raw else None,
        })


def error_reason(error: str) -> str:
    """An error's kind, without its particulars: the text before its first colon
    (``json parse error: Expecting value ...`` is ``json parse error``)."""
    return error.split(":", 1)[0].strip()


def file_sha256(folder: Path) -> str:
    return hashlib.sha256((Path(folder) / REQUESTS_PATH).read_bytes()).hexdigest()


# ---------------------------------------------------------------- rendering

def _cell(rate: Dict[str, Any]) -> str:
    if not rate["n"]:
        return "-"
    low, high = rate["wilson95"]
    return (f"{fixed(Fraction(rate['k'] * 100, rate['n']), 1)}% ({rate['k']}/{rate['n']}) "
            f"[{fixed(Fraction(low) * 100, 1)}, {fixed(Fraction(high) * 100, 1)}]")


_COLUMNS = ("group", "requests", "recall (precise offered)", "leaks (declines offered)",
            "wrong facts", "agreement with gold", "responder errors")


def table_rows(card: Dict[str, Any]) -> List[List[str]]:
    groups = [(f"stratum {k}", v) for k, v in card["strata"].items()] + [("overall (generated)", card["overall"])]
    return [[name, str(t["n"]), _cell(t["recall"]), _cell(t["leaks"]), _cell(t["wrong_facts"]),
             _cell(t["agreement"]), str(t["responder_errors"])] for name, t in groups]


def render_text(card: Dict[str, Any], limit: int = 20) -> str:
    """The terminal summary: one line per stratum, then the exceptions."""
    rows = table_rows(card)
    widths = [max(len(r[i]) for r in rows + [list(_COLUMNS)]) for i in range(len(_COLUMNS))]
    lines = [f"responder card {card['card_version']}: {card['responder_spec']}"
             f"{' (standard responder)' if card['standard_responder'] else ' (NOT the standard responder)'}"
             f" on {card['data']['rows']} requests of {card['request_set']}",
             "  ".join(c.ljust(w) for c, w in zip(_COLUMNS, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    lines.append(f"time {card['seconds']:.1f} s; tokens {card['tokens']['prompt']} prompt + "
                 f"{card['tokens']['completion']} completion; rates with 95% Wilson intervals")
    if card.get("responder_error_reasons"):
        lines.append(_error_reasons(card))
    excs = card["exceptions"]
    lines.append(f"{len(excs)} disagreement(s) with the gold label, {card['undecided_exceptions']} "
                 f"not decided by the project")
    by_kind = Counter(e["kind"] for e in excs)
    if excs:
        lines.append("  by kind: " + ", ".join(f"{k} {n}" for k, n in sorted(by_kind.items())))
    # the undecided first, then the rarest kinds (a decided limit of one kind does not hide the rest)
    excs = sorted(excs, key=lambda e: (e["decision"] is not None, by_kind[e["kind"]], e["id"]))
    for e in excs[:limit]:
        lines.append(f"  {e['id']} [{e['stratum']}/{e['kind']}] {e['family']}: {e['request']!r} gold "
                     f"{e['label']}, responder {e['responder_decision']}"
                     + (f" ({e['responder_line']})" if e["responder_line"] else "")
                     + (f"; decided: {e['decision']}" if e["decision"] else ""))
    if len(excs) > limit:
        lines.append(f"  ... {len(excs) - limit} more in {CARD_JSON}")
    return "\n".join(lines)


def _error_reasons(card: Dict[str, Any]) -> str:
    return "responder errors by reason: " + ", ".join(
        f"{reason} {n}" for reason, n in card["responder_error_reasons"].items())


def _md(text: str) -> str:
    """A request inside a table cell: pipes escaped, one line."""
    return " ".join(text.split()).replace("|", "\\|").replace("`", "'")


_STANDARD = "This is the standard responder."
_NOT_STANDARD = ("Not the standard (rules) responder: score and report flag results from runs that "
                 "used it.")


def render_markdown(card: Dict[str, Any]) -> str:
    head = "| " + " | ".join(_COLUMNS) + " |\n|" + "---|" * len(_COLUMNS) + "\n"
    body = "".join("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |\n" for r in table_rows(card))
    kinds = "".join(f"| {k} | {t['n']} | {_cell(t['agreement'])} |\n" for k, t in card["by_kind"].items())
    replies = any(e.get("reply") for e in card["exceptions"])    # an LLM responder's words
    excs = "".join(
        f"| {e['id']} | {e['stratum']} | {e['family']} | `{_md(e['request'])}` | {e['label']} | "
        f"{e['responder_decision']} | {e['decision'] or '**not decided**'} |"
        + (f" `{_md(' '.join((e.get('reply') or '').split())[:160])}` |" if replies else "") + "\n"
        for e in card["exceptions"][:200])
    return (
        f"# Responder card: `{card['responder_spec']}`\n\n"
        f"Card version {card['card_version']}, request set {card['request_set']} "
        f"(`{card['data']['path']}`, sha256 `{card['data']['sha256'][:16]}…`, {card['data']['rows']} requests). "
        f"{_STANDARD if card['standard_responder'] else _NOT_STANDARD}\n\n"
        f"Recall: precise requests offered their gold line. Leaks: requests that must be declined "
        f"but were offered a line. Wrong facts: precise requests offered another line. Brackets: "
        f"95% Wilson intervals. Overall: the generated strata, labelled by construction; the "
        f"paper stratum's labels are the paper's responder's decisions on the requests its "
        f"appendix quotes.\n\n{head}{body}\n"
        f"Time {card['seconds']:.1f} s; tokens {card['tokens']['prompt']} prompt + "
        f"{card['tokens']['completion']} completion."
        + (f" {_error_reasons(card).capitalize()}." if card.get("responder_error_reasons") else "")
        + "\n\n"
        f"## Agreement by request kind\n\n| kind | requests | agreement |\n|---|---|---|\n{kinds}\n"
        f"## Disagreements with the gold label ({len(card['exceptions'])}, "
        f"{card['undecided_exceptions']} not decided)\n\n"
        f"| id | stratum | family | request | gold | responder | project's decision |"
        + (" reply |\n" if replies else "\n")
        + "|---|---|---|---|---|---|---|" + ("---|\n" if replies else "\n") + excs)


def write_card(card: Card, out: Path) -> Tuple[Path, Path]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    data = card.as_dict()
    js, md = out / CARD_JSON, out / CARD_MD
    js.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    md.write_text(render_markdown(data), encoding="utf-8")
    return js, md
