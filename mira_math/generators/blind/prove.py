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

from typing import Dict, List, Optional, Sequence

from mira_math.generators.blind.contract import BlindFamily, Finite, Rational
from mira_math.generators.schema import GapProof
from mira_math.verifiers.exact import Value, canonical

MAX_ENUMERATION = 400     # a finite domain is enumerated whole; larger ones must use Rational


class ProofError(ValueError):
    """A proof that cannot be made: the draw is rejected."""


def answer_text(family: BlindFamily, value: Value) -> str:
    return canonical(family.answer_type, value)


def answer_with(family: BlindFamily, latent: dict, values: Dict[str, str], slot: str,
                 value: str) -> Optional[str]:
    got = family.answer(latent, {**values, slot: value})
    return None if got is None else answer_text(family, got)


def second_completion(family: BlindFamily, latent: dict, slot: str) -> GapProof:
    values = family.values(latent)
    truth = answer_with(family, latent, values, slot, values[slot])
    dom = family.domain(latent, slot)
    tried = list(family.alternatives(latent, slot))
    if isinstance(dom, Finite):
        tried += dom.values
    for value in tried:
        if value == values[slot]:
            continue
        got = answer_with(family, latent, values, slot, value)
        if got is not None and got != truth:
            return GapProof(slot, "needed", "second_completion", [value], [got])
    raise ProofError(f"needed slot {slot}: no second completion among {len(tried)} values")


def irrelevance(family: BlindFamily, latent: dict, slot: str) -> GapProof:
    values = family.values(latent)
    truth = answer_with(family, latent, values, slot, values[slot])
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
        got = answer_with(family, latent, values, slot, value)
        if got is None or got != truth:
            raise ProofError(f"gap {slot}: the answer at {value} is {got}, not {truth}")
        answers.append(got)
    return GapProof(slot, "irrelevant", method, points, answers, degree, reason)


def make_proofs(family: BlindFamily, latent: dict, needed: Sequence[str],
                irrelevant: Sequence[str]) -> List[GapProof]:
    return ([second_completion(family, latent, s) for s in needed]
            + [irrelevance(family, latent, s) for s in irrelevant])
