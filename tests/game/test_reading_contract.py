"""The examples of docs/benchmark.md §6, "The reading contract" and "The request rule", read
row by row: the text of the definition is the test's data, so the two cannot drift apart."""

from __future__ import annotations

import copy
import functools
import json
import re
from pathlib import Path
from typing import List, Tuple

import pytest

import mira_math
from mira_math.game.reading import read_message
from mira_math.generators.schema import Answer
from mira_math.verifiers.verify import verify_answer

ROOT = Path(__file__).resolve().parents[2]
BENCHMARK = (ROOT / "docs" / "benchmark.md").read_text(encoding="utf-8")


def _table(heading: str) -> List[Tuple[str, str]]:
    """The two-column table that follows the paragraph opening with ``heading``."""
    start = BENCHMARK.index(heading)
    rows, seen = [], False
    for line in BENCHMARK[start:].splitlines():
        if line.startswith("|"):
            seen = True
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            if len(cells) == 2 and not set(cells[0]) <= set("-") and cells[0] not in ("solver message", "request"):
                rows.append((cells[0].replace("\\|", "|"), cells[1].replace("\\|", "|")))
        elif seen:
            break
    assert rows, f"no example table after {heading!r}"
    return rows


def _message(cell: str) -> str:
    """``a`` then ``b``: the quoted lines of a cell, one per line."""
    return "\n".join(re.findall(r"`([^`]*)`", cell))


READING = _table("**The reading contract.**")
REQUESTS = _table("**The request rule.**")


def _answer_for(text: str) -> Answer:
    if "y =" in text:
        return Answer(type="tuple", value="(1, -1, -6)", components=["x", "y", "z"])
    return Answer(type="fraction", value="1/4")


@pytest.mark.parametrize("cell, expected", READING, ids=[r[0][:60] for r in READING])
def test_reading_contract_example(cell, expected):
    message = _message(cell)
    action = read_message(message).action
    if expected.startswith("request"):
        assert action.kind == "request" and action.text == _message(expected)
        return
    assert action.kind == "answer", action
    verdict = verify_answer(_answer_for(expected), action.text)
    if expected == "unreadable":
        assert verdict.parsed is None and verdict.reason.startswith("unreadable"), verdict
    else:
        want = _message(expected)
        stated = verify_answer(_answer_for(want), want)
        assert stated.parsed is not None and verdict.parsed == stated.parsed, (action.text, verdict)


@functools.lru_cache(maxsize=1)
def _bayes_row_once() -> dict:
    for row in mira_math.load("bayes_missing_prior"):
        return dict(row)
    raise AssertionError("no bayes row")


def _bayes_row() -> dict:
    return copy.deepcopy(_bayes_row_once())


@pytest.mark.parametrize("cell, expected", REQUESTS, ids=[r[0][:60] for r in REQUESTS])
def test_request_rule_example(cell, expected):
    row = _bayes_row()
    assert expected in ("offer", "decline")
    reply = mira_math.respond(row, "REQUEST: " + _message(cell))
    assert reply["decision"] == expected, (cell, reply)
    if expected == "offer":
        assert reply["constraint"].startswith("P(H)")


def test_the_tables_are_not_empty():
    assert len(READING) >= 10 and len(REQUESTS) >= 10
    assert json.dumps(READING)    # plain strings all the way down
