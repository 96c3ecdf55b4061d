"""Every row of the forms table in ``verifiers/README.md`` holds (the docs are the spec)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mira_math.generators.schema import Answer
from mira_math.verifiers import verify_answer
from mira_math.verifiers.parse import AnswerContext

README = Path(__file__).resolve().parents[2] / "mira_math" / "verifiers" / "README.md"
ROW = re.compile(r"^\| (?P<form>[^|]+?) \| (?P<text>`[^`]*`|\*\([^)]*\)\*) \| (?P<type>[^|]+?) \| "
                 r"(?P<expected>[^|]+?) \| (?P<ok>yes|no) \|$")


def _rows():
    rows = []
    for line in README.read_text(encoding="utf-8").splitlines():
        line = line.replace("\\|", "\u0000")
        m = ROW.match(line)
        if m:
            row = {k: v.replace("\u0000", "|") for k, v in m.groupdict().items()}
            text = row["text"]
            row["text"] = "1" * 2001 if text.startswith("*(") else text[1:-1]
            rows.append(row)
    return rows


ROWS = _rows()


def test_table_is_complete():
    assert len(ROWS) >= 185
    assert {r["ok"] for r in ROWS} == {"yes", "no"}


def _context(spec: str) -> AnswerContext:
    """The type column's context words: ``ohms`` (the question names the unit), ``mod=M`` (a
    congruence answer modulo M), ``edges`` (undirected edges e01, e12, e20)."""
    units, modulus, aliases = (), None, ()
    for word in spec:
        if word == "ohms":
            units = ("ohms", "ohm", "\u03a9")
        elif word.startswith("mod="):
            modulus = int(word[4:])
        elif word == "edges":
            aliases = (("e10", "e01"), ("e21", "e12"), ("e02", "e20"))
    return AnswerContext(units=units, modulus=modulus, aliases=aliases)


@pytest.mark.parametrize("row", ROWS, ids=[r["form"] for r in ROWS])
def test_form(row):
    answer_type, *spec = row["type"].split()
    names = ["q0", "q1", "q2"] if answer_type == "tuple" else []
    if answer_type == "tuple" and row["expected"].count(",") == 1:
        names = ["a", "b"]
    if spec and spec[0] in ("edges", "e"):
        names = ["e01", "e12", "e20"]
    answer = Answer(answer_type, row["expected"], names)
    verdict = verify_answer(answer, row["text"], _context(spec))
    assert verdict.correct is (row["ok"] == "yes"), verdict
    if verdict.correct:
        assert verdict.reason == "correct"
        assert verdict.parsed is not None
