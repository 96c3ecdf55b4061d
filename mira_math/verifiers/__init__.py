"""Exact answer values and the verifier that judges written answers against them."""

from mira_math.verifiers.exact import ANSWER_TYPES, AnswerType, Value, canonical, equal, from_canonical
from mira_math.verifiers.parse import AnswerContext
from mira_math.verifiers.verify import Verdict, context_for, verify, verify_answer

__all__ = [
    "ANSWER_TYPES", "AnswerContext", "AnswerType", "Value", "Verdict", "canonical", "context_for",
    "equal", "from_canonical",
    "verify", "verify_answer",
]
