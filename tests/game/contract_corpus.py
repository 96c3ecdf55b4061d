"""Adversarial answer corpora for the reading contract (docs/benchmark.md §6, "The reading
contract"; §8), one corpus per class, with the verdict of every case fixed by construction
from the contract's text, not from what any reader does today.

Each :class:`Case` is a whole solver message on one release instance (one-fact rows of every
family and two-fact rows of every family that has them) and ``credit``: whether an episode
whose final turn is that message must credit it. Right and wrong values come from the row's
own answer (``tests/eval/reasoning_corpus.py``'s ``right`` / ``wrong``), so a corpus holds both
verdicts wherever a rule can credit. Deterministic: fixed instance order and fixed forms, no
randomness. ``tests/game/test_contract_corpus.py`` asserts 0 over- and 0 under-credits per class.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Tuple

from mira_math.generators.layout import DEFAULT_RELEASE
from mira_math.generators.schema import Instance, read_jsonl
from tests.eval.reasoning_corpus import right, wrong

DATA = Path(DEFAULT_RELEASE) / "data"

CLASSES = ("restatement", "different value", "hedge", "condition", "wrapper", "recap",
           "other party")


@dataclass(frozen=True)
class Case:
    corpus: str        # one of CLASSES
    form: str
    instance: Instance
    message: str
    credit: bool       # must the episode credit this final turn?


def sample_instances(per_family: int = 3) -> List[Instance]:
    """``per_family`` one-fact rows of every family, spread over the file (so over the
    difficulties), then the first and last two-fact rows of every family that has them."""
    out: List[Instance] = []
    for path in sorted(DATA.glob("*/test.jsonl")):
        rows = list(read_jsonl(path))
        step = max(1, len(rows) // per_family)
        out.extend(rows[k * step] for k in range(per_family) if k * step < len(rows))
    for path in sorted(DATA.glob("*/multi_hint.jsonl")):
        rows = list(read_jsonl(path))
        out.extend([rows[0], rows[-1]] if len(rows) > 1 else rows)
    return out


# ---------------------------------------------------------------- what the instance says

def target(inst: Instance) -> str:
    """The target's notation, read from the question (``P(H|E)``, ``pi_2``, ``(x0, x1, x2, x3)``,
    ``|PQ|``); steady state's question names it in words, written ``P(o<k>)``."""
    q = inst.view.question
    sym = re.search(r"observation is symbol (o\d+)", q)
    if sym:
        return f"P({sym.group(1)})"
    m = re.search(r"[Ww]hat (?:is|are) (.*?)(?:\?|, (?:the|in|that)\b)", q)
    if m is None:
        raise ValueError(f"{inst.id}: question names no target: {q!r}")
    return re.sub(r"^(?:the distance|the signal|the portfolio variance|the weights|the edge weights"
                  r"|the value of) ", "", m.group(1))


def slot(inst: Instance) -> str:
    return inst.hints[0].slot


def hint_line(inst: Instance) -> str:
    return inst.hints[0].constraint


def hint_value(inst: Instance) -> str:
    return inst.hints[0].value


def _values(v: str) -> List[Fraction]:
    return [Fraction(p) for p in v[1:-1].split(", ")] if v.startswith("(") else [Fraction(v)]


def _canon(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _latex(x: Fraction) -> Optional[str]:
    """``\\frac{p}{q}`` for a non-integer; None for an integer (no fraction to write)."""
    if x.denominator == 1:
        return None
    sign = "-" if x < 0 else ""
    return f"{sign}\\frac{{{abs(x.numerator)}}}{{{x.denominator}}}"


def _decimal(x: Fraction) -> Optional[str]:
    """The exact terminating decimal of a non-integer, when there is one."""
    if x.denominator == 1:
        return None
    d, twos, fives = x.denominator, 0, 0
    while d % 2 == 0:
        d, twos = d // 2, twos + 1
    while d % 5 == 0:
        d, fives = d // 5, fives + 1
    if d != 1:
        return None
    places = max(twos, fives)
    scaled = abs(x) * 10 ** places
    digits = str(scaled.numerator).rjust(places + 1, "0")
    return ("-" if x < 0 else "") + digits[:-places] + "." + digits[-places:]


def is_tuple(inst: Instance) -> bool:
    return inst.answer.type == "tuple"


def names(inst: Instance) -> List[str]:
    return list(inst.answer.components)


def wrong_last(inst: Instance) -> str:
    """A tuple whose last component is off by one (the first ones right)."""
    vals = _values(right(inst))
    vals[-1] += 1
    return "(" + ", ".join(_canon(v) for v in vals) + ")"


def _fact_lines(inst: Instance) -> List[str]:
    facts = list(inst.view.facts)
    return facts[:3] if len(facts) >= 2 else facts + [hint_line(inst)]


# ---------------------------------------------------------------- forms per class

# A form takes (instance, value, other value) and returns the message, or None where it
# does not apply to that instance's answer shape.
Build = Callable[[Instance, str, str], Optional[str]]


def _scalar(build: Callable[[Instance, str, str], Optional[str]]) -> Build:
    return lambda i, v, o: None if is_tuple(i) else build(i, v, o)


def _tuple_only(build: Callable[[Instance, str, str], Optional[str]]) -> Build:
    return lambda i, v, o: build(i, v, o) if is_tuple(i) else None


def _frac_form(v: str) -> Optional[str]:
    x = _values(v)
    return None if len(x) != 1 else _latex(x[0])


def _unreduced(v: str) -> Optional[str]:
    x = _values(v)
    if len(x) != 1:
        return None
    return f"{2 * x[0].numerator}/{2 * x[0].denominator}"


def _dec(v: str) -> Optional[str]:
    x = _values(v)
    return None if len(x) != 1 else _decimal(x[0])


def _named(i: Instance, v: str) -> str:
    return ", ".join(f"{n} = {_canon(x)}" for n, x in zip(names(i), _values(v)))


def _opt(fmt: Callable[[str], Optional[str]], build: Callable[[Instance, str, str, str], Optional[str]]
         ) -> Build:
    def form(i: Instance, v: str, o: str) -> Optional[str]:
        alt = fmt(v)
        return None if alt is None else build(i, v, o, alt)
    return form


# restatements of the SAME value after the action line: the same answer (credit iff right)
RESTATE: Dict[str, Build] = {
    "boxed": lambda i, v, o: f"ANSWER: {v}\n\\boxed{{{v}}}",
    "boxed after a blank line and prose": lambda i, v, o: (
        f"I combined the facts.\nANSWER: {v}\n\nThe result is \\boxed{{{v}}}."),
    "Final answer:": lambda i, v, o: f"ANSWER: {v}\nFinal answer: {v}",
    "bold Final answer:": lambda i, v, o: f"ANSWER: {v}\n\n**Final answer:** {v}",
    "So <target> = v.": lambda i, v, o: f"ANSWER: {v}\nSo {target(i)} = {v}.",
    "Therefore <target> = boxed": lambda i, v, o: f"ANSWER: {v}\nTherefore {target(i)} = \\boxed{{{v}}}.",
    "The answer is v.": lambda i, v, o: f"ANSWER: {v}\nThe answer is {v}.",
    "labelled action, boxed after": lambda i, v, o: f"ANSWER: {target(i)} = {v}\n\\boxed{{{v}}}",
    "boxed then a neutral line": lambda i, v, o: f"ANSWER: {v}\n\\boxed{{{v}}}\nDone.",
    "restated twice": lambda i, v, o: f"ANSWER: {v}\n\\boxed{{{v}}}\nFinal answer: {v}",
    "restated after neutral lines": lambda i, v, o: (
        f"ANSWER: {v}\n\nI used the information holder's line.\n\nSo {target(i)} = {v}."),
    "LaTeX frac restated": _opt(_frac_form, lambda i, v, o, f: f"ANSWER: {v}\nSo {target(i)} = {f}."),
    "LaTeX frac boxed": _opt(_frac_form, lambda i, v, o, f: f"ANSWER: {v}\n\\boxed{{{f}}}"),
    "LaTeX frac display": _opt(_frac_form, lambda i, v, o, f: f"ANSWER: {v}\n$${f}$$"),
    "LaTeX action, plain restated": _opt(_frac_form, lambda i, v, o, f: f"ANSWER: {f}\nFinal answer: {v}"),
    "unreduced restatement": _opt(_unreduced, lambda i, v, o, u: f"ANSWER: {v}\nSo {target(i)} = {u}."),
    "exact decimal restatement": _opt(_dec, lambda i, v, o, d: f"ANSWER: {v}\nFinal answer: {d}"),
    "other value only in a think block after": lambda i, v, o: f"ANSWER: {v}\n<think>\\boxed{{{o}}}</think>",
    "other value only in the reasoning before": lambda i, v, o: (
        f"<think>First try: Final answer: {o}</think>\nANSWER: {v}\n\\boxed{{{v}}}"),
    "tuple restated with names": _tuple_only(lambda i, v, o: f"ANSWER: {v}\n{_named(i, v)}"),
    "tuple restated boxed with label": _tuple_only(
        lambda i, v, o: f"ANSWER: {v}\nSo {target(i)} = \\boxed{{{v}}}."),
    "named tuple action, plain tuple restated": _tuple_only(
        lambda i, v, o: f"ANSWER: {_named(i, v)}\nThe answer is {v}."),
}

# restatements of a DIFFERENT value: two values, unreadable (never credit)
DIFFERENT: Dict[str, Build] = {
    "boxed other": lambda i, v, o: f"ANSWER: {v}\n\\boxed{{{o}}}",
    "Final answer: other": lambda i, v, o: f"ANSWER: {v}\nFinal answer: {o}",
    "So <target> = other.": lambda i, v, o: f"ANSWER: {v}\nSo {target(i)} = {o}.",
    "FINAL ANSWER dash other": lambda i, v, o: f"ANSWER: {v}\n\nFINAL ANSWER \u2014 {o}",
    "The answer is other.": lambda i, v, o: f"ANSWER: {v}\nThe answer is {o}.",
    "other after a neutral line": lambda i, v, o: f"ANSWER: {v}\nDone.\n\\boxed{{{o}}}",
    "same then other": lambda i, v, o: f"ANSWER: {v}\n\\boxed{{{v}}}\nFinal answer: {o}",
    "bold other": lambda i, v, o: f"ANSWER: {v}\n\n**{target(i)} = {o}**",
    "other in LaTeX": _opt(_frac_form, lambda i, v, o, f: (
        None if _frac_form(o) is None else f"ANSWER: {v}\nSo {target(i)} = {_frac_form(o)}.")),
    "tuple other with names": _tuple_only(lambda i, v, o: f"ANSWER: {v}\n{_named(i, o)}"),
}

_HEDGE_LINES = [
    "(This is a guess.)",
    "Note: I assumed a value for {slot} instead of asking.",
    "Confidence: low.",
    "Confidence: 60%",
    "**Confidence:** moderate",
    "This is probably right.",
    "PROBABLY correct.",
    "I'm not sure about this.",
    "Not sure, though.",
    "Actually, I should double-check this.",
    "Wait, let me reconsider.",
    "Maybe.",
    "I guessed {slot}.",
    "(assuming {slot} takes a typical value)",
    "I have assumed that {slot} is known.",
    "My best guess.",
    "This rests on an assumption about {slot}.",
]


def _hedge(line: str) -> Build:
    return lambda i, v, o: f"ANSWER: {v}\n" + line.format(slot=slot(i))


# hedges after the action line (never credit); controls: neutral lines (credit iff right)
HEDGE: Dict[str, Build] = {f"next line: {h}": _hedge(h) for h in _HEDGE_LINES}
HEDGE.update({
    "after a neutral line": lambda i, v, o: f"ANSWER: {v}\n\nDone.\n\n(This is a guess.)",
    "after a same-value box": lambda i, v, o: f"ANSWER: {v}\n\\boxed{{{v}}}\nConfidence: low.",
    "on the action line, parenthesised": lambda i, v, o: f"ANSWER: {v} (probably)",
    "on the action line, dash": lambda i, v, o: f"ANSWER: {v} \u2014 a guess",
    "on a restatement": lambda i, v, o: f"ANSWER: {v}\nFinal answer: {v} (I think, not sure)",
    "bold note": lambda i, v, o: f"ANSWER: {v}\n\n**Note:** I assumed {slot(i)} rather than asking.",
    "actually at the end": lambda i, v, o: f"ANSWER: {v}\nI used the facts given. Actually, hmm.",
    "maybe in a sentence": lambda i, v, o: f"ANSWER: {v}\nIt may be off; maybe {slot(i)} differs.",
    "in the answer tag": lambda i, v, o: f"<answer>ANSWER: {v}</answer>\n(guess)",
})
HEDGE_CONTROLS: Dict[str, Build] = {
    "control: Done.": lambda i, v, o: f"ANSWER: {v}\nDone.",
    "control: I used both hints.": lambda i, v, o: f"ANSWER: {v}\n\nI used both hints.",
    "control: thanks": lambda i, v, o: f"ANSWER: {v}\nThank you for the information.",
    "control: hedge before the action line": lambda i, v, o: (
        f"Maybe I should ask first. Actually no, I am not sure I need to; I have enough.\nANSWER: {v}"),
    "control: hedge only in a think block after the answer": lambda i, v, o: (
        f"ANSWER: {v}\n<think>maybe this is a guess, not sure</think>"),
    "control: hedge only in the reasoning before": lambda i, v, o: (
        f"<think>I guess {slot(i)} is typical; probably fine.</think>\nANSWER: {v}"),
}

# conditions attached to the value (never credit); controls: labels that are the target
CONDITION: Dict[str, Build] = {
    "Assuming a uniform prior:": lambda i, v, o: f"ANSWER: Assuming a uniform prior: {v}",
    "Assuming <slot> = value:": lambda i, v, o: f"ANSWER: Assuming {slot(i)} = {hint_value(i)}: {v}",
    "Assuming <slot> is known,": lambda i, v, o: f"ANSWER: Assuming {slot(i)} is known, {v}",
    "Insufficient information:": lambda i, v, o: f"ANSWER: Insufficient information: {v}",
    "Not enough information:": lambda i, v, o: f"ANSWER: Not enough information: {v}",
    "Depends on <slot>:": lambda i, v, o: f"ANSWER: Depends on {slot(i)}: {v}",
    "It depends on <slot>;": lambda i, v, o: f"ANSWER: It depends on {slot(i)}; typically {v}",
    "Cannot be determined without <slot>:": lambda i, v, o: f"ANSWER: Cannot be determined without {slot(i)}: {v}",
    "Undetermined:": lambda i, v, o: f"ANSWER: Undetermined: {v}",
    "If <slot> is as usual,": lambda i, v, o: f"ANSWER: If {slot(i)} is as usual, {v}",
    "trailing assuming": lambda i, v, o: f"ANSWER: {v}, assuming a uniform prior",
    "trailing if <slot> = value": lambda i, v, o: f"ANSWER: {v} if {slot(i)} = {hint_value(i)}",
    "trailing (depends on <slot>)": lambda i, v, o: f"ANSWER: {v} (depends on {slot(i)})",
    "bold Assuming": lambda i, v, o: f"ANSWER: **Assuming {slot(i)} is known:** {v}",
    "Under the assumption": lambda i, v, o: f"ANSWER: Under the assumption that {slot(i)} is typical, {v}",
    "Unknown <slot>; estimate:": lambda i, v, o: f"ANSWER: Unknown {slot(i)}; estimate: {v}",
    "in an answer tag": lambda i, v, o: f"<answer>ANSWER: Insufficient information: {v}</answer>",
    "on the next line": lambda i, v, o: f"ANSWER:\nDepends on {slot(i)}: {v}",
}
CONDITION_CONTROLS: Dict[str, Build] = {
    "control: <target>: v": _scalar(lambda i, v, o: f"ANSWER: {target(i)}: {v}"),
    "control: <target> = v": lambda i, v, o: f"ANSWER: {target(i)} = {v}",
    "control: The answer is v.": lambda i, v, o: f"ANSWER: The answer is {v}.",
}


def _lines(i: Instance, v: str, bullet: str = "") -> str:
    return "\n".join(f"{bullet}{n} = {_canon(x)}" for n, x in zip(names(i), _values(v)))


def _json(i: Instance, v: str) -> str:
    return json.dumps({n: int(x) if x.denominator == 1 else _canon(x) for n, x in zip(names(i), _values(v))})


# wrappers around the action line or the answer (credit iff right)
WRAPPER: Dict[str, Build] = {
    "placeholder brackets": lambda i, v, o: f"ANSWER: <{v}>",
    "placeholder brackets, no space": lambda i, v, o: f"ANSWER:<{v}>",
    "answer tag around the action line": lambda i, v, o: f"<answer>ANSWER: {v}</answer>",
    "answer tag alone": lambda i, v, o: f"<answer>{v}</answer>",
    "answer tag alone, padded": lambda i, v, o: f"<answer> {v} </answer>",
    "answer tag on its own lines": lambda i, v, o: f"<answer>\nANSWER: {v}\n</answer>",
    "answer tag after prose": lambda i, v, o: f"I have all the facts now.\n<answer>ANSWER: {v}</answer>",
    "bold label": lambda i, v, o: f"**ANSWER:** {v}",
    "bold line": lambda i, v, o: f"**ANSWER: {v}**",
    "heading": lambda i, v, o: f"## ANSWER: {v}",
    "deep heading": lambda i, v, o: f"### ANSWER: {v}",
    "dash bullet": lambda i, v, o: f"- ANSWER: {v}",
    "star bullet": lambda i, v, o: f"* ANSWER: {v}",
    "quote": lambda i, v, o: f"> ANSWER: {v}",
    "italic label": lambda i, v, o: f"*ANSWER:* {v}",
    "underscore italic label": lambda i, v, o: f"_ANSWER:_ {v}",
    "bold value": lambda i, v, o: f"ANSWER: **{v}**",
    "italic value": lambda i, v, o: f"ANSWER: *{v}*",
    "Solver: label": lambda i, v, o: f"Solver: ANSWER: {v}",
    "Assistant: label": lambda i, v, o: f"Assistant: ANSWER: {v}",
    "bold Assistant: label": lambda i, v, o: f"**Assistant:** ANSWER: {v}",
    "value on the next line": lambda i, v, o: f"ANSWER:\n{v}",
    "bold value after a blank line": lambda i, v, o: f"ANSWER:\n\n**{v}**",
    "boxed value": lambda i, v, o: f"ANSWER: \\boxed{{{v}}}",
    "display block": lambda i, v, o: f"ANSWER: \\[ {v} \\]",
    "display block over lines": lambda i, v, o: f"ANSWER:\n\\[\n{v}\n\\]",
    "placeholder in a bullet": lambda i, v, o: f"- **ANSWER:** <{v}>",
    "components on following lines": _tuple_only(lambda i, v, o: f"ANSWER: {_lines(i, v)}"),
    "list items under an empty ANSWER": _tuple_only(lambda i, v, o: f"ANSWER:\n{_lines(i, v, '- ')}"),
    "star items under an empty ANSWER": _tuple_only(lambda i, v, o: f"**ANSWER:**\n{_lines(i, v, '* ')}"),
    "JSON object of components": _tuple_only(lambda i, v, o: f"ANSWER: {_json(i, v)}"),
    "JSON object in an answer tag": _tuple_only(lambda i, v, o: f"<answer>ANSWER: {_json(i, v)}</answer>"),
    "bracket over lines": _tuple_only(
        lambda i, v, o: "ANSWER: (" + ",\n".join(_canon(x) for x in _values(v)) + ")"),
    "pmatrix over lines": _tuple_only(
        lambda i, v, o: "ANSWER:\n\\begin{pmatrix}\n" + " \\\\\n".join(_canon(x) for x in _values(v))
        + "\n\\end{pmatrix}"),
}
# tuple wrappers that are wrong however read: a later component off, or one missing
WRAPPER_WRONG: Dict[str, Callable[[Instance], Optional[str]]] = {
    "components on following lines, last wrong": lambda i: (
        f"ANSWER: {_lines(i, wrong_last(i))}" if is_tuple(i) else None),
    "list items, last wrong": lambda i: (
        f"ANSWER:\n{_lines(i, wrong_last(i), '- ')}" if is_tuple(i) else None),
    "JSON object, last wrong": lambda i: (f"ANSWER: {_json(i, wrong_last(i))}" if is_tuple(i) else None),
    "components on following lines, last missing": lambda i: (
        "ANSWER: " + "\n".join(_lines(i, right(i)).split("\n")[:-1]) if is_tuple(i) else None),
}


def _facts_block(i: Instance, bullet: str) -> str:
    return "\n".join(f"{bullet}{f}" for f in _fact_lines(i))


# the solver's own narrative before the action line: the action is read (credit iff right)
RECAP: Dict[str, Build] = {
    "first line Information holder:": lambda i, v, o: f"Information holder: {hint_line(i)}\nANSWER: {v}",
    "first line Holder:": lambda i, v, o: f"Holder: {hint_line(i)}\nANSWER: {v}",
    "first line bold Information holder:": lambda i, v, o: f"**Information holder:** {hint_line(i)}\n\nANSWER: {v}",
    "first line Information holder:, then prose": lambda i, v, o: (
        f"Information holder: {hint_line(i)}\nWith this the system is determined.\nANSWER: {v}"),
    "first line holder's decline quoted": lambda i, v, o: (
        f"Information holder: I do not have that information.\nThen I proceed without it.\nANSWER: {v}"),
    "first line User:": lambda i, v, o: f"User: {i.view.question}\nANSWER: {v}",
    "The information holder says": lambda i, v, o: f"The information holder says {hint_line(i)}.\nANSWER: {v}",
    "Thanks. The information holder says": lambda i, v, o: (
        f"Thanks. The information holder says {hint_line(i)}.\nANSWER: {v}"),
    "mid-message: the information holder says": lambda i, v, o: (
        f"Using the facts.\nThe information holder says {hint_line(i)}, so:\nANSWER: {v}"),
    "mid-message: as the information holder told me": lambda i, v, o: (
        f"Let me recap.\nAs the information holder told me, {hint_line(i)}.\nANSWER: {v}"),
    "mid-message: the responder said": lambda i, v, o: (
        f"Recap.\nThe responder said {hint_line(i)}.\nANSWER: {v}"),
    "bold System: heading over equations": lambda i, v, o: (
        f"**System:**\n{_facts_block(i, '- ')}\n- {hint_line(i)}\nANSWER: {v}"),
    "System: heading over equations": lambda i, v, o: f"System:\n{_facts_block(i, '')}\nANSWER: {v}",
    "### System: numbered": lambda i, v, o: (
        "### System:\n" + "\n".join(f"{k + 1}. {f}" for k, f in enumerate(_fact_lines(i))) + f"\n\nANSWER: {v}"),
    "mid-message bold System:": lambda i, v, o: (
        f"We have the following.\n**System:**\n{_facts_block(i, '- ')}\n- {hint_line(i)}\nANSWER: {v}"),
    "mid-message System: inline": lambda i, v, o: (
        f"Setting up.\nSystem: {'; '.join(_fact_lines(i))}\nANSWER: {v}"),
    "recap then a request restated as done": lambda i, v, o: (
        f"The information holder says {hint_line(i)}.\nEarlier I asked for {slot(i)}.\nANSWER: {v}"),
}

_PARTY_LABELS = ["Information holder:", "Holder:", "Responder:", "User:", "Human:",
                 "**Information holder:**", "**Information holder**:", "**User:**", "> Information holder:",
                 "### User:", "Information Holder:", "*Human*:"]

# another party's turn written into the message: cut before it
def _answer_then_turn(label: str) -> Build:
    return lambda i, v, o: f"ANSWER: {v}\n{label} {hint_line(i)}\nANSWER: {o}"


def _request_then_turn(label: str) -> Callable[[Instance], str]:
    return lambda i: f"REQUEST: What is {slot(i)}?\n{label} {hint_line(i)}\nANSWER: {right(i)}"


OTHER: Dict[str, Build] = {f"answer, then {lab} turn, then other answer": _answer_then_turn(lab)
                           for lab in _PARTY_LABELS}
OTHER.update({
    "answer, then a holder decline, then other answer": lambda i, v, o: (
        f"ANSWER: {v}\nInformation holder: I do not have that information.\nANSWER: {o}"),
    "answer, then the holder's line alone": lambda i, v, o: f"ANSWER: {v}\nInformation holder: {hint_line(i)}",
    "answer, blank lines, holder, same answer": lambda i, v, o: (
        f"ANSWER: {v}\n\nInformation holder: {hint_line(i)}\n\nANSWER: {v}"),
    "answer, then User: feedback, then other answer": lambda i, v, o: (
        f"ANSWER: {v}\nUser: 2 request(s) left.\nANSWER: {o}"),
    "answer, then harness feedback, then other answer": lambda i, v, o: (
        f"ANSWER: {v}\nYour message had no action line. End each message with exactly one line "
        f"\"REQUEST: ...\" or \"ANSWER: ...\". This counted as a request.\nANSWER: {o}"),
    "ChatML end and user turn": lambda i, v, o: f"ANSWER: {v}<|im_end|>\n<|im_start|>user\nANSWER: {o}",
    "ChatML user turn alone": lambda i, v, o: (
        f"ANSWER: {v}\n<|im_start|>user\nInformation holder: {hint_line(i)}\nANSWER: {o}"),
    "Llama 3 eot and user header": lambda i, v, o: (
        f"ANSWER: {v}<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nANSWER: {o}"),
    "Gemma end of turn": lambda i, v, o: f"ANSWER: {v}<end_of_turn>\n<start_of_turn>user\nANSWER: {o}",
    "end of sequence token": lambda i, v, o: f"ANSWER: {v}</s>\nANSWER: {o}",
    "INST block": lambda i, v, o: f"ANSWER: {v}\n[INST] Information holder: {hint_line(i)} [/INST]\nANSWER: {o}",
    "hedge only in the holder's invented turn": lambda i, v, o: (
        f"ANSWER: {v}\nInformation holder: Are you sure? Maybe that is a guess.\nANSWER: {o}"),
    "User: turn doubting the answer": lambda i, v, o: (
        f"ANSWER: {v}\nUser: Not sure that is right; actually, what about {o}?"),
    "upper-case USER:": lambda i, v, o: f"ANSWER: {v}\nUSER: {i.view.question}\nANSWER: {o}",
    "after a rule, holder turn": lambda i, v, o: f"ANSWER: {v}\n\n---\nInformation holder: {hint_line(i)}\nANSWER: {o}",
    "role token <|user|>": lambda i, v, o: f"ANSWER: {v}\n<|user|>\nANSWER: {o}",
    "DeepSeek user token": lambda i, v, o: f"ANSWER: {v}<\uff5cUser\uff5c>ANSWER: {o}",
    "harmony user turn": lambda i, v, o: f"ANSWER: {v}\n<|start|>user<|message|>ANSWER: {o}",
    "Gemma user turn alone": lambda i, v, o: f"ANSWER: {v}\n<start_of_turn>user\nANSWER: {o}",
})
# a request, then an invented holder turn, then the right answer: the request is the action
OTHER_REQUEST: Dict[str, Callable[[Instance], str]] = {
    f"request, then {lab} turn, then the right answer": _request_then_turn(lab) for lab in _PARTY_LABELS}
OTHER_REQUEST.update({
    "request, holder, User: budget, right answer": lambda i: (
        f"REQUEST: What is {slot(i)}?\n\nInformation holder: {hint_line(i)}\n\nUser: 2 request(s) left.\n"
        f"ANSWER: {right(i)}"),
    "request, ChatML turns, right answer": lambda i: (
        f"REQUEST: What is {slot(i)}?<|im_end|>\n<|im_start|>user\nInformation holder: {hint_line(i)}"
        f"<|im_end|>\n<|im_start|>assistant\nANSWER: {right(i)}"),
    "request, Llama 3 turns, right answer": lambda i: (
        f"REQUEST: What is {slot(i)}?<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n"
        f"Information holder: {hint_line(i)}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
        f"ANSWER: {right(i)}"),
})


# ---------------------------------------------------------------- the corpora

def _by_family(instances: List[Instance]) -> List[List[Instance]]:
    groups: Dict[str, List[Instance]] = {}
    for inst in instances:
        groups.setdefault(inst.family, []).append(inst)
    return [groups[f] for f in sorted(groups)]


def _variants(build: Build, inst: Instance, both: bool) -> Iterator[Tuple[str, bool]]:
    """The form with the right value (other: the wrong one) and, when ``both``, with the
    wrong value (other: the right one); each with whether its value is the right one."""
    r, w = right(inst), wrong(inst)
    for value, other, is_right in ((r, w, True), (w, r, False))[:2 if both else 1]:
        message = build(inst, value, other)
        if message is not None:
            yield message, is_right


def cases(instances: List[Instance]) -> List[Case]:
    """Every form on one instance of every family (the family's sampled rows taken in turn,
    form by form, so every sampled row is used). Classes that never credit are built on the
    right value only; the others on both values."""
    plan: List[Tuple[str, Dict[str, Build], Optional[bool]]] = [
        ("restatement", RESTATE, None),
        ("different value", DIFFERENT, False),
        ("hedge", HEDGE, False), ("hedge", HEDGE_CONTROLS, None),
        ("condition", CONDITION, False), ("condition", CONDITION_CONTROLS, None),
        ("wrapper", WRAPPER, None),
        ("recap", RECAP, None),
        ("other party", OTHER, None),
    ]
    out: List[Case] = []
    k = 0
    for group in _by_family(instances):
        for corpus, forms, fixed in plan:
            both = fixed is None or corpus == "different value"
            for form, build in forms.items():
                inst = group[k % len(group)]
                k += 1
                for message, is_right in _variants(build, inst, both):
                    out.append(Case(corpus, form, inst, message, is_right if fixed is None else fixed))
        for form, build_wrong in WRAPPER_WRONG.items():
            inst = group[k % len(group)]
            k += 1
            wrong_message = build_wrong(inst)
            if wrong_message is not None:
                out.append(Case("wrapper", form, inst, wrong_message, False))
        for form, build_request in OTHER_REQUEST.items():
            inst = group[k % len(group)]
            k += 1
            out.append(Case("other party", form, inst, build_request(inst), False))
    return out


def counts(all_cases: List[Case]) -> Dict[str, Tuple[int, int]]:
    """Per class: (cases, cases that must be credited)."""
    out: Dict[str, Tuple[int, int]] = {}
    for c in all_cases:
        n, k = out.get(c.corpus, (0, 0))
        out[c.corpus] = (n + 1, k + int(c.credit))
    return out
