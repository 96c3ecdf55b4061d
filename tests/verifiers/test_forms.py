"""Every row of the forms table in ``verifiers/README.md`` holds (the docs are the spec)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generators.schema import Answer
from verifiers import verify_answer

README = Path(__file__).resolve().parents[2] / "verifiers" / "README.md"
ROW = re.compile(r"^\| (?P<form>[^|]+?) \| (?P<text>`[^`]*`|\*\([^)]*\)\*) \| (?P<type>\w+) \| "
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
    assert len(ROWS) >= 60
    assert {r["ok"] for r in ROWS} == {"yes", "no"}


@pytest.mark.parametrize("row", ROWS, ids=[r["form"] for r in ROWS])
def test_form(row):
    names = ["q0", "q1", "q2"] if row["type"] == "tuple" else []
    if row["type"] == "tuple" and row["expected"].count(",") == 1:
        names = ["a", "b"]
    answer = Answer(row["type"], row["expected"], names)
    verdict = verify_answer(answer, row["text"])
    assert verdict.correct is (row["ok"] == "yes"), verdict
    if verdict.correct:
        assert verdict.reason == "correct"
        assert verdict.parsed is not None
