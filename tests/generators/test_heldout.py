"""Held-out seed sets: complete Hub-ready folders, reproducible, disjoint from the public one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mira_cli.main import main
from generators.release import data_path, read_release_info

RELEASE = Path(__file__).resolve().parents[2] / "mira-math"


@pytest.fixture(scope="module")
def heldout(tmp_path_factory):
    out = tmp_path_factory.mktemp("heldout") / "split"
    assert main(["generate", "--seed-set", "heldout-test", "--out", str(out)]) == 0
    return out


def test_heldout_is_complete_and_verifies(heldout):
    info = read_release_info(heldout)
    assert info["seed_set"] == "heldout-test" and info["total"] == 2310
    assert info["disjoint_from"] == [{"seed_set": "public-20-50", "master_seed": 20260101,
                                      "per_type": {"A": 20, "B": 50}}]
    readme = (heldout / "README.md").read_text(encoding="utf-8")
    assert "held-out seed set heldout-test" in readme and "configs:" in readme
    assert main(["verify", str(heldout)]) == 0
    assert main(["validate", str(heldout)]) == 0


def test_heldout_is_disjoint_from_the_public_release(heldout, capsys):
    assert main(["check-disjoint", str(RELEASE), str(heldout)]) == 0
    assert "0 shared" in capsys.readouterr().out


def test_check_disjoint_finds_a_shared_instance(heldout, tmp_path, capsys):
    copy = tmp_path / "copy"
    shutil.copytree(heldout, copy)
    public_line = (RELEASE / data_path("laplace_grid")).read_text(encoding="utf-8").splitlines()[3]
    target = copy / data_path("laplace_grid")
    lines = target.read_text(encoding="utf-8").splitlines(keepends=True)
    row = json.loads(public_line)
    row["id"] = json.loads(lines[0])["id"]
    lines[0] = json.dumps(row, ensure_ascii=False) + "\n"
    target.write_text("".join(lines), encoding="utf-8")
    capsys.readouterr()
    assert main(["check-disjoint", str(RELEASE), str(copy)]) == 1
    out = capsys.readouterr().out
    assert "SHARED latent state" in out and "SHARED solver view" in out


def test_heldout_needs_an_output_folder(capsys):
    assert main(["generate", "--seed-set", "heldout-x"]) == 2
