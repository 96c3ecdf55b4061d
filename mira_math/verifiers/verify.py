"""``verify(instance, text)``: the exact, never-raising judge of a final answer."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, List, Optional, Sequence, Tuple

from mira_math.verifiers.exact import Value, canonical, equal, from_canonical
from mira_math.verifiers.parse import NO_CONTEXT, AnswerContext, Unreadable, parse_answer

if TYPE_CHECKING:  # pragma: no cover
    from mira_math.generators.schema import Answer, Instance

# Units a question may name ("What is R_eq, in ohms?"), with the ways of writing them.
_UNITS = {"ohms": ("ohms", "ohm", "\u03a9")}
_EDGE_RE = re.compile(r"^e([0-9])([0-9])$")


@dataclass(frozen=True)
class Verdict:
    correct: bool
    expected: str           # canonical string of the stored answer
    parsed: Optional[str]   # canonical string of what was read, None if unreadable
    reason: str             # "correct", "wrong value", or why the text was unreadable


def context_for(instance: "Instance") -> AnswerContext:
    """What the instance licenses beyond a bare value, read from its own record: the unit its
    question names, the modulus of a congruence answer (the product of the latent moduli),
    and an undirected edge's reversed name (the view says ``e01 (between 0 and 1)``)."""
    try:
        moduli = instance.latent_state().get("moduli")
    except Exception:  # noqa: BLE001 - a context is optional; the value check still runs
        moduli = None
    view = instance.view
    return answer_context(view.question, view.context, instance.answer.components, moduli)


def answer_context(question: str, view_context: str, components: Sequence[str], moduli: Any) -> AnswerContext:
    """:func:`context_for` from the parts it reads (``moduli``: the latent's, any JSON value),
    so a reader of raw records (``score``'s re-verification) needs no instance object. The
    common case, nothing licensed, is the shared :data:`NO_CONTEXT`."""
    units: Tuple[str, ...] = ()
    for word, forms in _UNITS.items():
        if f"in {word}" in question:
            units = units + forms
    modulus = None
    if isinstance(moduli, list) and moduli and all(isinstance(m, int) and m > 1 for m in moduli):
        modulus = 1
        for m in moduli:
            modulus *= m
    aliases: List[Tuple[str, str]] = []
    for name in components:
        m = _EDGE_RE.match(name)
        if m and f"{name} (between {m.group(1)} and {m.group(2)})" in view_context:
            aliases.append((f"e{m.group(2)}{m.group(1)}", name))
    if not units and modulus is None and not aliases:
        return NO_CONTEXT
    return AnswerContext(units=units, modulus=modulus, aliases=tuple(aliases))


def verify_answer(answer: "Answer", text: object, ctx: AnswerContext = NO_CONTEXT) -> Verdict:
    """Judge ``text`` against a stored answer (type, canonical value, component names)."""
    expected_value: Value = from_canonical(answer.type, answer.value)
    try:
        got = parse_answer(text, answer.type, answer.components, ctx)  # type: ignore[arg-type]
    except Unreadable as err:
        return Verdict(False, answer.value, None, f"unreadable: {err}")
    except Exception as err:  # defence in depth: the verifier never raises on input
        return Verdict(False, answer.value, None, f"unreadable: internal {type(err).__name__}")
    parsed = canonical("tuple" if isinstance(got, tuple) else "fraction", got)
    if equal(got, expected_value):
        return Verdict(True, answer.value, parsed, "correct")
    return Verdict(False, answer.value, parsed, "wrong value")


def verify(instance: "Instance", text: object) -> Verdict:
    """Judge a final answer for ``instance``, with the context its question licenses."""
    return verify_answer(instance.answer, text, context_for(instance))


__all__ = ["AnswerContext", "Verdict", "answer_context", "context_for", "verify", "verify_answer"]
