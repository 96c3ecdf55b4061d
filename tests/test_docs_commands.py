"""Every shell command in the README and in docs/ runs, or says why it cannot (docs/commands.md).

Fenced ``sh``/``bash``/``shell`` blocks are collected from the Markdown. A block preceded by
``<!-- not run: REASON (cause) -->`` is checked for a known reason; every other block is run
with bash, blocks of one page in order in one scratch folder (a later block may use an earlier
one's output), with the network off and the offline solvers. A command that fails fails here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHELL = {"sh", "bash", "shell", "console"}
REASONS = ("needs a GPU", "needs a key", "needs the Hub", "needs a server", "needs a download",
           "needs the integrations environment", "needs a clone", "long")
MARKER = re.compile(r"^\s*<!--\s*not run:\s*(?P<reason>.+?)\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<info>[\w-]*)\s*$")
COMMAND = re.compile(r"^\s*(mira-math|make|pip|python|vllm|vf-eval|inspect|sbatch|export)\b")


@dataclass
class Block:
    page: str
    line: int            # 1-based line of the opening fence
    info: str
    text: str
    marker: Optional[str]

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def _pages() -> List[Path]:
    return [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))


def blocks(path: Path) -> List[Block]:
    """The fenced blocks of one page, each with the marker on the line above it, if any."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, start = m.group("indent"), i
        body = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        above = next((lines[k] for k in range(start - 1, -1, -1) if lines[k].strip()), "")
        marker = MARKER.match(above)
        found.append(Block(path.relative_to(ROOT).as_posix(), start + 1, m.group("info"),
                           "\n".join(body) + "\n", marker.group("reason") if marker else None))
        i += 1
    return found


ALL = [b for page in _pages() for b in blocks(page)]
SHELL_BLOCKS = [b for b in ALL if b.info in SHELL]
RUNNABLE = [b for b in SHELL_BLOCKS if b.marker is None]
MARKED = [b for b in SHELL_BLOCKS if b.marker is not None]


def test_the_docs_have_runnable_and_marked_commands():
    assert RUNNABLE and MARKED
    assert {b.page for b in RUNNABLE} >= {"README.md", "docs/evaluate.md", "docs/publish.md"}


@pytest.mark.parametrize("block", MARKED, ids=lambda b: b.id)
def test_a_marked_block_says_why_it_cannot_run(block):
    reason = block.marker or ""
    assert reason.startswith(REASONS), f"{block.id}: unknown reason {reason!r} (docs/commands.md lists them)"
    assert re.search(r"\(.+\)", reason), f"{block.id}: the reason names no cause in parentheses"


@pytest.mark.parametrize("block", [b for b in ALL if b.info not in SHELL], ids=lambda b: b.id)
def test_commands_are_never_in_an_unlabelled_block(block):
    if block.info in ("", "text"):
        bad = [line for line in block.text.splitlines() if COMMAND.match(line)]
        assert not bad, (f"{block.id}: shell commands in a ```{block.info} block: "
                         "label it sh (and mark it if it cannot run)")
    assert block.marker is None, f"{block.id}: a 'not run' marker on a ```{block.info} block"


def test_a_marker_stands_right_above_a_shell_block():
    above = {(b.page, b.line) for b in SHELL_BLOCKS if b.marker is not None}
    for page in _pages():
        lines = page.read_text(encoding="utf-8").splitlines()
        inside = False
        for n, line in enumerate(lines, 1):
            if FENCE.match(line) or (inside and line.strip() == "```"):
                inside = not inside
                continue
            if inside or not MARKER.match(line):
                continue
            nxt = next((k for k in range(n, len(lines)) if lines[k].strip()), None)
            rel = page.relative_to(ROOT).as_posix()
            assert nxt is not None and (rel, nxt + 1) in above, f"{rel}:{n}: a marker with no shell block under it"


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """One folder per page, each holding the release as ``mira-math/`` (as a clone does), and an
    environment with the network off: proxies that lead nowhere, the Hub offline, no API key."""
    from mira_math.generators.layout import DEFAULT_RELEASE

    bin_dir = tmp_path_factory.mktemp("bin")
    shim = bin_dir / "mira-math"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mira_math.cli "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "HF_TOKEN"))}
    env.update(PATH=f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
               HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HTTP_PROXY="http://127.0.0.1:9",
               HTTPS_PROXY="http://127.0.0.1:9", http_proxy="http://127.0.0.1:9",
               https_proxy="http://127.0.0.1:9", NO_PROXY="", no_proxy="",
               PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    folders: dict = {}

    def folder(page: str) -> Path:
        if page not in folders:
            here = tmp_path_factory.mktemp(re.sub(r"\W", "_", page))
            (here / "mira-math").symlink_to(DEFAULT_RELEASE.resolve(), target_is_directory=True)
            folders[page] = here
        return folders[page]
    return folder, env


@pytest.mark.parametrize("block", RUNNABLE, ids=lambda b: b.id)
def test_a_runnable_block_runs(block, scratch):
    folder, env = scratch
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", block.text], cwd=folder(block.page), env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (f"{block.id} exited {done.returncode}\n{block.text}\n"
                                  f"stdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-3000:]}")
