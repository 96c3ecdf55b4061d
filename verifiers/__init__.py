"""Exact answer values and the verifier that judges written answers against them."""

from verifiers.exact import ANSWER_TYPES, AnswerType, Value, canonical, equal, from_canonical
from verifiers.verify import Verdict, verify, verify_answer

__all__ = [
    "ANSWER_TYPES", "AnswerType", "Value", "Verdict", "canonical", "equal", "from_canonical",
    "verify", "verify_answer",
]
