"""The rules responder's request matching: microseconds per ``mentioned_slots`` call over
typical requests for every family (grammars compiled before timing).

Usage: python benchmarks/bench_slots.py [--repeat 200]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval.slots import families, mentioned_slots  # noqa: E402

REQUESTS = ["What is the value of P(H)?", "Can you help me solve this?",
            "Please tell me the third congruence.",
            "What is R3? I need it for the equivalent resistance.", "What is E[s3][o2]?",
            "What is the correlation between assets 1 and 2?"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    for family in families():
        mentioned_slots(family, "warm up")
    start, n = time.perf_counter(), 0
    for _ in range(args.repeat):
        for family in families():
            for text in REQUESTS:
                mentioned_slots(family, text)
                n += 1
    elapsed = time.perf_counter() - start
    print(f"mentioned_slots: {n} calls, {1e6 * elapsed / n:.1f} µs per call")


if __name__ == "__main__":
    main()
