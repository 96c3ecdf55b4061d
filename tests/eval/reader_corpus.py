"""Corpora: answers written the ways chat and reasoning models write them, one
corpus per class the reader now recognises by rule (values in Unicode, number words,
speaker labels and template tokens, hedges, reasoning tags) and one of messages on which the
Python API must give the harness's verdict.

Each case is a whole solver message on a release instance with its gold verdict by
construction (``credit``: must an episode whose final turn is this message credit it?):
a right value with a second value, a hedge or another party's turn around it is never
credited; the right value alone, or after a draft in a reasoning block, always is.
``tests/eval/test_reader_corpus.py`` asserts 0 over-credits, 0 under-credits and the API's
verdict equal to ``run_episode``'s on every case; ``benchmarks/bench_answers.py`` times them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from mira_math.generators.schema import Instance
from tests.eval.reasoning_corpus import all_instances, right, wrong


@dataclass(frozen=True)
class Case:
    corpus: str
    form: str
    instance: Instance
    message: str
    credit: bool
    reasoning: Optional[str] = None


# A form: (message builder from (right, wrong, slot), credit).
Form = Tuple[Callable[[str, str, str], str], bool]


def _values_unicode() -> Dict[str, Form]:
    second = {"vulgar ¾": "\u00be", "vulgar ⅝": "\u215d", "super/sub ⁵⁄₄": "\u2075\u2044\u2084",
              "superscript ⁷": "\u2077", "subscript ₃": "\u2083", "circled ③": "\u2462",
              "roman Ⅻ": "\u216b", "Arabic-Indic ٣/٤": "\u0663/\u0664", "fullwidth ３／４": "\uff13\uff0f\uff14",
              "Devanagari ३": "\u0969", "CJK 三分之一": "\u4e09\u5206\u4e4b\u4e00", "Thai ๓": "\u0e53"}
    forms: Dict[str, Form] = {}
    for name, v in second.items():
        forms[f"correction line: {name}"] = (lambda r, w, s, v=v: f"ANSWER: {r}\n\nCorrection: {v}", False)
        forms[f"bold update: {name}"] = (lambda r, w, s, v=v: f"**ANSWER:** {r}\n\n**Update:** {v}", False)
    forms["label chain through ¾"] = (lambda r, w, s: f"ANSWER: x = \u00be = {r}", False)
    forms["LaTeX then ⅓ in parentheses"] = (lambda r, w, s: f"ANSWER: $ {r} $ (or \u2153)", False)
    forms["boxed right, then ¼ in a display"] = (lambda r, w, s: f"ANSWER: \\boxed{{{r}}}\n\n$$\u00bc$$", False)
    forms["Final answer phrase, then ½"] = (lambda r, w, s: f"**Final answer:** {r}\n\nActually \u00bd.", False)
    forms["right, then an emoji line"] = (lambda r, w, s: f"ANSWER: {r}\n\nDone \u2705", True)
    forms["right, then typographic prose"] = (
        lambda r, w, s: f"ANSWER: {r}\n\nThat\u2019s the exact value \u2014 no rounding.", True)
    forms["right, then a CJK closing"] = (lambda r, w, s: f"ANSWER: {r}\n\n\u4ee5\u4e0a\u3067\u3059\u3002", True)
    return forms


def _number_words() -> Dict[str, Form]:
    words = ["a twelfth", "three quarters", "a dozen", "twenty-one", "one hundred and five",
             "five sixteenths", "two-thirds", "an eighth", "seven hundredths", "ninety-nine",
             "a million", "eleven twentieths", "forty-second", "three halves",
             "drei Viertel", "einundzwanzig", "ein Zw\u00f6lftel", "trois quarts", "vingt et un",
             "un cinqui\u00e8me", "tres cuartos", "veintiuno", "un doceavo", "tre quarti",
             "ventuno", "un dodicesimo", "tr\u00eas quartos", "vinte e um", "driekwart",
             "eenentwintig", "een vijfde"]
    forms: Dict[str, Form] = {}
    for word in words:
        forms[f"correction in words: {word}"] = (
            lambda r, w, s, word=word: f"ANSWER: {r}\n\nCorrection: {word}", False)
    forms["label chain through a twelfth"] = (lambda r, w, s: f"ANSWER: x = a twelfth = {r}", False)
    forms["LaTeX text words after a box"] = (
        lambda r, w, s: f"ANSWER: $\\boxed{{{r}}}$\n\n$\\text{{or three quarters}}$", False)
    forms["boxed right, then words in the next sentence"] = (
        lambda r, w, s: f"So we get \\boxed{{{r}}}. Or maybe a third.", False)
    forms["right, i.e. words"] = (lambda r, w, s: f"ANSWER: {r} (i.e. three fifths)", False)
    forms["right, that is words, next line"] = (
        lambda r, w, s: f"ANSWER: {r}\n\nThat is, eleven twentieths.", False)
    for prose in ("The first step used Bayes\u2019 rule.", "I used the second hint.",
                  "This is due to the symmetry of the setup.", "Once again, the check passes.",
                  "The tree diagram confirms it.", "Une fraction exacte.", "Ein exakter Bruch.",
                  "Een exacte breuk."):
        forms[f"right, then prose without a value: {prose}"] = (
            lambda r, w, s, prose=prose: f"ANSWER: {r}\n\n{prose}", True)
    return forms


def _speaker_cuts() -> Dict[str, Form]:
    labels = ["**Information holder**:", "**Information holder:**", "*Information holder*:",
              "__Information holder__:", "> **Information holder:**", "Information Holder (responder):",
              "- **User**:", "**User:**", "Human:", "[User]:",
              "The information holder replies:", "Information holder says:", "**Responder**:"]
    tokens = ["<|im_end|>\n<|im_start|>user\n", "<end_of_turn>\n<start_of_turn>user\n",
              "<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n",
              "<\uff5cend\u2581of\u2581sentence\uff5c><\uff5cUser\uff5c>", "<|end|><|start|>user<|message|>",
              "<|end_of_text|>\n<|start_of_role|>user<|end_of_role|>",
              "<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|USER_TOKEN|>", "</s>[INST] ", "\n<|user|>\n",
              "<|im_start|>system\n", "\n<\uff5cUser\uff5c>"]
    forms: Dict[str, Form] = {}
    for label in labels:
        forms[f"invented reply, label {label}"] = (
            lambda r, w, s, label=label: f"REQUEST: What is {s}?\n{label} {s} = 0\nANSWER: {r}", False)
        forms[f"answer, label {label}, other answer"] = (
            lambda r, w, s, label=label: f"ANSWER: {w}\n{label} That is not right.\nANSWER: {r}", False)
    for token in tokens:
        forms[f"invented reply, token {token.strip()[:30]}"] = (
            lambda r, w, s, token=token: f"REQUEST: What is {s}?{token}{s} = 0\nANSWER: {r}", False)
    forms["answer, then a user turn"] = (lambda r, w, s: f"ANSWER: {r}\n**User**: thanks!", True)
    forms["answer, then an end token"] = (lambda r, w, s: f"ANSWER: {r}<|im_end|>\n<|im_start|>user\nok", True)
    forms["own header, ChatML"] = (lambda r, w, s: f"<|im_start|>assistant\nANSWER: {r}<|im_end|>", True)
    forms["own header, DeepSeek"] = (
        lambda r, w, s: f"<\uff5cAssistant\uff5c>ANSWER: {r}<\uff5cend\u2581of\u2581sentence\uff5c>", True)
    forms["own header, Gemma"] = (lambda r, w, s: f"<start_of_turn>model\nANSWER: {r}<end_of_turn>", True)
    forms["own header, Llama 3"] = (
        lambda r, w, s: f"<|start_header_id|>assistant<|end_header_id|>\n\nANSWER: {r}<|eot_id|>", True)
    forms["own header, gpt-oss final channel"] = (
        lambda r, w, s: f"<|start|>assistant<|channel|>final<|message|>ANSWER: {r}<|return|>", True)
    forms["own header, Command-R"] = (
        lambda r, w, s: f"<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>ANSWER: {r}<|END_OF_TURN_TOKEN|>", True)
    forms["not a label: a system of equations"] = (
        lambda r, w, s: f"System of equations: two unknowns.\nANSWER: {r}", True)
    forms["not a label: a System heading mid-message"] = (
        lambda r, w, s: f"Let me write it out.\n**System**:\n- {s} unknown\nANSWER: {r}", True)
    forms["not a label: a holder label on the first line (a recap)"] = (
        lambda r, w, s: f"Information holder: {s} is not given.\n\nANSWER: {r}", True)
    forms["not a label: the holder named without a colon"] = (
        lambda r, w, s: f"REQUEST: What is {s}?\nThe information holder says {s} is known.\nANSWER: {r}", True)
    forms["not a label: user-facing"] = (lambda r, w, s: f"User-facing note: exact.\nANSWER: {r}", True)
    forms["not a label: Holder's inequality"] = (
        lambda r, w, s: f"Holder's inequality is not needed.\nANSWER: {r}", True)
    return forms


def _hedges() -> Dict[str, Form]:
    hedges = ["Tentatively", "Presumably", "Supposedly", "Arguably", "Conceivably", "Hopefully",
              "Likely", "Seemingly", "Apparently", "Approximately", "Roughly", "Provisionally",
              "Probably", "Possibly", "Plausibly", "Reportedly", "Ostensibly", "Allegedly",
              "Most likely", "I think", "I believe", "I guess", "I'd say", "My best guess",
              "It should be", "It might be", "It seems to be", "Around", "About", "Circa",
              "Wahrscheinlich", "Vermutlich", "Ungef\u00e4hr", "Vielleicht", "M\u00f6glicherweise",
              "Eventuell", "Probablement", "Environ", "Peut-\u00eatre", "Vraisemblablement",
              "Approximativement", "Probablemente", "Quiz\u00e1s", "Tal vez", "Aproximadamente",
              "Posiblemente", "Probabilmente", "Forse", "Provavelmente", "Talvez",
              "Waarschijnlijk", "Misschien", "Ongeveer"]
    forms: Dict[str, Form] = {}
    for hedge in hedges:
        forms[f"{hedge}: value"] = (lambda r, w, s, h=hedge: f"ANSWER: {h}: {r}", False)
        forms[f"{hedge} value"] = (lambda r, w, s, h=hedge: f"**ANSWER:** {h} {r}", False)
    forms["value, (approximately)"] = (lambda r, w, s: f"ANSWER: {r} (approximately)", False)
    forms["LaTeX text hedge"] = (lambda r, w, s: f"ANSWER: $\\text{{roughly }} {r}$", False)
    forms["boxed, then (tentatively)"] = (lambda r, w, s: f"ANSWER: \\boxed{{{r}}} (tentatively)", False)
    forms["bold hedge inside the line"] = (lambda r, w, s: f"**ANSWER:** *probably* {r}", False)
    forms["Final answer phrase with a hedge"] = (lambda r, w, s: f"Working.\n**Final answer:** presumably {r}", False)
    forms["value, give or take"] = (lambda r, w, s: f"ANSWER: {r}, give or take", False)
    forms["value-ish"] = (lambda r, w, s: f"ANSWER: {r}-ish", False)
    for sure in ("The final answer is", "Exactly:", "Precisely:", "Definitely:", "Finally:",
                 "Finalement :", "Schlie\u00dflich:", "Finalmente:", "The probability is",
                 "The likelihood ratio gives:"):
        forms[f"certain: {sure}"] = (lambda r, w, s, sure=sure: f"ANSWER: {sure} {r}", True)
    return forms


def _reasoning_tags() -> Dict[str, Form]:
    pairs = [("<think>", "</think>"), ("<thinking>", "</thinking>"), ("<reasoning>", "</reasoning>"),
             ("<thought>", "</thought>"), ("<seed:think>", "</seed:think>"), ("[THINK]", "[/THINK]"),
             ("<|begin_of_thought|>", "<|end_of_thought|>"), ("<|START_THINKING|>", "<|END_THINKING|>"),
             ("\u25c1think\u25b7", "\u25c1/think\u25b7"),
             ("<|channel|>analysis<|message|>", "<|end|><|start|>assistant<|channel|>final<|message|>")]
    forms: Dict[str, Form] = {}
    for o, c in pairs:
        forms[f"{o} draft wrong, visible right"] = (
            lambda r, w, s, o=o, c=c: f"{o}\nDraft.\nANSWER: {w}\n{c}\n\nANSWER: {r}", True)
        forms[f"{o} draft right, visible wrong"] = (
            lambda r, w, s, o=o, c=c: f"{o}ANSWER: {r}{c}\nANSWER: {w}", False)
        forms[f"{o} draft right, no visible action"] = (
            lambda r, w, s, o=o, c=c: f"{o}ANSWER: {r}{c}\n{r}", False)
        forms[f"{o} unclosed with the right answer"] = (
            lambda r, w, s, o=o: f"{o}\nWorking... ANSWER: {r}\nstill checking", False)
    forms["think, then the bare value"] = (lambda r, w, s: f"<think>x</think>\n{r}", False)
    forms["think, then boxed"] = (lambda r, w, s: f"<think>x</think>\nSo we get \\boxed{{{r}}}.", True)
    forms["literal <think> in inline code"] = (
        lambda r, w, s: f"I will not emit `<think>` tags here.\nANSWER: {r}", True)
    forms["literal <think> in a code fence"] = (
        lambda r, w, s: f"Format:\n```\n<think>\n```\nANSWER: {r}", True)
    forms["nested, draft inside the outer block"] = (
        lambda r, w, s: f"<think>outer <think>inner</think> ANSWER: {r}</think>", False)
    forms["nested, draft inside, visible wrong"] = (
        lambda r, w, s: f"<think>a<think>b</think>ANSWER: {r}</think>\nANSWER: {w}", False)
    forms["nested, visible right"] = (
        lambda r, w, s: f"<think>a<think>b ANSWER: {w}</think>c</think>\nANSWER: {r}", True)
    forms["closing tag only, draft before"] = (
        lambda r, w, s: f"ANSWER: {w}\n</think>\n\nANSWER: {r}", True)
    forms["begin_of_solution wrapper"] = (
        lambda r, w, s: f"<|begin_of_thought|>ANSWER: {w}<|end_of_thought|>\n<|begin_of_solution|>\n"
                        f"ANSWER: {r}\n<|end_of_solution|>", True)
    return forms


def _api_agreement() -> Dict[str, Form]:
    return {
        "prose statement, no action line": (lambda r, w, s: f"Thus the answer is {r}.", False),
        "bare value": (lambda r, w, s: r, False),
        "bare display math": (lambda r, w, s: f"$$ {r} $$", False),
        "ANSWER wrong, then FINAL ANSWER right": (lambda r, w, s: f"ANSWER: {w}\n\nFINAL ANSWER \u2014 {r}", False),
        "ANSWER right, then FINAL ANSWER wrong": (lambda r, w, s: f"ANSWER: {r}\n\nFINAL ANSWER \u2014 {w}", False),
        "ANSWER right": (lambda r, w, s: f"Working.\nANSWER: {r}", True),
        "bold ANSWER right": (lambda r, w, s: f"**ANSWER:** {r}", True),
        "final answer phrase": (lambda r, w, s: f"Working.\n**Final answer:** {r}", True),
        "closing box": (lambda r, w, s: f"So we get \\boxed{{{r}}}.", True),
        "a request": (lambda r, w, s: f"REQUEST: What is {s}?", False),
        "an empty reply": (lambda r, w, s: "", False),
        "think-only reply": (lambda r, w, s: f"<think>ANSWER: {r}</think>", False),
        "ANSWER with a final-answer phrase inside": (lambda r, w, s: f"ANSWER: {w}\nFinal answer: {r}", False),
        "ANSWER wrong then a boxed right": (lambda r, w, s: f"ANSWER: {w}\n\\boxed{{{r}}}", False),
    }


CLASSES: Dict[str, Callable[[], Dict[str, Form]]] = {
    "values/Unicode": _values_unicode, "number words": _number_words, "speaker cuts": _speaker_cuts,
    "hedges": _hedges, "reasoning tags": _reasoning_tags, "API vs harness": _api_agreement,
}


def sample_instances(per_family: int = 2) -> List[Instance]:
    """``per_family`` instances of each family, spread over the release (every answer type)."""
    by_family: Dict[str, List[Instance]] = {}
    for inst in all_instances():
        by_family.setdefault(inst.family, []).append(inst)
    out = []
    for family in sorted(by_family):
        rows = by_family[family]
        step = max(1, len(rows) // per_family)
        out.extend(rows[::step][:per_family])
    return out


MIN_PER_CLASS = 120


def cases(instances: List[Instance], classes: Optional[List[str]] = None) -> List[Case]:
    """Every form of every class on several instances in turn: at least 5 per form and
    :data:`MIN_PER_CLASS` per class."""
    out: List[Case] = []
    for name, build in CLASSES.items():
        if classes is not None and name not in classes:
            continue
        forms = build()
        reps = max(5, -(-MIN_PER_CLASS // len(forms)))
        for k, (form, (make, credit)) in enumerate(forms.items()):
            for j in range(reps):
                inst = instances[(k * 7 + j * 11) % len(instances)]
                slot = inst.hints[0].slot if inst.hints else "the missing value"
                out.append(Case(name, form, inst, make(right(inst), wrong(inst), slot), credit))
    return out
