"""The viewer's files: layout, escaping, the action span, agreement with scoring, the CLI."""

from __future__ import annotations

import json
import random
import re
import shutil

import pytest

from mira_math.eval.rundir import resolve_data_file
from mira_math.eval.scoring import ScoringError, group_runs, load_run
from mira_math.eval.view import build, store
from mira_math.eval.view.build import DEFAULT_CHUNK_ROWS, TRACE_CODES, ViewError, build_view, js_literal
from mira_math.cli.main import main


def _load_js(path, call):
    text = path.read_text(encoding="utf-8")
    assert text.startswith(call + "(") and text.endswith(");\n")
    return json.loads("[" + text[len(call) + 1:-3] + "]")


def test_js_literal_cannot_close_a_script():
    text = js_literal({"raw": "</script><b>&\u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"raw": "</script><b>&\u2028"}


def test_build_writes_pages_that_agree_with_scoring(demo_runs, tmp_path, counts, release_instances):
    out = tmp_path / "view"
    result = build_view([demo_runs["reference"], demo_runs["noask"]], out, page_size=500)
    both = 2 * counts.total                           # two runs over the whole release
    assert result.runs == 2 and result.transcripts == both and result.instances == counts.total
    html = (out / "index.html").read_text(encoding="utf-8")
    assert not re.search(r"(src|href)=\"(https?:)?//", html), "no remote asset"
    assert "/*{{JS}}*/" not in html and "MIRA.index" in html
    assert "connect-src 'none'" in html                 # the page may open no connection
    (index,) = _load_js(out / "data" / "index.js", "MIRA.index")
    assert index["rows"] == both and index["page_size"] == 500
    assert index["chunks"] == -(-both // DEFAULT_CHUNK_ROWS)
    (rows,) = _load_js(out / "data" / "r-0000.js", "MIRA.page")[2:]
    assert len(rows["run"]) == min(both, DEFAULT_CHUNK_ROWS)
    pages = sorted(p.name for p in (out / "data").glob("t-*.js"))
    assert pages == [f"t-{n:04d}.js" for n in range(-(-both // 500))]
    # the trace class of every row is scoring's
    runs = group_runs([demo_runs["reference"], demo_runs["noask"]])
    expected = sorted((s.key[1], r, TRACE_CODES[s.trace_class])
                      for r, info in enumerate(runs) for s in load_run(info).stats)
    got = sorted(zip(rows["id"], rows["run"], rows["trace"]))
    assert got == expected
    tuples = sum(i.answer.type == "tuple" for i in release_instances)
    assert sum(rows["unreadable"]) == tuples > 0     # noask's tuple answers
    # rows are in instance order, each instance's runs together
    assert rows["inst"] == sorted(rows["inst"]) and rows["id"][:2] == [rows["id"][0]] * 2
    # the precomputed summary counts what the rows hold
    assert sum(e[2] + e[6] for e in index["summary"]) == both
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


def test_cli_view(demo_runs, tmp_path, capsys, counts):
    assert main(["view", str(demo_runs["noask"]), "--out", str(tmp_path / "v")]) == 0
    assert f"{counts.total} transcripts of 1 runs" in capsys.readouterr().out
    assert main(["view", str(tmp_path / "missing"), "--out", str(tmp_path / "w")]) == 1
    assert "manifest.json: missing" in capsys.readouterr().err


def _rows(out):
    (index,) = _load_js(out / "data" / "index.js", "MIRA.index")
    cols = [_load_js(out / "data" / f"r-{n:04d}.js", "MIRA.page")[2] for n in range(index["chunks"])]
    return [tuple(zip(*(c[k] for k in ("id", "inst", "trace", "req", "off")))) for c in cols]


def _copy_run(source, dest, transform):
    """A copy of a run dir whose transcript lines go through ``transform`` (a list of lines in, out)."""
    shutil.copytree(source, dest)
    path = dest / "transcripts.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(transform(lines)), encoding="utf-8")
    return dest


@pytest.mark.parametrize("memory_lines, batch, window", [(25_000, 4096, 8192), (0, 4096, 8192), (0, 8, 16)])
def test_transcripts_out_of_dataset_order_are_found_the_same(demo_runs, tmp_path, monkeypatch, memory_lines,
                                                             batch, window):
    """Transcripts in a shuffled order give the same table as in dataset order, whether the
    dataset is indexed in memory or matched from the store by streaming (with a window of 16
    lines: read-ahead misses, then indexed queries only)."""
    monkeypatch.setattr(store, "MEMORY_LINES", memory_lines)
    monkeypatch.setattr(store, "BATCH", batch)
    monkeypatch.setattr(store, "WINDOW", window)
    build_view([demo_runs["reference"]], tmp_path / "in-order")
    shuffled = _copy_run(demo_runs["reference"], tmp_path / "shuffled",
                         lambda lines: random.Random(7).sample(lines, len(lines)))
    build_view([shuffled], tmp_path / "view")
    assert sorted(_rows(tmp_path / "view")[0]) == sorted(_rows(tmp_path / "in-order")[0])
    assert _rows(tmp_path / "view") == _rows(tmp_path / "in-order")   # the table order is the dataset's


@pytest.mark.parametrize("memory_lines, sort_rows, block_rows",
                         [(25_000, 25_000, 250), (0, 700, 3), (1000, 10_000, 100), (150, 700, 3)])
def test_every_way_through_the_store_writes_the_same_bytes(demo_runs, tmp_path, monkeypatch, memory_lines,
                                                           sort_rows, block_rows):
    """The in-memory index, the streamed store, or the release's files split between them (the
    budget runs out after some of them: a run's files come from both); one sorted run of rows
    or many merged: the same files, byte for byte, for two runs over one dataset plus a
    shuffled third."""
    shuffled = _copy_run(demo_runs["noask"], tmp_path / "shuffled",
                         lambda lines: random.Random(3).sample(lines, len(lines)))
    dirs = [demo_runs["reference"], demo_runs["noask"], shuffled]
    build_view(dirs, tmp_path / "default")
    monkeypatch.setattr(store, "MEMORY_LINES", memory_lines)
    monkeypatch.setattr(store, "SORT_ROWS", sort_rows)
    monkeypatch.setattr(store, "BLOCK_ROWS", block_rows)
    build_view(dirs, tmp_path / "other")
    files = sorted(p.name for p in (tmp_path / "default" / "data").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "other" / "data").iterdir())
    for name in files:
        assert (tmp_path / "default" / "data" / name).read_bytes() == (tmp_path / "other" / "data" / name).read_bytes()


def test_row_sorter_merges_spilled_runs_in_tuple_order(tmp_path, monkeypatch):
    monkeypatch.setattr(store, "SORT_ROWS", 10)
    monkeypatch.setattr(store, "BLOCK_ROWS", 3)
    rows = [(random.Random(n).randrange(50), n % 3, n, "x" * (n % 5)) for n in range(95)]
    sorter = store.RowSorter(tmp_path / "rows.bin")
    for row in rows:
        sorter.add(row)
    try:
        batches = list(sorter.ordered(7))
    finally:
        sorter.close()
    assert [len(b) for b in batches] == [7] * 13 + [4]
    assert [row for b in batches for row in b] == sorted(rows)


@pytest.mark.parametrize("memory_lines", [25_000, 0])
def test_an_id_in_two_seed_sets_is_found_by_its_seed_set(demo_runs, tmp_path, monkeypatch, memory_lines, counts):
    """When an id repeats in the run's files (here: in a second seed set), every transcript is
    looked up as scoring does, in memory or in the store (the streamed match is off): by seed
    set, or refused without one."""
    monkeypatch.setattr(store, "MEMORY_LINES", memory_lines)
    run = _copy_run(demo_runs["reference"], tmp_path / "run", lambda lines: lines)
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    files = [resolve_data_file(name, run) for name in manifest["dataset"]["files"]]
    data = [json.loads(x) for f in files for x in f.read_text(encoding="utf-8").splitlines()]
    line = data[0]
    extra = run / "extra.jsonl"
    extra.write_text(json.dumps({**line, "seed_set": "other-seeds", "difficulty": 3}) + "\n", encoding="utf-8")
    manifest["dataset"]["files"] = [str(f) for f in files] + [str(extra)]
    manifest["dataset"].pop("checksum", None)
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    seeds = {d["id"]: d["seed_set"] for d in data}
    path = run / "transcripts.jsonl"
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    path.write_text("".join(json.dumps({**r, "seed_set": seeds[r["id"]]}) + "\n" for r in rows), encoding="utf-8")
    build_view([run], tmp_path / "view")                    # every transcript names its seed set
    table = _rows(tmp_path / "view")[0]
    assert len(table) == counts.total and table[0][0] == line["id"] and table[0][1] == 0
    path.write_text(json.dumps(rows[0]) + "\n", encoding="utf-8")   # no seed set: two instances match
    with pytest.raises(ScoringError, match=r"transcripts.jsonl:1: field 'seed_set': id .* several seed sets"):
        build_view([run], tmp_path / "view")


def test_pages_end_at_their_byte_bound_and_the_index_says_where(demo_runs, tmp_path, monkeypatch):
    monkeypatch.setattr(build, "PAGE_BYTES", 20_000)
    out = tmp_path / "view"
    build_view([demo_runs["reference"]], out)
    (index,) = _load_js(out / "data" / "index.js", "MIRA.index")
    starts = index["page_starts"]["t"]
    assert len(starts) > 10 and starts[0] == 0 and starts == sorted(starts)
    read = []
    for n, first in enumerate(starts):
        _, number, page = _load_js(out / "data" / f"t-{n:04d}.js", "MIRA.page")
        assert number == n and len(read) == first
        assert len(page) == 1 or len(json.dumps(page[:-1])) < 20_000 * 1.1   # closed once over the bound
        read += page
    lines = (demo_runs["reference"] / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()
    assert read == [json.loads(x) for x in lines]


def _info(tid, seed_set, difficulty=1):
    from mira_math.eval.rundir import InstanceInfo

    return InstanceInfo(seed_set, tid, "fam", "A", difficulty, None, frozenset({"x = 1"}))


def test_id_index_keeps_scorings_rules():
    """First line per (seed set, id) in file order; an id in two seed sets needs the seed set."""
    first, second = store.IdIndex(), store.IdIndex()
    first.add("a", (0, _info("a", "public")))
    first.add("a", (1, _info("a", "public", 3)))              # a repeated line: the first one counts
    second.add("a", (2, _info("a", "heldout")))
    second.add("b", (3, _info("b", "heldout")))
    merged = store.IdIndex.merged([first, second])
    assert merged.find("a", "public")[0] == 0 and merged.find("a", "heldout")[0] == 2
    assert merged.find("a", None) is None and merged.seed_sets("a") == 2     # ambiguous without one
    assert merged.find("b", None)[0] == 3 and merged.find("b", "public") is None
    assert merged.find("c", None) is None and merged.seed_sets("c") == 0
    assert first.find("a", None)[0] == 0 and first.seed_sets("a") == 1


@pytest.mark.parametrize("hints", [[], [""], ["a = 1"], ["a = 1", "b = [2]"], ["x\x1fy", "z"], ["[1]"]])
def test_hint_constraints_survive_the_store_column(hints):
    assert store.decode_hints(store.encode_hints(hints)) == tuple(hints)
