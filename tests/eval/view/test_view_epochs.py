"""Issue 32: epochs of one instance are told apart (a column and the row link), and the header
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


def test_the_page_script_links_and_shows_the_epoch_and_reasoning_once():
    from importlib import resources

    js = resources.files("mira_math.eval.view").joinpath("assets/viewer.js").read_text(encoding="utf-8")
    assert '"&ep=" + R.ep[selRow]' in js and "q.ep" in js                 # the link names the epoch
    assert "withoutReasoning(turn.raw)" in js                              # think block shown once
    assert '["tokens (reported)", reportedUsage(t)]' in js                 # the server's usage
