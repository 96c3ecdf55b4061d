"""`score`'s terminal table stays narrow when a run sent a long stop list."""

from __future__ import annotations

from mira_math.eval.tables import DECODING_WIDTH, decoding_cell, render_table
from mira_math.eval.scoring import score
from tests.eval.test_report import write_run


def test_the_decoding_cell_is_bounded():
    stops = ["\nInformation holder:", "\nUser:", "\nYour message had no action line"] * 5
    cell = decoding_cell({"max_tokens": 4096, "stop": stops, "temperature": 0.6, "top_p": 0.95})
    assert cell.startswith("max_tokens=4096, stop=[15], temperature") and len(cell) <= DECODING_WIDTH
    assert decoding_cell({}) == "-"


def test_the_runs_table_is_no_wider_than_before_the_stop_list(tmp_path):
    stops = ["\nInformation holder:", "\nUser:", "\nYour message had no action line"] * 5
    long = write_run(tmp_path / "a", "model-x", "zs", [0, 1], solver_params={"temperature": 0.7, "stop": stops})
    plain = write_run(tmp_path / "b", "model-x", "zs", [0, 1], solver_params={"temperature": 0.7})
    runs_table = [render_table(score([d])).split("\n\n")[0] for d in (long, plain)]
    widths = [max(len(line) for line in t.splitlines()) for t in runs_table]
    assert widths[0] <= widths[1] + DECODING_WIDTH and widths[0] < 160
