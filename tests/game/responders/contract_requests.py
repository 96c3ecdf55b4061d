"""Adversarial request corpora for the request rule (docs/benchmark.md §6, "The request
rule"), one corpus per class, with the right decision of every request fixed by construction
from the rule's text, not from what the rules responder does today.

Every request is written on a release instance (one-fact rows of every family, two-fact rows
of every family that has them) in the family's own notation, read from the instance: the held
slot from ``hints[k].slot`` (the line to offer is ``hints[k].constraint``), the target from
the question (its notation and its own words), the solver's facts from the view.

- ``purpose``: a quantity named only in a stated purpose is context -> offer the held line;
- ``given``: quantities named as givens are context -> offer;
- ``recap``: facts recapped with their values are context -> offer;
- ``target``: the target asked in any wording (notation, the question's own words, a product
  or power of the matrix, the posterior in words) -> decline;
- ``derived``: a quantity derived from the held one (``1 - P(H)``, ``c + 1``) -> decline;
- ``two quantities``: two quantities asked for -> decline.

Deterministic: fixed instance order, forms taken in turn, no randomness.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Dict, Iterator, List, Optional, Tuple

from mira_math.generators.schema import Hint, Instance
from tests.game.contract_corpus import sample_instances, target

CLASSES = ("purpose", "given", "recap", "target", "derived", "two quantities")


@dataclass(frozen=True)
class Request:
    corpus: str                 # one of CLASSES
    form: str
    instance: Instance
    text: str
    offer: bool                 # is an offer the right decision?
    line: Optional[str]         # the private line to offer (None for a decline)


# ---------------------------------------------------------------- what the instance says

def words(inst: Instance) -> Optional[str]:
    """The target in the question's own words, where the question has them: its appositive
    (``pi_2, the stationary probability of state 2`` -> ``the stationary probability of state 2``)
    or a phrase that opens with "the" (``the distance |PQ|``)."""
    q = inst.view.question
    m = re.search(r"[Ww]hat (?:is|are) (.*?)\?", q)
    if m is None:
        return None
    phrase = m.group(1)
    app = re.search(r", (the [^,]+)", phrase)
    if app:
        return app.group(1)
    if phrase.startswith("the "):
        return phrase.split(", ")[0]
    return None


_NOT_A_QUANTITY = re.compile(r"^(?:Network|The |f\(x\))|\+|^\d")


def fact_labels(inst: Instance) -> List[str]:
    """Labels of the solver's facts that name one quantity (``P(E|H)``, ``row 0 sum``,
    ``congruence 1``); equations, sentences and the network layout are left out."""
    out: List[str] = []
    for fact in inst.view.facts:
        if ":" in fact:
            label = fact.split(":")[0]
        elif fact.count("=") == 1:
            label = fact.split(" = ")[0]
        else:
            continue
        label = label.strip()
        if label and len(label.split()) <= 3 and not _NOT_A_QUANTITY.search(label) \
                and label not in {h.slot for h in inst.hints}:
            out.append(label)
    return out


_NON_NUMERIC = re.compile(r"^(?:congruence|line|eq|equation|query point|rule|Q$|nodes|sum$)")


def numeric(slot: str) -> bool:
    """Whether the held slot is a number (so a derived quantity of it makes sense)."""
    return not _NON_NUMERIC.match(slot)


def _paren(slot: str) -> str:
    return f"({slot})" if (" " in slot or "+" in slot) else slot


# ---------------------------------------------------------------- forms

# A form takes (instance, held hint) and returns the text, or None where it does not apply.
Form = Callable[[Instance, Hint], Optional[str]]


def _with_target(fmt: str) -> Form:
    return lambda i, h: fmt.format(S=h.slot, T=target(i))


def _with_words(fmt: str) -> Form:
    def form(i: Instance, h: Hint) -> Optional[str]:
        w = words(i)
        return None if w is None else fmt.format(S=h.slot, T=w)
    return form


_PURPOSES = [
    "To compute {T}, what is {S}?",
    "In order to find {T}, could you tell me {S}?",
    "What is {S}? It's needed to find {T}.",
    "What is {S}? I need it to compute {T}.",
    "What is {S}? It is needed for {T}.",
    "Needed for {T}: what is {S}?",
    "What is {S}, so that I can compute {T}?",
    "Please tell me {S} so that I can find {T}.",
    "What is {S}? Without it I cannot find {T}.",
    "Without {S} I cannot compute {T}. What is {S}?",
    "I am trying to find {T}. What is {S}?",
    "I'm trying to find {T}; what is {S}?",
    "For the purpose of computing {T}, what is {S}?",
    "What is {S}, which I'll use to get {T}?",
    "Could you tell me {S} in order to determine {T}?",
    "I need {S} to compute {T}.",
    "What is the value of {S}? I'll use it to calculate {T}.",
    "What is {S} (needed to compute {T})?",
    "To work out {T}, I need one thing: what is {S}?",
    "So that I can compute {T}, please give me {S}.",
]
_PURPOSES_IN_WORDS = [
    "To compute {T}, what is {S}?",
    "I am trying to find {T}. What is {S}?",
    "What is {S}? It's needed to find {T}.",
    "What is {S}, so that I can determine {T}?",
    "In order to find {T}, I need {S}.",
]

PURPOSE: Dict[str, Form] = {"control: What is <held>?": lambda i, h: f"What is {h.slot}?"}
PURPOSE.update({f: _with_target(f) for f in _PURPOSES})
PURPOSE.update({f"{f} (target in words)": _with_words(f) for f in _PURPOSES_IN_WORDS})


def _with_family_wording(fmt: str, k: int) -> Form:
    def form(i: Instance, h: Hint) -> Optional[str]:
        ws = _family_wordings(i)
        return None if k >= len(ws) else fmt.format(S=h.slot, T=ws[k])
    return form


_PURPOSES_IN_FAMILY_WORDS = [
    ("To compute {T}, what is {S}?", 0),
    ("What is {S}? I need it for {T}.", 1),
    ("I am trying to find {T}. What is {S}?", 2),
    ("What is {S}, so that I can work out {T}?", 3),
]


def _labels(k: int, fmt: str) -> Form:
    def form(i: Instance, h: Hint) -> Optional[str]:
        ls = fact_labels(i)
        if len(ls) < k:
            return None
        return fmt.format(S=h.slot, A=ls[0], B=ls[1] if k > 1 else "", T=target(i))
    return form


def _facts(k: int, fmt: str) -> Form:
    def form(i: Instance, h: Hint) -> Optional[str]:
        fs = list(i.view.facts)
        if len(fs) < k:
            return None
        return fmt.format(S=h.slot, F=fs[0], G=fs[1] if k > 1 else "", T=target(i))
    return form


GIVEN: Dict[str, Form] = {
    "Given A and B, what is <held>?": _labels(2, "Given {A} and {B}, what is {S}?"),
    "Given A, what is <held>?": _labels(1, "Given {A}, what is {S}?"),
    "Given that <fact>, what is <held>?": _facts(1, "Given that {F}, what is {S}?"),
    "With A and B known, what is <held>?": _labels(2, "With {A} and {B} known, what is {S}?"),
    "Since I already have A, tell me <held>": _labels(1, "Since I already have {A}, could you tell me {S}?"),
    "Given A, I still need <held>.": _labels(1, "Given {A}, I still need {S}."),
    "Given the facts F and G, what is <held>?": _facts(2, "Given the facts {F} and {G}, what is {S}?"),
    "Using A and B, what is <held>?": _labels(2, "Using {A} and {B}, what is {S}?"),
    "Given A and B, what is <held>? (for the target)": _labels(
        2, "Given {A} and {B}, what is {S}? I need it for {T}."),
}

RECAP: Dict[str, Form] = {
    "I know F; what is <held>?": _facts(1, "I know {F}; what is {S}?"),
    "I know F and G. What is <held>?": _facts(2, "I know {F} and {G}. What is {S}?"),
    "I have F. Tell me <held>.": _facts(1, "I have {F}. Tell me {S}."),
    "From the problem, F. What is <held>?": _facts(1, "From the problem, {F}. What is {S}?"),
    "We are told F. I need <held>.": _facts(1, "We are told {F}. I need {S}."),
    "So far: F, G. What is <held>?": _facts(2, "So far: {F}, {G}. What is {S}?"),
    "The facts say F. Could you give me <held>?": _facts(1, "The facts say {F}. Could you give me {S}?"),
    "recap after the question": _facts(1, "What is {S}? I already know {F}."),
}


# ---------------------------------------------------------------- the target, in other words

def _family_wordings(inst: Instance) -> List[str]:
    """The target as a model may write it in words or other notation, per family; built from
    the target read off the question (indices and symbols come from it)."""
    t, fam = target(inst), inst.family
    nums = re.findall(r"-?\d+", t)
    if fam == "bayes_missing_prior":
        return ["the probability of H given that E occurred", "the posterior", "the posterior probability of H",
                "the chance of H once E is observed", "P(H | E)", "the probability of H given E",
                "P(H given E)", "the updated probability of H after seeing E", "Pr(H|E)", "P(H∣E)"]
    if fam == "eigenvector_missing_entry":
        i, j = nums[-2], nums[-1]
        return [f"(M·M)[{i}][{j}]", f"(M*M)[{i}][{j}]", f"(M^2)[{i}][{j}]", f"M squared's ({i},{j}) entry",
                f"the ({i},{j}) entry of M squared", f"(M @ M)[{i}][{j}]", f"(M**2)[{i}][{j}]",
                f"M^2[{i}][{j}]", f"the ({i},{j}) entry of M times M", f"(MM)[{i}][{j}]"]
    if fam == "circuit_missing_resistance":
        return ["the equivalent resistance", "the total resistance of the network", "R_{eq}", "Req",
                "the overall resistance", "the resistance between the terminals"]
    if fam == "portfolio_variance_missing_corr":
        return ["the variance of the portfolio", "σ_p²", "the portfolio's variance",
                "the variance of the portfolio return"]
    if fam in ("birth_death_missing_rate", "markov_missing_transition"):
        (k,) = nums
        return [f"π_{k}", f"the stationary probability of state {k}", f"pi({k})",
                f"the long-run probability of state {k}", f"the limiting probability of state {k}",
                f"the fraction of time spent in state {k}"]
    if fam == "geometry_coordinates":
        return ["the distance between P and Q", "|P Q|", "the length of PQ", "the length of segment PQ"]
    if fam == "steady_state_missing_emission":
        (k,) = nums
        return [f"the probability of observing o{k}", f"the probability that an observation is o{k}", t,
                f"the long-run frequency of symbol o{k}", f"the stationary probability of observing symbol o{k}"]
    if fam == "discrete_tomography":
        i, j = nums
        return [f"the value in row {i}, column {j}", f"cell ({i}, {j})", f"cell [{i}][{j}]",
                f"the entry at row {i}, column {j}"]
    if fam == "laplace_grid":
        i, j = nums
        return [f"u_{{{i},{j}}}", f"u[{i},{j}]", f"the interior value u({i},{j})",
                f"the value at interior point ({i},{j})"]
    if fam == "poly_interpolation":
        (k,) = nums
        return [f"p at x = {k}", f"the value of p at {k}", f"P({k})", f"p evaluated at {k}",
                f"the value of the polynomial at x = {k}"]
    if fam == "recurrence_missing_init":
        (k,) = nums
        return [f"a_{k}", f"a_{{{k}}}", f"the term a({k})", f"the value of a at {k}"]
    if fam == "linear_system_missing_coeff":
        (k,) = nums
        return [f"x_{k}", f"x_{{{k}}}", f"the unknown x[{k}]"]
    if fam == "matrix_completion":
        return [f"m_{{{t[1:]}}}", f"m_{t[1:]}", f"the entry m{t[1:]}", f"the missing entry m_{t[1:]}"]
    if fam == "piecewise_missing_threshold":
        if nums:
            (k,) = nums
            return [f"the value of f at {k}", f"f at x = {k}", f"f({k}) exactly", f"f evaluated at {k}"]
        return ["the value of f at the query point", "f(query point)"]
    if fam == "crt_reconstruction":
        return ["the unique integer x", "the integer x that satisfies all the congruences",
                "the smallest non-negative solution x"]
    if fam in ("deconvolution", "phase_retrieval"):
        return ["the signal", "the whole signal " + t, "the signal x"]
    if fam == "graph_path_sums":
        return ["the edge weights", "all three edge weights"]
    if fam == "moment_problem":
        return ["the weights", "all the weights " + t]
    if fam == "linear_system_separator":
        return ["the values of a, b and c", "the triple (a, b, c)"]
    if fam == "rankdef_linear_shared":
        return ["the solution (x, y, z)", "the values of x, y and z"]
    return []


def _target_forms() -> Dict[str, Form]:
    forms: Dict[str, Form] = {
        "What is <target>?": lambda i, h: f"What is {target(i)}?",
        "the question verbatim": lambda i, h: i.view.question,
        "the question's first sentence": lambda i, h: i.view.question.split("?")[0] + "?",
        "Could you tell me <the question's words>?": _with_words("Could you tell me {T}?"),
        "What is <the question's words>?": _with_words("What is {T}?"),
        "Tell me <target>.": lambda i, h: f"Tell me {target(i)}.",
        "I need <target>.": lambda i, h: f"I need {target(i)}.",
        "What is <target>? I need it to finish.": lambda i, h: f"What is {target(i)}? I need it to finish.",
        "To compute <held>, what is <target>?": lambda i, h: f"To compute {h.slot}, what is {target(i)}?",
        "Given <held>, what is <target>?": lambda i, h: f"Given {h.slot}, what is {target(i)}?",
    }
    for k in range(10):
        def family_form(i: Instance, h: Hint, k: int = k) -> Optional[str]:
            ws = _family_wordings(i)
            if k >= len(ws):
                return None
            verb = "are" if re.match(r"(?:the values|all|the weights|the edge weights|the solution)", ws[k]) else "is"
            return f"What {verb} {ws[k]}?"
        forms[f"family wording {k}"] = family_form
    return forms


TARGET = _target_forms()
PURPOSE.update({f"{f} (target in the family's words, {k})": _with_family_wording(f, k)
                for f, k in _PURPOSES_IN_FAMILY_WORDS})


# ---------------------------------------------------------------- derived and two quantities

def _derived(fmt: str) -> Form:
    return lambda i, h: fmt.format(S=_paren(h.slot)) if numeric(h.slot) else None


DERIVED: Dict[str, Form] = {f: _derived(f) for f in [
    "What is 1 - {S}?", "What is {S}^2?", "What is {S} + 1?", "What is twice {S}?", "What is 2*{S}?",
    "What is {S} squared?", "What is half of {S}?", "What is -{S}?", "What is {S}/2?",
    "What is the square of {S}?", "What is 1/{S}?", "What is {S} - 1?", "What is 3 times {S}?",
    "To compute the target, what is 1 - {S}?"]}
DERIVED["bayes: P(¬H)"] = lambda i, h: "What is P(¬H)?" if h.slot == "P(H)" else None
DERIVED["bayes: P(not H)"] = lambda i, h: "What is P(not H)?" if h.slot == "P(H)" else None


def _second(fmt: str) -> Form:
    """Two quantities: the held slot and the first fact label (or the target)."""
    def form(i: Instance, h: Hint) -> Optional[str]:
        ls = fact_labels(i)
        if "{A}" in fmt and not ls:
            return None
        if "{B}" in fmt and len(ls) < 2:
            return None
        return fmt.format(S=h.slot, T=target(i), A=ls[0] if ls else "", B=ls[1] if len(ls) > 1 else "")
    return form


def _other_held(fmt: str) -> Form:
    """Two held quantities (the two-fact rows and the families that hold several lines)."""
    def form(i: Instance, h: Hint) -> Optional[str]:
        others = [o.slot for o in i.hints if o.slot != h.slot]
        return None if not others else fmt.format(S=h.slot, O=others[0])
    return form


TWO: Dict[str, Form] = {
    "What are <held> and <target>?": _second("What are {S} and {T}?"),
    "What is <held> and what is <target>?": _second("What is {S} and what is {T}?"),
    "What is <held>? And what is <target>?": _second("What is {S}? And what is {T}?"),
    "What are <held> and A?": _second("What are {S} and {A}?"),
    "Tell me <held>, and also A.": _second("Tell me {S}, and also {A}."),
    "What are <held>, A and B?": _second("What are {S}, {A} and {B}?"),
    "Give me <held> or A.": _second("Give me {S} or {A}."),
    "What is <held>? Also, what is A?": _second("What is {S}? Also, what is {A}?"),
    "I need <held> and A.": _second("I need {S} and {A}."),
    "To compute <target>, what are <held> and A?": _second("To compute {T}, what are {S} and {A}?"),
    "What are <held> and <other held>?": _other_held("What are {S} and {O}?"),
    "What is <held>? And <other held>?": _other_held("What is {S}? And {O}?"),
    "I need <held>, then <other held>.": _other_held("I need {S}, then {O}."),
}


# ---------------------------------------------------------------- the corpora

PLAN: List[Tuple[str, Dict[str, Form], bool]] = [
    ("purpose", PURPOSE, True), ("given", GIVEN, True), ("recap", RECAP, True),
    ("target", TARGET, False), ("derived", DERIVED, False), ("two quantities", TWO, False),
]


def _pairs(instances: List[Instance]) -> List[List[Tuple[Instance, Hint]]]:
    """Per family (sorted), every (instance, held hint) pair in file order."""
    groups: Dict[str, List[Tuple[Instance, Hint]]] = {}
    for inst in instances:
        for hint in inst.hints:
            groups.setdefault(inst.family, []).append((inst, hint))
    return [groups[f] for f in sorted(groups)]


def requests(instances: Optional[List[Instance]] = None, rounds: int = 2) -> List[Request]:
    """Every form ``rounds`` times per family, on the family's (instance, held hint) pairs
    taken in turn, so that every sampled pair is used."""
    instances = sample_instances() if instances is None else instances
    out: List[Request] = []
    k = 0
    for group in _pairs(instances):
        for _ in range(rounds):
            for corpus, forms, offer in PLAN:
                for form, build in forms.items():
                    inst, hint = group[k % len(group)]
                    k += 1
                    text = build(inst, hint)
                    if text is not None:
                        out.append(Request(corpus, form, inst, text, offer, hint.constraint if offer else None))
    return out


def by_class(reqs: List[Request]) -> Iterator[Tuple[str, List[Request]]]:
    for corpus in CLASSES:
        yield corpus, [r for r in reqs if r.corpus == corpus]
