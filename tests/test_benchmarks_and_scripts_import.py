"""What a maintainer runs must at least import: every module in ``scripts/`` (``make bench-http``
once failed on an import from before the ``mira_math`` namespace move). The benchmarks do more
than import: tests/benchmarks/test_quick_modes.py runs each in its ``--quick`` mode; here they
are only held to the ``__main__`` guard (importing one runs nothing).

Import only: each file's work sits under ``if __name__ == "__main__"``, so importing it runs
its imports and definitions, nothing else (a file without that guard fails here). A file whose
third-party dependency is not installed is skipped, naming the dependency, only when that
dependency is truly absent (``importlib.util.find_spec`` finds nothing); every other import
error fails.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from typing import Dict, List

import pytest

ROOT = Path(__file__).resolve().parents[1]
# file -> the optional third-party package it needs at import time (an extra of setup.cfg)
OPTIONAL_DEPENDENCY: Dict[str, str] = {
    "scripts/verifiers_plugin/mira_math_rl.py": "verifiers",   # the RL environment package (extra "rl")
}
# modules that are loaded by another program, not run: no __main__ guard expected
LIBRARIES = {"scripts/verifiers_plugin/mira_math_rl.py"}


def _files(folder: str = "scripts") -> List[str]:
    return sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / folder).rglob("*.py"))


def test_the_list_is_not_empty():
    assert "scripts/real_models.py" in _files() and "benchmarks/bench_http.py" in _files("benchmarks")


def _has_main_guard(source: str) -> bool:
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and "__name__" in ast.unparse(node.test) and "__main__" in ast.unparse(node.test):
            return True
    return False


def _only_definitions_or_guarded(source: str) -> bool:
    """True when no top-level statement but the guard would *run* the script's work: no bare
    call of a name called main/run/cli at module level."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in ("main", "run", "cli"):
                return False
    return True


@pytest.mark.parametrize("rel", _files("benchmarks"))
def test_a_benchmark_runs_nothing_at_import(rel):
    source = (ROOT / rel).read_text(encoding="utf-8")
    assert _only_definitions_or_guarded(source), f"{rel} runs its work at import time"
    assert _has_main_guard(source), f"{rel}: no `if __name__ == \"__main__\"` guard"


@pytest.mark.parametrize("rel", _files())
def test_imports(rel, monkeypatch):
    path = ROOT / rel
    source = path.read_text(encoding="utf-8")
    dependency = OPTIONAL_DEPENDENCY.get(rel)
    if dependency and importlib.util.find_spec(dependency) is None:
        pytest.skip(f"{rel} needs {dependency!r}, which is not installed here")
    assert _only_definitions_or_guarded(source), f"{rel} runs its work at import time"
    assert _has_main_guard(source) or rel in LIBRARIES, f"{rel}: no `if __name__ == \"__main__\"` guard"
    # the file may put folders on sys.path and register modules: undo both afterwards
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    name = "_entry_" + rel.replace("/", "_").removesuffix(".py")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module                # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    finally:   # forget the file and the helper modules it loaded from the checkout (corpora, ...)
        for added in set(sys.modules) - before:
            where = getattr(sys.modules[added], "__file__", None) or ""
            if added == name or where.startswith(str(ROOT / "benchmarks")) or \
                    where.startswith(str(ROOT / "scripts")) or where.startswith(str(ROOT / "tests")):
                del sys.modules[added]
