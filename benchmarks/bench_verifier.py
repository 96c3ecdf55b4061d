"""Verifier throughput and correctness at scale: >= 100,000 generated answers.

Usage: python benchmarks/bench_verifier.py [--inputs N] [--seed S] [--arbitrary-share F] [--quick]
(``--quick``: 3,000 inputs, the same checks and exit status: a smoke run.)

The inputs are the near misses of ``tests/verifiers/test_fuzz.py`` (off by one, sign flips,
swapped / extra / missing components, rounded decimals, mixed numbers, digits split by
spacing, relations, numbers as labels, \\boxed{} in expressions, two candidates, ... and exact
forms: unreduced, LaTeX, boxed, labelled, named components in any order) over every distinct
stored answer of the committed release, mixed with arbitrary text (number-like, any code
points, long and nested). Deterministic for a seed. Every input goes through ``verify``; the
script counts exceptions and wrong acceptances (a correct verdict for a text whose exact value,
computed independently with ``fractions.Fraction``, is not the stored answer, or whose
``parsed`` is not the stored canonical string), both of which must be 0 (exit status 1
otherwise), and prints answers per second (``verify`` calls only, one core).
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mira_math.verifiers import verify  # noqa: E402


def _fuzz_module():
    """The case generators of the fuzz suite (one definition of a near miss)."""
    path = ROOT / "tests" / "verifiers" / "test_fuzz.py"
    spec = importlib.util.spec_from_file_location("mira_verifier_fuzz", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=120_000, help="number of answers to verify (>= 100000)")
    parser.add_argument("--seed", type=int, default=20240607)
    parser.add_argument("--arbitrary-share", type=float, default=0.3, help="share of arbitrary text")
    parser.add_argument("--quick", action="store_true", help="3,000 inputs (smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.inputs = 3000

    fz = _fuzz_module()
    instances = fz.INSTANCES
    rnd = random.Random(args.seed)

    t0 = time.perf_counter()
    inputs = []   # (instance, case, source)
    n_arbitrary = int(args.inputs * args.arbitrary_share)
    for _ in range(n_arbitrary):
        inputs.append((rnd.choice(instances), fz.Case("arbitrary text", fz.arbitrary_text(rnd), fz.UNKNOWN, False),
                       "arbitrary"))
    i = 0
    while len(inputs) < args.inputs:
        inst = instances[i % len(instances)]
        i += 1
        for case in fz.near_misses(inst, rnd):
            inputs.append((inst, case, "near miss"))
    inputs = inputs[:args.inputs]
    rnd.shuffle(inputs)
    t_gen = time.perf_counter() - t0

    results = []
    exceptions = 0
    elapsed = Counter()
    counts = Counter()
    for inst, case, source in inputs:
        start = time.perf_counter()
        try:
            verdict = verify(inst, case.text)
        except Exception as err:  # noqa: BLE001 - counted: must never happen
            verdict = err
        elapsed[source] += time.perf_counter() - start
        counts[source] += 1
        results.append(verdict)

    wrong, missed, accepted = [], [], 0
    kinds = Counter()
    for (inst, case, _source), verdict in zip(inputs, results):
        kinds[case.kind] += 1
        if isinstance(verdict, Exception):
            exceptions += 1
            continue
        expected = fz.expected_value(inst)
        if verdict.correct:
            accepted += 1
            if ((case.value is not fz.UNKNOWN and case.value != expected)
                    or verdict.parsed != inst.answer.value
                    or fz.parsed_value(verdict.parsed) != expected):
                wrong.append((inst.id, case.kind, case.text, verdict))
        elif case.strict and case.value == expected:
            missed.append((inst.id, case.kind, case.text, verdict.reason))

    total_time = sum(elapsed.values())
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.processor() or 'cpu'}")
    print(f"release answers: {len(instances)} distinct; seed {args.seed}; "
          f"inputs generated in {t_gen:.2f} s")
    print(f"inputs verified:        {len(inputs):,} ({counts['near miss']:,} near misses in {len(kinds) - 1} kinds, "
          f"{counts['arbitrary']:,} arbitrary texts)")
    print(f"accepted:               {accepted:,}")
    print(f"exceptions:             {exceptions}")
    print(f"wrong acceptances:      {len(wrong)}")
    print(f"documented forms rejected: {len(missed)}")
    for source in ("near miss", "arbitrary"):
        if counts[source]:
            print(f"  {source:10s} {counts[source] / elapsed[source]:12,.0f} answers/s "
                  f"({1e6 * elapsed[source] / counts[source]:.1f} us each)")
    print(f"verify throughput:      {len(inputs) / total_time:,.0f} answers/s "
          f"({len(inputs):,} in {total_time:.2f} s, one core)")
    for label, rows in (("WRONG ACCEPTANCE", wrong), ("DOCUMENTED FORM REJECTED", missed)):
        for row in rows[:10]:
            print(f"{label}: {row}")
    if len(inputs) < 100_000:
        print("note: fewer than 100,000 inputs (--inputs)")
    return 1 if exceptions or wrong else 0


if __name__ == "__main__":
    sys.exit(main())
