"""What the frozen v1.1 rows give away, counted from the rows themselves: the card's "Known
issues of v1.1" table is this module's :func:`markdown` of the committed release, and a test
compares the two (the v1.1 bytes stay as they are, so the issues are documented, not fixed).

- *domain names the slot*: the view's domain line names the withheld slot (its hint slot
  appears there as a whole token), which tells a solver what to ask for;
- *slot outside the view's notation*: the withheld quantity (``sign(x0)``) is a name the view
  never uses (neither the slot nor the word "sign" appears in it), so a solver has to invent it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, List

from mira_math.generators import registry
from mira_math.generators.layout import data_path
from mira_math.generators.schema import Instance, read_jsonl

_SIGN = re.compile(r"\bsign\b")


def names_slot_in_domain(inst: Instance) -> bool:
    """Whether the view's domain line names a withheld slot (as a whole token)."""
    return any(re.search(r"(?<![\w(\[])" + re.escape(h.slot) + r"(?![\w)\]])", inst.view.domain)
               for h in inst.hints)


def slot_outside_notation(inst: Instance) -> bool:
    """Whether a sign slot (``sign(x0)``) is withheld in a view that never speaks of signs."""
    v = inst.view
    text = " ".join([v.context, *v.facts, v.question, v.domain])
    return any(h.slot.startswith("sign(") and h.slot not in text and not _SIGN.search(text)
               for h in inst.hints)


def count(folder: Path) -> Dict[str, Dict[str, int]]:
    """Per family with a finding: its v1.1 rows, and how many show each finding."""
    out: Dict[str, Dict[str, int]] = {}
    for name in registry.names():
        path = folder / data_path(name)
        if not path.is_file():
            continue
        rows = list(read_jsonl(path))
        found = {"rows": len(rows),
                 "domain_names_slot": sum(names_slot_in_domain(i) for i in rows),
                 "slot_outside_notation": sum(slot_outside_notation(i) for i in rows)}
        if found["domain_names_slot"] or found["slot_outside_notation"]:
            out[name] = found
    return out


def markdown(counts: Dict[str, Dict[str, int]]) -> str:
    """The card's table: one row per family with a finding, and the total over the release."""
    lines: List[str] = ["| family | type | v1.1 rows | domain line names the withheld slot | "
                        "withheld slot outside the view's notation |", "|---|---|---|---|---|"]
    for name, c in counts.items():
        lines.append(f"| {name} | {registry.type_of(name)} | {c['rows']} | {c['domain_names_slot']} | "
                     f"{c['slot_outside_notation']} |")
    total = {key: sum(c[key] for c in counts.values())
             for key in ("domain_names_slot", "slot_outside_notation")}
    lines.append(f"| **all** | | | **{total['domain_names_slot']}** | **{total['slot_outside_notation']}** |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":   # python -m mira_math.generators.known_issues [DIR]
    import sys

    from mira_math.generators.layout import DEFAULT_RELEASE

    print(markdown(count(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_RELEASE)), end="")
