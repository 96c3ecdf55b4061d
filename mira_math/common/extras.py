"""Optional dependencies ("extras"): one place that turns a missing one into one line naming
the extra to install, for the facade (``load`` needs ``datasets``), the backends and the report."""

from __future__ import annotations

import importlib.util
import sys

from mira_math.common.errors import MiraError

DISTRIBUTION = "mira-math"


class MissingExtra(MiraError, ImportError):
    """An optional dependency is not installed; the message is the install command."""


def install_command(extra: str) -> str:
    """What to run for ``extra``; quoted so that shells do not expand the brackets."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def installed(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it (an already imported or
    injected module counts as installed)."""
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):          # a parent package missing, or a broken spec
        return False


def require(what: str, extra: str, *modules: str) -> None:
    """Raise :class:`MissingExtra` (one line) unless every module of ``modules`` is importable."""
    missing = [m for m in modules if not installed(m)]
    if missing:
        raise MissingExtra(f"{what} needs {', '.join(missing)}: {install_command(extra)}")


__all__ = ["DISTRIBUTION", "MissingExtra", "install_command", "installed", "require"]
