"""The family sections of ``game/RESPONDER.md``, rendered from the :class:`NotationDoc` each
notation table registers with (``slots/type_a.py``, ``slots/type_b.py``): a family's notation and
its documentation are one edit, and the file is regenerated, never hand-merged.

    python -m mira_math.game.slots.doc --write    # rewrite the sections in RESPONDER.md
    python -m mira_math.game.slots.doc --check    # exit 1 when the file is out of date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Optional, Sequence

from mira_math.game.slots import notation_doc
from mira_math.game.slots.engine import NotationDoc
from mira_math.generators import registry

RESPONDER_MD = Path(__file__).resolve().parents[1] / "RESPONDER.md"
BEGIN = ("<!-- The family sections below are generated from the notation tables' NotationDoc "
         "(mira_math/game/slots/type_a.py, type_b.py): edit there, then run "
         "python -m mira_math.game.slots.doc --write. -->")
END = "<!-- end of the generated family sections -->"


def render_section(family: str, doc: NotationDoc) -> str:
    """One family's ``###`` section: the slot table, its note, the offered and declined examples."""
    rows = "".join(f"| {slot} | {forms} |\n" for slot, forms in doc.slots)
    note = f"{doc.note}\n\n" if doc.note else ""
    offered = " · ".join(f"«{text}»" for text in doc.offered)
    declined = " · ".join(f"«{text}»" for text in doc.declined)
    return (f"### {family}\n\n| slot id | accepted forms |\n|---|---|\n{rows}\n{note}"
            f"- offered (held `{doc.held}`): {offered}\n- declined: {declined}\n")


def render_sections() -> str:
    """Every registered family's section, under ``## Type A`` and ``## Type B``, in registry order.
    A family without a notation table is left out (``test_family_is_complete`` names it)."""
    parts: List[str] = []
    for kind in ("A", "B"):
        parts.append(f"## Type {kind}\n")
        for family in registry.names(kind):
            doc = notation_doc(family)
            if doc is not None:
                parts.append(render_section(family, doc))
    return "\n".join(parts)


def updated(text: str) -> str:
    """``text`` (RESPONDER.md) with the block between the markers replaced by the rendered one."""
    try:
        head, rest = text.split(BEGIN + "\n", 1)
        _, tail = rest.split(END, 1)
    except ValueError:
        raise ValueError(f"{RESPONDER_MD.name}: the markers of the generated sections are missing") from None
    return f"{head}{BEGIN}\n\n{render_sections()}\n{END}{tail}"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mira_math.game.slots.doc", description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the family sections of RESPONDER.md")
    mode.add_argument("--check", action="store_true", help="exit 1 when RESPONDER.md is out of date")
    args = parser.parse_args(argv)
    text = RESPONDER_MD.read_text(encoding="utf-8")
    try:
        new = updated(text)
    except ValueError as exc:
        print(f"mira_math.game.slots.doc: {exc}", file=sys.stderr)
        return 1
    if args.check:
        if new != text:
            print(f"{RESPONDER_MD.name} is out of date: run python -m mira_math.game.slots.doc --write",
                  file=sys.stderr)
            return 1
        return 0
    if new != text:
        RESPONDER_MD.write_text(new, encoding="utf-8")
        print(f"wrote the family sections of {RESPONDER_MD}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
