"""One blind-tier instance from its seed, and the tier's split in release order.

A (family, difficulty) block of ``per_type`` instances follows :data:`PLAN`, one kind after
another: the kinds are mixed in every block and their share is the same in every family.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Set, Tuple

from mira_math.generators import registry
from mira_math.generators.blind.contract import BlindFamily, Finite, Reject
from mira_math.generators.build import GenerationError as BuildGenerationError
from mira_math.generators.build import blind_problem_key
from mira_math.generators.layout import BLIND
from mira_math.generators.blind.prove import ProofError, answer_text, make_proofs
from mira_math.generators.schema import (Answer, Gaps, Hint, Instance, View, decode_latent,
                                         dumps_canonical, encode_latent)
from mira_math.generators.seeds import SeedSet, instance_seed, rng_for
from mira_math.verifiers.exact import canonical, from_canonical

BLIND_VERSION = "1.4.0"          # of the blind-tier rows (new in release 1.4.0)
BLIND_PER_TYPE = {"A": 12, "B": 12}
MAX_DRAWS = 500
MAX_RESEEDS = 200

# (kind, needed facts, irrelevant gaps) of the i-th instance of a block, i modulo the plan's
# length; "max" is the family's max_needed (2, or 1 for a family with one needed fact at most)
PLAN: Tuple[Tuple[str, object, int], ...] = (
    ("control", 0, 0),
    ("control", 0, 1),
    ("incomplete", 1, 0),
    ("incomplete", "max", 0),
    ("irrelevant_gaps", 1, 1),
    ("irrelevant_gaps", "max", 1),
)


class GenerationError(BuildGenerationError):
    """A family could not produce a valid blind-tier instance within the bounded draws (the
    one-fact builder's error, so ``generate`` reports it in one line)."""


def plan_of(family: BlindFamily, index: int) -> Tuple[str, int, int]:
    kind, needed, irrelevant = PLAN[index % len(PLAN)]
    return kind, family.max_needed if needed == "max" else int(needed), irrelevant  # type: ignore[call-overload]


def make_blind_instance(family: BlindFamily, difficulty: int, seed: int, index: int, *, id: str,
                        seed_set: str) -> Instance:
    """Regenerate the ``index``-th instance of a block (its kind is :func:`plan_of`) from ``seed``."""
    rng = rng_for(seed)
    kind, k, irrelevant = plan_of(family, index)
    level = family.level(difficulty)
    last = "no draw"
    for _ in range(MAX_DRAWS):
        try:
            latent = family.generate(rng, level)
        except Reject as why:
            last = str(why) or "rejected"
            continue
        latent = decode_latent(encode_latent(latent))
        problem = family.check(latent)
        if problem:
            last = problem
            continue
        needable, gaps = family.needable(latent), family.irrelevant(latent)
        if len(needable) < k or len(gaps) < irrelevant:
            last = "too few needable or irrelevant slots"
            continue
        needed = sorted(rng.sample(needable, k), key=needable.index)
        absent = sorted(rng.sample(gaps, irrelevant), key=gaps.index)
        try:
            inst = assemble_blind(family, kind, difficulty, level, seed, latent, needed, absent,
                                  id=id, seed_set=seed_set)
        except ProofError as why:
            last = str(why)
            continue
        if max(_denominators(inst), default=1) > family.max_answer_denominator:
            last = f"answer denominator above {family.max_answer_denominator}"
            continue
        return inst
    raise GenerationError(f"{family.name} blind d={difficulty} seed={seed}: no valid instance in "
                          f"{MAX_DRAWS} draws (last reason: {last})")


def assemble_blind(family: BlindFamily, kind: str, difficulty: int, level: int, seed: int,
                   latent: dict, needed: Sequence[str], irrelevant: Sequence[str], *, id: str,
                   seed_set: str) -> Instance:
    """The record of a latent state with these slots withheld; :class:`ProofError` when a proof
    fails (a needed slot with no second completion, a gap that changes the answer)."""
    setting = family.setting(latent)
    values = family.values(latent)
    absent = set(needed) | set(irrelevant)
    facts = list(setting.structure) + [family.line(latent, s, values[s])
                                       for s in family.slots(latent) if s not in absent]
    held = [s for s in family.slots(latent) if s in absent]
    hints = [Hint(s, family.line(latent, s, values[s]), values[s]) for s in list(needed) + list(irrelevant)]
    truth = family.answer(latent, values)
    if truth is None:
        raise ProofError("the true values give no answer")
    proofs = make_proofs(family, latent, needed, irrelevant)
    return Instance(
        id=id, family=family.name, type=family.type, difficulty=difficulty, level=level, seed=seed,
        seed_set=seed_set, generator_version=BLIND_VERSION,
        view=View(setting.context, facts, setting.question, setting.domain),
        responder=[family.line(latent, s, values[s]) for s in held], hints=hints,
        answer=Answer(family.answer_type, canonical(family.answer_type, truth), list(setting.components)),
        candidate_answers=candidate_count(family, latent, needed, irrelevant),
        latent=encode_latent(latent), gaps=Gaps(kind, list(needed), list(irrelevant), proofs))


def candidate_count(family: BlindFamily, latent: dict, needed: Sequence[str],
                    irrelevant: Sequence[str]) -> Optional[int]:
    """Answers the view leaves possible, when finite: 1 for a control; for an incomplete row
    whose needed slots all have finite domains, the distinct answers over their product (the
    irrelevant gaps at their true values: they change nothing); else None."""
    if not needed:
        return 1
    domains = [family.domain(latent, s) for s in needed]
    if not all(isinstance(d, Finite) for d in domains):
        return None
    values = family.values(latent)
    answers: Set[str] = set()
    combos: List[Dict[str, str]] = [{}]
    for slot, dom in zip(needed, domains):
        combos = [{**c, slot: v} for c in combos for v in dom.values]  # type: ignore[union-attr]
    for combo in combos:
        got = family.answer(latent, {**values, **combo})
        if got is not None:
            answers.add(answer_text(family, got))
    return len(answers) or None


def _denominators(inst: Instance) -> List[int]:
    value = from_canonical(inst.answer.type, inst.answer.value)
    items = value if isinstance(value, tuple) else (value,)
    return [getattr(v, "denominator", 1) for v in items]


def blind_view_key(inst: Instance) -> str:
    return f"{inst.family}|view|" + dumps_canonical([inst.view.facts, inst.view.question])


def blind_layout(per_type: Mapping[str, int], families: Optional[Sequence[str]] = None,
                 difficulties: Sequence[int] = (1, 2, 3)) -> List[Tuple[str, int, int, str]]:
    """(family, difficulty, index in block, id) in release order; ids count within each family
    (``<family>-blind-00000``) over the full layout, so a subset build keeps them."""
    out = []
    for name in registry.blind_names():
        count = per_type[registry.type_of(name)]
        own = 0
        for d in (1, 2, 3):
            for i in range(count):
                if (families is None or name in families) and d in difficulties:
                    out.append((name, d, i, f"{name}-{BLIND}-{own:05d}"))
                own += 1
    return out


def build_blind_split(seed_set: SeedSet, per_type: Optional[Mapping[str, int]] = None,
                      families: Optional[Sequence[str]] = None, difficulties: Sequence[int] = (1, 2, 3),
                      exclude: Iterable[str] = ()) -> Iterator[Instance]:
    """The tier's instances in release order: no two share a complete problem or a view, none
    shares either with ``exclude`` (both other parts of the split and every split it is
    disjoint from), and no answer value exceeds the family's share of its block. A subset
    build yields the bytes of the full build (lower difficulties are generated, not yielded)."""
    per_type = dict(per_type or BLIND_PER_TYPE)
    top = max(difficulties)
    seen: Set[str] = set(exclude)
    answers: Counter = Counter()
    for name, d, index, ident in blind_layout(per_type, families, (1, 2, 3)):
        if d > top:
            continue
        family = registry.get_blind(name)
        cap = max(1, math.floor(family.max_answer_share * per_type[family.type]))
        for attempt in range(MAX_RESEEDS):
            seed = instance_seed(seed_set, name, d, index, attempt)
            inst = make_blind_instance(family, d, seed, index, id=ident, seed_set=seed_set.name)
            keys = (blind_problem_key(inst), blind_view_key(inst))
            if keys[0] not in seen and keys[1] not in seen and \
                    answers[(name, d, inst.answer.value)] < cap:
                seen.update(keys)
                answers[(name, d, inst.answer.value)] += 1
                break
        else:
            raise GenerationError(f"{name} blind d={d} index {index}: {MAX_RESEEDS} reseeds all "
                                  "repeated a problem or view or hit the answer cap")
        if d in difficulties:
            yield inst
