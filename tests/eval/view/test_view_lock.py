"""Two `view` builds into one folder never both succeed with mixed pages."""

from __future__ import annotations

import fcntl

import pytest

from mira_math.cli.main import main
from mira_math.eval.view.build import LOCK_NAME, ViewError, build_view


def test_a_second_build_into_a_locked_folder_is_refused(demo_runs, tmp_path, capsys):
    out = tmp_path / "view"
    out.mkdir()
    with (out / LOCK_NAME).open("a+") as held:          # a build in progress holds the lock
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(ViewError, match="another mira-math view is writing this folder"):
            build_view([demo_runs["noask"]], out)
        assert main(["view", str(demo_runs["noask"]), "--out", str(out)]) == 1
        assert "another mira-math view" in capsys.readouterr().err
        assert not (out / "data").exists()               # nothing written beside the other build
    result = build_view([demo_runs["noask"]], out)       # released: the next build goes through
    assert result.index_html.exists()
    assert build_view([demo_runs["noask"]], out).transcripts == result.transcripts   # its own lock is no stranger
