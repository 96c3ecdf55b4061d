"""Held-out capacity: how many mutually disjoint splits of the release's size each family has.

Some families have small problem spaces (graph_path_sums at d = 1 has weights in [1, 3]), so
only so many splits can share no complete problem and no solver view (docs/benchmark.md §2).
The limit is *computed by generating the splits*: the public release, then held-out seed sets
``capacity-probe-1``, ``capacity-probe-2``, ... each disjoint from all before it, with the
build's own rules (answer-share cap, balanced answers, ``MAX_RESEEDS`` per slot), until a slot
cannot be filled or ten held-out splits exist. The table is committed (``capacity.json``),
written into the card (:func:`render_card`: its capacity table and its composition table are
generated, never edited by hand), and read by ``mira-math generate`` before it starts.

``python -m mira_math.generators.capacity`` recomputes the table after a generator change and
rewrites the card's tables; ``--families NAME ...`` measures only those (a new family) and keeps
the other rows; ``--card`` only rewrites the card from the committed table.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Set

from mira_math.generators import registry
from mira_math.generators.build import GENERATOR_VERSION, GenerationError, build_split, instance_keys
from mira_math.generators.layout import CARD_SOURCE
from mira_math.generators.seeds import PUBLIC, SeedSet

TABLE = Path(__file__).resolve().parent / "capacity.json"
TARGET_SPLITS = 10             # held-out splits of the release's size a family should support
RELEASE_PER_TYPE = {"A": 20, "B": 50}


@dataclass(frozen=True)
class Capacity:
    family: str
    splits: int                  # held-out splits of the release's size generated (<= 10)
    limited: bool                # True: the 'splits + 1'-th split could not be completed
    instances: Dict[str, int]    # disjoint instances generated per difficulty before stopping


def probe_seed_set(k: int) -> SeedSet:
    return SeedSet.named(f"capacity-probe-{k}")


def measure(name: str, per_type: Optional[Dict[str, int]] = None,
            target: int = TARGET_SPLITS) -> Capacity:
    """Generate the public split of ``name`` and up to ``target`` held-out ones, each disjoint
    from all before it; stop at the first slot that cannot be filled."""
    per_type = per_type or RELEASE_PER_TYPE
    seen: Set[str] = set()
    counts = {"1": 0, "2": 0, "3": 0}
    for k in range(target + 1):
        seed_set = PUBLIC if k == 0 else probe_seed_set(k)
        new: Set[str] = set()
        try:
            for inst in build_split(seed_set, per_type, [name], exclude=seen):
                new.update(instance_keys(inst))
                counts[str(inst.difficulty)] += 1
        except GenerationError:
            return Capacity(name, k - 1, True, counts)
        seen |= new
    return Capacity(name, target, False, counts)


def measure_all(names: Sequence[str] = ()) -> List[Capacity]:
    return [measure(n) for n in (names or registry.names())]


def write_table(rows: Sequence[Capacity], path: Path = TABLE) -> None:
    data = {"generator_version": GENERATOR_VERSION, "per_type": RELEASE_PER_TYPE,
            "target_splits": TARGET_SPLITS, "families": [asdict(r) for r in rows]}
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def load_table(path: Path = TABLE) -> Dict[str, Capacity]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {r["family"]: Capacity(**r) for r in data["families"]}


def table_version(path: Path = TABLE) -> str:
    return json.loads(path.read_text(encoding="utf-8"))["generator_version"]


def markdown(rows: Sequence[Capacity]) -> str:
    """The card's capacity table."""
    out = ["| family | held-out splits of 20/50 | disjoint instances generated (d=1 / 2 / 3) |",
           "|---|---|---|"]
    for r in rows:
        splits = f"**{r.splits}** (limit)" if r.limited else f"≥ {r.splits}"
        out.append(f"| {r.family} | {splits} | "
                   + " / ".join(f"{r.instances[d]:,}" for d in ("1", "2", "3")) + " |")
    return "\n".join(out) + "\n"


def _needed(per_type: Dict[str, int], disjoint_from: Sequence[dict], kind: str) -> int:
    """Instances per difficulty of a family of type ``kind`` that this request and the splits
    it must avoid take together."""
    return per_type[kind] + sum(ref["per_type"][kind] for ref in _flatten(disjoint_from))


def _flatten(refs: Sequence[dict]) -> List[dict]:
    out: List[dict] = []
    for ref in refs:
        for r in [ref] + _flatten(ref.get("disjoint_from", [])):
            if r not in out:
                out.append(r)
    return out


def capacity_report(families: Sequence[str], per_type: Dict[str, int],
                    disjoint_from: Sequence[dict]) -> List[str]:
    """Lines for ``generate`` to print before it starts, one per family whose measured
    capacity the request exceeds (empty: within capacity)."""
    if not disjoint_from or not TABLE.is_file():
        return []
    table = load_table()
    lines: List[str] = []
    if table_version() != GENERATOR_VERSION:
        lines.append(f"capacity table {TABLE.name} is for generator {table_version()}, "
                     f"not {GENERATOR_VERSION}")
    for name in families:
        cap = table.get(name)
        if cap is None:
            continue
        kind = registry.type_of(name)
        need = _needed(per_type, disjoint_from, kind)
        have = (cap.splits + 1) * RELEASE_PER_TYPE[kind]   # the public split and its held-out ones
        if need > have:
            what = (f"supports only {cap.splits} held-out split(s) of the release's size, "
                    f"{have} mutually disjoint instances per difficulty (an inherent limit)"
                    if cap.limited else
                    f"was measured up to {have} mutually disjoint instances per difficulty")
            lines.append(f"{name} {what}; this request needs {need} per difficulty with the "
                         f"{len(_flatten(disjoint_from))} split(s) it must avoid: it may fail")
    return lines


# ------------------------------------------------------------------ the card's generated tables

_CAPACITY_HEADER = "| family | held-out splits of 20/50 | disjoint instances generated (d=1 / 2 / 3) |\n"
_COMPOSITION = {"A": "| A (fixed slot) | ", "B": "| B (variable slot) | "}


class CardError(ValueError):
    """The card lacks a table this module writes (its header was edited away)."""


def _literal(text: str) -> Callable[["re.Match[str]"], str]:
    """A replacement for ``re.sub`` that inserts ``text`` as is (no backslash escapes)."""
    return lambda _match: text


def render_card(card: str, rows: Sequence[Capacity], families: Optional[Sequence[str]] = None) -> str:
    """``card`` (the text of ``dataset_card.md``) with its generated tables rewritten: the
    composition table's family lists (registry order) and the capacity table (``rows``). The
    rest of the text is kept byte for byte."""
    names = list(families) if families is not None else registry.names()
    for kind, start in _COMPOSITION.items():
        line = start + ", ".join(n for n in names if registry.type_of(n) == kind) + " |"
        card, found = re.subn("^" + re.escape(start) + ".*$", _literal(line), card, count=1,
                              flags=re.MULTILINE)
        if not found:
            raise CardError(f"{CARD_SOURCE.name}: no composition row starting {start.strip()!r}")
    at = card.find(_CAPACITY_HEADER)
    if at < 0:
        raise CardError(f"{CARD_SOURCE.name}: no capacity table (header {_CAPACITY_HEADER.strip()!r})")
    end = card.find("\n\n", at)
    end = len(card) if end < 0 else end + 1
    return card[:at] + markdown(rows) + card[end:]


def card_rows(path: Path = TABLE) -> List[Capacity]:
    """The committed table's rows in registry order (a registered family missing from it is
    an error: measure it first)."""
    table = load_table(path)
    missing = [n for n in registry.names() if n not in table]
    if missing:
        raise CardError(f"{path.name} has no row for {', '.join(missing)}: run "
                        f"python -m mira_math.generators.capacity --families {' '.join(missing)}")
    return [table[n] for n in registry.names()]


def write_card(card_path: Path = CARD_SOURCE, table_path: Path = TABLE) -> bool:
    """Rewrite the card's generated tables from the committed table; True if it changed."""
    text = card_path.read_text(encoding="utf-8")
    new = render_card(text, card_rows(table_path))
    if new != text:
        card_path.write_text(new, encoding="utf-8")
    return new != text


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mira_math.generators.capacity",
                                     description="Measure held-out capacity; write capacity.json "
                                                 "and the card's generated tables.")
    parser.add_argument("--families", nargs="+", metavar="NAME",
                        help="measure only these families; keep the table's other rows")
    parser.add_argument("--card", action="store_true",
                        help="measure nothing: rewrite the card's tables from the committed table")
    args = parser.parse_args(argv)
    if not args.card:
        unknown = [n for n in args.families or () if n not in registry.names()]
        if unknown:
            parser.error(f"unknown family {', '.join(unknown)}")
        kept = load_table() if args.families and TABLE.is_file() else {}
        fresh = {c.family: c for c in measure_all(args.families or ())}
        write_table([fresh.get(n) or kept[n] for n in registry.names() if n in fresh or n in kept])
    changed = write_card()
    print(markdown(card_rows()), end="")
    print(f"{CARD_SOURCE.name}: {'tables rewritten' if changed else 'unchanged'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
