"""Instances per second for generating and validating each family and the whole release.

Usage: python benchmarks/bench_generation.py [--per-family N] [--types AB]
Runs on one core (plain CPython, one process). Prints a table and the overall figures.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mira_math.generators import registry  # noqa: E402
from mira_math.generators.build import make_instance  # noqa: E402
from mira_math.generators.release import render_release  # noqa: E402
from mira_math.generators.seeds import PUBLIC  # noqa: E402
from mira_math.generators.validate import validate_instance  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per-family", type=int, default=300, help="instances per family (split over d=1..3)")
    parser.add_argument("--types", default="AB", choices=["A", "B", "AB"])
    parser.add_argument("--capacity", action="store_true",
                        help="also time the held-out capacity measurement (generators/capacity.py)")
    args = parser.parse_args()
    names = registry.names(args.types)
    for n in names:
        registry.get(n)  # import cost is startup, not generation
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.processor() or 'cpu'}")
    print(f"{'family':34s} {'gen+val/s':>10s} {'validate/s':>11s} {'ms/inst':>8s}")
    total_n, total_gen, total_val = 0, 0.0, 0.0
    for name in names:
        family = registry.get(name)
        t0 = time.perf_counter()
        insts = [make_instance(family, 1 + i % 3, 10_000 + i, id="b", seed_set="bench")
                 for i in range(args.per_family)]
        t1 = time.perf_counter()
        for inst in insts:
            assert not validate_instance(inst, family)
        t2 = time.perf_counter()
        total_n += len(insts)
        total_gen += t1 - t0
        total_val += t2 - t1
        print(f"{name:34s} {len(insts) / (t1 - t0):10.0f} {len(insts) / (t2 - t1):11.0f} "
              f"{1000 * (t1 - t0) / len(insts):8.3f}")
    print(f"{'all families (mean rate)':34s} {total_n / total_gen:10.0f} {total_n / total_val:11.0f}")
    per_type = {"A": 20, "B": 50}
    count = sum(per_type[registry.type_of(n)] * 3 for n in names)
    t0 = time.perf_counter()
    files = render_release(PUBLIC, per_type, names)
    elapsed = time.perf_counter() - t0
    ours = count / elapsed
    print(f"release {args.types} ({count} instances, generate + validate + checksum): "
          f"{elapsed:.2f} s = {ours:.0f} instances/s, {len(files)} files")
    _anchor(ours)
    if args.capacity:
        _capacity(names)


def _capacity(names) -> None:
    """Time to generate the public split and up to ten disjoint held-out splits per family."""
    from mira_math.generators.capacity import measure

    print(f"{'family':34s} {'splits':>7s} {'instances':>10s} {'s':>6s} {'inst/s':>7s}")
    for name in names:
        t0 = time.perf_counter()
        cap = measure(name)
        elapsed = time.perf_counter() - t0
        n = sum(cap.instances.values())
        print(f"{name:34s} {('' if cap.limited else '>=') + str(cap.splits):>7s} {n:10d} "
              f"{elapsed:6.2f} {n / elapsed:7.0f}")


# Comparable exact-math tasks of reasoning-gym, generated without any validation.
_ANCHOR_TASKS = ("basic_arithmetic", "fraction_simplification", "gcd", "polynomial_multiplication",
                 "prime_factorization")


def _anchor(ours: float, size: int = 2000) -> None:
    """Ratio against reasoning-gym's generation, measured in the same run, when installed."""
    try:
        import reasoning_gym
    except ImportError:
        print("anchor: reasoning-gym not installed (pip install reasoning-gym to print the ratio)")
        return
    total, elapsed = 0, 0.0
    for name in _ANCHOR_TASKS:
        t0 = time.perf_counter()
        items = list(reasoning_gym.create_dataset(name, size=size, seed=42))
        elapsed += time.perf_counter() - t0
        total += len(items)
    theirs = total / elapsed
    print(f"anchor: reasoning-gym {reasoning_gym.__version__}, {', '.join(_ANCHOR_TASKS)}: "
          f"{theirs:.0f} items/s generated, unvalidated; ours/theirs = {ours / theirs:.2f}")


if __name__ == "__main__":
    main()
