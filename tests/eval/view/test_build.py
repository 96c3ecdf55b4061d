"""The viewer's files: layout, escaping, the action span, agreement with scoring, the CLI."""

from __future__ import annotations

import json
import re

import pytest

from mira_math.eval.scoring import group_runs, load_run
from mira_math.eval.view.build import TRACE_CODES, ViewError, build_view, js_literal
from mira_math.cli.main import main


def _load_js(path, call):
    text = path.read_text(encoding="utf-8")
    assert text.startswith(call + "(") and text.endswith(");\n")
    return json.loads("[" + text[len(call) + 1:-3] + "]")


def test_js_literal_cannot_close_a_script():
    text = js_literal({"raw": "</script><b>&\u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"raw": "</script><b>&\u2028"}


def test_build_writes_pages_that_agree_with_scoring(demo_runs, tmp_path):
    out = tmp_path / "view"
    result = build_view([demo_runs["reference"], demo_runs["noask"]], out, page_size=500)
    assert result.runs == 2 and result.transcripts == 4620 and result.instances == 2310
    html = (out / "index.html").read_text(encoding="utf-8")
    assert not re.search(r"(src|href)=\"(https?:)?//", html), "no remote asset"
    assert "/*{{JS}}*/" not in html and "MIRA.index" in html
    assert "connect-src 'none'" in html                 # the page may open no connection
    (index,) = _load_js(out / "data" / "index.js", "MIRA.index")
    assert index["rows"] == 4620 and index["page_size"] == 500 and index["chunks"] == 1
    (rows,) = _load_js(out / "data" / "r-0000.js", "MIRA.page")[2:]
    assert len(rows["run"]) == 4620
    pages = sorted(p.name for p in (out / "data").glob("t-*.js"))
    assert pages == [f"t-{n:04d}.js" for n in range(10)]
    # the trace class of every row is scoring's
    runs = group_runs([demo_runs["reference"], demo_runs["noask"]])
    expected = sorted((s.key[1], r, TRACE_CODES[s.trace_class])
                      for r, info in enumerate(runs) for s in load_run(info).stats)
    got = sorted(zip(rows["id"], rows["run"], rows["trace"]))
    assert got == expected
    assert sum(rows["unreadable"]) == 450            # noask's tuple answers
    # rows are in instance order, each instance's runs together
    assert rows["inst"] == sorted(rows["inst"]) and rows["id"][:2] == [rows["id"][0]] * 2
    # the precomputed summary counts what the rows hold
    assert sum(e[2] + e[6] for e in index["summary"]) == 4620
    assert sum(e[5] for e in index["summary"]) == sum(1 for c in rows["trace"] if c == TRACE_CODES["correct"])
    # a transcript page holds the transcripts, as read, at the positions the rows name
    _, n, page = _load_js(out / "data" / "t-0000.js", "MIRA.page")
    with (demo_runs["reference"] / "transcripts.jsonl").open(encoding="utf-8") as fh:
        assert n == 0 and page[0] == json.loads(fh.readline())
    assert page[rows["t"][0]]["id"] == rows["id"][0]
    _, _, insts = _load_js(out / "data" / "i-0000.js", "MIRA.page")
    assert insts[rows["inst"][0]]["id"] == rows["id"][0]


def test_table_chunks_split_the_rows(demo_runs, tmp_path):
    out = tmp_path / "view"
    build_view([demo_runs["noask"]], out, chunk_rows=1000)
    (index,) = _load_js(out / "data" / "index.js", "MIRA.index")
    assert index["chunks"] == 3
    sizes = [len(_load_js(out / "data" / f"r-{n:04d}.js", "MIRA.page")[2]["run"]) for n in range(3)]
    assert sizes == [1000, 1000, 310]


def test_build_is_deterministic_and_refuses_foreign_folders(demo_runs, tmp_path):
    out = tmp_path / "view"
    build_view([demo_runs["noask"]], out)
    first = {p.name: p.read_bytes() for p in (out / "data").iterdir()}
    build_view([demo_runs["noask"]], out)                    # rebuilding into its own folder is fine
    assert {p.name: p.read_bytes() for p in (out / "data").iterdir()} == first
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(ViewError, match="notes.txt"):
        build_view([demo_runs["noask"]], out)


def test_cli_view(demo_runs, tmp_path, capsys):
    assert main(["view", str(demo_runs["noask"]), "--out", str(tmp_path / "v")]) == 0
    assert "2310 transcripts of 1 runs" in capsys.readouterr().out
    assert main(["view", str(tmp_path / "missing"), "--out", str(tmp_path / "w")]) == 1
    assert "manifest.json: missing" in capsys.readouterr().err
