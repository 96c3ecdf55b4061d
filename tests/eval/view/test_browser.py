"""The viewer in a real headless Chromium (Debian's, via playwright; `make browser` installs it):
filters, a dialogue, side by side, the URL hash, keyboard, escaping, and no network at all."""

from __future__ import annotations

import json
import os
import shutil
from contextlib import contextmanager

import pytest

from mira_math.eval.view import build_view
from tests.eval.view.conftest import XSS

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
SHOTS = os.environ.get("MIRA_VIEW_SCREENSHOTS")      # a folder to keep screenshots in
REQUIRE = os.environ.get("MIRA_REQUIRE_BROWSER") == "1"   # CI: a missing browser fails, never skips


def _missing(reason: str) -> None:
    """Skip (a laptop without chromium), or fail where the browser is required (CI)."""
    if REQUIRE:
        pytest.fail(f"{reason} (MIRA_REQUIRE_BROWSER=1)")
    pytest.skip(f"{reason}; set MIRA_REQUIRE_BROWSER=1 to make this a failure")


def _chromium() -> str:
    found = os.environ.get("MIRA_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        _missing("no chromium on PATH: run `make browser` (installs it where that needs no password), "
                 "install chromium with your package manager, or set MIRA_CHROMIUM")
    return found  # type: ignore[return-value]


@contextmanager
def sync_playwright_browser():
    """A headless Chromium for one test or module (skipped, or failed in CI, where missing)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is missing: run `make venv` (it is in the test extras)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=_chromium(), args=FLAGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright_browser() as b:
        yield b


class Page:
    """A page opened from the file system; every request that is not file:// is recorded and
    aborted, and page errors are kept."""

    def __init__(self, browser, folder, hash_=""):
        self.remote, self.errors = [], []
        self.ctx = browser.new_context(viewport={"width": 1500, "height": 950})
        self.ctx.route("**/*", self._route)
        self.page = self.ctx.new_page()
        self.page.on("request", lambda r: None if r.url.startswith("file://") else self.remote.append(r.url))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto((folder / "index.html").as_uri() + hash_)
        self.page.wait_for_selector("body[data-ready='1']", timeout=30_000)

    def _route(self, route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            self.remote.append(route.request.url)
            route.abort()

    def wait(self, expression: str, tries: int = 200) -> None:
        """Poll ``expression`` until true (wait_for_function would need eval, which the page's
        Content-Security-Policy forbids)."""
        for _ in range(tries):
            if self.page.evaluate(expression):
                return
            self.page.wait_for_timeout(50)
        raise AssertionError(f"never true: {expression}")

    def shown(self) -> int:
        """Rows shown once the table's chunks a filter needs have arrived."""
        self.wait("!MIRA.state().busy")
        return self.page.evaluate("MIRA.state().shown")

    def shot(self, name):
        if SHOTS:
            self.page.screenshot(path=os.path.join(SHOTS, name))

    def close(self):
        assert self.errors == []
        assert self.remote == [], f"fetched from the network: {self.remote}"
        self.ctx.close()


@pytest.fixture(scope="module")
def demo_view(demo_runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("view") / "demo"
    build_view([demo_runs["reference"], demo_runs["noask"]], out)
    return out


def test_filters(browser, demo_view, demo_runs, counts, release_instances):
    v = Page(browser, demo_view)
    p = v.page
    assert v.shown() == 2 * counts.total
    p.select_option("#f-run", label="noask | rules | zs")
    assert v.shown() == counts.total
    p.check("#f-unreadable")
    assert v.shown() == sum(i.answer.type == "tuple" for i in release_instances)   # noask's tuples
    p.uncheck("#f-unreadable")
    p.check("#f-fmt")
    assert v.shown() == 1
    p.uncheck("#f-fmt")
    p.check("#f-nonc")
    assert v.shown() == 1
    p.locator(".trow").first.click()
    p.wait_for_selector(".turn.responder")
    turns = p.locator("#detail .turn")
    assert "format error" in turns.nth(0).inner_text() and "finish: length" in turns.nth(0).inner_text()
    assert "noncanonical" in turns.nth(2).inner_text()
    v.shot("noncanonical.png")
    p.uncheck("#f-nonc")
    p.select_option("#f-trace", "2")                       # correct
    lines = (demo_runs["noask"] / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()
    correct = sum(bool((json.loads(line).get("verdict") or {}).get("correct")) for line in lines)
    assert v.shown() == correct > 0                        # noask's lucky guesses
    p.select_option("#f-family", label="discrete_tomography")
    n = v.shown()
    assert 0 < n < correct
    assert 0 < p.locator(".trow").count() <= n            # the rendered rows all match
    assert set(p.locator(".trow .c-fam").all_text_contents()) == {"discrete_tomography"}
    p.select_option("#f-run", "")
    p.select_option("#f-trace", "")
    p.select_option("#f-family", "")
    p.select_option("#f-type", "A")
    p.select_option("#f-diff", "1")
    assert v.shown() == 2 * sum(i.type == "A" and i.difficulty == 1 for i in release_instances)
    p.fill("#f-id", "bay-00000")
    assert v.shown() == 2 * 10
    assert "bayes_missing_prior" in p.locator("#summary").inner_text()
    v.shot("filters.png")
    v.close()


def test_dialogue_side_by_side_hash_and_keys(browser, demo_view):
    v = Page(browser, demo_view)
    p = v.page
    p.locator(".trow").first.click()                       # bay-000000, the reference run
    p.wait_for_selector(".turn.responder")
    detail = p.locator("#detail")
    assert "bay-000000" in detail.locator(".dhead .id").inner_text()
    assert detail.locator(".turn.solver mark").first.inner_text().startswith("REQUEST:")
    responder = detail.locator(".turn.responder").first.inner_text()
    assert "offer" in responder and "canonical" in responder and "quoted line" in responder
    assert "Hint specification" in detail.text_content() and "Responder's private lines" in detail.text_content()
    assert "expected" in detail.locator(".verdict").first.inner_text()
    assert p.evaluate("location.hash") == "#run=0&id=bay-000000"
    p.select_option("#cmp", "1")                           # side by side with noask
    v.wait("document.querySelectorAll('.cols > .col').length === 2")
    cols = p.locator(".cols > .col")
    assert "reference" in cols.nth(0).inner_text() and "noask" in cols.nth(1).inner_text()
    assert "Wrong" in cols.nth(1).inner_text()
    assert p.evaluate("location.hash") == "#run=0&id=bay-000000&cmp=1"
    v.shot("side_by_side.png")
    p.keyboard.press("j")
    p.keyboard.press("j")                                  # rows: bay-000000 x2, bay-000001 reference
    v.wait("document.querySelector('#detail .dhead .id').textContent === 'bay-000001'")
    p.keyboard.press("k")
    v.wait("location.hash === '#run=1&id=bay-000000&cmp=1'")
    v.close()
    # the hash reopens the same instance in a fresh page
    v = Page(browser, demo_view, "#run=1&id=bay-000003")
    v.wait("document.querySelector('#detail .dhead .id')?.textContent === 'bay-000003'")
    assert v.page.evaluate("MIRA.state().selected") >= 0
    v.close()


@pytest.mark.parametrize("raw, action, content, marked", [
    ("ANSWER: 3", "answer", "3", "ANSWER: 3"),
    ("Let me think. 3 is odd.\nREQUEST: What is x?", "request", "What is x?", "REQUEST: What is x?"),
    ("ANSWER: 3\nso the answer is 3", "answer", "3", "ANSWER: 3"),
    ("**Answer:**\n7/2", "answer", "7/2", "Answer:**\n7/2"),
    ("\U0001F600 ANSWER: 5", "answer", "5", "ANSWER: 5"),
    ("I think x\nthe value is 12 here", "answer", "12", "I think x\nthe value is 12"),
    ("so\n12 it is. ANSWER: see above", "answer", "12", "12"),
    ("no action here", "format_error", "", None),
    (None, "answer", "3", None),
])
def test_action_span_marks_the_parsed_action(browser, demo_view, raw, action, content, marked):
    v = Page(browser, demo_view)
    span = v.page.evaluate("([r, a, c]) => MIRA.actionSpan(r, a, c)", [raw, action, content])
    got = None if span is None else v.page.evaluate("([r, s]) => r.slice(s[0], s[1])", [raw, span])
    assert got == marked
    v.close()


def test_a_dialogue_on_a_later_page_of_small_pages(browser, demo_runs, tmp_path, monkeypatch):
    """Pages closed by their byte bound: the page finds each transcript through the index."""
    from mira_math.eval.view import build

    monkeypatch.setattr(build, "PAGE_BYTES", 20_000)
    build_view([demo_runs["reference"], demo_runs["noask"]], tmp_path / "small")
    v = Page(browser, tmp_path / "small", "#run=1&id=ste-002309")
    v.wait("document.querySelector('#detail .dhead .id')?.textContent === 'ste-002309'")
    assert "noask" in v.page.locator("#detail .col").first.inner_text()
    v.close()


def test_model_text_is_escaped(browser, demo_view, demo_runs):
    v = Page(browser, demo_view, f"#run=1&id={demo_runs['first']}")
    p = v.page
    p.wait_for_selector(".turn.solver pre")
    assert XSS in p.locator(".turn.solver pre").first.inner_text()
    assert p.evaluate("window.__xss === undefined")
    assert p.locator("#detail img, #detail script").count() == 0
    v.close()                                              # and the <img> fetched nothing


def test_ten_thousand_transcripts(browser, big_run, tmp_path):
    out = tmp_path / "big"
    result = build_view([big_run], out)
    assert result.transcripts == 10_000
    v = Page(browser, out)
    p = v.page
    assert v.shown() == 10_000
    assert p.locator(".trow").count() < 100                # the table is virtualised
    p.check("#f-unreadable")
    assert v.shown() == 3333
    p.locator(".trow").nth(5).click()
    p.wait_for_selector(".turn.solver mark")
    assert "ANSWER: ???" in p.locator(".turn.solver mark").first.inner_text()
    p.uncheck("#f-unreadable")
    p.locator("#scroller").evaluate("e => e.scrollTop = e.scrollHeight")
    v.wait("[...document.querySelectorAll('.trow .c-id')].some(e => e.textContent.endsWith('~4'))")
    v.shot("ten_thousand.png")
    v.close()


@pytest.fixture(scope="module")
def k2_view(tmp_path_factory):
    """Two runs over two-fact instances: reference and first-fact."""
    from mira_math.cli.main import main

    root = tmp_path_factory.mktemp("k2")
    runs = []
    for solver in ("reference", "first-fact"):
        assert main(["eval", "--config", "multi_hint_laplace_grid", "--solver", solver,
                     "--out", str(root / solver), "--limit", "3"]) == 0
        runs.append(root / solver)
    build_view(runs, root / "view")
    return root / "view"


def test_the_facts_a_k2_episode_acquired_in_order(browser, k2_view):
    v = Page(browser, k2_view, "#run=1&id=laplace_grid-k2-00000")      # first-fact
    v.wait("document.querySelector('#detail .dhead .id')?.textContent === 'laplace_grid-k2-00000'")
    text = v.page.locator("#detail").text_content()
    assert "Facts needed: 2" in text and "acquired 1st, at request 1" in text and "not acquired" in text
    assert "budget 6" in v.page.locator("#detail .dhead").first.inner_text()   # 3d per missing fact
    assert "fact 1 of 2" in v.page.locator("#detail .turn.responder").first.inner_text()
    v.shot("k2_first_fact.png")
    v.close()
    v = Page(browser, k2_view, "#run=0&id=laplace_grid-k2-00000")      # reference: both, in order
    v.wait("document.querySelector('#detail .dhead .id')?.textContent === 'laplace_grid-k2-00000'")
    text = v.page.locator("#detail").text_content()
    assert "acquired 1st, at request 1" in text and "acquired 2nd, at request 2" in text
    assert "not acquired" not in text
    v.close()


def test_the_k2_summary_shows_the_fact_metrics_as_score_does_and_ids_whole(browser, k2_view):
    from mira_math.eval.metrics import num, pct
    from mira_math.eval.scoring import score

    root = k2_view.parent
    scores = score([root / "reference", root / "first-fact"])
    v = Page(browser, k2_view, "#run=1&id=laplace_grid-k2-00000")
    p = v.page
    v.wait("document.querySelector('#detail .dhead .id')?.textContent === 'laplace_grid-k2-00000'")
    heads = p.locator("#summary th").all_text_contents()
    assert heads[-3:] == ["all facts", "credit", "ask-F1"]
    totals = [[c.strip() for c in row.locator("td").all_text_contents()]
              for row in p.locator("#summary tr.total").all()]
    assert len(totals) == len(scores)
    for cells, s in zip(totals, scores):                       # digit for digit what score writes
        m = s.overall
        assert s.label in cells[1]
        assert cells[-3:] == [pct(m.all_facts_rate) + "%", num(m.partial_credit), pct(m.ask_f1) + "%"]
    verdict = p.locator("#detail .verdict").first.inner_text()
    assert "1 of 2 (credit 0.50), in order: fact 1 at request 1" in verdict
    assert set(p.locator(".trow .c-facts").all_text_contents()) == {"2/2", "1/2"}
    ids = p.evaluate("[...document.querySelectorAll('.trow .c-id')]"
                     ".map(e => [e.textContent, e.scrollWidth <= e.clientWidth])")
    assert ids and all(whole for _, whole in ids) and all(t.startswith("laplace_grid-k2-") for t, _ in ids)
    v.shot("k2_summary.png")
    v.close()
