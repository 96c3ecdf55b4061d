"""Instances per second for generating and validating each family and the whole release.

Usage: python benchmarks/bench_generation.py [--per-family N] [--types AB] [--repeat R] [--quick]
Runs on one core (plain CPython, one process). Prints a table and the overall figures. The
reasoning-gym anchor (when installed) is paired: its pass and the release's alternate ``--repeat``
times in the same process and the ratio is their medians'. ``--quick``: 6 instances per family
and a release of 2 per family and difficulty, one pass (a smoke run of the same code).
"""

from __future__ import annotations

import argparse
import platform
import statistics
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
    parser.add_argument("--repeat", type=int, default=3, help="release passes (alternating with the anchor)")
    parser.add_argument("--quick", action="store_true", help="small inputs, one pass")
    args = parser.parse_args()
    if args.quick:
        args.per_family, args.repeat = 6, 1
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
    per_type = {"A": 2, "B": 2} if args.quick else {"A": 20, "B": 50}
    count = sum(per_type[registry.type_of(n)] * 3 for n in names)
    anchor = _anchor_pass()
    ours_s, theirs_s, files = [], [], []
    for _ in range(args.repeat):     # alternating, so a loaded machine slows both alike
        t0 = time.perf_counter()
        files = render_release(PUBLIC, per_type, names)
        ours_s.append(time.perf_counter() - t0)
        if anchor is not None:
            theirs_s.append(anchor())
    elapsed = statistics.median(ours_s)
    ours = count / elapsed
    print(f"release {args.types} ({count} instances, generate + validate + checksum): "
          f"median {elapsed:.2f} s of {args.repeat} = {ours:.0f} instances/s, {len(files)} files")
    if anchor is None:
        print("anchor: reasoning-gym not installed, not measured (pip install reasoning-gym to print the ratio)")
    else:
        import reasoning_gym

        theirs = _ANCHOR_SIZE * len(_ANCHOR_TASKS) / statistics.median(theirs_s)
        print(f"anchor: reasoning-gym {reasoning_gym.__version__}, {', '.join(_ANCHOR_TASKS)}: "
              f"{theirs:.0f} items/s generated, unvalidated (median of {args.repeat}, alternating with "
              f"the release); ours/theirs = {ours / theirs:.2f}")
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


_ANCHOR_SIZE = 2000


def _anchor_pass():
    """A callable timing one pass of reasoning-gym over the anchor tasks (seconds), or None when
    reasoning-gym is not installed."""
    try:
        import reasoning_gym
    except ImportError:
        return None

    def one_pass() -> float:
        t0 = time.perf_counter()
        for name in _ANCHOR_TASKS:
            items = list(reasoning_gym.create_dataset(name, size=_ANCHOR_SIZE, seed=42))
            assert len(items) == _ANCHOR_SIZE
        return time.perf_counter() - t0

    return one_pass


if __name__ == "__main__":
    main()
