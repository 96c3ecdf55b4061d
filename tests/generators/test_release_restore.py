"""A ``generate --overwrite`` killed between its two renames: the release
folder is missing and the old copy hidden as ``.NAME.old-PID``. The next command that reads or
writes the folder renames it back (only when that process is gone) and says so in one line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mira_math.cli.main import main
from mira_math.generators.release import restore_interrupted

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--families", "bayes_missing_prior", "--per-type", "1/1", "--difficulties", "1"]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("built") / "rel"
    assert main(["generate", *TINY, "--out", str(out)]) == 0
    return out


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _interrupted(built: Path, tmp_path: Path, pid: int) -> Path:
    """The state a kill between the renames leaves: no ``rel``, the old copy hidden."""
    release = tmp_path / "rel"
    shutil.copytree(built, tmp_path / f".rel.old-{pid}")
    return release


def _files(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("command", [
    ["verify", "{rel}"],
    ["validate", "{rel}"],
    ["eval", "--data", "{rel}", "--solver", "noask", "--out", "{tmp}/run"],
    ["publish", "--dry-run", "--repo-id", "someone/mira", "--dir", "{rel}"],
])
def test_a_reader_restores_the_hidden_release_and_says_so(command, built, tmp_path, capsys):
    release = _interrupted(built, tmp_path, _dead_pid())
    argv = [a.format(rel=release, tmp=tmp_path) for a in command]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert err.count("note: ") == 1 and f"{release}: restored the previous release from .rel.old-" in err
    assert _files(release) == _files(built)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".rel.")] == []


def test_generate_without_overwrite_restores_then_refuses(built, tmp_path, capsys):
    release = _interrupted(built, tmp_path, _dead_pid())
    assert main(["generate", *TINY, "--out", str(release)]) == 1
    err = capsys.readouterr().err
    assert "restored the previous release" in err and "pass --overwrite to replace it" in err
    assert _files(release) == _files(built)


def test_generate_with_overwrite_leaves_one_folder_and_no_leftovers(built, tmp_path):
    release = _interrupted(built, tmp_path, _dead_pid())
    (tmp_path / f".rel.tmp-{_dead_pid()}").mkdir()          # a killed write's half folder too
    assert main(["generate", *TINY, "--out", str(release), "--overwrite"]) == 0
    assert _files(release) == _files(built)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rel"]


def test_a_running_writer_is_left_alone(built, tmp_path, capsys):
    """The old copy of a process still running is its swap in progress: not touched."""
    release = _interrupted(built, tmp_path, os.getpid())
    assert restore_interrupted(release) is None
    assert main(["verify", str(release)]) == 1
    assert "release info missing" in capsys.readouterr().err
    assert (tmp_path / f".rel.old-{os.getpid()}").is_dir() and not release.exists()


def test_a_real_kill_between_the_renames_is_restored(built, tmp_path, capsys):
    """A child process runs ``generate --overwrite`` and dies (os._exit) right after the first
    rename, as a kill -9 there would; the next ``verify`` finds the old release back."""
    release = tmp_path / "rel"
    shutil.copytree(built, release)
    script = (
        "import os, sys\n"
        "from mira_math.cli.main import main\n"
        "real = os.replace\n"
        "def replace(src, dst):\n"
        "    real(src, dst)\n"
        "    if '.old-' in str(dst):\n"
        "        os._exit(9)\n"
        "os.replace = replace\n"
        "sys.exit(main(sys.argv[1:]))\n")
    done = subprocess.run([sys.executable, "-c", script, "generate", *TINY, "--out", str(release),
                           "--overwrite"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 9, done.stderr
    assert not release.exists() and any(p.name.startswith(".rel.old-") for p in tmp_path.iterdir())
    assert main(["verify", str(release)]) == 0
    assert "restored the previous release" in capsys.readouterr().err
    assert _files(release) == _files(built)


def test_load_restores_the_committed_release_folder(built, tmp_path, monkeypatch):
    """The facade's default folder is restored the same way (a warning, not a print)."""
    import mira_math

    release = _interrupted(built, tmp_path, _dead_pid())
    monkeypatch.setattr(mira_math, "LOCAL_RELEASE", release)
    pytest.importorskip("datasets")
    with pytest.warns(UserWarning, match="restored the previous release"):
        mira_math.load("bayes_missing_prior")
    assert _files(release) == _files(built)
