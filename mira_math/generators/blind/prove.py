"""The blind tier's proofs, made when an instance is built and redone from the stored record
by the validator (docs/decisions/data-blind-tier.md).

For a row with needed slots N and irrelevant gaps G (true values elsewhere):

- *necessary*: each needed slot has a second completion, another value of its stated domain
  that gives a valid problem (the view, every other held fact at its true value) with another
  answer;
- *irrelevant*: each gap gives the row's answer at every value of its domain: every value of a
  finite domain, or ``degree + 1`` points of an infinite one on which the answer is a ratio of
  polynomials of at most that degree (:class:`~mira_math.generators.blind.contract.Rational`);
- *sufficient*: with the needed facts given, the only unknowns left are the gaps, and the
  irrelevance proofs show the answer is the same for every value of them (one gap per row at
  most, so no joint proof is needed); a control has no needed slot, so it is determined by
  its view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

from mira_math.generators.blind.contract import BlindFamily, Finite, Rational
from mira_math.generators.schema import GapProof, Instance, decode_latent, encode_latent
from mira_math.verifiers.exact import Value, canonical

MAX_ENUMERATION = 400     # a finite domain is enumerated whole; larger ones must use Rational


class ProofError(ValueError):
    """A proof that cannot be made: the draw is rejected."""


def answer_text(family: BlindFamily, value: Value) -> str:
    return canonical(family.answer_type, value)


def _answer_with(family: BlindFamily, latent: dict, values: Dict[str, str], slot: str,
                 value: str) -> Optional[str]:
    got = family.answer(latent, {**values, slot: value})
    return None if got is None else answer_text(family, got)


def second_completion(family: BlindFamily, latent: dict, slot: str) -> GapProof:
    values = family.values(latent)
    truth = _answer_with(family, latent, values, slot, values[slot])
    dom = family.domain(latent, slot)
    tried = list(family.alternatives(latent, slot))
    if isinstance(dom, Finite):
        tried += dom.values
    for value in tried:
        if value == values[slot]:
            continue
        got = _answer_with(family, latent, values, slot, value)
        if got is not None and got != truth:
            return GapProof(slot, "needed", "second_completion", [value], [got])
    raise ProofError(f"needed slot {slot}: no second completion among {len(tried)} values")


def irrelevance(family: BlindFamily, latent: dict, slot: str) -> GapProof:
    values = family.values(latent)
    truth = _answer_with(family, latent, values, slot, values[slot])
    dom = family.domain(latent, slot)
    if isinstance(dom, Finite):
        if len(dom.values) > MAX_ENUMERATION:
            raise ProofError(f"gap {slot}: a finite domain of {len(dom.values)} values is too large")
        points, method, degree, reason = list(dom.values), "enumeration", None, ""
    elif isinstance(dom, Rational):
        points, method, degree, reason = list(dom.points), "degree", dom.degree, dom.reason
        if len(set(points)) < dom.degree + 1:
            raise ProofError(f"gap {slot}: {len(set(points))} points for degree {dom.degree}")
    else:
        raise ProofError(f"gap {slot}: no domain to prove over")
    answers = []
    for value in points:
        got = _answer_with(family, latent, values, slot, value)
        if got is None or got != truth:
            raise ProofError(f"gap {slot}: the answer at {value} is {got}, not {truth}")
        answers.append(got)
    return GapProof(slot, "irrelevant", method, points, answers, degree, reason)


def make_proofs(family: BlindFamily, latent: dict, needed: Sequence[str],
                irrelevant: Sequence[str]) -> List[GapProof]:
    return ([second_completion(family, latent, s) for s in needed]
            + [irrelevance(family, latent, s) for s in irrelevant])


@dataclass(frozen=True)
class ProofCounts:
    """What validating one row proved."""

    second_completions: int = 0
    enumerations: int = 0
    degree_proofs: int = 0


def prove_instance(inst: Instance, family: BlindFamily) -> "tuple[List[str], ProofCounts]":
    """Redo every proof of a stored blind-tier row from its record: the view and holder lines
    are the rendering of its latent state with exactly the recorded slots withheld, the answer
    is the true one, each stored proof is what the family's answer gives (a second completion
    with another answer, every point of an irrelevance proof with the row's answer), and a
    finite domain is enumerated whole. Returns (problems, counts)."""
    from mira_math.generators.blind.build import assemble_blind   # the builder imports this module

    problems: List[str] = []
    gaps = inst.gaps
    if gaps is None:
        return ["not a blind-tier row"], ProofCounts()
    try:
        latent = decode_latent(inst.latent)
        if encode_latent(latent) != inst.latent:
            problems.append("latent state is not in canonical form")
        rebuilt = assemble_blind(family, gaps.kind, inst.difficulty, inst.level, inst.seed, latent,
                                 gaps.needed, gaps.irrelevant, id=inst.id, seed_set=inst.seed_set)
    except ProofError as err:
        return [f"proof: {err}"], ProofCounts()
    except Exception as err:   # a corrupted latent state is a finding, not a crash
        return [f"latent state cannot be read: {type(err).__name__}: {err}"], ProofCounts()
    for name in ("view", "responder", "hints", "answer", "candidate_answers"):
        if getattr(rebuilt, name) != getattr(inst, name):
            problems.append(f"{name} differs from the rendering of the latent state")
    expected_kind = "control" if not gaps.needed else ("irrelevant_gaps" if gaps.irrelevant else "incomplete")
    if gaps.kind != expected_kind:
        problems.append(f"kind {gaps.kind!r} with {len(gaps.needed)} needed and "
                        f"{len(gaps.irrelevant)} irrelevant slots (expected {expected_kind!r})")
    if len(gaps.irrelevant) > 1:
        problems.append("more than one irrelevant gap (the sufficiency proof takes one)")
    if len(gaps.needed) > family.max_needed:
        problems.append(f"{len(gaps.needed)} needed facts, above the family's {family.max_needed}")
    if rebuilt.gaps is not None and rebuilt.gaps.proofs != gaps.proofs:
        problems.append("stored proofs differ from the proofs redone from the latent state")
    values = family.values(latent)
    for proof in gaps.proofs:    # each stored proof checked on its own terms as well
        for value, said in zip(proof.values, proof.answers):
            got = _answer_with(family, latent, values, proof.slot, value)
            if got != said:
                problems.append(f"proof of {proof.slot}: the answer at {value} is {got}, not {said}")
        if proof.role == "needed" and inst.answer.value in proof.answers:
            problems.append(f"proof of {proof.slot}: the second completion has the row's answer")
        if proof.role == "irrelevant" and any(a != inst.answer.value for a in proof.answers):
            problems.append(f"proof of {proof.slot}: an irrelevant gap changes the answer")
    counts = ProofCounts(
        sum(p.role == "needed" for p in gaps.proofs),
        sum(p.method == "enumeration" for p in gaps.proofs),
        sum(p.method == "degree" for p in gaps.proofs))
    return problems, counts
