"""``verify(instance, text)``: the exact, never-raising judge of a final answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from verifiers.exact import Value, canonical, equal, from_canonical
from verifiers.parse import Unreadable, parse_answer

if TYPE_CHECKING:  # pragma: no cover
    from generators.schema import Answer, Instance


@dataclass(frozen=True)
class Verdict:
    correct: bool
    expected: str           # canonical string of the stored answer
    parsed: Optional[str]   # canonical string of what was read, None if unreadable
    reason: str             # "correct", "wrong value", or why the text was unreadable


def verify_answer(answer: "Answer", text: object) -> Verdict:
    """Judge ``text`` against a stored answer (type, canonical value, component names)."""
    expected_value: Value = from_canonical(answer.type, answer.value)
    try:
        got = parse_answer(text, answer.type, answer.components)  # type: ignore[arg-type]
    except Unreadable as err:
        return Verdict(False, answer.value, None, f"unreadable: {err}")
    except Exception as err:  # defence in depth: the verifier never raises on input
        return Verdict(False, answer.value, None, f"unreadable: internal {type(err).__name__}")
    parsed = canonical("tuple" if isinstance(got, tuple) else "fraction", got)
    if equal(got, expected_value):
        return Verdict(True, answer.value, parsed, "correct")
    return Verdict(False, answer.value, parsed, "wrong value")


def verify(instance: "Instance", text: object) -> Verdict:
    """Judge a final answer for ``instance``."""
    return verify_answer(instance.answer, text)


__all__ = ["Verdict", "verify", "verify_answer"]
