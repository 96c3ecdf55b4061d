"""The viewer against hostile input: a malformed URL hash is ignored, not
thrown (headless Chromium, as test_browser.py runs it), and the built pages name run
directories by folder name only: no absolute machine path in a page meant to be shared."""

from __future__ import annotations

from pathlib import Path

import pytest

from mira_math.cli.main import main
from mira_math.eval.view import build_view
from tests.eval.view.test_browser import Page, browser  # noqa: F401  (the browser fixture)


@pytest.fixture(scope="module")
def small_view(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("hostile-view")
    for solver in ("reference", "noask"):
        assert main(["eval", "--solver", solver, "--limit", "3", "--out", str(root / "runs" / solver)]) == 0
    out = root / "view"
    build_view([root / "runs" / "reference", root / "runs" / "noask"], out)
    return out


def test_no_absolute_run_paths_in_the_built_pages(small_view):
    root = str(small_view.parent)
    texts = {p.name: p.read_text(encoding="utf-8") for p in small_view.rglob("*") if p.is_file()}
    assert texts and not [name for name, text in texts.items() if root in text]
    index = next(text for name, text in texts.items() if name.startswith("index") and name.endswith(".js"))
    assert '"dirs":["reference"]' in index and '"dirs":["noask"]' in index


@pytest.mark.parametrize("hash_", [
    "#q=%E0%A4%A",                            # a truncated UTF-8 escape: decodeURIComponent throws
    "#run=0&id=%E0%A4%A",
    "#%E0%A4%A=1&id=bay-000001&run=0",        # a bad key, then a good id
    "#cmp=abc&run=0&id=bay-000001",
    "#cmp=99&run=0&id=bay-000001",
    "#run=0&id=bay-000001&cmp=-1",
    "#%%%&&&==",
])
def test_a_malformed_hash_is_ignored(browser, small_view, hash_):  # noqa: F811
    v = Page(browser, small_view, hash_)
    if "id=bay-000001" in hash_:              # the good part still opens its instance
        v.wait("document.querySelector('#detail .dhead .id')?.textContent === 'bay-000001'")
    assert v.shown() == 6
    assert v.errors == []
    v.close()
