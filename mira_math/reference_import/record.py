"""The source record: one line of the reference release format (:class:`Record`), reading a
source file (:func:`read_source`), and :class:`FormatError` for anything that is not that
format."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

from mira_math.generators.schema import DataError, loads_line

_HINT_KEYS = ("hint_id", "kind", "providers", "consumers")


class FormatError(ValueError):
    """A source line that is not a record of the reference release format."""


class Record:
    """One source line, with the accessors the converters need."""

    def __init__(self, raw: Any, line: int = 0):
        self.raw, self.line = raw, line
        if not isinstance(raw, dict):
            raise FormatError(f"expected a JSON object, got {type(raw).__name__}")
        for key in ("id", "family", "difficulty", "answer_type", "global_solution",
                    "global_metadata", "agent_views", "minimal_hint_spec"):
            if key not in raw:
                raise FormatError(f"field {key!r} missing")
        self.id: str = raw["id"]
        self.family: str = raw["family"]
        self.difficulty: int = raw["difficulty"]
        if not isinstance(self.id, str) or not isinstance(self.family, str):
            raise FormatError("fields 'id' and 'family' must be strings, got "
                              f"{type(raw['id']).__name__} and {type(raw['family']).__name__}")
        if self.difficulty not in (1, 2, 3) or isinstance(self.difficulty, bool):
            raise FormatError(f"{self.id}: difficulty {self.difficulty!r} is not 1, 2 or 3")
        views = {v.get("agent_id"): v.get("private_data", {}) for v in raw["agent_views"]}
        if set(views) != {"A", "B"}:
            raise FormatError(f"{self.id}: expected agent views A and B, got {sorted(views)}")
        self.a_text: List[str] = list(views["A"]["constraints_text"])
        self.a_machine: List[dict] = list(views["A"]["constraints_machine"])
        self.b_text: List[str] = list(views["B"]["constraints_text"])
        self.b_machine: List[dict] = list(views["B"]["constraints_machine"])
        if len(self.b_text) < len(self.b_machine):
            raise FormatError(f"{self.id}: agent B has {len(self.b_text)} text lines but "
                              f"{len(self.b_machine)} machine constraints")
        self.meta: Dict[str, Any] = raw["global_metadata"]
        self.solution: Dict[str, Any] = raw["global_solution"]
        hints = raw["minimal_hint_spec"].get("atomic_hints") or []
        if not hints:
            raise FormatError(f"{self.id}: minimal_hint_spec has no atomic hint")
        self.hint: dict = hints[0]
        self.extra_hints: List[dict] = hints[1:]
        self.hint_index = self._hint_index()
        self.hint_line: str = self.b_text[self.hint_index]

    def _hint_index(self) -> int:
        """Index of the B line stating the hint: machine constraint i is text line i (B may
        add lines without a machine form after them, such as geometry's ``Q = (7, 15)``)."""
        want = {k: v for k, v in self.hint.items() if k not in _HINT_KEYS}
        for i, m in enumerate(self.b_machine):
            if m.get("type") == self.hint.get("kind") and \
                    {k: v for k, v in m.items() if k != "type"} == want:
                value = next((want[k] for k in ("rhs", "value", "residue", "num", "y", "sign")
                              if k in want), None)
                if value is not None and str(value) not in self.b_text[i]:
                    raise FormatError(f"{self.id}: B line {self.b_text[i]!r} does not state "
                                      f"the atomic hint {want}")
                return i
        raise FormatError(f"{self.id}: no line of agent B states the atomic hint {self.hint}")

    def a_of(self, kind: str) -> List[dict]:
        return [m for m in self.a_machine if m.get("type") == kind]


def read_source(path: Path) -> List[Record]:
    """Every record of a source file, checked for the format and for duplicate ids."""
    data = path.read_bytes()
    records: List[Record] = []
    seen: Dict[str, int] = {}
    for number, raw_line in enumerate(data.splitlines(), start=1):
        if not raw_line.strip():
            continue
        try:   # bad UTF-8 or JSON, nesting too deep, huge integers, lone surrogates
            raw = loads_line(raw_line, str(path), number)
        except DataError as err:
            raise FormatError(str(err)) from None
        try:
            rec = Record(raw, number)
        except FormatError as err:
            raise FormatError(f"{path}:{number}: {err}") from None
        except (KeyError, TypeError, AttributeError, IndexError, ValueError, RecursionError) as err:
            raise FormatError(f"{path}:{number}: not a reference record: "
                              f"{type(err).__name__}: {str(err)[:200]}") from None
        if rec.id in seen:
            raise FormatError(f"{path}:{number}: duplicate id {rec.id!r} (first on line "
                              f"{seen[rec.id]})")
        seen[rec.id] = number
        records.append(rec)
    return records
