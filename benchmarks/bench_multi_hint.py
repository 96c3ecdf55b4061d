"""The two-fact part (multi_hint): generation and validation time per family, what each proof rests
on (an explicit second completion or an enumerated finite answer set), and validation per
instance against the one-fact part's, measured in the same run.

Usage: python benchmarks/bench_multi_hint.py [--repeat R] [--quick]

Reads the committed release's ``data/<family>/multi_hint.jsonl`` files; regenerates the part
in memory (``build_split(..., k=2)``) and re-runs every proof of ``generators/validate.py``.
The ratio: ``validate_instance`` over the whole two-fact part and over the whole one-fact
release, passes alternating ``--repeat`` times in one process (a shared machine slows both
alike), the median ms per instance of each; per family, its two-fact instances against its own
one-fact ones (the goal: the part at most 2.5x a one-fact instance). ``--quick``: one pass, two
families regenerated (a smoke run of the same code). Exit status 1 when an instance fails.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from itertools import product
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mira_math.generators import registry  # noqa: E402
from mira_math.generators.build import build_split  # noqa: E402
from mira_math.generators.layout import DEFAULT_RELEASE  # noqa: E402
from mira_math.generators.release import (MULTI_HINT_PER_TYPE, family_files,  # noqa: E402
                                          multi_hint_files, multi_hint_seed_set)
from mira_math.generators.schema import Instance, read_jsonl  # noqa: E402
from mira_math.generators.seeds import PUBLIC  # noqa: E402
from mira_math.generators.validate import validate_instance  # noqa: E402

GOAL = 2.5


def _validate_ms(rows: List[Instance]) -> float:
    """ms per instance of one validation pass over ``rows`` (each must be valid), started as a
    fresh ``validate`` process would: geometry's shared distance sets are emptied first."""
    from mira_math.generators.families import geometry_coordinates

    geometry_coordinates._distances_in_spans.cache_clear()
    t0 = time.perf_counter()
    failures = []
    for inst in rows:
        failures += validate_instance(inst, registry.get(inst.family, inst.k))
    spent = time.perf_counter() - t0
    if failures:
        raise SystemExit(f"{len(failures)} validation failure(s), the first: {failures[0]}")
    return 1000 * spent / len(rows)


def ratio(one: List[Instance], two: List[Instance], repeat: int) -> None:
    """Validation ms per instance, one-fact and two-fact, alternating passes; medians."""
    fams = registry.multi_hint_names()
    one_by: Dict[str, List[Instance]] = {f: [i for i in one if i.family == f] for f in fams}
    two_by: Dict[str, List[Instance]] = {f: [i for i in two if i.family == f] for f in fams}
    _validate_ms(one[:50] + two[:50])          # warm-up: imports, family modules
    whole: Dict[str, List[float]] = {"one": [], "two": []}
    per: Dict[str, Dict[str, List[float]]] = {f: {"one": [], "two": []} for f in fams}
    for _ in range(repeat):
        whole["one"].append(_validate_ms(one))
        whole["two"].append(_validate_ms(two))
        for f in fams:
            per[f]["one"].append(_validate_ms(one_by[f]))
            per[f]["two"].append(_validate_ms(two_by[f]))
    print(f"\nvalidation per instance, median of {repeat} alternating passes "
          f"(python {platform.python_version()}, one process)")
    print("| family | one-fact ms | two-fact ms | ratio |\n|---|---|---|---|")
    for f in fams:
        a, b = statistics.median(per[f]["one"]), statistics.median(per[f]["two"])
        print(f"| {f} | {a:.3f} | {b:.3f} | {b / a:.2f}x |")
    a, b = statistics.median(whole["one"]), statistics.median(whole["two"])
    print(f"whole parts: one-fact {a:.3f} ms per instance ({len(one)}), two-fact {b:.3f} ms ({len(two)}): "
          f"two-fact / one-fact = {b / a:.2f}x (goal <= {GOAL}x: {'met' if b / a <= GOAL else 'NOT met'})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="alternating validation passes")
    parser.add_argument("--quick", action="store_true", help="one pass, two families regenerated (smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.repeat = 1
    rows = [inst for path in multi_hint_files(DEFAULT_RELEASE) for inst in read_jsonl(path)]
    print(f"{len(rows)} two-fact instances in {DEFAULT_RELEASE.name}/")
    print("| family | type | n | second completions | enumerated sets | sufficiency combos | "
          "generate s | validate s |")
    print("|---|---|---|---|---|---|---|---|")
    totals = [0.0, 0.0]
    names = registry.multi_hint_names()
    for name in names[:2] if args.quick else names:
        family = registry.get(name, 2)
        mine = [i for i in rows if i.family == name]
        start = time.perf_counter()
        made = list(build_split(multi_hint_seed_set(PUBLIC), MULTI_HINT_PER_TYPE, [name], k=2))
        generate_s = time.perf_counter() - start
        start = time.perf_counter()
        failures = sum(len(validate_instance(i, family)) for i in mine)
        validate_s = time.perf_counter() - start
        witnesses = enumerated = combos = 0
        for inst in mine:
            known = family.known(inst.latent_state())
            for given in [None] + list(inst.hints):
                finite = family.candidates_given(known, [] if given is None else [given])
                enumerated += finite is not None
                witnesses += finite is None
            combos += len(list(product(*inst.groups())))
        if failures or len(made) != len(mine):
            print(f"{name}: {failures} failure(s), {len(made)} regenerated for {len(mine)} stored")
            return 1
        totals[0] += generate_s
        totals[1] += validate_s
        print(f"| {name} | {registry.type_of(name)} | {len(mine)} | {witnesses} | {enumerated} | "
              f"{combos} | {generate_s:.2f} | {validate_s:.3f} |")
    print(f"total: generate {totals[0]:.2f} s (the one-fact part's keys excluded only in a full "
          f"build), validate {totals[1]:.2f} s")
    one = [inst for path in family_files(DEFAULT_RELEASE) for inst in read_jsonl(path)]
    ratio(one, rows, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
