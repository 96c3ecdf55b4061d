"""The docs site's generated parts and the README's promises, checked without building the site
(``make docs`` builds it strictly): the CLI reference covers every command the parser has, the
decisions page lists every record file, every nav entry exists, and the README names every
install extra of setup.cfg."""

from __future__ import annotations

import argparse
import configparser
import importlib.util
import re
import sys
from pathlib import Path

import yaml

from mira_math.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[1]


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    return module


def _commands() -> dict:
    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_the_cli_reference_is_every_commands_help():
    reference = _script("cli_reference")
    page = reference.fill((ROOT / "docs" / "cli.md").read_text(encoding="utf-8"))
    assert reference.MARKER not in page
    for name, parser in _commands().items():
        assert f"## `mira-math {name}`" in page, name
        for action in parser._actions:
            for flag in action.option_strings:
                assert flag in page, (name, flag)
    assert "--dir DIR" in page.split("## `mira-math publish`")[1].split("## `")[0]


def test_the_decisions_page_lists_every_record():
    hooks = _script("mkdocs_hooks")
    folder = ROOT / "docs" / "decisions"
    listed = hooks.decisions_index(folder)
    files = sorted(p.name for p in folder.glob("*.md"))
    assert files and all(f"](decisions/{name})" in listed for name in files)
    assert hooks.DECISIONS_MARKER in (ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")
    for path in folder.glob("*.md"):
        text = path.read_text(encoding="utf-8")
        assert text.startswith("# "), path.name
        assert re.search(r"^\*20\d\d-\d\d-\d\d", text, re.M), f"{path.name}: a record without its date"


def _nav_pages(node) -> list:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [p for item in node for p in _nav_pages(item)]
    if isinstance(node, dict):
        return [p for value in node.values() for p in _nav_pages(value)]
    return []


def test_every_nav_page_exists_and_every_task_page_is_in_the_nav():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    pages = _nav_pages(config["nav"])
    assert pages and all((ROOT / "docs" / page).is_file() for page in pages), pages
    top = {p.name for p in (ROOT / "docs").glob("*.md")} - {"pypi.md"}
    assert top <= set(pages), top - set(pages)
    assert config["strict"] is True


def test_the_readme_names_every_install_extra_and_stays_short():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg", encoding="utf-8")
    extras = [name for name in cfg["options.extras_require"]]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert extras and all(f"| `.[{name}]` |" in readme for name in extras), \
        [name for name in extras if f"| `.[{name}]` |" not in readme]
    assert len(readme.splitlines()) <= 250
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in re.findall(r"^make (\w+)", readme, re.M):      # the quick start's targets exist
        assert re.search(rf"^{target}:", makefile, re.M), target
