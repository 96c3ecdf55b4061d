"""One source record as our :class:`~mira_math.generators.schema.Instance`: the family's converter,
then our family code completes the latent state from the solver view and the canonical hint;
the answer is their ``global_solution`` (:func:`their_answer`)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

from mira_math.game.slots import UNPARSED, line_slot
from mira_math.generators import registry
from mira_math.generators.family import Family
from mira_math.generators.schema import Answer, Hint, Instance, View, decode_latent, encode_latent
from mira_math.reference_import.converters import CONVERTERS, Conversion
from mira_math.reference_import.record import FormatError, Record
from mira_math.verifiers.exact import Value, canonical

IMPORT_VERSION = "reference-import-1"


def their_answer(rec: Record, family: Family, components: Sequence[str]) -> Value:
    """Their ``global_solution`` as a value of our family's answer type."""
    sol = rec.solution
    if not isinstance(sol, dict) or not sol:
        raise FormatError(f"{rec.id}: global_solution is not a non-empty object")
    if family.answer_type == "tuple":
        if set(sol) != set(components):
            raise FormatError(f"{rec.id}: global_solution names {sorted(sol)}, our answer "
                              f"components are {list(components)}")
        return tuple(_scalar(sol[c], rec.id) for c in components)
    if set(sol) == {"numerator", "denominator"}:
        ratio = Fraction(_scalar(sol["numerator"], rec.id), _scalar(sol["denominator"], rec.id))
        return ratio.numerator if ratio.denominator == 1 else ratio
    if len(sol) == 1:
        return _scalar(next(iter(sol.values())), rec.id)
    raise FormatError(f"{rec.id}: cannot read global_solution {sol} as one {family.answer_type}")


def _scalar(v: Any, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise FormatError(f"{where}: answer value {v!r} is not an integer")
    return v


@dataclass
class Converted:
    record: Record
    conversion: Conversion
    instance: Instance
    hint: Hint


def _slot_for(family: Family, rec: Record, ours: str) -> str:
    """The canonical slot id: our family's where its ``complete`` reads the slot, else the id
    the rules responder reads from their hint line (so the scripted reference solver's request
    names it), else our family's slot name."""
    if ours:
        return ours
    read = line_slot(family.name, rec.hint_line)
    if not read.startswith(UNPARSED):
        return read
    rendered_slot = {"crt_reconstruction": "congruence 3", "graph_path_sums": "s3",
                     "linear_system_separator": "c", "matrix_completion": "m10",
                     "moment_problem": "q1 + 4q2", "piecewise_missing_threshold": "t"}
    return rendered_slot.get(family.name, "")


def convert_record(rec: Record, seed_set: str) -> Converted:
    """Our instance for one source record (answer = their global_solution)."""
    try:
        family = registry.get(rec.family)
    except KeyError as err:
        raise FormatError(f"{rec.id}: {err}") from None
    level = family.level(rec.difficulty)
    if family.name not in CONVERTERS:
        raise FormatError(f"{rec.id}: family {family.name!r} has no paper source: the reference "
                          f"release has no such family and the importer no converter for it")
    try:
        conv = CONVERTERS[family.name](rec, level)
    except FormatError:
        raise
    except (KeyError, TypeError, ValueError, IndexError) as err:
        raise FormatError(f"{rec.id}: cannot read the record: {type(err).__name__}: {err}") from None
    if rec.extra_hints:
        conv.findings.append(("setup", f"{len(rec.extra_hints)} further atomic hint(s) not "
                                       f"converted; the first one is the canonical hint"))
    slot = _slot_for(family, rec, conv.slot)
    hint = Hint(slot, rec.hint_line, conv.value)
    try:
        latent = family.complete(conv.known, hint)
        if conv.finish:
            latent = conv.finish(latent)
        latent = decode_latent(encode_latent(latent))
    except Exception as err:
        raise FormatError(f"{rec.id}: our {family.name} code cannot rebuild the state from the "
                          f"solver view and the hint: {type(err).__name__}: {err}") from None
    try:
        components = family.render(latent).components
    except Exception:
        components = list(rec.solution) if family.answer_type == "tuple" else []
    value = their_answer(rec, family, components)
    try:
        answer_text = canonical(family.answer_type, value)
    except (TypeError, ValueError) as err:
        raise FormatError(f"{rec.id}: global_solution {rec.solution} is not a "
                          f"{family.answer_type} answer: {err}") from None
    if conv.candidates_override:
        cands = conv.candidates
    else:
        try:
            found = family.candidates(conv.known)
            cands = len(found) if found is not None else None
        except Exception:
            cands = None
    inst = Instance(
        id=rec.id, family=family.name, type=family.type, difficulty=rec.difficulty,
        level=level, seed=0, seed_set=seed_set, generator_version=IMPORT_VERSION,
        view=View(conv.context, list(rec.a_text), conv.question, conv.domain),
        responder=list(rec.b_text), hints=[hint],
        answer=Answer(family.answer_type, answer_text, list(components)),
        candidate_answers=cands, latent=encode_latent(latent),
    )
    return Converted(rec, conv, inst, hint)
