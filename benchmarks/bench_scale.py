"""Time and peak memory of the ``mira-math`` CLI at scale.

``score``, ``report`` and ``eval`` (offline ``reference`` / ``noask`` solvers, rules responder) at
2k / 10k / 50k / 100k instances, and ``generate`` / ``validate`` / ``verify`` at 1x / 4x / 16x the
release's per-type counts (20/50). Each command is the installed ``mira-math`` script run as a
child of a fresh wrapper process, so its peak RSS is ``getrusage(RUSAGE_CHILDREN).ru_maxrss`` of
that wrapper (one child each; KiB on Linux). Times are wall seconds including interpreter start.

The eval dataset at n instances is bench_score's synthetic one: the release's instances repeated
under new ids (``ID-k``), which ``eval --data`` accepts; held-out splits cannot reach 100k because
several families are capacity-limited (mira_math/generators/capacity.json, the card's capacity table).
When ``generate`` refuses a scale, it is retried with the families whose recorded capacity allows
it (unlimited ones, or at least that many disjoint splits) and the refusal is printed as a note.

Usage: python benchmarks/bench_scale.py [--quick] [--sizes 2000 10000 ...] [--scales 1 4 16]

``--quick``: 300 instances over one family's transcripts, and 1x of one family at 2/5 per type (a
smoke run of the same code). Exit status 1 when a command fails other than by ``generate``'s
refusal past a family's capacity (which is retried with the families that have it).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_score import QUICK_CONFIG, ROOT, base_runs, synthetic_run  # noqa: E402

RELEASE_PER_TYPE = (20, 50)
CAPACITY = ROOT / "mira_math" / "generators" / "capacity.json"
FAILED: list = []          # the commands that failed (the exit status)

WRAP = """
import resource, subprocess, sys, time
t = time.perf_counter()
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.perf_counter() - t
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write(p.stderr[-1500:])
print(f"BENCH {p.returncode} {wall:.3f} {usage.ru_maxrss} {usage.ru_utime + usage.ru_stime:.3f}")
"""


@dataclass(frozen=True)
class Result:
    """One measured command: exit status, wall seconds, peak RSS in MiB, stderr tail."""

    rc: int
    seconds: float
    mib: float
    note: str = ""
    stderr: str = ""
    cpu: float = 0.0


def cli() -> str:
    """The installed console script next to this interpreter (the project's .venv)."""
    script = Path(sys.executable).parent / "mira-math"
    if not script.exists():
        raise SystemExit(f"{script}: not found; run `make venv` and use .venv/bin/python")
    return str(script)


def parse_bench_line(stdout: str) -> tuple:
    """(rc, seconds, MiB, CPU seconds) from the wrapper's ``BENCH rc wall kib cpu`` line; ru_maxrss
    is KiB, CPU is the child's user + system time."""
    line = next((ln for ln in stdout.splitlines() if ln.startswith("BENCH ")), None)
    if line is None:
        raise ValueError("no BENCH line in wrapper output")
    _, rc, wall, kib, cpu = line.split()
    return int(rc), float(wall), int(kib) / 1024, float(cpu)


def measure(args: list) -> Result:
    proc = subprocess.run([sys.executable, "-c", WRAP, cli(), *args], cwd=ROOT, capture_output=True, text=True)
    rc, wall, mib, cpu = parse_bench_line(proc.stdout)
    note = ""
    if rc != 0 or "warn" in proc.stderr.lower() or "capacity" in proc.stderr.lower():
        note = " | ".join(ln.strip() for ln in proc.stderr.strip().splitlines()[-2:])[:160]
    return Result(rc, wall, mib, note, proc.stderr, cpu)


def memory_ratio(peaks: dict, big: int = 100000, small: int = 2000):
    """peak(big)/peak(small), or None when either size was not measured or failed."""
    if big in peaks and small in peaks and peaks[small] > 0:
        return peaks[big] / peaks[small]
    return None


def families_with_capacity(capacity: dict, scale: int) -> list:
    """Families whose held-out capacity (mira_math/generators/capacity.json) allows a split of
    ``scale`` x the release."""
    return [f["family"] for f in capacity["families"] if not f["limited"] or f["splits"] >= scale]


def refused_family(stderr: str):
    """The family named by generate's refusal, if any: its one line ``mira-math generate: FAMILY
    d=N index I: ...; nothing written`` (a ``GenerationError: FAMILY d=N`` traceback in older
    versions); the last such line counts."""
    found = re.findall(r"(?:GenerationError|mira-math generate): ([a-z_]+) d=\d", stderr)
    return found[-1] if found else None


def refusal_line(stderr: str) -> str:
    """generate's refusal (the line saying nothing was written), not a capacity warning before it."""
    lines = [ln.strip() for ln in stderr.strip().splitlines() if ln.strip()]
    found = [ln for ln in lines if "nothing written" in ln]
    return (found or lines or ["(no message)"])[-1][:200]


def check(r: Result, what: str) -> Result:
    """``r``, its failure recorded for the exit status."""
    if r.rc != 0:
        FAILED.append(f"{what}: rc={r.rc} {r.note}")
    return r


def cell(r: Result) -> str:
    return f"{r.seconds:8.2f} {r.mib:7.0f}" if r.rc == 0 else f"{'rc=' + str(r.rc):>8} {r.mib:7.0f}"


def bench_eval_score(tmp: Path, sizes: list, config: str = "all") -> None:
    print("\n## eval / score / report  (wall s incl. interpreter start, peak RSS MiB)")
    print(f"{'n':>7}  {'eval ref s':>8} {'MiB':>7}  {'eval noask s':>8} {'MiB':>7}  "
          f"{'score s':>8} {'MiB':>7}  {'report s':>8} {'MiB':>7}")
    base = base_runs(tmp, config)
    peaks: dict = {}
    notes = []
    for n in sizes:
        run = synthetic_run(tmp, base, n)
        row = []
        for solver in ("reference", "noask"):
            r = check(measure(["eval", "--solver", solver, "--responder", "rules", "--data", str(run / "data.jsonl"),
                               "--out", str(tmp / f"eval-{solver}-{n}")]), f"eval {solver} {n}")
            row.append(r)
            if r.rc == 0:
                peaks.setdefault(n, 0.0)
                peaks[n] = max(peaks[n], r.mib)
            if r.note:
                notes.append(f"eval {solver} {n}: {r.note}")
        row.append(check(measure(["score", str(run)]), f"score {n}"))
        row.append(check(measure(["report", str(run), "--out", str(tmp / f"report-{n}")]), f"report {n}"))
        for r, what in zip(row[2:], ("score", "report")):
            if r.note:
                notes.append(f"{what} {n}: {r.note}")
        print(f"{n:>7}  " + "  ".join(cell(r) for r in row), flush=True)
        subprocess.run(["rm", "-rf", str(run), str(tmp / f"eval-reference-{n}"), str(tmp / f"eval-noask-{n}"),
                        str(tmp / f"report-{n}")], check=True)
    for line in notes:
        print("  note:", line)
    ratio = memory_ratio(peaks)
    if ratio is None:
        print("eval memory ratio peak(100k)/peak(2k): not measured (needs both sizes)")
    else:
        print(f"eval memory ratio peak(100k)/peak(2k): {ratio:.2f}x (target <= 1.5x)")


def bench_data(tmp: Path, scales: list, per_type: tuple = RELEASE_PER_TYPE, only: tuple = ()) -> None:
    """generate / validate / verify at each scale (``only``: these families, else all)."""
    print("\n## generate / validate / verify  (held-out seed set per scale; wall s, peak RSS MiB)")
    print(f"{'scale':>5} {'per-type':>9} {'families':>7}  {'generate s':>8} {'MiB':>7}  {'validate s':>8} {'MiB':>7}  "
          f"{'verify s':>8} {'MiB':>7}")
    notes = []
    capacity = json.loads(CAPACITY.read_text(encoding="utf-8"))
    for k in scales:
        a, b = per_type[0] * k, per_type[1] * k
        out = tmp / f"split-{k}x"
        base_args = ["generate", "--seed-set", f"bench-scale-{k}x", "--per-type", f"{a}/{b}", "--out", str(out)]
        g = measure(base_args + (["--families", *only] if only else []))
        label = f"{len(only)} fam" if only else "all"
        if g.rc != 0:
            notes.append(f"generate {k}x, all families: refused: {refusal_line(g.stderr)}")
            fams = families_with_capacity(capacity, k)
            g = measure(base_args + ["--families", *fams])
            while g.rc != 0 and refused_family(g.stderr) in fams:
                notes.append(f"generate {k}x: {refused_family(g.stderr)} refused too; dropped")
                fams.remove(refused_family(g.stderr))
                subprocess.run(["rm", "-rf", str(out)], check=True)
                g = measure(base_args + ["--families", *fams])
            label = f"{len(fams)} fam"
        check(g, f"generate {k}x ({label})")
        row = [g]
        if g.note and g.rc == 0:
            notes.append(f"generate {k}x ({label}): {g.note}")
        if g.rc == 0:
            row += [check(measure(["validate", str(out)]), f"validate {k}x"),
                    check(measure(["verify", str(out)]), f"verify {k}x")]
            for r, what in zip(row[1:], ("validate", "verify")):
                if r.note:
                    notes.append(f"{what} {k}x: {r.note}")
        print(f"{k:>4}x {a:>4}/{b:<4} {label:>7}  " + "  ".join(cell(r) for r in row)
              + ("" if g.rc == 0 else "  (generate refused: nothing to validate)"), flush=True)
        subprocess.run(["rm", "-rf", str(out)], check=True)
    for line in notes:
        print("  note:", line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="300 instances and 1x of 2/5 per type (smoke run)")
    parser.add_argument("--sizes", nargs="*", type=int, default=[2000, 10000, 50000, 100000])
    parser.add_argument("--scales", nargs="*", type=int, default=[1, 4, 16])
    args = parser.parse_args()
    sizes, scales = ([300], [1]) if args.quick else (args.sizes, args.scales)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        if sizes:
            bench_eval_score(tmp, sizes, QUICK_CONFIG if args.quick else "all")
        if scales:
            bench_data(tmp, scales, *(((2, 5), (QUICK_CONFIG,)) if args.quick else (RELEASE_PER_TYPE,)))
    for line in FAILED:
        print("FAILED:", line)
    return 1 if FAILED else 0


if __name__ == "__main__":
    started = time.perf_counter()
    status = main()
    print(f"(total {time.perf_counter() - started:.0f} s)")
    sys.exit(status)
