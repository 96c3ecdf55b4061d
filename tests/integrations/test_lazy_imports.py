"""The heavy extras load only with their adapter: the facade, the CLI, the integrations package
and its shared helpers import neither inspect_ai nor verifiers, and the RL sources and the TRL
environment import neither verifiers nor TRL nor torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_nothing_but_the_adapters_imports_inspect_or_verifiers():
    code = ("import sys, mira_math, mira_math.cli.main, mira_math.integrations, "
            "mira_math.integrations.common, mira_math.eval.hub_results, mira_math.eval.runner, "
            "mira_math.integrations.sources, mira_math.integrations.trl_env; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'inspect_ai', 'verifiers', 'trl', 'torch'}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]", out
