"""The package's layers, bottom to top: data (``generators``, ``verifiers``) -> the rules of the
game (``game``) -> the harness (``eval``, ``reference_import``) -> the command line (``cli``) and
the integrations. A module imports only from its own layer or below, function bodies
included, and nothing inside the package imports the public facade (``mira_math/__init__``)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "mira_math"
LAYERS = {"_version": 0, "common": 0, "generators": 0, "verifiers": 0, "game": 1, "eval": 2,
          "reference_import": 2, "integrations": 3, "cli": 3}


def _imports(path: Path):
    """(line, imported module) for every absolute import of a mira_math module in ``path``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "mira_math")
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module == "mira_math":     # from mira_math import X: X may be a subpackage
                yield from ((node.lineno, f"mira_math.{a.name}") for a in node.names)
            elif node.module.split(".")[0] == "mira_math":
                yield node.lineno, node.module


def test_every_module_belongs_to_a_layer():
    tops = {p.name if p.is_dir() else p.stem for p in PACKAGE.iterdir()
            if p.name not in ("__init__.py", "__pycache__", "_bundle") and (p.is_dir() or p.suffix == ".py")}
    assert tops <= set(LAYERS), sorted(tops - set(LAYERS))


def test_no_module_imports_upward_or_the_facade():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts == ("__init__.py",):
            continue
        own = LAYERS[rel.parts[0].removesuffix(".py")]
        for line, module in _imports(path):
            parts = module.split(".")
            if len(parts) == 1 or parts[1] not in LAYERS:
                offenders.append(f"{rel}:{line} imports the facade ({module})")
            elif LAYERS[parts[1]] > own:
                offenders.append(f"{rel}:{line} imports {module} from a layer above")
    assert offenders == []


def test_the_facade_imports_only_data_and_game():
    offenders = [f"{line} {module}" for line, module in _imports(PACKAGE / "__init__.py")
                 if LAYERS.get(module.split(".")[1], 9) > LAYERS["game"]]
    assert offenders == []


def test_the_layering_test_catches_an_upward_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from mira_math.eval.runner import run\n    import mira_math\n")
    assert [m for _, m in _imports(bad)] == ["mira_math.eval.runner", "mira_math"]


def test_importing_the_data_layer_and_the_facade_loads_no_harness():
    code = ("import sys, mira_math, mira_math.generators.release, mira_math.generators.publish, "
            "mira_math.verifiers; print(sorted({m.split('.')[1] for m in sys.modules "
            "if m.startswith('mira_math.')}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=PACKAGE.parent, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert "eval" not in out and "game" not in out and "cli" not in out, out


def test_every_package_folder_is_a_regular_package():
    """A folder of modules without ``__init__.py`` imports from a checkout (a namespace
    package) but is left out of the wheel by ``find:``."""
    missing = [str(d.relative_to(PACKAGE.parent)) for d in PACKAGE.rglob("*")
               if d.is_dir() and any(d.glob("*.py")) and not (d / "__init__.py").is_file()]
    assert missing == []
