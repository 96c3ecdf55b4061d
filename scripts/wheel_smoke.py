"""Install the built wheel into a fresh venv and use it the way a new user would: from a
directory that holds its own ``eval/``, ``generators/`` and ``verifiers/`` packages, with no
checkout in sight. Run by ``make wheel-smoke`` (part of ``make test``).

    python scripts/wheel_smoke.py dist/mira_math-*.whl [--workdir DIR]

Exits non-zero with the failing step named; prints one line per step."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROW_API = r"""
import json, sys
import mira_math
from mira_math.generators.layout import DEFAULT_RELEASE
assert "site-packages" in str(DEFAULT_RELEASE), DEFAULT_RELEASE
first = (DEFAULT_RELEASE / "data" / "moment_problem" / "test.jsonl").open(encoding="utf-8").readline()
row = json.loads(first)
messages = mira_math.initial_messages(row)
assert messages[0]["role"] == "system" and messages[-1]["role"] == "user"
reply = mira_math.respond(row, "REQUEST: What is the value of " + row["hints"][0]["slot"] + "?")
assert reply["decision"] == "offer" and reply["canonical"], reply
assert mira_math.score_answer(row, "ANSWER: " + row["answer"]["value"]) == 1.0
assert mira_math.score_answer(row, "ANSWER: 123456789") == 0.0
import eval, generators, verifiers          # the user's own packages still win their names
assert eval.MINE and generators.MINE and verifiers.MINE
print("row API ok:", row["id"])
"""


def _run(step: str, cmd: list, cwd: Path, env: dict) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"wheel smoke: {step} failed (exit {proc.returncode}): "
                 f"{(proc.stderr or proc.stdout).strip().splitlines()[-1:]}")
    print(f"wheel smoke: {step}: ok")
    return proc.stdout


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=Path)
    parser.add_argument("--workdir", type=Path, help="keep the venv and runs here (default: a temporary folder)")
    args = parser.parse_args(argv)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="mira-wheel-"))
    if work.exists():
        shutil.rmtree(work)
    env_dir, user_dir = work / "venv", work / "project"
    venv.create(env_dir, with_pip=True)
    py, cli = env_dir / "bin" / "python", env_dir / "bin" / "mira-math"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    _run("install the wheel", [str(py), "-m", "pip", "install", "--quiet", str(args.wheel.resolve())], work, env)

    # what the distribution installed: nothing at the top level but mira_math and its dist-info
    record = _run("list the installed files", [str(py), "-c",
                  "import importlib.metadata as m; print('\\n'.join(str(f) for f in m.files('mira-math')))"],
                  work, env)
    tops = sorted({line.split("/")[0] for line in record.splitlines() if line and not line.startswith("..")})
    extra = [t for t in tops if t != "mira_math" and not (t.startswith("mira_math-") and t.endswith(".dist-info"))]
    if extra:
        sys.exit(f"wheel smoke: the wheel installs top-level names besides mira_math: {extra}")
    print(f"wheel smoke: top-level names: {tops}")

    for name in ("eval", "generators", "verifiers"):      # a research project's own packages
        (user_dir / name).mkdir(parents=True)
        (user_dir / name / "__init__.py").write_text("MINE = True\n")
    env_user = dict(env, PYTHONPATH=str(user_dir))
    version = _run("mira-math --version", [str(cli), "--version"], user_dir, env_user)
    if "release 1." not in version:
        sys.exit(f"wheel smoke: --version found no bundled release: {version.strip()}")
    _run("mira-math verify", [str(cli), "verify"], user_dir, env_user)
    _run("mira-math eval --solver reference", [str(cli), "eval", "--solver", "reference", "--limit", "30",
                                               "--out", "runs/reference"], user_dir, env_user)
    out = _run("mira-math score", [str(cli), "score", "runs/reference"], user_dir, env_user)
    scores = json.loads((user_dir / "runs" / "reference" / "scores.json").read_text(encoding="utf-8"))
    if "30" not in out or not scores:
        sys.exit("wheel smoke: score printed no table for the 30 instances")
    _run("the row API", [str(py), "-c", ROW_API], user_dir, env_user)
    if not args.workdir:
        shutil.rmtree(work)
    print("wheel smoke: all steps passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
