"""``load_dataset`` from anywhere: the documented forms work from a foreign working
directory, and a local folder can never be answered from another folder's cache. Every load
runs in a subprocess with ``HF_DATASETS_OFFLINE=1``, ``HF_HUB_OFFLINE=1`` and one shared
``HF_DATASETS_CACHE``, from a directory that holds no release."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mira_math.cli.main import main

pytest.importorskip("datasets")

ROOT = Path(__file__).resolve().parents[2]

LOAD = """
import json, sys
from datasets import load_dataset
path, config = sys.argv[1], sys.argv[2]
rows = load_dataset(path, config, split="test")
print(json.dumps({"n": len(rows), "seed_sets": sorted(set(rows["seed_set"])), "seeds": rows["seed"][:3]}))
"""


def _run(code: str, *args: str, cwd: Path, cache: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, HF_DATASETS_CACHE=str(cache), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1",
               PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture(scope="module")
def two_folders(tmp_path_factory):
    """Two release folders both named ``mira-math``, with different rows."""
    base = tmp_path_factory.mktemp("two")
    folders = []
    for n, seed_set in enumerate(("load-first", "load-second")):
        out = base / f"copy{n}" / "mira-math"
        assert main(["generate", "--seed-set", seed_set, "--out", str(out), "--families",
                     "moment_problem", "--per-type", "2/2"]) == 0
        folders.append(out)
    return folders


def test_a_second_folder_named_mira_math_never_answers_for_the_first(two_folders, tmp_path):
    cache, foreign = tmp_path / "cache", tmp_path / "elsewhere"
    foreign.mkdir()
    seen = []
    for folder in two_folders + two_folders:       # each twice: the second load is a cache hit
        out = _run(LOAD, str(folder), "moment_problem", cwd=foreign, cache=cache)
        assert out.returncode == 0, out.stderr[-2000:]
        seen.append(json.loads(out.stdout.strip().splitlines()[-1]))
    assert [s["seed_sets"] for s in seen] == [["load-first"], ["load-second"]] * 2
    assert seen[0]["seeds"] != seen[1]["seeds"] and seen[0] == seen[2] and seen[1] == seen[3]
    assert all(s["n"] == 6 for s in seen)


def test_the_bundled_release_loads_by_its_documented_path_from_anywhere(tmp_path, counts):
    foreign = tmp_path / "elsewhere"
    foreign.mkdir()
    code = "import mira_math, sys; sys.argv[1] = str(mira_math.RELEASE_PATH)\n" + LOAD
    out = _run(code, "RELEASE_PATH", "type_b", cwd=foreign, cache=tmp_path / "cache")
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["n"] == counts.by_type["B"] and got["seed_sets"] == ["public-20-50"]


def test_the_facade_loads_the_bundled_release_and_refuses_a_bare_name(tmp_path, counts):
    foreign = tmp_path / "elsewhere"
    foreign.mkdir()
    code = """
import json, mira_math
rows = mira_math.load("moment_problem")
try:
    mira_math.load("moment_problem", source="mira-math")
    refused = None
except ValueError as err:
    refused = str(err)
print(json.dumps({"n": len(rows), "latent": type(rows[0]["latent"]).__name__, "refused": refused}))
"""
    out = _run(code, cwd=foreign, cache=tmp_path / "cache")
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["n"] == counts.per_family["moment_problem"] and got["latent"] == "dict"
    assert "no such folder, and not a Hub repo id" in got["refused"]


def test_the_docs_never_show_a_bare_name():
    for doc in ("README.md", "dataset_card.md"):
        text = (ROOT / doc).read_text(encoding="utf-8")
        code = [line for line in text.splitlines() if line.lstrip().startswith(("ds = ", "rows = ", "load_dataset("))]
        assert code and not any('load_dataset("mira-math"' in line for line in code), doc
        assert "RELEASE_PATH" in text
