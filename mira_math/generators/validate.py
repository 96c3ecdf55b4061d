"""The three validity checks of docs/benchmark.md §4, run on an instance record as stored.

Each failure names the property: ``schema``, ``consistency``, ``global_uniqueness``,
``local_underdetermination``, ``hint_sufficiency`` or ``chance_level`` (and, across the
instances of a file set, ``duplicate``). The checks read the
stored fields (fact lines, hints, answer), so a hand-edited record fails the property it
breaks, not only a byte comparison.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from itertools import product
from typing import Callable, List, Optional, Sequence, Set

from mira_math.generators.family import Family, Latent, Rendered
from mira_math.generators.schema import Hint, Instance, decode_latent, encode_latent
from mira_math.verifiers.exact import Value, canonical, equal, from_canonical

PROPERTIES = (
    "schema", "consistency", "global_uniqueness", "local_underdetermination",
    "hint_sufficiency", "hint_completeness", "answer_denominator", "chance_level", "duplicate",
    "single_fact_underdetermination",
)


@dataclass(frozen=True)
class Failure:
    id: str
    property: str
    detail: str

    def __str__(self) -> str:
        return f"{self.id}: {self.property}: {self.detail}"


def _same_view(rendered: Rendered, inst: Instance) -> bool:
    return rendered.facts == inst.view.facts


def validate_instance(inst: Instance, family: Family) -> List[Failure]:
    """All failed properties of ``inst`` (empty list: the instance is valid)."""
    out: List[Failure] = []

    def fail(prop: str, detail: str) -> None:
        out.append(Failure(inst.id, prop, detail))

    if inst.family != family.name or inst.type != family.type:
        fail("schema", f"family/type {inst.family}/{inst.type} is not {family.name}/{family.type}")
        return out
    if inst.k != family.k:
        fail("schema", f"{inst.k} hint group(s), but the {family.name} variant withholds {family.k}")
        return out
    if inst.level != family.level(inst.difficulty) or inst.difficulty not in (1, 2, 3):
        fail("schema", f"difficulty {inst.difficulty} with level {inst.level}")
        return out
    if inst.answer.type != family.answer_type:
        fail("schema", f"answer type {inst.answer.type} is not {family.answer_type}")
        return out
    try:
        latent = decode_latent(inst.latent)
        if encode_latent(latent) != inst.latent:
            fail("schema", "latent state is not in canonical form")
        rendered = family.render(latent)
        stored_answer = from_canonical(inst.answer.type, inst.answer.value)
    except Exception as err:  # a corrupted latent state is a finding, not a crash
        fail("schema", f"latent state cannot be read: {type(err).__name__}: {err}")
        return out

    # consistency: the record is the rendering of its latent state
    if not _same_view(rendered, inst):
        fail("consistency", "solver fact lines differ from the rendering of the latent state")
    if (rendered.context, rendered.question, rendered.domain) != (
            inst.view.context, inst.view.question, inst.view.domain):
        fail("consistency", "context/question/domain differ from the rendering of the latent state")
    if rendered.responder != inst.responder:
        fail("consistency", "responder lines differ from the rendering of the latent state")
    if rendered.hints != inst.hints:
        fail("consistency", "hints differ from the rendering of the latent state")
    if rendered.components != inst.answer.components:
        fail("consistency", "answer component names differ")
    if rendered.hint_groups != inst.hint_groups:
        fail("consistency", "hint groups differ from the rendering of the latent state")
    for h in inst.hints:
        if h.constraint not in inst.responder:
            fail("consistency", f"hint line {h.constraint!r} is not one of the responder's lines")

    # 1. global uniqueness: the complete state is well posed and has the stored answer
    try:
        problem = family.check(latent)
        if problem:
            fail("global_uniqueness", problem)
        elif not equal(family.solve(latent), stored_answer):
            fail("global_uniqueness",
                 f"stored answer {inst.answer.value} but the state solves to "
                 f"{canonical(family.answer_type, family.solve(latent))}")
    except Exception as err:
        fail("global_uniqueness", f"{type(err).__name__}: {err}")
    biggest = max(_denominators(stored_answer), default=1)
    if biggest > family.max_answer_denominator:
        fail("answer_denominator", f"reduced denominator {biggest} exceeds "
             f"{family.max_answer_denominator}")

    if family.k > 1:
        out += _multi_fact_proofs(inst, family, latent, rendered, stored_answer)
        return out

    # 2. local underdetermination: two completions of the stored view, different answers
    try:
        known = family.known(latent)
        cands = family.candidates(known)
        if cands is not None:
            if not _same_view(rendered, inst):
                fail("local_underdetermination",
                     "the stored view is not the rendering of its latent state, so its "
                     "completions cannot be enumerated")
            elif len(cands) < 2:
                fail("local_underdetermination", "the solver's view leaves only one possible answer")
            elif not any(equal(c, stored_answer) for c in cands):
                fail("local_underdetermination", "the stored answer is not among the view's candidates")
            if inst.candidate_answers != len(cands):
                fail("chance_level", f"stored {inst.candidate_answers} candidates, found {len(cands)}")
        else:
            if inst.candidate_answers is not None:
                fail("chance_level", "candidate count stored for an infinite answer set")
            alt = family.witness(latent)
            if alt is None:
                fail("local_underdetermination", "no second completion of the solver's view found")
            else:
                alt = decode_latent(encode_latent(alt))
                if family.render(alt).facts != inst.view.facts or family.known(alt) != known:
                    fail("local_underdetermination", "the witness does not reproduce the solver's view")
                elif family.check(alt):
                    fail("local_underdetermination", f"the witness is not valid: {family.check(alt)}")
                elif equal(family.solve(alt), stored_answer):
                    fail("local_underdetermination", "the witness has the same answer")
    except Exception as err:
        fail("local_underdetermination", f"{type(err).__name__}: {err}")

    # 3. hint sufficiency: view + each stored canonical hint gives the stored answer
    for h in inst.hints:
        problem = _sufficiency(family, partial(_complete_one, family, latent, h), h.slot,
                               inst, stored_answer)
        if problem:
            fail("hint_sufficiency", problem)

    # completeness: the responder holds every slot whose value alone fixes the answer
    try:
        resolving = family.resolving_slots(latent)
        if resolving is not None and sorted(h.slot for h in inst.hints) != sorted(resolving):
            fail("hint_completeness", f"canonical hints {[h.slot for h in inst.hints]} are not "
                 f"every single slot that fixes the answer {resolving}")
    except Exception as err:
        fail("hint_completeness", f"{type(err).__name__}: {err}")
    return out


def _multi_fact_proofs(inst: Instance, family: Family, latent: Latent, rendered: Rendered,
                       stored_answer: Value) -> List[Failure]:
    """The proofs of a k >= 2 instance (docs/decisions/data.md): the responder holds
    exactly the hints of the groups; the view alone and the view plus any single hint leave the
    answer open (an explicit second completion, or the enumerated answer set); the view plus
    one hint of each group gives the stored answer (every such choice is tried)."""
    out: List[Failure] = []

    def fail(prop: str, detail: str) -> None:
        out.append(Failure(inst.id, prop, detail))

    if sorted(inst.responder) != sorted(h.constraint for h in inst.hints):
        fail("consistency", "the responder does not hold exactly the hints of the groups")
    try:
        known = family.known(latent)
    except Exception as err:
        fail("local_underdetermination", f"{type(err).__name__}: {err}")
        return out
    same_view = _same_view(rendered, inst)
    for given in [None] + list(inst.hints):
        prop = "local_underdetermination" if given is None else "single_fact_underdetermination"
        label = "the view alone" if given is None else f"the view + {given.slot}"
        try:
            problem = _open_given(family, latent, known, given, inst, stored_answer, same_view)
        except Exception as err:
            problem = f"{type(err).__name__}: {err}"
        if problem:
            fail(prop, f"{label}: {problem}")
    for combo in product(*inst.groups()):
        problem = _sufficiency(family, partial(family.complete_many, known, combo),
                               " + ".join(h.slot for h in combo), inst, stored_answer)
        if problem:
            fail("hint_sufficiency", problem)
    return out


def _complete_one(family: Family, latent: Latent, hint: Hint) -> Latent:
    return family.complete(family.known(latent), hint)


def _sufficiency(family: Family, complete: Callable[[], Latent], names: str, inst: Instance,
                 stored_answer: Value) -> Optional[str]:
    """Why the completion from the named hint(s) does not give the stored answer with the
    solver's view unchanged, or None: the sufficiency proof of k = 1 and k >= 2 alike."""
    try:
        full = decode_latent(encode_latent(complete()))
        if family.render(full).facts != inst.view.facts:
            return f"completion from {names} changes the solver's view"
        if not equal(family.solve(full), stored_answer):
            return (f"view + {names} gives {canonical(family.answer_type, family.solve(full))}, "
                    f"not {inst.answer.value}")
    except Exception as err:
        return f"view + {names}: {type(err).__name__}: {err}"
    return None


def _open_given(family: Family, latent: Latent, known: dict, given: Optional[Hint], inst: Instance,
                stored_answer: Value, same_view: bool) -> Optional[str]:
    """Why the view plus ``given`` (None: nothing) does not leave the answer open, or None."""
    facts: Sequence[Hint] = [] if given is None else [given]
    cands = family.candidates_given(known, facts)
    if cands is not None:
        if given is None and inst.candidate_answers != len(cands):
            return f"stored {inst.candidate_answers} candidates, found {len(cands)} (chance level)"
        if not same_view:
            return "the stored view is not the rendering of its latent state"
        if len(cands) < 2:
            return "only one possible answer"
        if not any(equal(c, stored_answer) for c in cands):
            return "the stored answer is not among the candidates"
        return None
    if given is None and inst.candidate_answers is not None:
        return "candidate count stored for an infinite answer set (chance level)"
    alt = family.witness_given(latent, given)
    if alt is None:
        return "no second completion found"
    alt = decode_latent(encode_latent(alt))
    shown = family.render(alt)
    if shown.facts != inst.view.facts or family.known(alt) != known:
        return "the second completion does not reproduce the solver's view"
    if given is not None and given.constraint not in shown.responder:
        return f"the second completion does not keep {given.slot}"
    if family.check(alt):
        return f"the second completion is not valid: {family.check(alt)}"
    if equal(family.solve(alt), stored_answer):
        return "the second completion has the same answer"
    return None


def _denominators(value: object) -> List[int]:
    if isinstance(value, Fraction):
        return [value.denominator]
    if isinstance(value, (list, tuple)):
        return [d for v in value for d in _denominators(v)]
    return [1]


def failed_properties(inst: Instance, family: Optional[Family] = None) -> Set[str]:
    """The names of the properties ``inst`` fails (empty: valid)."""
    from mira_math.generators import registry

    return {f.property for f in validate_instance(inst, family or registry.get(inst.family, inst.k))}
