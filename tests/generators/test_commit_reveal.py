"""Commit–reveal held-out splits: a commitment published before the split is seen
verifies after ``reveal``; one changed byte, a wrong salt or other seeds fail it; the
commitment gives away neither the seeds nor the salt; results on a committed split are marked
until it is revealed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mira_math.cli.main import main
from mira_math.generators.commitment import beside, seed_hash
from mira_math.generators.release import read_release_info
from mira_math.generators.seeds import SeedSet

ROOT = Path(__file__).resolve().parents[2]
ARGS = ["--families", "moment_problem", "circuit_missing_resistance", "--per-type", "2/3"]


@pytest.fixture
def committed(tmp_path, capsys):
    out = tmp_path / "private" / "split"
    assert main(["generate", "--seed-set", "secret-2027", "--out", str(out), "--commit", *ARGS]) == 0
    assert "public now" in capsys.readouterr().out
    return out


def test_the_commitment_hides_the_seeds_and_the_salt(committed):
    commitment = json.loads(beside(committed, "commitment").read_text())
    secret = json.loads(beside(committed, "secret").read_text())
    info = read_release_info(committed)
    assert info["commit_reveal"] is True
    assert info["master_seed"] != SeedSet.named("secret-2027").master_seed   # not derivable from the name
    text = beside(committed, "commitment").read_text()
    assert str(info["master_seed"]) not in text and secret["salt"] not in text
    assert set(commitment["files"]) == {p.relative_to(committed).as_posix()
                                        for p in committed.rglob("*") if p.is_file()}
    assert commitment["seed_commitment"] == seed_hash(secret["seed_material"], secret["salt"])
    assert secret["seed_material"]["master_seed"] == info["master_seed"]


def test_reveal_then_verify_against_the_commitment(committed, capsys):
    commitment = beside(committed, "commitment")
    assert main(["verify", "--commitment", str(commitment), str(committed)]) == 1   # not revealed yet
    assert "no such file" in capsys.readouterr().err
    assert main(["reveal", str(committed)]) == 0
    assert beside(committed, "reveal").is_file()
    assert main(["verify", "--commitment", str(commitment), str(committed)]) == 0
    assert "matches byte for byte" in capsys.readouterr().out


@pytest.mark.parametrize("target", ["data/moment_problem/test.jsonl", "README.md", "release_info.json"])
def test_one_changed_byte_fails_the_commitment(committed, target, capsys):
    assert main(["reveal", str(committed)]) == 0
    copy = committed.parent / "copy"
    shutil.copytree(committed, copy)
    shutil.copy(beside(committed, "reveal"), beside(copy, "reveal"))
    path = copy / target
    data = bytearray(path.read_bytes())
    index = data.index(b"1")
    data[index:index + 1] = b"2"
    path.write_bytes(bytes(data))
    capsys.readouterr()
    assert main(["verify", "--commitment", str(beside(committed, "commitment")), str(copy)]) == 1
    assert f"{target}: sha256 differs from the commitment" in capsys.readouterr().out


def test_a_wrong_salt_or_another_split_fails(committed, tmp_path, capsys):
    assert main(["reveal", str(committed)]) == 0
    reveal = json.loads(beside(committed, "reveal").read_text())
    forged = dict(reveal, salt="00" * 32)
    bad = tmp_path / "forged.json"
    bad.write_text(json.dumps(forged))
    commitment = str(beside(committed, "commitment"))
    assert main(["verify", "--commitment", commitment, "--reveal", str(bad), str(committed)]) == 1
    assert "do not hash to the committed" in capsys.readouterr().out
    other = tmp_path / "other"   # the same name, another random master seed: another split
    assert main(["generate", "--seed-set", "secret-2027", "--out", str(other), "--commit", *ARGS]) == 0
    assert main(["reveal", str(other)]) == 0
    capsys.readouterr()
    assert main(["verify", "--commitment", commitment, "--reveal", str(beside(other, "reveal")),
                 str(other)]) == 1
    assert "differs from the commitment" in capsys.readouterr().out


def test_reveal_refuses_a_split_changed_since_its_commitment(committed, capsys):
    path = committed / "data" / "moment_problem" / "test.jsonl"
    path.write_bytes(path.read_bytes() + b"\n")
    assert main(["reveal", str(committed)]) == 1
    assert "no longer matches" in capsys.readouterr().err
    assert not beside(committed, "reveal").exists()


def test_commit_needs_a_heldout_seed_set(tmp_path, capsys):
    assert main(["generate", "--out", str(tmp_path / "x"), "--commit"]) == 2
    assert "--commit needs a held-out --seed-set" in capsys.readouterr().err


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mira_math.cli", *args], cwd=ROOT,
                          capture_output=True, text=True)


def test_score_marks_a_committed_unrevealed_split(committed, tmp_path):
    run = tmp_path / "run"
    assert _cli("eval", "--solver", "reference", "--data", str(committed), "--out", str(run)).returncode == 0
    out = _cli("score", str(run), "--eval-results", str(tmp_path / "model"), "--dataset-id", "o/n")
    assert out.returncode == 0, out.stderr
    assert "COMMITTED, NOT REVEALED" in out.stdout and "secret-2027" in out.stdout
    assert "no eval result for" in out.stdout and "not yet revealed" in out.stdout
    assert _cli("reveal", str(committed)).returncode == 0
    out = _cli("score", str(run))
    assert out.returncode == 0 and "COMMITTED, NOT REVEALED" not in out.stdout


def test_a_malformed_commitment_is_one_line_naming_the_file(committed, tmp_path, capsys):
    assert main(["reveal", str(committed)]) == 0
    bad = tmp_path / "bad.commitment.json"
    for text in ("{not json", json.dumps({"kind": "something else"}),
                 json.dumps({"kind": "mira-math split commitment", "files": []})):
        bad.write_text(text)
        capsys.readouterr()
        assert main(["verify", "--commitment", str(bad), str(committed)]) != 0
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and str(bad) in err[0] and "Traceback" not in err[0]


def test_the_secret_is_private_to_its_owner(committed):
    assert beside(committed, "secret").stat().st_mode & 0o077 == 0


def test_a_published_and_downloaded_split_verifies_against_its_commitment(committed, tmp_path, capsys):
    """commit -> reveal -> publish (staged) -> download layout -> verify --commitment."""
    commitment = beside(committed, "commitment")
    assert main(["reveal", str(committed)]) == 0
    download = tmp_path / "download"
    assert main(["publish", "--repo-id", "owner/secret-2027", "--dry-run", "--dir", str(committed),
                 "--stage", str(download)]) == 0
    (download / ".gitattributes").write_text("*.jsonl filter=lfs diff=lfs merge=lfs -text\n")
    (download / ".cache" / "huggingface").mkdir(parents=True)
    (download / ".cache" / "huggingface" / ".gitignore").write_text("*\n")
    reveal = beside(committed, "reveal")
    capsys.readouterr()
    # the published card and croissant.json name the repo: compared as committed, before the id
    assert main(["verify", "--commitment", str(commitment), "--reveal", str(reveal), str(download)]) == 0
    assert "matches byte for byte" in capsys.readouterr().out
    readme = download / "README.md"      # any other change to the card still fails
    readme.write_text(readme.read_text(encoding="utf-8").replace("MIRA-Math", "MIRA-Meth", 1), encoding="utf-8")
    assert main(["verify", "--commitment", str(commitment), "--reveal", str(reveal), str(download)]) == 1
    assert "README.md: sha256 differs" in capsys.readouterr().out
