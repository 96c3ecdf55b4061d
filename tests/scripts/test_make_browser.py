"""`make test` degrades to the documented browser skip when apt fails (the dpkg lock
held by another process), instead of aborting with make's Error 100."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("make") is None or os.name != "posix", reason="needs make and a POSIX shell")
def test_a_failing_apt_leaves_the_browser_skip(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("id", "env", "true", "sh"):
        found = shutil.which(tool)
        assert found is not None
        (bin_dir / tool).symlink_to(found)
    apt = bin_dir / "apt-get"       # the dpkg lock is held: every apt-get call fails with 100
    apt.write_text("#!/bin/sh\necho 'E: Could not get lock /var/lib/dpkg/lock-frontend' >&2\nexit 100\n")
    apt.chmod(0o755)
    sudo = bin_dir / "sudo"         # a password-less sudo, for a non-root run of the test
    sudo.write_text('#!/bin/sh\n[ "$1" = -n ] && shift\nexec "$@"\n')
    sudo.chmod(0o755)
    proc = subprocess.run([shutil.which("make"), "--no-print-directory", "-C", str(ROOT), "browser"],
                          env={"PATH": str(bin_dir), "HOME": str(tmp_path)},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "browser tests will be skipped" in proc.stdout
