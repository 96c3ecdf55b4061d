"""The verifier under fuzzing: arbitrary text and near misses of the committed release's answers.

Every generated input is a :class:`Case`: the text, the exact value it writes (a tuple of
``Fraction``s, computed here independently of ``verifiers/``; ``None`` when the text is not one
exact value: an approximation, an expression, two candidates, ...), and whether it is a
documented accepted form (``verifiers/README.md``). The properties, for every input:

- ``verify`` returns a verdict and never raises;
- a correct verdict only for a text whose value is exactly the stored answer (checked with
  ``fractions.Fraction``), and its ``parsed`` string is the stored canonical answer;
- a documented form of the stored value is accepted (unreduced, LaTeX, boxed, labelled,
  Unicode minus, exact decimals, named components in any order).

The case generators take a ``random.Random`` so that ``benchmarks/bench_verifier.py`` can run
the same near misses at scale (``python benchmarks/bench_verifier.py``); here hypothesis
drives them at a CI-sized budget.
"""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mira_math.generators.schema import Instance, read_jsonl
from mira_math.verifiers import verify
from mira_math.generators.layout import DEFAULT_RELEASE

ROOT = Path(__file__).resolve().parents[2]
DATA = DEFAULT_RELEASE / "data"

Exact = Tuple[Fraction, ...]


class Case(NamedTuple):
    kind: str
    text: str
    value: object            # Exact: the exact value the text writes; None: not one exact
    #                          value; UNKNOWN: arbitrary text, whose meaning is not known here
    strict: bool             # a documented accepted form: value == expected => accepted


UNKNOWN = "unknown"


# ---------------------------------------------------------------- the committed release

def release_instances() -> List[Instance]:
    """One instance per distinct stored answer (type, value, component names)."""
    seen: Dict[tuple, Instance] = {}
    for path in sorted(DATA.glob("*/test.jsonl")):
        for inst in read_jsonl(path):
            a = inst.answer
            seen.setdefault((a.type, a.value, tuple(a.components)), inst)
    return list(seen.values())


def expected_value(inst: Instance) -> Exact:
    """The stored answer as Fractions, read here without ``verifiers``."""
    s = inst.answer.value
    if inst.answer.type == "tuple":
        assert s.startswith("(") and s.endswith(")"), s
        return tuple(Fraction(p) for p in s[1:-1].split(", "))
    return (Fraction(s),)


def parsed_value(parsed: str) -> Exact:
    """A verdict's ``parsed`` canonical string as Fractions (independent reading)."""
    if parsed.startswith("("):
        return tuple(Fraction(p) for p in parsed[1:-1].split(", "))
    return (Fraction(parsed),)


# ---------------------------------------------------------------- exact renderings

def _canon(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _terminating(q: int) -> bool:
    for f in (2, 5):
        while q % f == 0:
            q //= f
    return q == 1


def exact_decimal(x: Fraction, extra_zeros: int = 0) -> Optional[str]:
    """The terminating decimal of ``x`` (``-0.25``, ``3.0``), or None if it has none."""
    if not _terminating(x.denominator):
        return None
    n = 0
    while (10 ** n) % x.denominator:
        n += 1
    n = max(n, 1) + extra_zeros
    digits = str(abs(x.numerator) * 10 ** n // x.denominator).rjust(n + 1, "0")
    return ("-" if x < 0 else "") + digits[:-n] + "." + digits[-n:]


def rounded_decimal(x: Fraction, places: int) -> str:
    """``x`` rounded half-up to ``places`` decimals, written out (``0.27`` for 10/37)."""
    scaled = abs(x) * 10 ** places
    digits = str(int(scaled + Fraction(1, 2))).rjust(places + 1, "0")
    sign = "-" if x < 0 and int(digits) else ""
    return sign + digits[:-places] + "." + digits[-places:]


def render_scalar(x: Fraction, rnd: random.Random) -> str:
    """One documented exact form of ``x`` (README: accepted rows)."""
    p, q = x.numerator, x.denominator
    form = rnd.choice(["canon", "canon", "unreduced", "frac", "frac_unreduced", "decimal", "plus",
                       "unicode_minus", "parens", "fraction_slash"])
    if form == "unreduced":
        k = rnd.randint(2, 12)
        return f"{p * k}/{q * k}"
    if form in ("frac", "frac_unreduced"):
        k = rnd.randint(2, 9) if form == "frac_unreduced" else 1
        cmd = rnd.choice(["\\frac", "\\dfrac", "\\tfrac"])
        if p < 0 and rnd.random() < 0.5:
            return f"-{cmd}{{{-p * k}}}{{{q * k}}}"
        return f"{cmd}{{{p * k}}}{{{q * k}}}"
    if form == "decimal":
        d = exact_decimal(x, rnd.choice([0, 0, 1, 3]))
        if d is not None:
            if d.startswith("0.") and rnd.random() < 0.3:
                return d[1:]
            return d
    if form == "plus" and x > 0:
        return "+" + _canon(x)
    if form == "unicode_minus":
        return _canon(x).replace("-", "\u2212")
    if form == "parens":
        return "(" + _canon(x) + ")"
    if form == "fraction_slash" and q > 1:
        return _canon(x).replace("/", "\u2044")
    return _canon(x)


def _sep(rnd: random.Random, char: str = ",") -> str:
    return rnd.choice([f"{char} ", char, f" {char} "])


def latex_name(name: str, rnd: random.Random) -> str:
    """``q0`` as ``q0``, ``q_0``, ``q_{0}``, ``Q0`` (names compare without _ {} and case)."""
    head, tail = name.rstrip("0123456789"), name[len(name.rstrip("0123456789")):]
    if not tail:
        return name
    return rnd.choice([name, f"{head}_{tail}", f"{head}_{{{tail}}}", name.upper()])


def render_tuple(values: Sequence[Fraction], names: Sequence[str], rnd: random.Random,
                 positional_only: bool = False) -> str:
    """One documented form of a tuple (positional, bracketed, named in any order, a tuple
    of names then the values, a single label)."""
    comps = [render_scalar(v, rnd) for v in values]
    styles = ["paren", "bracket", "bare", "semicolon", "label"]
    if not positional_only and len(names) == len(values):
        styles += ["named", "named_colon", "named_shuffled", "head", "head_permuted"]
    style = rnd.choice(styles)
    if style in ("paren", "label"):
        body = "(" + _sep(rnd).join(comps) + ")"
        return (rnd.choice(["v = ", "x = ", "answer = "]) + body) if style == "label" else body
    if style == "bracket":
        return "[" + _sep(rnd).join(comps) + "]"
    if style == "bare":
        return _sep(rnd).join(comps)
    if style == "semicolon":
        return "(" + _sep(rnd, ";").join(comps) + ")"
    if style.startswith("named"):
        pairs = list(zip(names, comps))
        if style == "named_shuffled":
            rnd.shuffle(pairs)
        eq = " : " if style == "named_colon" else rnd.choice([" = ", "="])
        body = _sep(rnd).join(f"{latex_name(n, rnd)}{eq}{c}" for n, c in pairs)
        return f"({body})" if rnd.random() < 0.3 else body
    order = list(range(len(values)))
    if style == "head_permuted":
        rnd.shuffle(order)
    return ("(" + ", ".join(latex_name(names[i], rnd) for i in order) + ") = ("
            + _sep(rnd).join(comps[i] for i in order) + ")")


def render_value(value: Exact, inst: Instance, rnd: random.Random) -> str:
    """A documented form of ``value`` in the shape of ``inst``'s answer (a scalar answer
    given a tuple is written as a tuple, and vice versa)."""
    names = inst.answer.components
    if inst.answer.type == "tuple" or len(value) != 1:
        return render_tuple(value, names, rnd, positional_only=len(value) != len(names))
    return render_scalar(value[0], rnd)


LABELS = ["x = ", "P(H|E) = ", "answer = ", "a(7) = ", "|PQ| = ", "x_{1} = ", "R_{eq}=", "f(6) = "]


def wrap(text: str, scalar: bool, rnd: random.Random) -> str:
    """Documented wrappers around a value: parentheses, a label, \\boxed, math delimiters,
    bold, spaces, a final period."""
    if scalar and rnd.random() < 0.2:
        text = rnd.choice(["\\left( {} \\right)", "\\left({}\\right)", "({})"]).format(text)
    if scalar and "=" not in text and rnd.random() < 0.3:
        text = rnd.choice(LABELS) + text
    for _ in range(rnd.choice([0, 1, 1, 2])):
        text = rnd.choice(["\\boxed{{{}}}", "${}$", "$$ {} $$", "\\({}\\)", "\\[ {} \\]", "**{}**",
                           "`{}`", "  {}  ", "{}."]).format(text)
        if "\\boxed{" in text:
            break
    return text


def exact_form(value: Exact, inst: Instance, rnd: random.Random) -> str:
    text = render_value(value, inst, rnd)
    return wrap(text, inst.answer.type != "tuple" and len(value) == 1, rnd)


# ---------------------------------------------------------------- near misses

def _pick(value: Exact, rnd: random.Random) -> int:
    return rnd.randrange(len(value))


def _replace(value: Exact, i: int, x: Fraction) -> Exact:
    return value[:i] + (x,) + value[i + 1:]


def _off_by_one(value: Exact, rnd: random.Random) -> Exact:
    i, d = _pick(value, rnd), rnd.choice([1, -1])
    x = value[i]
    p, q = x.numerator, x.denominator
    options = [x + d, Fraction(p + d, q)]
    if q + d != 0:
        options.append(Fraction(p, q + d))
    return _replace(value, i, rnd.choice(options))


def _sign_flip(value: Exact, rnd: random.Random) -> Exact:
    if rnd.random() < 0.3:
        return tuple(-x for x in value)
    i = _pick(value, rnd)
    return _replace(value, i, -value[i])


def _reciprocal(value: Exact, rnd: random.Random) -> Exact:
    i = _pick(value, rnd)
    return _replace(value, i, 1 / value[i]) if value[i] else value


def _numerator_only(value: Exact, rnd: random.Random) -> Exact:
    i = _pick(value, rnd)
    return _replace(value, i, Fraction(rnd.choice([value[i].numerator, value[i].denominator])))


def _nearby(value: Exact, rnd: random.Random) -> Exact:
    i = _pick(value, rnd)
    return _replace(value, i, value[i] + Fraction(rnd.randint(-3, 3), rnd.randint(1, 9)))


def _swap(value: Exact, rnd: random.Random) -> Exact:
    if len(value) < 2:
        return value
    i, j = rnd.sample(range(len(value)), 2)
    out = list(value)
    out[i], out[j] = out[j], out[i]
    return tuple(out)


def _extra(value: Exact, rnd: random.Random) -> Exact:
    extra = Fraction(rnd.randint(-5, 5), rnd.choice([1, 1, 2, 3]))
    pos = rnd.randint(0, len(value))
    return value[:pos] + (extra,) + value[pos:]


def _missing(value: Exact, rnd: random.Random) -> Exact:
    if len(value) < 2:
        return value
    i = _pick(value, rnd)
    return value[:i] + value[i + 1:]


VALUE_MISSES: Dict[str, Callable[[Exact, random.Random], Exact]] = {
    "off by one": _off_by_one, "sign flip": _sign_flip, "reciprocal": _reciprocal,
    "numerator or denominator only": _numerator_only, "nearby value": _nearby,
    "swapped components": _swap, "extra component": _extra, "missing component": _missing,
}


def _digit_gap(s: str) -> List[int]:
    """Positions between two adjacent digits of ``s``."""
    return [i for i in range(1, len(s)) if s[i - 1].isdigit() and s[i].isdigit()]


def _splice(s: str, token: str, rnd: random.Random) -> Optional[str]:
    gaps = _digit_gap(s)
    if not gaps:
        return None
    i = rnd.choice(gaps)
    return s[:i] + token + s[i:]


SPLIT_TOKENS = [" ", "  ", "\u00a0", "\u2009", "\\,", "\\;", "\\ ", "\\!", "$$", "``", "** **", "$ $"]
OPERATORS = ["**", "*", "^", "+", "\\cdot ", "\\times ", "\u00b7", "\u00d7", "!", "%", "e", "E"]
RELATIONS = ["x >= ", "x <= ", "x != ", "x \u2260 ", "x \u2265 ", "x \u2264 ", "x < ", "x > ",
             "x \\neq ", "x \\ne ", "x \\geq ", "x \\leq ", "x \\ge ", "x \\le ", "x =< ", "x => ",
             "x \\gt ", "x \\lt "]


def text_misses(inst: Instance, value: Exact, rnd: random.Random) -> List[Case]:
    """Near misses that are not one exact value (or whose value is not what they look like)."""
    out: List[Case] = []
    scalar = inst.answer.type != "tuple"
    exact = render_value(value, inst, rnd)
    canon = inst.answer.value

    # decimals that round to the answer: exactly their written value
    for places in (rnd.randint(1, 4), rnd.randint(5, 14)):
        xs = [rounded_decimal(x, places) for x in value]
        text = xs[0] if scalar else "(" + ", ".join(xs) + ")"
        out.append(Case("rounded decimal", text, tuple(Fraction(x) for x in xs), True))
    x0 = value[0]
    approx = rounded_decimal(x0, rnd.randint(1, 6))
    out.append(Case("approximation", rnd.choice(["\u2248 {}", "\\approx {}", "~{}", "{}...", "{}\u2026",
                                                 "{}\\ldots", "\\approx {}"]).format(approx), None, False))
    out.append(Case("percent", f"{_canon(x0 * 100)}%", None, False))
    out.append(Case("scientific", f"{float(x0):{rnd.choice(['e', '.3e', 'E'])}}", None, False))
    # whitespace or a dropped wrapper between digits: a mixed number, a thousands group, two values
    for token in (rnd.choice(SPLIT_TOKENS), rnd.choice(OPERATORS)):
        spliced = _splice(canon if rnd.random() < 0.7 else exact, token, rnd)
        if spliced is not None:
            out.append(Case("digits split" if token in SPLIT_TOKENS else "operator in a number",
                            spliced, None, False))
    if x0.denominator > 1 and abs(x0) > 1:
        w = abs(x0.numerator) // x0.denominator
        r = abs(x0.numerator) % x0.denominator
        sign = "-" if x0 < 0 else ""
        gap = rnd.choice([" ", "\\,", "~", "\\ "])
        out.append(Case("mixed number", f"{sign}{w}{gap}{r}/{x0.denominator}", None, False))
    if abs(x0) >= 1000 and x0.denominator == 1:
        out.append(Case("thousands separator", f"{x0.numerator:,}", None, False))
    # relations other than '='
    rel = rnd.choice(RELATIONS)
    out.append(Case("relation", rel + (exact if scalar else canon), None, False))
    # a second value as the label, or in a chain
    other = VALUE_MISSES[rnd.choice(["off by one", "nearby value", "sign flip"])](value, rnd)
    if scalar:
        o = render_scalar(other[0], rnd)
        text = rnd.choice(["{o} = {e}", "x = {o} = {e}", "{e} = {o} = {e}"]).format(o=o, e=exact)
        out.append(Case("number as a label", text, value if other == value else None, False))
        same = render_scalar(value[0], rnd)
        out.append(Case("chain of equal values", f"x = {same} = {exact}", value, False))
        out.append(Case("two candidates", rnd.choice(["{e} or {o}", "{o} or {e}", "{e}, {o}", "{e} and {o}",
                                                      ]).format(e=exact, o=o), None, False))
    else:
        o = "(" + ", ".join(_canon(x) for x in other) + ")"
        out.append(Case("numbers as the label tuple", f"{o} = {canon}", value if other == value else None,
                        False))
    # \boxed{} inside an expression, two boxes
    boxed = "\\boxed{" + exact + "}"
    neg = tuple(-x for x in value)
    out.append(Case("sign outside \\boxed", rnd.choice(["-{}", "\u2212{}", "- {}", "-${}$", "-({})",
                                                        "x = -{}"]).format(boxed), neg, False))
    out.append(Case("\\boxed in an expression",
                    rnd.choice(["{b}/2", "2{b}", "{b}2", "{b}.5", "{b}^2", "{b}**2", "3 \\cdot {b}",
                                "\\frac{{{b}}}{{2}}", "\\frac{{1}}{{{b}}}", "{b}%", "{b}!", "1/{b}",
                                "{b}e3", "\\sqrt{{{b}}}", "{b} + 1", "2^{{{b}}}"]).format(b=boxed),
                    None, False))
    o_text = render_value(other, inst, rnd)
    out.append(Case("two \\boxed values", rnd.choice(["\\boxed{{{o}}}, \\boxed{{{e}}}",
                                                      "\\boxed{{{o}}} or \\boxed{{{e}}}"]).format(o=o_text, e=exact),
                    None, False))
    out.append(Case("words around \\boxed", f"The answer is {boxed}.", value, False))
    if not scalar:
        names = list(inst.answer.components)
        n = len(names)
        perm = list(range(n))
        rnd.shuffle(perm)
        comps = [_canon(x) for x in value]
        # a tuple of names in another order with the values not reordered
        said = [Fraction(0)] * n
        for pos, i in enumerate(perm):
            said[i] = value[pos]
        out.append(Case("label tuple in another order", "(" + ", ".join(names[i] for i in perm) + ") = ("
                        + ", ".join(comps) + ")", tuple(said), True))
        bad = list(names)
        bad[rnd.randrange(n)] = rnd.choice(["q9", "z9", "w", bad[(perm[0] + 1) % n]])
        pairs = ", ".join(f"{nm} = {c}" for nm, c in zip(bad, comps))
        out.append(Case("unknown or repeated name", pairs, value if bad == names else None, bad == names))
        head = "(" + ", ".join(bad) + ") = (" + ", ".join(comps) + ")"
        out.append(Case("unknown or repeated name in the label tuple", head,
                        value if bad == names else None, bad == names))
        mixed = ", ".join((f"{nm} = {c}" if i % 2 == 0 else c) for i, (nm, c) in enumerate(zip(names, comps)))
        out.append(Case("some components named", mixed, None, False))
    return out


def near_misses(inst: Instance, rnd: random.Random) -> List[Case]:
    """One input of every near-miss kind (and a few exact forms) for ``inst``'s answer."""
    value = expected_value(inst)
    scalar = inst.answer.type != "tuple"
    cases = [Case("exact form", exact_form(value, inst, rnd), value, True)]
    for kind, miss in VALUE_MISSES.items():
        wrong = miss(value, rnd)
        cases.append(Case(kind, wrap(render_value(wrong, inst, rnd), scalar and len(wrong) == 1, rnd),
                          wrong, True))
    cases += text_misses(inst, value, rnd)
    return cases


# ---------------------------------------------------------------- arbitrary text

ALPHABET = ("0123456789" * 3 + "-+/.,;:()[]{}=$*\\ _^%~`'|<>!?" + "fracdboxedleftrightqxyzabcvPHE"
            + "\u2212\u2044\u00a0\u2009\u2260\u2264\u2265\u2248\u00b7\u00d7\u2026\u00b2\u0663\uff11")


def arbitrary_text(rnd: random.Random) -> str:
    """Random text: mostly number-like, sometimes any code points, sometimes very long."""
    r = rnd.random()
    if r < 0.6:
        return "".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(0, 40)))
    if r < 0.9:
        return "".join(chr(rnd.randint(0, 0x2FFF)) for _ in range(rnd.randint(0, 60)))
    if r < 0.95:
        return rnd.choice(["\\boxed{", "\\frac{", "(", "q0=", "$"]) * rnd.randint(1, 400)
    return "1" * rnd.randint(1990, 2010)


# ---------------------------------------------------------------- the properties

def check(inst: Instance, case: Case) -> Optional[str]:
    """None if ``verify`` handled ``case`` correctly, else what went wrong."""
    try:
        verdict = verify(inst, case.text)
    except Exception as err:  # noqa: BLE001 - the property is that nothing is raised
        return f"raised {type(err).__name__}: {err}"
    if not isinstance(verdict.correct, bool) or verdict.expected != inst.answer.value:
        return f"malformed verdict {verdict}"
    expected = expected_value(inst)
    if verdict.correct:
        if case.value is not UNKNOWN and (case.value is None or case.value != expected):
            return f"wrong value accepted ({case.kind}): text means {case.value}, verdict {verdict}"
        if verdict.parsed != inst.answer.value or parsed_value(verdict.parsed) != expected:
            return f"accepted, but parsed {verdict.parsed!r} is not the stored {inst.answer.value!r}"
    elif case.strict and case.value == expected:
        return f"documented form rejected ({case.kind}): {verdict}"
    return None


INSTANCES = release_instances()
instances = st.sampled_from(INSTANCES)
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _assert_all(inst: Instance, cases: Sequence[Case]) -> None:
    problems = [(c.text, p) for c in cases for p in [check(inst, c)] if p]
    assert not problems, f"{inst.id} answer {inst.answer.value!r}: {problems[:5]}"


def test_release_answers_are_loaded():
    assert len(INSTANCES) > 1000
    assert {i.answer.type for i in INSTANCES} == {"int", "fraction", "tuple", "cell"}


@FUZZ
@given(inst=instances, text=st.text(max_size=200))
def test_arbitrary_text(inst, text):
    _assert_all(inst, [Case("arbitrary", text, UNKNOWN, False)])


@FUZZ
@given(inst=instances, text=st.text(alphabet=ALPHABET, max_size=60))
def test_number_like_text(inst, text):
    _assert_all(inst, [Case("number-like", text, UNKNOWN, False)])


@FUZZ
@given(inst=instances, rnd=st.randoms(use_true_random=False))
def test_near_misses(inst, rnd):
    _assert_all(inst, near_misses(inst, rnd))


@FUZZ
@given(inst=instances, rnd=st.randoms(use_true_random=False))
def test_exact_forms_are_accepted(inst, rnd):
    value = expected_value(inst)
    _assert_all(inst, [Case("exact form", exact_form(value, inst, rnd), value, True) for _ in range(5)])


@FUZZ
@given(inst=instances, rnd=st.randoms(use_true_random=False), data=st.data())
def test_mutated_answers(inst, rnd, data):
    """Character edits of an exact form: whatever is accepted parses to the stored answer."""
    text = list(exact_form(expected_value(inst), inst, rnd))
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(text)))
        op = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        ch = data.draw(st.sampled_from(ALPHABET))
        if op == "insert":
            text.insert(pos, ch)
        elif pos < len(text):
            if op == "delete":
                del text[pos]
            else:
                text[pos] = ch
    verdict = verify(inst, "".join(text))
    if verdict.correct:
        assert verdict.parsed == inst.answer.value
        assert parsed_value(verdict.parsed) == expected_value(inst)


def test_every_release_answer_in_every_form():
    """Deterministic sweep: each distinct stored answer, each near-miss kind."""
    rnd = random.Random(20240607)
    problems = []
    for inst in INSTANCES:
        for case in near_misses(inst, rnd):
            p = check(inst, case)
            if p:
                problems.append((inst.id, case.text, p))
    assert not problems, problems[:10]
