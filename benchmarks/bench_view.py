"""Time of `mira-math view` at 10,000 transcripts: building the folder, opening the page in
headless Chromium until it is ready, applying a filter, and opening a dialogue.

    .venv/bin/python benchmarks/bench_view.py [N]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mira_math.eval.view import build_view  # noqa: E402
from mira_math.cli.main import main  # noqa: E402
from tests.eval.view.conftest import synthetic_run  # noqa: E402

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


def run(total: int) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        assert main(["eval", "--solver", "reference", "--out", str(root / "ref")]) == 0
        big = synthetic_run(root / "ref", root / "big", total)
        t0 = time.perf_counter()
        build_view([big], root / "view")
        build_s = time.perf_counter() - t0
        size = sum(p.stat().st_size for p in (root / "view").rglob("*") if p.is_file())
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=FLAGS)
            page = browser.new_page(viewport={"width": 1500, "height": 950})
            t0 = time.perf_counter()
            page.goto((root / "view" / "index.html").as_uri())
            page.wait_for_selector("body[data-ready='1']")
            open_s = time.perf_counter() - t0
            filters = []
            for action in (lambda: page.check("#f-unreadable"), lambda: page.uncheck("#f-unreadable"),
                           lambda: page.select_option("#f-trace", "2"),
                           lambda: page.fill("#f-id", "bay")):
                t0 = time.perf_counter()
                action()
                page.evaluate("MIRA.state().shown")
                filters.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            page.locator(".trow").first.click()
            page.wait_for_selector(".turn")
            dialogue_s = time.perf_counter() - t0
            browser.close()
    print(f"view at {total:,} transcripts: build {build_s:.2f} s ({size / 2**20:.1f} MiB), open {open_s * 1000:.0f} ms, "
          f"filter {' / '.join(f'{f * 1000:.0f}' for f in filters)} ms, open a dialogue {dialogue_s * 1000:.0f} ms")


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
