"""Every row of the forms table in ``verifiers/README.md`` holds (the docs are the spec)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mira_math.generators.schema import Answer
from mira_math.verifiers import verify_answer
from mira_math.verifiers.parse import AnswerContext

README = Path(__file__).resolve().parents[2] / "mira_math" / "verifiers" / "README.md"
ROW = re.compile(r"^\| (?P<form>[^|]+?) \| (?P<text>`[^`]*`(?: \+ `[^`]*`)*|\*\([^)]*\)\*) \| (?P<type>[^|]+?) \| "
                 r"(?P<expected>[^|]+?) \| (?P<ok>yes|no) \|$")


def _rows():
    rows = []
    for line in README.read_text(encoding="utf-8").splitlines():
        line = line.replace("\\|", "\u0000")
        m = ROW.match(line)
        if m:
            row = {k: v.replace("\u0000", "|") for k, v in m.groupdict().items()}
            text = row["text"]
            # `a` + `b`: two lines of one answer (a table cell holds no line break)
            row["text"] = ("1" * 2001 if text.startswith("*(")
                           else "\n".join(text[1:-1].split("` + `")))
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


MESSAGE_ROW = re.compile(r"^\| (?P<form>[^|]+?) \| `(?P<text>[^`]*)` \| (?P<type>[^|]+?) \| "
                         r"(?P<expected>[^|]+?) \| (?P<action>request|answer|format_error) \| (?P<ok>yes|no) \|$")


def _message_rows():
    rows = []
    for line in README.read_text(encoding="utf-8").splitlines():
        m = MESSAGE_ROW.match(line.replace("\\|", "\u0000"))
        if m:
            row = {k: v.replace("\u0000", "|") for k, v in m.groupdict().items()}
            row["text"] = row["text"].replace("\u23ce", "\n")
            rows.append(row)
    return rows


MESSAGE_ROWS = _message_rows()


def test_message_table_is_there():
    assert len(MESSAGE_ROWS) >= 30
    assert {r["action"] for r in MESSAGE_ROWS} == {"request", "answer", "format_error"}


@pytest.mark.parametrize("row", MESSAGE_ROWS, ids=[r["form"] for r in MESSAGE_ROWS])
def test_message_form(row):
    from mira_math.game.reading import read_message

    answer_type = row["type"]
    names = ["q0", "q1", "q2"] if answer_type == "tuple" else []
    action = read_message(row["text"]).action
    assert action.kind == row["action"], action
    credited = action.kind == "answer" and verify_answer(
        Answer(answer_type, row["expected"], names), action.text).correct
    assert credited is (row["ok"] == "yes"), action
