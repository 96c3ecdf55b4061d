"""The transcript writer: the same bytes as ``dataclasses.asdict`` + ``json.dumps``, without the copy."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List

import pytest

from mira_math.game.transcript import ResponderTurn, SolverTurn, Transcript


def _transcript() -> Transcript:
    t = Transcript("bay-000001", "bayes_missing_prior", "A", 1, 3, "reference", "rules", "zs", "standard")
    t.turns = [SolverTurn("REQUEST: P(H)? é\u2028", "request", "P(H)?", False, "stop", {"k": [1, {"x": None}]}),
               ResponderTurn("P(H)?", "offer", "P(H) = 1/2", True, "P(H) = 1/2", errors=["a"], meta={"rule": "r"}),
               SolverTurn("ANSWER: 1/4", "answer", "1/4", True, answer_source="marker")]
    t.final_answer, t.verdict, t.tokens_est = "1/4", {"correct": True, "expected": "1/4"}, 12.3
    return t


def test_same_bytes_as_asdict():
    t = _transcript()
    written = asdict(t)
    assert written.pop("epoch") == 0                   # epoch 0 is not written (older lines' bytes)
    assert t.to_json_line() == json.dumps(written, ensure_ascii=False, separators=(",", ":")) + "\n"


def test_an_epoch_is_written_last_and_only_above_zero():
    """The bytes the runner spliced before ``epoch`` was a field: ``,"epoch":N`` before the
    closing brace, nothing for epoch 0 (a one-epoch run's lines are unchanged)."""
    t = _transcript()
    zero = t.to_json_line()
    assert '"epoch"' not in zero
    t.epoch = 2
    assert t.to_json_line() == zero.rstrip("\n")[:-1] + ',"epoch":2}\n'


def test_a_field_added_to_a_turn_is_written():
    @dataclass
    class ReasoningTurn(SolverTurn):
        reasoning: str = "thought"
        extra: List[Dict[str, Any]] = field(default_factory=lambda: [{"n": 1}])

    t = _transcript()
    t.turns[0] = ReasoningTurn("ANSWER: 1", "answer", "1", False)
    row = json.loads(t.to_json_line())
    assert row["turns"][0]["reasoning"] == "thought" and row["turns"][0]["extra"] == [{"n": 1}]
    assert list(row["turns"][0])[:2] == ["raw", "action"]          # declaration order kept


def test_what_json_cannot_write_is_refused():
    t = _transcript()
    t.turns[0].meta["bad"] = object()
    with pytest.raises(TypeError, match="cannot write object"):
        t.to_json_line()
