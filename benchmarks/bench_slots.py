"""The rules responder's request reading: per-family rates on the generated request corpora
(``tests/game/responders/corpora.py``), the cost of a typical call, and the worst case over
degenerate requests (the old regexes were quadratic or cubic in them), for the rules
responder's reading and the LLM responder's reply parsing and raw-text fallback.

Usage: python benchmarks/bench_slots.py [--repeat 50] [--quick]
(``--quick``: 2 repeats and the corpora of one instance per family: a smoke run.) Exit status 1
when a precise request is answered with another slot's line or a leak request gets a canonical
line.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Callable, Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "game" / "responders"))

from corpora import leak_corpus, precise_corpus, release  # noqa: E402
from mira_math.game.responders.base import ResponderCall  # noqa: E402
from mira_math.eval.llm_responder import parse_reply  # noqa: E402
from mira_math.game.responders.rules import decide  # noqa: E402
from mira_math.game.slots import MAX_REQUEST_CHARS, families, read_request  # noqa: E402

TYPICAL = ["What is the value of P(H)?", "Can you help me solve this?", "Please tell me the third congruence.",
           "What is R3? I need it for the equivalent resistance.", "What is E[s3][o2]?",
           "What is the correlation between assets 1 and 2?"]


def degenerate(n: int) -> Dict[str, str]:
    """Requests of length about ``n`` built to defeat backtracking regexes."""
    return {
        "internal spaces": "What is x" + " " * n + "?",
        "crt body": "x ≡" + " " * n + "(mod 3)",
        "digits": "1" * n,
        "letters": "a" * n,
        "pairs": "(1, " * (n // 4),
        "subscripts": "R_" * (n // 2),
        "brackets": "[" * n,
        "mixed notation": "P(H) m_1 x0 cell (1,1) " * (n // 24),
        "newlines": "\n" * n,
        "base64-ish": "UjIgaXMg" * (n // 8),
    }


def worst(fn: Callable[[str], object], texts: Dict[str, str], tries: int = 3) -> Tuple[float, str]:
    """The slowest input's time (each the best of ``tries`` runs, so a busy machine's noise
    does not pass for a slow regex)."""
    slowest = (0.0, "")
    for name, text in texts.items():
        best = float("inf")
        for _ in range(tries):
            start = time.perf_counter()
            fn(text)
            best = min(best, time.perf_counter() - start)
        slowest = max(slowest, (best, name))
    return slowest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--quick", action="store_true", help="2 repeats, one instance per family (smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.repeat = 2
    for family in families():
        read_request(family, "warm up P(H) cell (1,1)")

    start, n = time.perf_counter(), 0
    for _ in range(args.repeat):
        for family in families():
            for text in TYPICAL:
                read_request(family, text)
                n += 1
    print(f"read_request: {n} typical calls, {1e6 * (time.perf_counter() - start) / n:.0f} µs per call")

    instances = release()
    if args.quick:
        firsts: Dict[str, object] = {}
        for inst in instances:
            firsts.setdefault(inst.family, inst)
        instances = list(firsts.values())
    total, offered, wrong = Counter(), Counter(), Counter()
    for req in precise_corpus(instances):
        r = decide(ResponderCall(list(req.inst.responder), req.text, req.inst.family, 0))
        total[req.inst.family] += 1
        if r.decision == "offer":
            offered[req.inst.family] += 1
            want = next(h.constraint for h in req.inst.hints if h.slot == req.slot)
            wrong[req.inst.family] += r.quoted_constraint != want
    by_family: Dict[str, List] = defaultdict(list)
    for inst in instances:
        by_family[inst.family].append(inst)
    sample = [i for fam in sorted(by_family) for i in by_family[fam][::20][:3]]
    leaks, leak_total = Counter(), Counter()
    for req in leak_corpus(sample):
        r = decide(ResponderCall(list(req.inst.responder), req.text, req.inst.family, 0))
        leak_total[req.inst.family] += 1
        canon = {h.constraint for h in req.inst.hints}
        leaks[req.inst.family] += r.decision == "offer" and r.quoted_constraint in canon
    print(f"\n{'family':34} {'precise':>8} {'offered':>8} {'wrong':>6} {'leak req':>9} {'canon.':>7}")
    for fam in sorted(total):
        print(f"{fam:34} {total[fam]:8} {100 * offered[fam] / total[fam]:7.2f}% {wrong[fam]:6} "
              f"{leak_total[fam]:9} {leaks[fam]:7}")
    print(f"{'all':34} {sum(total.values()):8} {100 * sum(offered.values()) / sum(total.values()):7.2f}% "
          f"{sum(wrong.values()):6} {sum(leak_total.values()):9} {sum(leaks.values()):7}")
    bad = sum(wrong.values()) + sum(leaks.values())

    print()
    for size in (MAX_REQUEST_CHARS - 10, 2000, 16000):
        texts = degenerate(size)
        t, name = max(worst(lambda s, f=f: read_request(f, s), texts) + (f,) for f in families())[:2]
        print(f"read_request worst case, {size:>6}-char requests: {1e3 * t:7.2f} ms ({name})")
        t, name = worst(parse_reply, {**texts, "open fence": "```json" + "\n" * size})
        print(f"parse_reply worst case,  {size:>6}-char replies:  {1e3 * t:7.2f} ms ({name})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
