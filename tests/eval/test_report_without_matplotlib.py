"""``mira-math report`` without matplotlib writes the Markdown tables and says what figures need."""

import sys

from mira_math.cli.main import main


def test_report_without_matplotlib_writes_the_tables(tmp_path, monkeypatch, capsys):
    run = tmp_path / "run"
    assert main(["eval", "--solver", "reference", "--limit", "3", "--out", str(run)]) == 0
    monkeypatch.setitem(sys.modules, "matplotlib", None)          # as if not installed
    capsys.readouterr()
    assert main(["report", str(run), "--out", str(tmp_path / "rep")]) == 0
    captured = capsys.readouterr()
    assert "note: no figures drawn: figures need matplotlib (pip install 'mira-math[report]')" in captured.err
    text = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "## Runs" in text and "reference" in text
    assert "not drawn: figures need matplotlib" in text and "![" not in text
    assert sorted(p.name for p in (tmp_path / "rep").iterdir()) == ["report.md", "results.md", "results.tex"]
