"""The verifiers plugin ``mira-math-rl``: verifiers imports an environment id as a top-level
module (``mira-math-rl`` -> ``mira_math_rl``) and takes the ``Taskset``, ``Env`` and ``Harness``
subclasses it exports. The code is :mod:`mira_math.integrations.verifiers_env`."""

from mira_math.integrations.verifiers_env import MiraEnv, MiraHarness, MiraTaskset
from mira_math.integrations.vf_check import eval_main

__all__ = ["MiraEnv", "MiraHarness", "MiraTaskset", "eval_main"]
