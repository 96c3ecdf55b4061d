"""The package's layers, bottom to top: data (``generators``, ``verifiers``) -> the rules of the
game (``game``) -> the harness (``eval``, ``reference_import``) -> the command line (``cli``) and
the integrations. A module imports only from its own layer or below, function bodies
included, and nothing inside the package imports the public facade (``mira_math/__init__``)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Set

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


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path = PACKAGE) -> Dict[str, Set[str]]:
    """Module -> the package modules it imports, from every import statement of its source
    (module level, inside functions and under ``TYPE_CHECKING`` alike; relative imports
    resolved). ``from P import X`` counts the module ``P.X`` when X is one, else ``P``."""
    modules = {_module_name(p, root): p for p in root.rglob("*.py")}
    graph: Dict[str, Set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: Set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name in modules}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                for alias in node.names:
                    target = f"{base}.{alias.name}"
                    found.add(target if target in modules else base)
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def import_cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one module (each an import circle), by
    Tarjan's algorithm, iteratively; sorted, so the failure reads the same every time."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    cycles: List[List[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return sorted(cycles)


def test_no_import_circle_in_the_package():
    """Module level or inside functions: an import circle is a layering of its own kind (two
    modules that can only be understood together) and breaks whichever is imported first."""
    assert import_cycles(import_graph()) == []


def test_the_circle_test_finds_a_circle_through_a_function_body(tmp_path):
    """The shape of the old import circle: scoring -> integrity at module level, integrity ->
    scoring's private reader inside a function, and a third module closing a longer loop."""
    root = tmp_path / "mira_math"
    (root / "eval").mkdir(parents=True)
    for name in ("__init__.py", "eval/__init__.py"):
        (root / name).write_text("")
    (root / "eval" / "scoring.py").write_text("from mira_math.eval.integrity import RunGuard\n"
                                             "from mira_math.eval import rundir\n")
    (root / "eval" / "integrity.py").write_text("def f():\n    from mira_math.eval.scoring import _file_infos\n")
    (root / "eval" / "rundir.py").write_text("from . import integrity\n")
    (root / "eval" / "alone.py").write_text("import mira_math.eval.scoring\n")
    graph = import_graph(root)
    assert graph["mira_math.eval.rundir"] == {"mira_math.eval.integrity"}
    assert import_cycles(graph) == [["mira_math.eval.integrity", "mira_math.eval.rundir",
                                     "mira_math.eval.scoring"]]


def test_no_module_is_over_800_lines():
    long = {str(p.relative_to(PACKAGE.parent)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800}
    assert long == {}


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
