"""`mira-math view` at scale: time, peak memory and bytes written at 10k / 100k / 1M transcripts,
beside the time of merely reading the transcripts (stream + ``json.loads`` every line), and how
long the page takes to open in headless Chromium (ready: the summary and the first chunk of the
table), then to apply a filter (every chunk loaded) and to open a dialogue.

Each command runs as its own process under bench_scale's wrapper (wall seconds including
interpreter start; CPU seconds, user + system, of the child; its peak RSS). The read and the build
alternate (``--repeat`` times each, medians), so a machine shared with other work loads both
alike; the ratio is given in wall and in CPU seconds. The runs are bench_score's synthetic ones:
the release's instances repeated under new ids, alternating reference and noask transcripts.
The 1M size writes about 2 GB of synthetic run and 2 GB of viewer under ``--tmp``.

    .venv/bin/python benchmarks/bench_view.py [--sizes 10000 100000 [1000000]] [--repeat 3] [--no-browser] [--parts]
"""

from __future__ import annotations

import argparse
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
from bench_score import ROOT, base_runs, synthetic_run  # noqa: E402

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
READ = """
import json, sys
with open(sys.argv[1], 'rb') as fh:
    for line in fh:
        json.loads(line)
"""


def read_time(path: Path) -> tuple:
    """(wall s, CPU s) of a process that only streams and parses ``path``'s lines."""
    proc = subprocess.run([sys.executable, "-c", WRAP, sys.executable, "-c", READ, str(path)],
                          cwd=ROOT, capture_output=True, text=True)
    _, wall, _, cpu = parse_bench_line(proc.stdout)
    return wall, cpu


PARTS = """
import json, sys, time
from mira_math.eval.scoring import InstanceInfo, instance_stats
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
        t0 = time.perf_counter()
        page.locator(".trow").first.click()
        page.wait_for_selector(".turn")
        dialogue_s = time.perf_counter() - t0
        browser.close()
    return f"open {open_s * 1000:.0f} ms, first filter {filter_s:.2f} s, dialogue {dialogue_s * 1000:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="*", type=int, default=[10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3, help="read and build this many times each, alternating")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--parts", action="store_true", help="also the CPU of the parts no build can skip")
    parser.add_argument("--tmp", type=Path, default=None, help="where the runs and viewers are written")
    args = parser.parse_args()
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{'transcripts':>11} {'read s':>7} {'cpu':>6} {'view s':>7} {'cpu':>6} {'ratio':>5} {'cpu':>5} "
          f"{'view MiB':>8} {'MiB written':>11} {'files':>6}  browser")
    peaks = {}
    with tempfile.TemporaryDirectory(dir=args.tmp) as name:
        tmp = Path(name)
        base = base_runs(tmp)
        for n in args.sizes:
            run = synthetic_run(tmp, base, n)
            out = tmp / f"view-{n}"
            reads, views = [], []
            for _ in range(args.repeat):
                reads.append(read_time(run / "transcripts.jsonl"))
                r = measure(["view", str(run), "--out", str(out)])
                if r.rc != 0:
                    break
                views.append(r)
            if r.rc != 0:
                print(f"{n:>11} view failed: {r.note}", flush=True)
                continue
            read_s, read_cpu = (statistics.median(x[i] for x in reads) for i in (0, 1))
            view_s, view_cpu = (statistics.median(getattr(v, a) for v in views) for a in ("seconds", "cpu"))
            peaks[n] = max(v.mib for v in views)
            files = [p for p in out.rglob("*") if p.is_file()]
            size = sum(p.stat().st_size for p in files)
            shown = "skipped" if args.no_browser else browser_times(out)
            print(f"{n:>11} {read_s:7.2f} {read_cpu:6.2f} {view_s:7.2f} {view_cpu:6.2f} {view_s / read_s:5.2f} "
                  f"{view_cpu / read_cpu:5.2f} {peaks[n]:8.0f} {size / 2**20:11.0f} {len(files):>6}  {shown}",
                  flush=True)
            if args.parts:
                print(f"{'':>11} {floor_parts(run)}", flush=True)
            shutil.rmtree(run)
            shutil.rmtree(out)
    print(f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    small, big = min(peaks, default=None), max(peaks, default=None)
    if small is not None and big != small:
        print(f"peak memory {big:,} / {small:,}: {peaks[big] / peaks[small]:.2f}x (goal <= 1.5x)")


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"(total {time.perf_counter() - started:.0f} s)")
