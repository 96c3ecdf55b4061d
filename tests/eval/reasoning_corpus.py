"""Corpora of reasoning-model and gaming messages built from the release.

Every case is a whole solver message (and, for servers with a reasoning field, that field),
run through the one classifier (``game.reading.read_message``) and the verifier exactly as
an episode runs them. ``credit`` says whether the message must be credited: the reasoning
corpus mixes both (think drafts that agree or disagree with the visible answer, unclosed
think blocks, reasoning-only replies); every over-credit corpus must credit nothing.
``tests/eval/test_reasoning.py`` requires 0 wrong credited and 0 right rejected;
``benchmarks/bench_answers.py`` prints the per-form rates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Callable, Dict, List, Optional

from mira_math.game.prompts import answer_format
from mira_math.game.reading import read_message
from mira_math.generators.layout import DEFAULT_RELEASE
from mira_math.generators.schema import Instance, read_jsonl
from mira_math.verifiers import verify

DATA = Path(DEFAULT_RELEASE) / "data"


@dataclass(frozen=True)
class Case:
    corpus: str          # "reasoning" or the over-credit it attacks
    form: str
    instance: Instance
    message: str
    credit: bool         # must the message be credited?
    reasoning: Optional[str] = None   # the server's reasoning field


def all_instances() -> List[Instance]:
    """Every instance of the release, in file order."""
    return [inst for path in sorted(DATA.glob("*/test.jsonl")) for inst in read_jsonl(path)]


def _components(inst: Instance) -> List[Fraction]:
    s = inst.answer.value
    return [Fraction(p) for p in s[1:-1].split(", ")] if inst.answer.type == "tuple" else [Fraction(s)]


def _canon(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def right(inst: Instance) -> str:
    return inst.answer.value


def wrong(inst: Instance) -> str:
    """A value of the right shape that is not the answer."""
    values = _components(inst)
    if inst.answer.type == "cell":
        return str(1 - int(values[0]))
    values[0] = values[0] + 1
    if inst.answer.type == "tuple":
        return "(" + ", ".join(_canon(v) for v in values) + ")"
    return _canon(values[0])


def _slot(inst: Instance) -> str:
    return inst.hints[0].slot if inst.hints else "the missing value"


Form = Callable[[Instance], Optional[Case]]


def _reasoning_forms() -> Dict[str, Form]:
    R, W = right, wrong
    return {
        "think draft disagrees, visible ANSWER right": lambda i: Case(
            "reasoning", "", i,
            f"<think>\nFirst try.\nANSWER: {W(i)}\nHmm, recheck.\n</think>\n\nANSWER: {R(i)}", True),
        "think draft right, visible ANSWER wrong": lambda i: Case(
            "reasoning", "", i, f"<think>\nANSWER: {R(i)}\n</think>\nANSWER: {W(i)}", False),
        "think draft disagrees, visible boxed right": lambda i: Case(
            "reasoning", "", i, f"<think>Draft.\nANSWER: {W(i)}</think>\nSo the result is \\boxed{{{R(i)}}}", True),
        "think draft right, visible boxed wrong": lambda i: Case(
            "reasoning", "", i, f"<think>ANSWER: {R(i)}</think>\nThe final answer is \\boxed{{{W(i)}}}.", False),
        "think draft agrees, visible ANSWER right": lambda i: Case(
            "reasoning", "", i, f"<thinking>so it is {R(i)}\nANSWER: {R(i)}</thinking>\nANSWER: {R(i)}", True),
        "closing tag only (template opened the block)": lambda i: Case(
            "reasoning", "", i, f"Let me compute. ANSWER: {W(i)}\n</think>\n\nANSWER: {R(i)}", True),
        "unclosed think with the right answer": lambda i: Case(
            "reasoning", "", i, f"<think>\nWorking... ANSWER: {R(i)}\nstill checking", False),
        "reasoning-only reply (server field)": lambda i: Case(
            "reasoning", "", i, "", False, reasoning=f"The answer is {R(i)}.\nANSWER: {R(i)}"),
        "server field disagrees, content right": lambda i: Case(
            "reasoning", "", i, f"ANSWER: {R(i)}", True, reasoning=f"ANSWER: {W(i)}"),
        "think answers, visible requests": lambda i: Case(
            "reasoning", "", i, f"<reasoning>ANSWER: {R(i)}</reasoning>\nREQUEST: What is {_slot(i)}?", False),
    }


def _overcredit_forms() -> Dict[str, Dict[str, Form]]:
    R, W = right, wrong

    def negative_only(build: Callable[[Instance, str], str]) -> Form:
        def form(i: Instance) -> Optional[Case]:
            if i.answer.type == "tuple" or not i.answer.value.startswith("-"):
                return None
            return Case("dash before the value", "", i, build(i, i.answer.value[1:]), False)
        return form

    return {
        "conditional or negated final answer": {
            "cannot give a final answer yet": lambda i: Case(
                "", "", i, f"I cannot give a final answer yet; what is {_slot(i)}?", False),
            "final answer depends on": lambda i: Case(
                "", "", i, f"The final answer depends on {_slot(i)}, which I do not know.", False),
            "if it were, the answer would be boxed": lambda i: Case(
                "", "", i, f"If {_slot(i)} were known, the answer would be \\boxed{{{R(i)}}}. "
                           f"I need {_slot(i)}.", False),
            "boxed, then a question": lambda i: Case(
                "", "", i, f"Perhaps \\boxed{{{R(i)}}}, but what is {_slot(i)}?", False),
        },
        "dash before the value": {
            "ANSWER, newline, dash": negative_only(lambda i, v: f"ANSWER:\n- {v}"),
            "ANSWER em dash": negative_only(lambda i, v: f"ANSWER: \u2014 {v}"),
            "Final answer em dash": negative_only(lambda i, v: f"**Final answer** \u2014 {v}"),
            "ANSWER bullet": negative_only(lambda i, v: f"ANSWER:\n\u2022 {v}"),
        },
        "text after the answer line": {
            "second FINAL ANSWER": lambda i: Case("", "", i, f"ANSWER: {W(i)}\n\nFINAL ANSWER \u2014 {R(i)}", False),
            "corrected answer": lambda i: Case("", "", i, f"ANSWER: {W(i)}\n**Corrected answer:** {R(i)}", False),
            "numbered ANSWER item": lambda i: Case("", "", i, f"ANSWER: {W(i)}\n1. ANSWER: {R(i)}", False),
            "right, then a second value": lambda i: Case("", "", i, f"ANSWER: {R(i)}\n\nor rather {W(i)}", False),
        },
        "a second value in words": {
            "label, words, value": lambda i: Case("", "", i, f"ANSWER: x = five fourths = {R(i)}", False),
            "value, then words": lambda i: Case("", "", i, f"ANSWER: {R(i)}. Make that five fourths.", False),
            "German: words oder value": lambda i: Case("", "", i, f"ANSWER: five fourths oder {R(i)}", False),
            "French: value ou words": lambda i: Case("", "", i, f"ANSWER: {R(i)} ou trois quarts", False),
        },
        "a hedge with one value": {
            "I think it is": lambda i: Case("", "", i, f"ANSWER: I think it is {R(i)}", False),
            "probably": lambda i: Case("", "", i, f"ANSWER: probably {R(i)}", False),
            "vielleicht": lambda i: Case("", "", i, f"ANSWER: vielleicht {R(i)}", False),
            "peut-\u00eatre": lambda i: Case("", "", i, f"ANSWER: peut-\u00eatre {R(i)}", False),
            "quiz\u00e1s": lambda i: Case("", "", i, f"ANSWER: quiz\u00e1s {R(i)}", False),
            "forse": lambda i: Case("", "", i, f"ANSWER: forse {R(i)}", False),
        },
        "a copied format example": {
            "the answer-format line": lambda i: Case(
                "", "", i, answer_format(i).split(", exact values")[0], False),
        },
        "a solver that plays both parts": {
            "request, invented reply, answer": lambda i: Case(
                "", "", i, f"REQUEST: What is {_slot(i)}?\nInformation holder: "
                           f"{i.hints[0].constraint if i.hints else 'x = 1'}\nSolver: ANSWER: {R(i)}", False),
            "answer, invented feedback, answer": lambda i: Case(
                "", "", i, f"Let me ask first.\nUser: 2 request(s) left.\nAssistant: ANSWER: {R(i)}", False),
        },
    }


def reasoning_cases(instances: List[Instance]) -> List[Case]:
    out = []
    for form, build in _reasoning_forms().items():
        for inst in instances:
            case = build(inst)
            if case is not None:
                out.append(Case("reasoning", form, inst, case.message, case.credit, case.reasoning))
    return out


def overcredit_cases(instances: List[Instance]) -> List[Case]:
    out = []
    for corpus, forms in _overcredit_forms().items():
        for form, build in forms.items():
            for inst in instances:
                case = build(inst)
                if case is not None:
                    out.append(Case(corpus, form, inst, case.message, False, case.reasoning))
    return out


def credited(case: Case) -> bool:
    """What an episode makes of the message as its final turn: an answer, verified."""
    action = read_message(case.message, case.reasoning).action
    return action.kind == "answer" and verify(case.instance, action.text).correct


_SPACE = re.compile(r"\s+")


def rates(cases: List[Case]) -> Dict[str, Dict[str, int]]:
    """Per (corpus, form): how many cases, how many credited, how many wrongly judged."""
    out: Dict[str, Dict[str, int]] = {}
    for case in cases:
        got = credited(case)
        row = out.setdefault(f"{case.corpus}: {case.form}", {"n": 0, "credited": 0, "wrong": 0})
        row["n"] += 1
        row["credited"] += got
        row["wrong"] += got != case.credit
    return out
