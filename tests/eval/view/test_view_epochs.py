"""Epochs of one instance are told apart (a column and the row link), and the header
counts the runs' instances, not the dataset's."""

from __future__ import annotations

import json

from mira_math.cli.main import main
from mira_math.eval.view.build import build_view


def _load_js(path, call):
    text = path.read_text(encoding="utf-8")
    return json.loads("[" + text[len(call) + 1:-3] + "]")


def test_epochs_get_a_column_and_a_subset_run_counts_its_own_instances(tmp_path, capsys):
    run = tmp_path / "sampler"
    assert main(["eval", "--solver", "sampler", "--temperature", "0.7", "--epochs", "2", "--seed", "1",
                 "--families", "bayes_missing_prior", "--limit", "3", "--out", str(run)]) == 0
    out = tmp_path / "view"
    result = build_view([run], out)
    assert result.transcripts == 6 and result.instances == 3          # 3 instances, 2 epochs each
    (index,) = _load_js(out / "data" / "index.js", "MIRA.index")
    assert index["run_instances"] == 3 and index["instances"] >= 3
    columns = _load_js(out / "data" / "r-0000.js", "MIRA.page")[2]
    pairs = sorted(zip(columns["id"], columns["ep"]))
    assert len(set(pairs)) == 6 and sorted(set(columns["ep"])) == [0, 1]   # each (id, epoch) one row
    capsys.readouterr()
    assert main(["view", str(run), "--out", str(tmp_path / "v2")]) == 0
    assert "6 transcripts of 1 runs, 3 instances" in capsys.readouterr().out


def test_in_the_browser_epochs_link_apart_reasoning_shows_once_usage_is_reported(tmp_path):
    """The page itself (headless Chromium, as test_browser.py): each epoch its own link, the
    inline think block not repeated above its disclosure, the server's usage in the verdict."""
    from tests.eval.view import test_browser as tb
    from tests.eval.view.test_browser import Page

    run = tmp_path / "sampler"
    assert main(["eval", "--solver", "sampler", "--temperature", "0.7", "--epochs", "2", "--seed", "1",
                 "--families", "bayes_missing_prior", "--limit", "1", "--out", str(run)]) == 0
    path = run / "transcripts.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    first = rows[0]["turns"][0]
    first["raw"] = "<think>\nSECRET DRAFT\n</think>\n\n" + first["raw"]
    first["reasoning"] = "SECRET DRAFT"
    first["meta"] = {"usage": {"prompt_tokens": 120, "completion_tokens": 30}}
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "view"
    build_view([run], out)
    tid = rows[0]["id"]
    with tb.sync_playwright_browser() as b:
        v = Page(b, out, f"#run=0&id={tid}&ep=1")
        v.wait("location.hash.indexOf('&ep=1') > 0 && MIRA.state().selected >= 0")
        v.page.keyboard.press("k")                          # the other epoch: its own link
        v.wait(f"location.hash === '#run=0&id={tid}'")
        v.page.wait_for_selector(".turn.solver pre")
        text = v.page.locator("#detail").text_content()     # collapsed details included
        assert text.count("SECRET DRAFT") == 1              # under the disclosure only
        assert "120 in, 30 out" in v.page.locator(".verdict").first.inner_text()
        v.close()
