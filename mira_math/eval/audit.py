"""Responder audit: each logged responder decision against what the deterministic ``rules``
responder decides for the same request and the same private lines, so a reader can see how
much the request metrics depend on an LLM responder. No model calls.

``audit(run_dir)`` writes ``RUN_DIR/audit.json`` (agreement, confusion counts, per-family
agreement, every disagreement) and returns an :class:`AuditResult`; ``render_audit`` is the
terminal summary. Every logged responder turn is audited, errored transcripts included.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from mira_math.eval.metrics import fixed
from mira_math.eval.rundir.files import AUDIT_JSON
from mira_math.eval.rundir.transcripts import load_records
from mira_math.eval.scoring import json_value
from mira_math.generators.schema import Instance

# logged / rules; "offer/other_offer": both offer, but different lines
OUTCOMES = ("offer/offer", "offer/other_offer", "offer/decline", "decline/offer", "decline/decline")

Decide = Callable[[Any], Any]   # mira_math.game.responders.base.ResponderCall -> ResponderResult


@dataclass(frozen=True)
class Disagreement:
    id: str
    family: str
    turn: int                    # index among the transcript's responder turns (0-based)
    request: str
    logged_decision: str
    logged_line: Optional[str]
    rules_decision: str
    rules_line: Optional[str]
    rules_reason: Optional[str]


@dataclass
class AuditResult:
    run: str
    turns: int = 0
    agree: int = 0
    confusion: Dict[str, int] = field(default_factory=lambda: {o: 0 for o in OUTCOMES})
    by_family: Dict[str, Dict[str, int]] = field(default_factory=dict)   # family -> turns, agree
    disagreements: List[Disagreement] = field(default_factory=list)

    @property
    def agreement_rate(self) -> Optional[Fraction]:
        return Fraction(self.agree, self.turns) if self.turns else None

    def as_dict(self) -> Dict[str, Any]:
        return {
            "run": self.run, "turns": self.turns, "agree": self.agree,
            "agreement_rate": json_value(self.agreement_rate),
            "confusion": {"logged/rules": dict(self.confusion)},
            "by_family": {f: {**c, "agreement_rate": json_value(Fraction(c["agree"], c["turns"]))}
                          for f, c in sorted(self.by_family.items())},
            "disagreements": [asdict(d) for d in self.disagreements],
        }


def outcome(logged: Tuple[str, Optional[str]], rules: Tuple[str, Optional[str]]) -> str:
    """One of :data:`OUTCOMES` for (decision, line) pairs, logged first."""
    if logged[0] == "offer" and rules[0] == "offer":
        return "offer/offer" if logged[1] == rules[1] else "offer/other_offer"
    return f"{'offer' if logged[0] == 'offer' else 'decline'}/{'offer' if rules[0] == 'offer' else 'decline'}"


def audit_records(records: Sequence[Tuple[Mapping[str, Any], Instance]], decide: Decide,
                  run: str = "") -> AuditResult:
    """Pure: compare every logged responder turn of ``records`` with ``decide``."""
    from mira_math.game.responders.base import ResponderCall

    result = AuditResult(run)
    for transcript, inst in records:
        replies = [t for t in transcript.get("turns") or [] if t.get("role") == "responder"]
        for index, turn in enumerate(replies):
            request = turn.get("request") or ""
            ruled = decide(ResponderCall(list(inst.responder), request, inst.family, 0, inst.view.question))
            logged = (turn.get("decision"), turn.get("quoted_constraint") if turn.get("decision") == "offer" else None)
            rules = (ruled.decision, ruled.quoted_constraint if ruled.decision == "offer" else None)
            kind = outcome(logged, rules)
            agree = kind in ("offer/offer", "decline/decline")
            result.turns += 1
            result.agree += agree
            result.confusion[kind] += 1
            fam = result.by_family.setdefault(inst.family, {"turns": 0, "agree": 0})
            fam["turns"] += 1
            fam["agree"] += agree
            if not agree:
                result.disagreements.append(Disagreement(
                    inst.id, inst.family, index, request, logged[0] or "", logged[1], rules[0], rules[1],
                    (ruled.meta or {}).get("rule")))
    return result


def audit(run_dir: Path, decide: Optional[Decide] = None, write: bool = True) -> AuditResult:
    """Audit one run directory against the rules responder (or ``decide``); writes audit.json."""
    if decide is None:
        from mira_math.game.responders.rules import decide as rules_decide  # needs game.slots

        decide = rules_decide
    run_dir = Path(run_dir)
    loaded = load_records(run_dir)
    result = audit_records(loaded.records, decide, loaded.info.label)
    if write:
        text = json.dumps(result.as_dict(), indent=2, ensure_ascii=False, allow_nan=False)
        (run_dir / AUDIT_JSON).write_text(text + "\n", encoding="utf-8")
    return result


def render_audit(result: AuditResult, show: int = 10) -> str:
    rate = "-" if result.agreement_rate is None else fixed(result.agreement_rate * 100, 1) + "%"
    lines = [f"responder audit of {result.run}: {result.agree}/{result.turns} turns agree with the "
             f"rules responder ({rate})",
             "logged/rules: " + ", ".join(f"{k} {v}" for k, v in result.confusion.items())]
    for d in result.disagreements[:show]:
        lines.append(f"  {d.id} #{d.turn} {d.request!r}: logged {d.logged_decision}"
                     + (f" {d.logged_line!r}" if d.logged_line else "")
                     + f", rules {d.rules_decision}" + (f" {d.rules_line!r}" if d.rules_line else "")
                     + (f" ({d.rules_reason})" if d.rules_reason else ""))
    if len(result.disagreements) > show:
        lines.append(f"  ... {len(result.disagreements) - show} more in {AUDIT_JSON}")
    return "\n".join(lines) + "\n"


__all__ = ["AUDIT_JSON", "AuditResult", "Disagreement", "OUTCOMES", "audit", "audit_records",
           "outcome", "render_audit"]
