"""Generation: one instance from its seed, and whole splits in release order (docs/benchmark.md §2)."""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Set

from mira_math.generators import registry
from mira_math.generators.family import Family, Reject
from mira_math.generators.schema import Answer, Instance, View, decode_latent, dumps_canonical, encode_latent
from mira_math.generators.seeds import PUBLIC, SeedSet, instance_seed, rng_for
from mira_math.generators.validate import _denominators, validate_instance
from mira_math.verifiers.exact import canonical, from_canonical

GENERATOR_VERSION = "1.1.0"          # of every v1.1 (k = 1) row: frozen with their bytes
MULTI_HINT_VERSION = "1.3.0"         # of the multi_hint (k = 2) rows (new in 1.2.0, fixed in 1.3.0)
RELEASE_VERSION = "1.4.0"            # the release: v1.1 and multi_hint unchanged plus the blind tier
MAX_DRAWS = 2000          # rejection-sampling bound per seed
MAX_RESEEDS = 200  # reseeds per slot: duplicates, answer cap, answer balance


class GenerationError(RuntimeError):
    """A family could not produce a valid instance within the bounded number of draws."""


def make_instance(family: Family, difficulty: int, seed: int, *, id: str, seed_set: str,
                  validate: bool = True) -> Instance:
    """Regenerate the instance of ``family`` at ``difficulty`` from ``seed`` alone."""
    rng = rng_for(seed)
    level = family.level(difficulty)
    last = "no draw"
    for _ in range(MAX_DRAWS):
        try:
            latent = family.generate(rng, level)
        except Reject as why:
            last = str(why) or "rejected"
            continue
        latent = decode_latent(encode_latent(latent))  # one canonical in-memory form
        problem = family.check(latent)
        if problem:
            last = problem
            continue
        inst = assemble_instance(family, difficulty, level, seed, latent, id=id, seed_set=seed_set)
        if answer_denominator(family, inst) > family.max_answer_denominator:
            last = f"answer denominator above {family.max_answer_denominator}"
            continue  # bounded resampling (MAX_DRAWS); see each family's rate in the card
        if not validate:
            return inst
        failures = validate_instance(inst, family)
        if not failures:
            return inst
        last = str(failures[0])
    raise GenerationError(
        f"{family.name} d={difficulty} seed={seed}: no valid instance in {MAX_DRAWS} draws "
        f"(last reason: {last})")


def assemble_instance(family: Family, difficulty: int, level: int, seed: int, latent: dict, *,
                      id: str, seed_set: str) -> Instance:
    """The record of a given latent state (no validation: tests build hand-made ones)."""
    r = family.render(latent)
    cands = family.candidates(family.known(latent))
    return Instance(
        id=id, family=family.name, type=family.type, difficulty=difficulty, level=level,
        seed=seed, seed_set=seed_set,
        generator_version=GENERATOR_VERSION if family.k == 1 else MULTI_HINT_VERSION,
        view=View(r.context, list(r.facts), r.question, r.domain),
        responder=list(r.responder), hints=list(r.hints),
        answer=Answer(family.answer_type, canonical(family.answer_type, family.solve(latent)),
                      list(r.components)),
        candidate_answers=None if cands is None else len(cands),
        latent=encode_latent(latent), hint_groups=r.hint_groups,
    )


@dataclass(frozen=True)
class Slot:
    """One position of a split: which family, difficulty and per-block index, and its id."""

    family: str
    difficulty: int
    index: int
    id: str


def layout(per_type: Dict[str, int], families: Optional[Sequence[str]] = None,
           difficulties: Sequence[int] = (1, 2, 3), k: int = 1) -> List[Slot]:
    """Positions in release order, with ids no later addition can renumber (docs/decisions/data.md).
    The 22 v1.1 families keep one global counter in release order
    (``bay-000044``, frozen with their bytes); a family added later to the one-fact part counts
    within itself (``<family>-000000``); the k-fact part counts within each family
    (``<family>-k2-00000``). Ids are those of the *full* layout, so a subset build gives each
    instance the id it has in the full split."""
    slots: List[Slot] = []
    position = 0
    for name in registry.names() if k == 1 else registry.multi_hint_names():
        count = per_type[registry.type_of(name)]
        own = 0
        for d in (1, 2, 3):
            for i in range(count):
                if k != 1:
                    ident = f"{name}-k{k}-{own:05d}"
                elif name in registry.V1_1:
                    ident = f"{registry.prefix(name)}-{position:06d}"
                else:
                    ident = f"{name}-{own:06d}"
                if (families is None or name in families) and d in difficulties:
                    slots.append(Slot(name, d, i, ident))
                own += 1
                position += name in registry.V1_1
    return slots


def problem_key(inst: Instance) -> str:
    """Identity of an instance's complete problem (docs/benchmark.md §2): the latent state
    with the slot filled in, without the level and without the choice of the hidden slot,
    so the same problem at another level or with another slot hidden collides."""
    # Plain JSON is enough here (fractions stay canonical "p/q" strings) and cheaper than
    # reviving them; sort_keys keeps the text canonical.
    if inst.blind:
        return blind_problem_key(inst)
    problem = registry.get(inst.family, inst.k).problem(json.loads(inst.latent))
    return f"{inst.family}|problem|" + json.dumps(problem, sort_keys=True, separators=(",", ":"),
                                                   ensure_ascii=False)


def blind_problem_key(inst: Instance) -> str:
    """The complete problem of a blind-tier row: every quantity is in its latent state, so the
    key is that state without the level (the slots withheld are not part of the problem)."""
    problem = {k: v for k, v in json.loads(inst.latent).items() if k != "level"}
    return f"{inst.family}|problem|" + json.dumps(problem, sort_keys=True, separators=(",", ":"),
                                                   ensure_ascii=False)


def view_key(inst: Instance) -> str:
    """Identity of what the solver is asked: its fact lines and question, without the
    level-dependent setup and domain lines (a bound that changes with d is not a new view)."""
    v = inst.view
    return f"{inst.family}|view|" + dumps_canonical([v.facts, v.question])


latent_key = problem_key  # the name the evaluation layer imports (four-shot disjointness)


def instance_keys(inst: Instance) -> tuple:
    """Both disjointness keys of an instance."""
    return problem_key(inst), view_key(inst)


def answer_denominator(family: Family, inst: Instance) -> int:
    """Largest reduced denominator in the answer (every component of a tuple)."""
    return max(_denominators(from_canonical(inst.answer.type, inst.answer.value)), default=1)


def build_split(seed_set: SeedSet = PUBLIC, per_type: Optional[Dict[str, int]] = None,
                families: Optional[Sequence[str]] = None, difficulties: Sequence[int] = (1, 2, 3),
                exclude: Iterable[str] = (), k: int = 1) -> Iterator[Instance]:
    """Instances of a split in release order (with ``k = 2``: of its multi_hint part).

    No two share a complete problem or a solver view, none shares either with ``exclude``
    (keys from :func:`instance_keys`, e.g. of the public release and declared held-out splits), and no answer
    value exceeds the family's ``max_answer_share`` of its (family, difficulty) block.

    A subset build yields exactly the bytes of the full build: these rules are applied per
    family in release order, so lower difficulties of a selected family are generated (not
    yielded) whenever a higher one is asked for.
    """
    per_type = per_type or {"A": 20, "B": 50}
    top = max(difficulties)
    seen: Set[str] = set(exclude)
    answers: Counter = Counter()
    for slot in layout(per_type, families, k=k):
        if slot.difficulty > top:
            continue
        family = registry.get(slot.family, k)
        cap = max(1, math.floor(family.max_answer_share * per_type[family.type]))
        def under_cap(i: Instance, cap: int = cap) -> bool:
            return answers[(i.family, i.difficulty, i.answer.value)] < cap

        inst = _fresh_instance(seed_set, slot, seen, under_cap, k)
        answers[(inst.family, inst.difficulty, inst.answer.value)] += 1
        if slot.difficulty in difficulties:
            yield inst


def _fresh_instance(seed_set: SeedSet, slot: Slot, seen: Set[str],
                    room_for: Callable[[Instance], bool], k: int = 1) -> Instance:
    """The first reseed of ``slot`` whose state and view are new, whose answer value has room
    in its block, and (for two-valued answers) that has the slot's balanced answer."""
    family = registry.get(slot.family, k)
    wanted = family.balanced_answer(slot.index)
    for attempt in range(MAX_RESEEDS):
        seed = instance_seed(seed_set, slot.family, slot.difficulty, slot.index, attempt)
        inst = make_instance(family, slot.difficulty, seed, id=slot.id, seed_set=seed_set.name)
        keys = instance_keys(inst)
        if (keys[0] not in seen and keys[1] not in seen and room_for(inst)
                and (wanted is None or inst.answer.value == wanted)):
            seen.update(keys)
            return inst
    raise GenerationError(f"{slot.family} d={slot.difficulty} index {slot.index}: {MAX_RESEEDS} "
                          "reseeds all repeated a problem or view, hit the answer cap, or "
                          "missed the balanced answer")
