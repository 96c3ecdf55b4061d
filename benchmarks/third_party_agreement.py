"""Agreement of MIRA-Math's reader and verifier with answer corpora written by others.

Usage: python benchmarks/third_party_agreement.py [--source NAME] [--quiet]

Reads ``tests/verifiers/third_party/<source>.jsonl`` (model outputs and gold answers taken from
the test data of Math-Verify, lm-evaluation-harness, reasoning-gym and Qwen2.5-Math, each case
naming its repository, path and commit) and judges every message the way an episode judges a
final turn: ``read_message`` reads the action, an answer is verified with ``verify_answer``
against the case's gold, anything else (a request, a format error) is not correct. It prints,
per source, the cases, the skipped ones (``skipped.json``), the agreement with the source's
verdict, and each disagreement split into decided (``decided.json``), known open
(``open.json``) and undecided. Exit status 1 when a disagreement is undecided.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mira_math.game.reading import read_message  # noqa: E402
from mira_math.generators.schema import Answer  # noqa: E402
from mira_math.verifiers.verify import verify_answer  # noqa: E402

DATA = ROOT / "tests" / "verifiers" / "third_party"
SOURCES = ("math_verify", "lm_eval", "reasoning_gym", "qwen25_math")
FIELDS = ("source", "source_path", "source_commit", "case_id", "message", "gold_answer",
          "answer_type", "source_verdict", "note")


@dataclass(frozen=True)
class Judged:
    case_id: str
    message: str
    gold: str
    source_verdict: bool
    ours: bool
    how: str  # what MIRA read: "answer (marker): 1/4 -> correct", "format_error", ...


@dataclass
class SourceResult:
    source: str
    cases: int = 0
    skipped: int = 0
    agree: int = 0
    disagreements: List[Judged] = field(default_factory=list)
    # per message variant ("answer": an ANSWER: line, "whole": a whole output read by the
    # fallback): [cases, agreements, cases the source credits, of those the ones MIRA credits]
    variants: Dict[str, List[int]] = field(default_factory=dict)


def load_cases(source: str) -> List[Dict[str, object]]:
    """The cases of one source; a malformed line is refused naming file, line and field."""
    path = DATA / f"{source}.jsonl"
    rows = []
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        where = f"{path.relative_to(ROOT).as_posix()}:{no}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{where}: not JSON ({err.msg})") from None
        for name in FIELDS:
            if name not in row:
                raise ValueError(f"{where}: missing field {name!r}")
        if row["answer_type"] not in ("int", "fraction", "tuple"):
            raise ValueError(f"{where}: field 'answer_type' is {row['answer_type']!r}")
        if row["answer_type"] == "tuple" and not row.get("components"):
            raise ValueError(f"{where}: field 'components' is needed for a tuple")
        if not isinstance(row["source_verdict"], bool):
            raise ValueError(f"{where}: field 'source_verdict' is not a boolean")
        rows.append(row)
    return rows


def judge(row: Dict[str, object]) -> Judged:
    """MIRA's verdict on one case through the public path: message -> action -> verdict."""
    answer = Answer(str(row["answer_type"]), str(row["gold_answer"]), list(row.get("components") or []))  # type: ignore[call-overload]
    action = read_message(row["message"]).action
    if action.kind != "answer":
        ours, how = False, action.kind + (f" ({action.error})" if action.error else "")
    else:
        verdict = verify_answer(answer, action.text)
        ours = verdict.correct
        how = f"answer ({action.source}): {action.text[:80]!r} -> {verdict.reason}"
    return Judged(str(row["case_id"]), str(row["message"]), str(row["gold_answer"]),
                  bool(row["source_verdict"]), ours, how)


def _skipped() -> Dict[str, int]:
    data = json.loads((DATA / "skipped.json").read_text(encoding="utf-8"))
    return {name: sum(reasons.values()) for name, reasons in data.items()}


def agreement(sources: Sequence[str] = SOURCES) -> List[SourceResult]:
    """Every source's cases judged, with its disagreements (the test and the script share it)."""
    skipped = _skipped()
    results = []
    for source in sources:
        res = SourceResult(source, skipped=skipped.get(source, 0))
        for row in load_cases(source):
            j = judge(row)
            res.cases += 1
            tally = res.variants.setdefault(j.case_id.rsplit(":", 1)[-1], [0, 0, 0, 0])
            tally[0] += 1
            tally[2] += j.source_verdict
            tally[3] += j.source_verdict and j.ours
            if j.ours == j.source_verdict:
                res.agree += 1
                tally[1] += 1
            else:
                res.disagreements.append(j)
        results.append(res)
    return results


def load_listed(name: str) -> Dict[str, str]:
    """``decided.json`` or ``open.json``: {case_id: reason}."""
    path = DATA / name
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(isinstance(v, str) and v for v in data.values()):
        raise ValueError(f"{path.relative_to(ROOT).as_posix()}: must map each case_id to a reason")
    return data


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", choices=SOURCES, action="append")
    ap.add_argument("--quiet", action="store_true", help="the table only")
    args = ap.parse_args(argv)
    decided, known_open = load_listed("decided.json"), load_listed("open.json")
    results = agreement(args.source or SOURCES)
    undecided = 0
    print(f"{'source':<15}{'cases':>7}{'skipped':>9}{'agree':>7}{'rate':>8}{'decided':>9}{'open':>6}{'new':>5}")
    for r in results:
        d = sum(j.case_id in decided for j in r.disagreements)
        o = sum(j.case_id in known_open for j in r.disagreements)
        n = len(r.disagreements) - d - o
        undecided += n
        rate = f"{100 * r.agree / r.cases:.1f}%" if r.cases else "-"
        print(f"{r.source:<15}{r.cases:>7}{r.skipped:>9}{r.agree:>7}{rate:>8}{d:>9}{o:>6}{n:>5}")
    print(f"\n{'source':<15}{'variant':>8}{'cases':>7}{'agree':>7}{'credited by source':>20}{'also by MIRA':>14}")
    for r in results:
        for variant, (n, a, credited, both) in sorted(r.variants.items()):
            print(f"{r.source:<15}{variant:>8}{n:>7}{a:>7}{credited:>20}{both:>14}")
    if not args.quiet:
        for r in results:
            for j in r.disagreements:
                tag = "decided" if j.case_id in decided else "OPEN" if j.case_id in known_open else "NEW"
                print(f"\n[{tag}] {j.case_id}  gold {j.gold}  source {j.source_verdict}  ours {j.ours}")
                print(f"  message: {j.message[:300]!r}")
                print(f"  read: {j.how}")
                reason = decided.get(j.case_id) or known_open.get(j.case_id)
                if reason:
                    print(f"  why: {reason}")
    return 1 if undecided else 0


if __name__ == "__main__":
    raise SystemExit(main())
