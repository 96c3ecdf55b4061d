"""Answer corpora built deterministically from the committed release's stored answers.

``correct_cases()``: every documented accepted form of each stored answer (``verifiers/README.md``),
each inside a whole solver message in a realistic model style (reasoning, then an ``ANSWER:`` line,
a display block, a bold marker, or no marker and a ``\\boxed{}`` / "Final Answer" ending).
``wrong_cases()``: answer texts that must never be accepted: a wrong value, or the right value
hedged, chained, corrected, boxed twice, put inside an expression, related by anything but
``=``, approximated, doubled in sign. Both are lists of :class:`Case`; the tests in
``tests/verifiers/test_corpora.py`` and ``benchmarks/bench_answers.py`` read the same lists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Dict, List, Tuple

from mira_math.generators.schema import Instance, read_jsonl
from mira_math.generators.layout import DEFAULT_RELEASE

ROOT = Path(__file__).resolve().parents[2]
DATA = DEFAULT_RELEASE / "data"


@dataclass(frozen=True)
class Case:
    form: str          # the documented form (correct) or the attack (wrong)
    style: str         # the message style ("-" for a bare answer text)
    instance: Instance
    message: str       # the whole solver message (correct) or the answer text (wrong)


def release_instances(per_family: int = 10**9) -> List[Instance]:
    """One instance per distinct (family, answer) of the release, in file order, at most
    ``per_family`` of each family (the corpora stay test-sized)."""
    seen: Dict[Tuple[str, str, str], Instance] = {}
    count: Dict[str, int] = {}
    for path in sorted(DATA.glob("*/test.jsonl")):
        for inst in read_jsonl(path):
            key = (inst.family, inst.answer.type, inst.answer.value)
            if key not in seen and count.get(inst.family, 0) < per_family:
                seen[key] = inst
                count[inst.family] = count.get(inst.family, 0) + 1
    return list(seen.values())


def _values(inst: Instance) -> List[Fraction]:
    s = inst.answer.value
    if inst.answer.type == "tuple":
        return [Fraction(p) for p in s[1:-1].split(", ")]
    return [Fraction(s)]


def _canon(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _latex(x: Fraction, cmd: str = "\\frac") -> str:
    if x.denominator == 1:
        return str(x.numerator)
    sign = "-" if x < 0 else ""
    return f"{sign}{cmd}{{{abs(x.numerator)}}}{{{x.denominator}}}"


def _unreduced(x: Fraction, k: int = 3) -> str:
    return f"{x.numerator * k}/{x.denominator * k}"


def _decimal(x: Fraction):
    d = x.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:
        return None
    digits = 0
    while (x * 10 ** digits).denominator != 1:
        digits += 1
    sign = "-" if x < 0 else ""
    q = abs(x)
    whole, rest = divmod(q.numerator * 10 ** digits // q.denominator, 10 ** digits)
    return f"{sign}{whole}" + (f".{rest:0{digits}d}" if digits else ".0")


_LABEL_RE = re.compile(r"What (?:is|are) (?:the )?(.+?)(?:, |\?)")


def target_label(inst: Instance) -> str:
    """The question's own name for what it asks: ``P(H|E)``, ``R_eq``, ``a(7)``, ``x``."""
    m = _LABEL_RE.search(inst.view.question)
    label = m.group(1) if m else "x"
    if " is " in label or "(" in label and inst.answer.type == "tuple":
        return "x"
    return label.replace("\u00b2", "^2")


# ---------------------------------------------------------------- correct forms

def scalar_forms(inst: Instance) -> List[Tuple[str, str]]:
    (x,) = _values(inst)
    label, v = target_label(inst), _canon(x)
    forms = [("canonical", v), ("\\frac", _latex(x)), ("\\dfrac", _latex(x, "\\dfrac")),
             ("boxed", f"\\boxed{{{v}}}"), ("boxed with a space", f"\\boxed {{{_latex(x)}}}"),
             ("label =", f"{label} = {v}"), ("sentence", f"The answer is {v}."),
             ("label is", f"{label} is {v}"), ("label colon", f"{label}: {v}"),
             ("boxed label", f"{label} = \\boxed{{{_latex(x)}}}"),
             ("chain of equal values", f"{label} = {_unreduced(x)} = {v}"),
             ("unreduced", _unreduced(x, 2)), ("math delimiters", f"${_latex(x)}$")]
    if x < 0:
        forms.append(("Unicode minus", v.replace("-", "\u2212")))
    if x.denominator != 1 and abs(x.numerator) < 10 and x.denominator < 10:
        forms.append(("\\frac14", f"{'-' if x < 0 else ''}\\frac{abs(x.numerator)}{x.denominator}"))
    dec = _decimal(x)
    if dec is not None:
        forms.append(("exact decimal", dec))
    if "in ohms" in inst.view.question:
        forms += [("unit \u03a9", f"{v} \u03a9"), ("unit ohms", f"{v} ohms"),
                  ("unit \\Omega", f"R_eq = {_latex(x)}\\,\\Omega"), ("unit \\text", f"{v} \\text{{ ohms}}")]
    moduli = inst.latent_state().get("moduli")
    if moduli:
        m = 1
        for q in moduli:
            m *= q
        forms += [("congruence", f"x \u2261 {v} (mod {m})"),
                  ("congruence \\pmod", f"x \\equiv {v} \\pmod{{{m}}}")]
    return forms


def tuple_forms(inst: Instance) -> List[Tuple[str, str]]:
    xs, names = _values(inst), inst.answer.components
    vals = [_canon(x) for x in xs]
    named = [f"{n} = {v}" for n, v in zip(names, vals)]
    forms = [("canonical", inst.answer.value), ("brackets", "[" + ", ".join(vals) + "]"),
             ("named", ", ".join(named)),
             ("named with and", ", ".join(named[:-1]) + ", and " + named[-1]),
             ("named reversed", ", ".join(reversed(named))),
             ("name tuple =", "(" + ", ".join(names) + ") = (" + ", ".join(vals) + ")"),
             ("pmatrix column", "\\begin{pmatrix} " + " \\\\ ".join(vals) + " \\end{pmatrix}"),
             ("bmatrix row", "\\begin{bmatrix} " + " & ".join(vals) + " \\end{bmatrix}"),
             ("transpose", "(" + ", ".join(vals) + ")^T"),
             ("\\top", "\\left(" + ", ".join(vals) + "\\right)^{\\top}"),
             ("boxed tuple", "\\boxed{(" + ", ".join(_latex(x) for x in xs) + ")}"),
             ("sentence", "The answer is (" + ", ".join(vals) + ").")]
    if any(re.fullmatch(r"e[0-9][0-9]", n) for n in names):
        rev = [f"e{n[2]}{n[1]} = {v}" for n, v in zip(names, vals)]
        forms.append(("edge in either order", ", ".join(rev)))
    return forms


def answer_forms(inst: Instance) -> List[Tuple[str, str]]:
    if inst.answer.type == "tuple":
        return tuple_forms(inst)
    return scalar_forms(inst)


_REASONING = ("We combine the given facts. From the first line, 3 + 4 = 7, and the second gives 2/3.\n"
              "Checking the constraint once more, everything is consistent.\n\n")


def _styles(text: str) -> List[Tuple[str, str]]:
    styles = [("marker", f"{_REASONING}ANSWER: {text}"),
              ("bold marker", f"{_REASONING}**ANSWER:** {text}"),
              ("marker, next line", f"{_REASONING}ANSWER:\n{text}")]
    if "$" not in text:
        styles += [("marker, $$ block", f"{_REASONING}ANSWER:\n$$\n{text}\n$$"),
                   ("marker, \\[ block", f"{_REASONING}ANSWER: \\[ {text} \\]")]
    if "\\boxed" not in text and "$" not in text:
        styles += [("fallback Final Answer box", f"{_REASONING}**Final Answer**\n\\[ \\boxed{{{text}}} \\]"),
                   ("fallback boxed", f"{_REASONING}Therefore\n$$\\boxed{{{text}}}$$"),
                   ("fallback inline box", f"{_REASONING}Since P(E) = 2/5, we get $\\boxed{{{text}}}$."),
                   ("fallback Minerva", f"{_REASONING}Final Answer: The final answer is "
                                        f"${text}$. I hope it is correct.")]
    styles.append(("fallback Final Answer:", f"{_REASONING}Final Answer: {text}"))
    return styles


def correct_cases(per_family: int = 14) -> List[Case]:
    """Every accepted form of distinct release answers (``per_family`` of each family), each
    in two message styles (rotating, so that every style meets every form)."""
    cases: List[Case] = []
    for i, inst in enumerate(release_instances(per_family)):
        for j, (form, text) in enumerate(answer_forms(inst)):
            styles = _styles(text)
            for k in (0, 1):
                style, message = styles[(i + j + 5 * k) % len(styles)]
                cases.append(Case(form, style, inst, message))
    return cases


# ---------------------------------------------------------------- wrong answers

def _wrong_value(x: Fraction) -> Fraction:
    return x + 1 if x.denominator == 1 else x + Fraction(1, x.denominator)


_RELATIONS = ("\u2272", "\u2273", "\u226a", "\u226b", "\u221d", "\u2245", "\u2248", "\u2243", "\u2264",
              "\u2265", "\u2260", "<", ">", "\u2a7d", "\u2a7e", "\u2250", "\u2192", "\u2208", "\u223c",
              "\\lesssim", "\\gtrsim", "\\ll", "\\gg", "\\propto", "\\cong", "\\approx", "\\sim",
              "\\simeq", "\\le", "\\geq", "\\neq", "\\to", "\\Rightarrow", "\\equiv", "\\prec",
              "\\asymp", "\\doteq", "=\u0338", ">=", "<=", "!=", "~", ":\u2248")


def wrong_scalar_texts(inst: Instance) -> List[Tuple[str, str]]:
    (x,) = _values(inst)
    label, v, w = target_label(inst), _canon(x), _canon(_wrong_value(x))
    lv = _latex(x)
    out = [("wrong value", w), ("wrong value boxed", f"\\boxed{{{w}}}"),
           ("hedge or", f"{w} or {v}"), ("hedge or, right first", f"{v} or {w}"),
           ("hedge or equivalently", f"{w}, or equivalently {label} = {v}"),
           ("hedge labelled or", f"{label} = {w} or {label} = {v}"),
           ("hedge \\text{or}", f"{v} \\text{{ or }} {w}"), ("hedge either", f"either {v} or {w}"),
           ("hedge parenthesis", f"{v} (possibly {w})"), ("hedge maybe", f"maybe {v}"),
           ("hedge slash words", f"{v} and/or {w}"), ("hedge question", f"{v}?"),
           ("chain x = a + 0 = b", f"x = {w} + 0 = {v}"), ("chain different", f"{label} = {w} = {v}"),
           ("chain expression", f"{label} = 2 \\cdot {w} = {v}"),
           ("two boxes", f"\\boxed{{{w}}}, \\boxed{{{v}}}"), ("fbox and boxed", f"\\fbox{{{w}}} \\boxed{{{v}}}"),
           ("nested boxes", f"\\boxed{{\\boxed{{{v}}}}}"), ("boxed then value", f"\\boxed{{{v}}} or {w}"),
           ("boxed then bare value", f"\\boxed{{{v}}} {w}"),
           ("correction after", f"\\boxed{{{v}}}; corrected: {w}"), ("correction words", f"{v}, wait, {w}"),
           ("correction sentence", f"The answer is {w}. Final: {v}"), ("actually", f"{w}, actually {v}"),
           ("sqrt symbol box", f"\u221a\\boxed{{{v}}}"), ("\\sqrt box", f"\\sqrt{{\\boxed{{{v}}}}}"),
           ("plus-minus box", f"\u00b1\\boxed{{{v}}}"), ("\\pm box", f"\\pm\\boxed{{{v}}}"),
           ("squared box", f"\\boxed{{{v}}}\u00b2"), ("power box", f"\\boxed{{{v}}}^2"),
           ("product dot box", f"2\u22c5\\boxed{{{v}}}"), ("\\cdot box", f"2\\cdot\\boxed{{{v}}}"),
           ("\\log box", f"\\log\\boxed{{{v}}}"), ("\\ln box", f"\\ln \\boxed{{{v}}}"),
           ("fullwidth percent box", f"\\boxed{{{v}}}\uff05"), ("percent box", f"\\boxed{{{v}}}%"),
           ("\\% box", f"\\boxed{{{v}}}\\%"), ("hyphen sign box", f"\u2010\\boxed{{{v}}}"),
           ("box over one", f"\\frac{{\\boxed{{{v}}}}}{{1}}"), ("box times one", f"\\boxed{{{v}}} \\times 1"),
           ("value squared", f"{v}\u00b2"), ("value percent", f"{v}%"), ("value fullwidth percent", f"{v}\uff05"),
           ("per mille", f"{v}\u2030"), ("sqrt value", f"\u221a{v}"), ("\\sqrt value", f"\\sqrt{{{v}}}"),
           ("log value", f"\\log {v}"), ("factorial", f"{v}!"), ("vulgar half", f"{v}\u00bd"),
           ("approximation sign", f"\u2248 {v}"), ("approx word", f"approximately {v}"),
           ("about", f"about {v}"), ("ellipsis", f"{v}..."), ("\\dots", f"{v}\\dots"),
           ("negation", f"The answer is not {v}"), ("isn't", f"{label} isn't {v}"),
           ("zero-width space", f"{v}\u200b{w}"), ("right-to-left override", f"\u202e{v}"),
           ("combining not-equal", f"{label} =\u0338 {v}"), ("two values comma", f"{v}, {w}"),
           ("two values semicolon", f"{v}; {w}"), ("two values line break", f"{v} \\\\ {w}"),
           ("two math spans", f"${v}$ ${w}$"), ("value then expression", f"{v} + 0"),
           ("thousand", f"{v} thousand"), ("fraction of boxes", f"\\boxed{{{v}}}/\\boxed{{1}}"),
           ("fullwidth digits", v.translate(str.maketrans("0123456789", "".join(chr(0xFF10 + d) for d in range(10))))),
           ("label with a value", f"P(H|E={w}) = {v}"), ("label number", f"{w} = {v}")]
    for sign in ("+-", "-+", "--", "++", "+\u2212", "\u2212\u2212"):
        out.append((f"doubled sign {sign}", f"{sign}{v.lstrip('-')}"))
    out.append(("doubled sign \\frac", f"-\\frac{{-{abs(x.numerator)}}}{{{x.denominator}}}"))
    for rel in _RELATIONS:
        out.append((f"relation {rel}", f"{label} {rel} {v}"))
    if x.denominator != 1 and _decimal(x) is None:
        approx = f"{float(x):.4f}"
        out += [("rounded decimal", approx), ("rounded decimal boxed", f"\\boxed{{{approx}}}")]
    if "\\frac" in lv:
        out.append(("\\frac followed by a digit", f"\\frac{abs(x.numerator) % 10}{x.denominator % 10 or 1}3"))
    moduli = inst.latent_state().get("moduli")
    if moduli:
        m = 1
        for q in moduli:
            m *= q
        out += [("congruence wrong modulus", f"x \u2261 {v} (mod {m + 1})"),
                ("congruence other residue", f"x \u2261 {int(x) + m} (mod {m})"),
                ("congruence negative residue", f"x \u2261 {int(x) - m} (mod {m})"),
                ("congruence with a product", f"x \u2261 {v} (mod {moduli[0]}\u00b7{m // moduli[0]})"),
                ("two congruences", f"x \u2261 {v} (mod {m}), x \u2261 {v} (mod {m})")]
    if "in ohms" in inst.view.question:
        out += [("unit hedge", f"{v} \u03a9 or {w} \u03a9"), ("unit prefix", f"{v} k\u03a9"),
                ("unit milliohms", f"{v} mohms")]
    return out


def wrong_tuple_texts(inst: Instance) -> List[Tuple[str, str]]:
    xs, names = _values(inst), inst.answer.components
    vals = [_canon(x) for x in xs]
    wrong = [_canon(_wrong_value(xs[0]))] + vals[1:]
    t, tw = "(" + ", ".join(vals) + ")", "(" + ", ".join(wrong) + ")"
    named = [f"{n} = {v}" for n, v in zip(names, vals)]
    return [("wrong value", tw), ("hedge or", f"{tw} or {t}"), ("hedge or, right first", f"{t} or {tw}"),
            ("two tuples", f"{t}, {tw}"), ("two boxes", f"\\boxed{{{t}}} \\boxed{{{tw}}}"),
            ("boxed then value", f"\\boxed{{{t}}} or {tw}"), ("chain different", f"{tw} = {t}"),
            ("chain expression", f"2{tw} = {t}"), ("squared", f"{t}\u00b2"), ("power", f"{t}^2"),
            ("scaled", f"2{t}"), ("plus-minus", f"\u00b1{t}"), ("percent", f"{t}%"),
            ("approximation", f"\u2248 {t}"), ("relation \u2272", f"x \u2272 {t}"),
            ("relation \\propto", f"x \\propto {t}"), ("negation", f"not {t}"),
            ("correction", f"\\boxed{{{t}}}; corrected: {tw}"),
            ("component twice", ", ".join([f"{names[0]} = {wrong[0]}"] + named)),
            ("component hedged", ", ".join(named[:-1] + [f"{names[-1]} = {vals[-1]} or {wrong[0]}"])),
            ("matrix", "\\begin{pmatrix} " + " & ".join(vals) + " \\\\ " + " & ".join(vals)
             + " \\end{pmatrix}"),
            ("vmatrix", "\\begin{vmatrix} " + " \\\\ ".join(vals) + " \\end{vmatrix}"),
            ("transpose twice", f"{t}^T^T"), ("doubled sign", "(+-" + ", ".join(vals)[0:] + ")")]


def wrong_cases(per_family: int = 4) -> List[Case]:
    """Every attack on distinct release answers (``per_family`` of each family)."""
    cases: List[Case] = []
    for inst in release_instances(per_family):
        texts = wrong_tuple_texts(inst) if inst.answer.type == "tuple" else wrong_scalar_texts(inst)
        for form, text in texts:
            cases.append(Case(form, "-", inst, text))
    return cases
