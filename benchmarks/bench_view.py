"""`mira-math view` at scale: time, peak memory and bytes written at 10k / 100k / 1M transcripts,
beside the time of merely reading the transcripts (stream + ``json.loads`` every line), and how
long the page takes to open in headless Chromium (ready: the summary and the first chunk of the
table), then to apply a filter (every chunk loaded) and to open a dialogue.

The package's bytecode is compiled first (``compileall``), as ``pip install`` leaves it: where
``PYTHONDONTWRITEBYTECODE`` is set (this machine), every process would otherwise compile the
package's sources again (0.1-0.2 s of each build), which no installed copy does.
Each command runs as its own process under bench_scale's wrapper (wall seconds including
interpreter start; CPU seconds, user + system, of the child; its peak RSS). The read and the build
alternate (``--repeat`` times each, medians), so a machine shared with other work loads both
alike; the ratio is given in wall and in CPU seconds. The runs are bench_score's synthetic ones
(the release's instances repeated under new ids, alternating reference and noask transcripts) in
two shapes (``--shapes``):

- ``unique``: one run, one instance per transcript: the dataset (112 MB at 100k) is larger than
  the transcripts (94 MB), the worst case for a build, which must parse both;
- ``shared``: runs (one solver name each) over one dataset of n/10 instances, at most 23,100
  (a 10x held-out split), one transcript per instance each: 10 runs at 10k and 100k, 43 at
  1M. This is the scenario the goal was set on (six models x two regimes x five epochs over a 10x
  held-out split) and the shape of real evaluations: several runs over one dataset.

The 1M size writes about 2 GB of synthetic runs and 2 GB of viewer under ``--tmp`` per shape.

    .venv/bin/python benchmarks/bench_view.py [--sizes 10000 100000 [1000000]] [--shapes unique shared]
        [--repeat 3] [--no-browser] [--parts] [--quick]

``--quick``: 300 transcripts of each shape, one repeat, the parts, the browser where chromium
is found: a smoke run of the same code. Exit status 1 when a build fails.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import WRAP, measure, parse_bench_line  # noqa: E402
from bench_score import QUICK_CONFIG, ROOT, base_runs, synthetic_run  # noqa: E402

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
READ = """
import json, sys
for path in sys.argv[1:]:
    with open(path, 'rb') as fh:
        for line in fh:
            json.loads(line)
"""
SHARED_DATASET_MAX = 23_100             # a 10x held-out split


def read_time(paths: list) -> tuple:
    """(wall s, CPU s) of a process that only streams and parses the lines of ``paths``."""
    proc = subprocess.run([sys.executable, "-c", WRAP, sys.executable, "-c", READ, *map(str, paths)],
                          cwd=ROOT, capture_output=True, text=True)
    _, wall, _, cpu = parse_bench_line(proc.stdout)
    return wall, cpu


PARTS = """
import json, sys, time
from mira_math.eval.rundir import InstanceInfo, instance_stats
run = sys.argv[1]
def cpu(fn):
    t = time.process_time(); fn(); return time.process_time() - t
def parse(name):
    with open(f"{run}/{name}", "rb") as fh:
        for line in fh:
            json.loads(line)
def stats():    # the synthetic run's transcript k is about its dataset line k
    with open(f"{run}/transcripts.jsonl", "rb") as tr, open(f"{run}/data.jsonl", "rb") as ds:
        for t, d in zip(tr, ds):
            t, d = json.loads(t), json.loads(d)
            instance_stats(t, InstanceInfo(d["seed_set"], d["id"], d["family"], d["type"], d["difficulty"],
                                           d["candidate_answers"], frozenset(h["constraint"] for h in d["hints"])))
read, data = cpu(lambda: parse("transcripts.jsonl")), cpu(lambda: parse("data.jsonl"))
print("PARTS", read, data, cpu(stats) - read - data)
"""


def shared_runs(tmp: Path, base: dict, size: int) -> list:
    """size/d run dirs of d transcripts each, one solver name each, all over the dataset of one
    synthetic run of d = min(size/10, :data:`SHARED_DATASET_MAX`) instances."""
    per_run = min(size // 10, SHARED_DATASET_MAX)
    source = synthetic_run(tmp, base, per_run)
    manifest = json.loads((source / "manifest.json").read_text(encoding="utf-8"))
    dirs = []
    for r in range(size // per_run):
        run = tmp / f"shared-{size}" / f"solver-{r}"
        run.mkdir(parents=True)
        manifest["config"]["solver"] = f"bench-{r}"
        manifest["run_hash"] = f"{r:064x}"
        (run / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        with (source / "transcripts.jsonl").open(encoding="utf-8") as src, \
                (run / "transcripts.jsonl").open("w", encoding="utf-8") as dst:
            for line in src:
                row = json.loads(line)
                row["solver"] = f"bench-{r}"
                dst.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
        dirs.append(run)
    return dirs


def floor_parts(run: Path) -> str:
    """CPU seconds of the parts no build can skip, in one process: parsing the transcripts (the
    read), parsing the dataset, and scoring's ``instance_stats`` of every transcript."""
    proc = subprocess.run([sys.executable, "-c", PARTS, str(run)], cwd=ROOT, capture_output=True, text=True)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("PARTS ")), None)
    if line is None:
        return f"parts failed: {proc.stderr[-300:]}"
    read, data, stats = map(float, line.split()[1:])
    return (f"CPU s in one process: read {read:.2f}, dataset parse {data:.2f}, "
            f"instance_stats (and its InstanceInfo) {stats:.2f}: "
            f"{(read + data + stats) / read:.2f}x the read before any page is written")


def browser_times(folder: Path) -> str:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "no playwright"
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        return "no chromium"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=FLAGS)
        page = browser.new_page(viewport={"width": 1500, "height": 950})
        t0 = time.perf_counter()
        page.goto((folder / "index.html").as_uri())
        page.wait_for_selector("body[data-ready='1']", timeout=600_000)
        open_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        page.check("#f-unreadable")
        while page.evaluate("MIRA.state().busy"):
            page.wait_for_timeout(20)
        filter_s = time.perf_counter() - t0
        if page.locator(".trow").count() == 0:     # a small run may hold no unreadable answer
            page.uncheck("#f-unreadable")
            while page.evaluate("MIRA.state().busy"):
                page.wait_for_timeout(20)
        t0 = time.perf_counter()
        page.locator(".trow").first.click()
        page.wait_for_selector(".turn")
        dialogue_s = time.perf_counter() - t0
        browser.close()
    return f"open {open_s * 1000:.0f} ms, first filter {filter_s:.2f} s, dialogue {dialogue_s * 1000:.0f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="*", type=int, default=[10_000, 100_000])
    parser.add_argument("--shapes", nargs="*", choices=["unique", "shared"], default=["unique", "shared"])
    parser.add_argument("--repeat", type=int, default=3, help="read and build this many times each, alternating")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--parts", action="store_true", help="also the CPU of the parts no build can skip")
    parser.add_argument("--tmp", type=Path, default=None, help="where the runs and viewers are written")
    parser.add_argument("--quick", action="store_true", help="300 transcripts, one repeat (smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.repeat, args.parts = [300], 1, True
    failed = 0
    compileall.compile_dir(ROOT / "mira_math", quiet=1)
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{'shape':>6} {'transcripts':>11} {'read s':>7} {'cpu':>6} {'view s':>7} {'cpu':>6} {'ratio':>5} "
          f"{'cpu':>5} {'view MiB':>8} {'MiB written':>11} {'files':>6}  browser")
    peaks: dict = {}
    with tempfile.TemporaryDirectory(dir=args.tmp) as name:
        tmp = Path(name)
        base = base_runs(tmp, QUICK_CONFIG if args.quick else "all")
        for shape in args.shapes:
            for n in args.sizes:
                dirs = [synthetic_run(tmp, base, n)] if shape == "unique" else shared_runs(tmp, base, n)
                out = tmp / f"view-{n}"
                reads, views = [], []
                for _ in range(args.repeat):
                    reads.append(read_time([d / "transcripts.jsonl" for d in dirs]))
                    r = measure(["view", *map(str, dirs), "--out", str(out)])
                    if r.rc != 0:
                        break
                    views.append(r)
                if r.rc != 0:
                    print(f"{shape:>6} {n:>11} view failed: {r.note}", flush=True)
                    failed += 1
                    continue
                read_s, read_cpu = (statistics.median(x[i] for x in reads) for i in (0, 1))
                view_s, view_cpu = (statistics.median(getattr(v, a) for v in views) for a in ("seconds", "cpu"))
                peaks[(shape, n)] = max(v.mib for v in views)
                files = [p for p in out.rglob("*") if p.is_file()]
                size = sum(p.stat().st_size for p in files)
                shown = "skipped" if args.no_browser else browser_times(out)
                count = n if shape == "unique" else len(dirs) * min(n // 10, SHARED_DATASET_MAX)
                print(f"{shape:>6} {count:>11} {read_s:7.2f} {read_cpu:6.2f} {view_s:7.2f} {view_cpu:6.2f} "
                      f"{view_s / read_s:5.2f} {view_cpu / read_cpu:5.2f} {peaks[(shape, n)]:8.0f} "
                      f"{size / 2**20:11.0f} {len(files):>6}  {shown}", flush=True)
                if args.parts and shape == "unique":
                    print(f"{'':>18} {floor_parts(dirs[0])}", flush=True)
                for d in {d.parent if shape == "shared" else d for d in dirs}:
                    shutil.rmtree(d)
                if shape == "shared":
                    shutil.rmtree(tmp / f"run-{min(n // 10, SHARED_DATASET_MAX)}")
                shutil.rmtree(out)
    print(f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for shape in args.shapes:
        sizes = [n for s, n in peaks if s == shape]
        if len(sizes) > 1:
            small, big = min(sizes), max(sizes)
            print(f"{shape}: peak memory {big:,} / {small:,}: {peaks[(shape, big)] / peaks[(shape, small)]:.2f}x "
                  "(goal <= 1.5x)")
    return 1 if failed else 0


if __name__ == "__main__":
    started = time.perf_counter()
    status = main()
    print(f"(total {time.perf_counter() - started:.0f} s)")
    sys.exit(status)
