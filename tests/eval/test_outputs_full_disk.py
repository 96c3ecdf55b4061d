"""``report`` and ``view`` on a full disk: the new outputs are built beside the previous ones
and swapped in only when all are written, so a write failing part way (an injected ENOSPC)
leaves the previous folder byte for byte as it was, and the command says so in one line."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from mira_math.cli.main import main
from mira_math.common.staging import NAMES

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("runs")
    for solver in ("reference", "noask"):
        assert main(["eval", "--solver", solver, "--limit", "40", "--out", str(root / solver)]) == 0
    return {"reference": root / "reference", "noask": root / "noask"}


def snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def disk_fills_after(monkeypatch, out: Path, writes: int) -> list:
    """Every ``write_text``/``write_bytes`` under ``out`` after the first ``writes`` fails as a
    full disk does; returns the paths written before."""
    done: list = []
    for name in ("write_text", "write_bytes"):
        original = getattr(Path, name)

        def failing(self, *args, _original=original, **kwargs):
            if out in self.parents:
                if len(done) >= writes:
                    raise OSError(errno.ENOSPC, "No space left on device", str(self))
                done.append(self)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(Path, name, failing)
    return done


@pytest.mark.parametrize("writes", [0, 1])
def test_report_on_a_full_disk_keeps_the_previous_report(runs, tmp_path, monkeypatch, capsys, writes):
    out = tmp_path / "report"
    assert main(["report", str(runs["reference"]), str(runs["noask"]), "--out", str(out)]) == 0
    before = snapshot(out)
    assert "report.md" in before and any(name.endswith(".png") for name in before)
    capsys.readouterr()
    with monkeypatch.context() as patch:
        done = disk_fills_after(patch, out, writes)
        assert main(["report", str(runs["noask"]), "--out", str(out)]) != 0
    assert len(done) == writes            # the failure struck part way through the new report
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no space left" in err.lower(), err
    assert snapshot(out) == before
    assert not any((out / name).exists() for name in NAMES)
    assert main(["report", str(runs["noask"]), "--out", str(out)]) == 0   # room again: replaced
    after = snapshot(out)
    assert after["report.md"] != before["report.md"]
    assert not any((out / name).exists() for name in NAMES)


@pytest.mark.parametrize("writes", [0, 3])
def test_view_on_a_full_disk_keeps_the_previous_viewer(runs, tmp_path, monkeypatch, capsys, writes):
    out = tmp_path / "view"
    assert main(["view", str(runs["reference"]), str(runs["noask"]), "--out", str(out)]) == 0
    before = snapshot(out)
    assert "index.html" in before and len([n for n in before if n.startswith("data/")]) > writes
    capsys.readouterr()
    with monkeypatch.context() as patch:
        done = disk_fills_after(patch, out, writes)
        assert main(["view", str(runs["noask"]), "--out", str(out)]) != 0
    assert len(done) == writes
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no space left" in err.lower(), err
    assert snapshot(out) == before
    assert not any((out / name).exists() for name in NAMES)
    assert main(["view", str(runs["noask"]), "--out", str(out)]) == 0
    assert snapshot(out)["index.html"] != before["index.html"]
    assert not any((out / name).exists() for name in NAMES)
