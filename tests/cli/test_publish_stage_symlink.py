"""``publish --stage`` onto a symlink whose target does not exist: refused in one line naming
the link and its target, with nothing created at either end."""

from __future__ import annotations

from mira_math.cli.main import main


def test_stage_onto_a_dangling_symlink_is_refused_in_one_line(tmp_path, capsys):
    link, target = tmp_path / "staged", tmp_path / "gone" / "here"
    link.symlink_to(target)
    assert main(["publish", "--repo-id", "owner/x", "--dry-run", "--stage", str(link)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert str(link) in err and str(target) in err and "does not exist" in err
    assert link.is_symlink() and not target.exists() and not target.parent.exists()


def test_stage_through_a_live_symlink_to_an_empty_folder_writes_there(tmp_path, capsys):
    target = tmp_path / "empty"
    target.mkdir()
    link = tmp_path / "staged"
    link.symlink_to(target)
    assert main(["publish", "--repo-id", "owner/x", "--dry-run", "--stage", str(link)]) == 0
    assert (target / "README.md").is_file()
