"""The verifiers plugin name for MIRA-Math: verifiers resolves a taskset or environment id to a
top-level module exporting one ``Taskset`` and one ``Env`` subclass, so
``vf-eval mira-math-rl`` imports this module. The code is :mod:`mira_math.integrations.verifiers_env`."""

from mira_math.integrations.verifiers_env import MiraEnv, MiraTaskset

__all__ = ["MiraEnv", "MiraTaskset"]
