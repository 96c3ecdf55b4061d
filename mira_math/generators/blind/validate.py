"""The validator of a stored blind-tier row: every proof of :mod:`.prove` redone from the
record, and the record compared with the rendering of its latent state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List

from mira_math.generators.blind.build import assemble_blind
from mira_math.generators.blind.contract import BlindFamily
from mira_math.generators.blind.prove import ProofError, answer_with
from mira_math.generators.schema import Instance, decode_latent, encode_latent


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
            got = answer_with(family, latent, values, proof.slot, value)
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
