"""Every piece a family needs, checked in one place, every missing piece named in one failure.

A new family is: its module, one registry line, its notation (the rules responder's grammar
and the ``NotationDoc`` its section of ``game/RESPONDER.md`` is rendered from), its test module,
its request corpus rows and a changelog line; the rest is generated (``docs/decisions.md``, "counts from the
release", says by which command). This test is parametrized over the registry *and* over the
modules in ``generators/families/``, so a module nobody registered is reported too.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import List

import pytest

from mira_math.game.slots import doc as notation_docs
from mira_math.game.slots import families as notation_families
from mira_math.game.slots import notation_doc
from mira_math.generators import registry
from mira_math.generators.capacity import load_table
from mira_math.generators.layout import CARD_SOURCE, DEFAULT_RELEASE, data_path
from tests.game.responders.corpora import _TARGET_FIXED, _TARGET_RE, ALIASES, FORMS

ROOT = Path(__file__).resolve().parents[2]
FAMILY_DIR = ROOT / "mira_math" / "generators" / "families"
RESPONDER_MD = notation_docs.RESPONDER_MD
WRITE_DOCS = "python -m mira_math.game.slots.doc --write"
# The families of the first releases (v1.0, v1.1): a family added later needs a changelog line.
FIRST_FAMILIES = frozenset(registry.V1_1)
GENERATE = "mira-math generate"          # rewrites the committed release folder
CAPACITY = "python -m mira_math.generators.capacity --families {name}"


def _modules() -> List[str]:
    return sorted(p.stem for p in FAMILY_DIR.glob("*.py") if p.stem != "__init__")


def _candidates() -> List[str]:
    return registry.names() + [m for m in _modules() if m not in registry.names()]


def _responder_md_section(name: str) -> str:
    text = RESPONDER_MD.read_text(encoding="utf-8")
    found = re.search(rf"^### {re.escape(name)}\n(.*?)(?=^##)", text, flags=re.MULTILINE | re.DOTALL)
    return found.group(1) if found else ""


def _changelog() -> str:
    card = CARD_SOURCE.read_text(encoding="utf-8")
    return card[card.find("## Changelog"):] if "## Changelog" in card else ""


def missing_pieces(name: str) -> List[str]:
    """What family ``name`` still lacks, each with where it goes (empty: complete)."""
    missing: List[str] = []
    module = FAMILY_DIR / f"{name}.py"
    if not module.is_file():
        missing.append(f"module {module.relative_to(ROOT)} (a FAMILY object: generate, render, solve, ...)")
    else:
        family = getattr(importlib.import_module(f"mira_math.generators.families.{name}"), "FAMILY", None)
        if family is None or getattr(family, "name", None) != name:
            missing.append(f"{module.relative_to(ROOT)}: FAMILY with name = {name!r}")
    if name not in registry.names():
        missing.append("registry line: its name in TYPE_A or TYPE_B of mira_math/generators/registry.py")
        return missing                        # everything below is keyed on the registered name
    doc = notation_doc(name)
    if name not in notation_families() or doc is None:
        missing.append("notation: @register(\"%s\", NotationDoc(...)) in mira_math/game/slots/type_%s.py "
                       "(its RESPONDER.md section is rendered from the NotationDoc)"
                       % (name, registry.type_of(name).lower()))
    elif len(doc.offered) < 3 or len(doc.declined) < 3:
        missing.append(f"notation doc: its NotationDoc needs >= 3 offered and >= 3 declined examples "
                       f"(has {len(doc.offered)} and {len(doc.declined)})")
    elif not _responder_md_section(name):
        missing.append(f"notation doc: its section of mira_math/game/RESPONDER.md: run {WRITE_DOCS}")
    test_module = ROOT / "tests" / "generators" / "families" / f"test_{name}.py"
    if not test_module.is_file():
        missing.append(f"test module {test_module.relative_to(ROOT)} (a worked example, hand-checked instances)")
    for table, what in ((FORMS, "FORMS (the slot in several notations)"),
                        (ALIASES, "ALIASES (whole natural-language requests)")):
        if name not in table:
            missing.append(f"corpus rows: {what} in tests/game/responders/corpora.py")
    if name not in _TARGET_FIXED and name not in _TARGET_RE:
        missing.append("corpus rows: the target the corpus names (_TARGET_FIXED, or _TARGET_RE to read it from "
                       "the question) in tests/game/responders/corpora.py")
    if name not in load_table():
        missing.append(f"capacity row in mira_math/generators/capacity.json: run {CAPACITY.format(name=name)}")
    card = CARD_SOURCE.read_text(encoding="utf-8")
    if f"| {name} |" not in card or not re.search(rf"^\| {registry.type_of(name)} \(.*\b{name}\b", card, re.M):
        missing.append(f"card tables of {CARD_SOURCE.name}: run {CAPACITY.format(name=name)} "
                       f"(or --card once its row exists)")
    if name not in FIRST_FAMILIES and not re.search(rf"\b{name}\b", _changelog()):
        missing.append(f"changelog: a line naming {name} under '## Changelog' of {CARD_SOURCE.name}")
    if not (DEFAULT_RELEASE / data_path(name)).is_file():
        missing.append(f"release file {DEFAULT_RELEASE.name}/{data_path(name)}: run {GENERATE}")
    return missing


@pytest.mark.parametrize("name", _candidates())
def test_family_is_complete(name):
    missing = missing_pieces(name)
    assert not missing, f"family {name} is missing {len(missing)} piece(s):\n  - " + "\n  - ".join(missing)


def test_an_unfinished_family_is_told_everything_at_once(monkeypatch):
    """A family that is only registered gets every other piece listed, in one message."""
    monkeypatch.setattr(registry, "TYPE_A", registry.TYPE_A + ("toy_family",))
    missing = missing_pieces("toy_family")
    wanted = ["module", "notation:", "test module", "corpus rows: FORMS", "corpus rows: ALIASES",
              "corpus rows: the target", "capacity row", "card tables", "changelog", "release file"]
    assert [next((w for w in wanted if m.startswith(w)), m) for m in missing] == wanted
    assert missing_pieces("moment_problem") == []


def test_responder_md_is_rendered_from_the_notation_docs():
    """The family sections of RESPONDER.md are the registered NotationDocs, rendered: a notation
    edited without running the command is caught here."""
    text = RESPONDER_MD.read_text(encoding="utf-8")
    assert notation_docs.updated(text) == text, f"RESPONDER.md is out of date: run {WRITE_DOCS}"
    assert all(_responder_md_section(name) for name in registry.names())


def test_the_doc_command_writes_and_checks(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "RESPONDER.md"
    text = RESPONDER_MD.read_text(encoding="utf-8")
    stale.write_text(text.replace("### bayes_missing_prior", "### bayes (edited by hand)"), encoding="utf-8")
    monkeypatch.setattr(notation_docs, "RESPONDER_MD", stale)
    assert notation_docs.main(["--check"]) == 1
    assert "out of date" in capsys.readouterr().err
    assert notation_docs.main(["--write"]) == 0 and stale.read_text(encoding="utf-8") == text
    assert notation_docs.main(["--check"]) == 0
    stale.write_text("no markers", encoding="utf-8")
    assert notation_docs.main(["--check"]) == 1
    assert "markers" in capsys.readouterr().err
