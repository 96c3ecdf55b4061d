"""Time and peak memory of ``mira-math score`` and ``report`` at 2k, 10k, 50k and 100k transcripts.

The transcripts are real ones (the offline ``reference`` and ``noask`` solvers on the committed
release, alternating), repeated over a synthetic dataset whose instances are the release's with
new ids, so every transcript joins with its own instance. Each measurement is a fresh process
(``python -m mira_math.cli.main ...``); peak memory is its maximum resident set size. ``report`` is
measured twice: after ``score`` (it reuses scores.json) and cold (no scores.json: it scores).

``--reverify`` measures instead what re-verification (every final answer judged again,
every id checked against the selection) costs: ``score`` in one process with and without the
checks, against its floor, medians of 3 (interleaved). The floor is the goal's "hashing and
parsing every line": what any correct ``score`` must do before it can trust a number, which is
to read every line of the run's dataset files and of its transcripts once, feed it to sha256
(``score`` checks the dataset files against the manifest's checksum and fingerprints the
transcripts for ``report``'s reuse of scores.json) and ``json.loads`` it. The previous floor,
reading and parsing the transcripts alone, is printed beside it ("transcripts"): it leaves out
the dataset, which is as large as the transcripts in these runs.

Usage: python benchmarks/bench_score.py [--sizes 2000 10000 50000 100000] [--reverify [--repeat 3]]
                                        [--quick]
(``--quick``: 300 transcripts, both measurements, one repeat: a smoke run.)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]

MEASURE = """
import resource, sys, time
from mira_math.cli.main import main
t, c = time.perf_counter(), time.process_time()
rc = main(sys.argv[1:])
wall, cpu = time.perf_counter() - t, time.process_time() - c
print(f"BENCH {rc} {wall:.3f} {cpu:.3f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f}",
      file=sys.stderr)
"""


# the one-family config of the --quick runs: fewer base transcripts, the same code after them
QUICK_CONFIG = "crt_reconstruction"


def base_runs(tmp: Path, config: str = "all") -> dict:
    """Real transcripts of the offline reference and noask solvers over ``config``."""
    runs = {}
    for solver in ("reference", "noask"):
        out = tmp / f"base-{solver}"
        subprocess.run([sys.executable, "-m", "mira_math.cli.main", "eval", "--solver", solver, "--config", config,
                        "--out", str(out)], cwd=ROOT, check=True, capture_output=True)
        runs[solver] = out
    return runs


def synthetic_run(tmp: Path, base: dict, size: int) -> Path:
    """A run directory of ``size`` transcripts over a dataset of ``size`` instances."""
    manifest = json.loads((base["reference"] / "manifest.json").read_text(encoding="utf-8"))
    instances = []
    for name in manifest["dataset"]["files"]:
        path = Path(name) if Path(name).is_absolute() else ROOT / name
        instances += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    lines = {s: [json.loads(ln) for ln in (d / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()]
             for s, d in base.items()}
    run = tmp / f"run-{size}"
    run.mkdir()
    data = run / "data.jsonl"
    with data.open("w", encoding="utf-8") as ds, (run / "transcripts.jsonl").open("w", encoding="utf-8") as tr:
        for i in range(size):
            j = i % len(instances)
            new_id = f"{instances[j]['id']}-{i // len(instances)}"
            ds.write(json.dumps({**instances[j], "id": new_id}, ensure_ascii=False) + "\n")
            solver = "reference" if i % 2 == 0 else "noask"
            row = dict(lines[solver][j], id=new_id, solver="bench")
            tr.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
    digest = hashlib.sha256(hashlib.sha256(data.read_bytes()).digest()).hexdigest()
    manifest["config"]["solver"] = "bench"
    manifest["dataset"] = {"files": [str(data)], "checksum": digest, "instances": size}
    (run / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return run


def measure(args: list) -> tuple:
    proc = subprocess.run([sys.executable, "-c", MEASURE] + args, cwd=ROOT, capture_output=True, text=True)
    line = next((ln for ln in proc.stderr.splitlines() if ln.startswith("BENCH ")), None)
    if line is None:
        raise SystemExit(f"benchmark command failed: {' '.join(args)}\n{proc.stderr[-2000:]}")
    _, rc, wall, cpu, rss = line.split()
    return int(rc), f"{float(wall):.2f}/{float(cpu):.2f}", float(rss)


REVERIFY = """
import hashlib, json, resource, statistics, sys, time
from pathlib import Path
from mira_math.eval import integrity, rundir, scoring
run = Path(sys.argv[1])
manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
data_files = [rundir.resolve_data_file(name, run) for name in manifest["dataset"]["files"]]
def read(paths, digest):
    for path in paths:
        with path.open("rb") as fh:
            for raw in fh:
                if digest:
                    digest.update(raw)
                json.loads(raw)
def floor():                                    # hash and parse every line score must read
    read(data_files + [run / "transcripts.jsonl"], hashlib.sha256())
def transcripts_floor():                        # the previous floor: the transcripts alone
    read([run / "transcripts.jsonl"], None)
def scored():
    rundir.clear_caches()
    scoring.score([run])
check = integrity.RunGuard.check
def unchecked():
    integrity.RunGuard.check = lambda *a: None
    try:
        scored()
    finally:
        integrity.RunGuard.check = check
out = {}
steps = (("floor", floor), ("transcripts", transcripts_floor), ("no_checks", unchecked), ("reverify", scored))
runs = {name: [] for name, _ in steps}
for _ in range(int(sys.argv[2])):               # interleaved: a loaded machine slows them all alike
    for name, fn in steps:
        t, c = time.perf_counter(), time.process_time()
        fn()
        runs[name].append((time.perf_counter() - t, time.process_time() - c))
for name, times in runs.items():
    out[name] = statistics.median(w for w, _ in times)
    out[name + "_cpu"] = statistics.median(c for _, c in times)
out["mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("REVERIFY", json.dumps(out))
"""


def reverify(sizes: list, repeat: int = 3, tmp: Optional[Path] = None, base: Optional[dict] = None,
             config: str = "all") -> None:
    """Re-verification's cost per size; ``tmp`` and ``base`` are made here when not given (the base
    runs over ``config``)."""
    if tmp is None or base is None:
        with tempfile.TemporaryDirectory() as name:
            reverify(sizes, repeat, Path(name), base_runs(Path(name), config))
        return
    print(f"score in one process, medians of {repeat} (wall s / CPU s); floor: sha256 + json.loads of every "
          f"line of the dataset files and the transcripts; transcripts: json.loads of the transcripts alone "
          f"(the previous floor); MiB: the process's peak RSS; load average {os.getloadavg()[0]:.1f}")
    print(f"{'transcripts':>11}  {'floor s':>11}  {'transcripts s':>13}  {'no checks s':>11}  {'re-verify s':>11}  "
          f"{'x floor':>7}  {'x CPU':>5}  {'x CPU transcripts':>17}  {'MiB':>5}")
    for size in sizes:
        run = synthetic_run(tmp, base, size)
        proc = subprocess.run([sys.executable, "-c", REVERIFY, str(run), str(repeat)], cwd=ROOT,
                              capture_output=True, text=True)
        line = next((x for x in proc.stdout.splitlines() if x.startswith("REVERIFY ")), None)
        if line is None:
            raise SystemExit(f"re-verification benchmark failed:\n{proc.stderr[-2000:]}")
        t = json.loads(line.split(" ", 1)[1])
        cells = "  ".join(f"{t[k]:>{w - 6}.2f}/{t[k + '_cpu']:<5.2f}"
                          for k, w in (("floor", 11), ("transcripts", 13), ("no_checks", 11), ("reverify", 11)))
        print(f"{size:>11}  {cells}  {t['reverify'] / t['floor']:>7.2f}  "
              f"{t['reverify_cpu'] / t['floor_cpu']:>5.2f}  {t['reverify_cpu'] / t['transcripts_cpu']:>17.2f}  "
              f"{t['mib']:>5.0f}", flush=True)
        for p in run.iterdir():
            p.unlink()
        run.rmdir()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[2000, 10000, 50000, 100000])
    parser.add_argument("--reverify", action="store_true", help="the cost of re-verification")
    parser.add_argument("--repeat", type=int, default=3, help="with --reverify: runs of each, interleaved")
    parser.add_argument("--quick", action="store_true", help="300 transcripts, both measurements (smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.repeat = [300], 1
    if args.reverify:
        reverify(args.sizes, args.repeat, config=QUICK_CONFIG if args.quick else "all")
        return
    print("times: wall/CPU seconds of the command itself (imports excluded); MiB: peak RSS of its process")
    print(f"{'transcripts':>11}  {'MiB on disk':>11}  {'score s':>11}  {'score MiB':>9}  "
          f"{'report s':>11}  {'report MiB':>10}  {'cold report s':>13}  {'cold MiB':>8}")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        base = base_runs(tmp, QUICK_CONFIG if args.quick else "all")
        for size in args.sizes:
            run = synthetic_run(tmp, base, size)
            disk = (run / "transcripts.jsonl").stat().st_size / 2 ** 20
            _, s_wall, s_rss = measure(["score", str(run)])
            _, r_wall, r_rss = measure(["report", str(run), "--out", str(tmp / f"report-{size}")])
            for f in ("scores.json", "scores.csv"):
                (run / f).unlink()
            _, c_wall, c_rss = measure(["report", str(run), "--out", str(tmp / f"cold-{size}")])
            print(f"{size:>11}  {disk:>11.1f}  {s_wall:>11}  {s_rss:>9.0f}  {r_wall:>11}  {r_rss:>10.0f}  "
                  f"{c_wall:>13}  {c_rss:>8.0f}", flush=True)
            for p in run.iterdir():
                p.unlink()
            run.rmdir()
        if args.quick:
            reverify(args.sizes, args.repeat, tmp, base)


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"(total {time.perf_counter() - started:.0f} s)")
