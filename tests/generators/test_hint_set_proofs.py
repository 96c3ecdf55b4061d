"""Hints drawn from fewer than k groups leave the answer open, several alternatives of one group
together included: the validator's proof, the rankdef two-fact family that 1.2.0 got wrong (eq3
and eq4 together fixed the answer), and a scripted solver asking for both alternatives."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import re

import pytest

from mira_math.game.episode import Episode
from mira_math.game.messages import Completion
from mira_math.generators import registry
from mira_math.generators.build import assemble_instance
from mira_math.generators.families.rankdef_linear_shared import RankdefLinearShared
from mira_math.generators.layout import DEFAULT_RELEASE
from mira_math.generators.release import multi_hint_files
from mira_math.generators.schema import read_jsonl
from mira_math.generators.validate import short_hint_sets, validate_instance
from mira_math.integrations.common import play

RANKDEF = "rankdef_linear_shared"


def _rows(family=None):
    return [inst for path in multi_hint_files(DEFAULT_RELEASE) for inst in read_jsonl(path)
            if family is None or inst.family == family]


def _row(text):
    """``-2x + y - 3z = -5`` -> ([-2, 1, -3], -5)."""
    lhs, rhs = text.split(" = ")
    coefs = {v: 0 for v in "xyz"}
    for sign, mag, var in re.findall(r"([+-]?)\s*(\d*)([xyz])", lhs.replace(" ", "")):
        coefs[var] = (-1 if sign == "-" else 1) * (int(mag) if mag else 1)
    return [coefs[v] for v in "xyz"], int(rhs)


def test_every_short_hint_set_is_enumerated():
    """k = 2 with groups [eq2], [eq3, eq4]: nothing, eq2, eq3, eq4 and eq3 + eq4 (never a set
    touching both groups)."""
    inst = _rows(RANKDEF)[0]
    sets = [tuple(h.slot for h in s) for s in short_hint_sets(inst)]
    assert sets == [(), ("eq2",), ("eq3",), ("eq4",), ("eq3", "eq4")]
    for inst in _rows():
        groups = [{h.slot for h in g} for g in inst.groups()]
        for hint_set in short_hint_sets(inst):
            touched = sum(1 for g in groups if g & {h.slot for h in hint_set})
            assert touched < inst.k


def test_an_instance_whose_alternatives_are_two_facts_fails_the_proof():
    """Release 1.2.0's rankdef rows: eq4 independent of eq1 and eq3, so the view with eq3 and
    eq4 fixes (x, y, z). The single-hint proofs pass; the hint-set proof fails."""
    family = registry.get(RANKDEF, 2)
    good = _rows(RANKDEF)[0]
    latent = good.latent_state()
    eq1, eq3 = latent["eq1"], latent["held"]["eq3"]
    # an eq4 outside span(eq1, eq3) (full rank with them), small nonzero coefficients
    eq4 = next(list(r) for r in itertools.product([1, 2, -1, 3], repeat=3)
               if sum(p * q for p, q in zip(_cross(eq1, eq3), r)) != 0 and list(r) not in (eq1, eq3))
    old = {**latent, "held": {"eq3": eq3, "eq4": eq4}}
    inst = assemble_instance(family, good.difficulty, good.level, good.seed, old, id=good.id,
                             seed_set=good.seed_set)
    assert "global_uniqueness" in {f.property for f in validate_instance(inst, family)}

    class Release120(type(family)):            # type: ignore[misc]
        """The 1.2.0 family: its state check did not ask eq4 to be a combination."""

        def check(self, latent):
            return RankdefLinearShared.check(self, latent)

    found = {f.property: f.detail for f in validate_instance(inst, Release120())}
    assert "hint_set_underdetermination" in found, found
    assert "eq3 + eq4" in found["hint_set_underdetermination"]
    assert set(found) == {"hint_set_underdetermination"}, found


def _cross(u, v):
    return [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]


def test_every_committed_two_fact_row_passes_every_hint_set_proof():
    rows = _rows()
    assert {i.family for i in rows} == set(registry.multi_hint_names())
    for inst in rows:
        assert validate_instance(inst, registry.get(inst.family, 2)) == []


def test_rankdef_eq3_and_eq4_are_one_fact():
    """eq1, eq3 and eq4 have rank 2 in every row (the view with both alternatives leaves a line)."""
    rows = _rows(RANKDEF)
    assert rows
    for inst in rows:
        by_slot = {h.slot: _row(h.value)[0] for h in inst.hints}
        eq1 = _row(inst.view.facts[0].partition(": ")[2])[0]
        normal = _cross(eq1, by_slot["eq3"])
        assert any(normal) and sum(p * q for p, q in zip(normal, by_slot["eq4"])) == 0


def _both_alternatives_solver(inst):
    """Asks for eq3, then eq4, never eq2; then answers the integer point of the line left
    (within the sampling box |x|, |y|, |z| <= 5 + level) that is smallest in norm."""
    async def reply(conversation, seed):
        seen = " ".join(m["content"] for m in conversation if m["role"] == "user")
        for slot in ("eq3", "eq4"):
            if f"{slot}:" not in seen:
                return Completion(text=f"REQUEST: What is {slot}?", finish_reason="stop")
        rows = [_row(inst.view.facts[0].partition(": ")[2])] + [
            _row(re.search(rf"{slot}: ([^\n]*)", seen).group(1)) for slot in ("eq3", "eq4")]
        bound = 5 + inst.level
        points = [p for p in itertools.product(range(-bound, bound + 1), repeat=3)
                  if all(sum(a * v for a, v in zip(coefs, p)) == rhs for coefs, rhs in rows)]
        guess = min(points, key=lambda p: (sum(v * v for v in p), p)) if points else (0, 0, 0)
        return Completion(text=f"ANSWER: (x, y, z) = ({guess[0]}, {guess[1]}, {guess[2]})",
                          finish_reason="stop")
    return reply


def play_both_alternatives(rows):
    """(correct answers, expected correct at chance in the box, facts acquired) over ``rows``."""
    correct, chance, acquired = 0, 0.0, 0
    for inst in rows:
        episode = asyncio.run(play(Episode(inst, solver="both-alternatives", responder="rules",
                                           regime="zs"), _both_alternatives_solver(inst)))
        verdict = episode.transcript.verdict or {}
        correct += bool(verdict.get("correct"))
        seen = " ".join(m["content"] for m in episode.conversation if m["role"] == "user")
        acquired += all(f"{slot}:" in seen for slot in ("eq3", "eq4"))
        latent = inst.latent_state()
        bound = 5 + inst.level
        rows3 = [latent["eq1"], latent["held"]["eq3"], latent["held"]["eq4"]]
        sol = latent["solution"]
        box = [p for p in itertools.product(range(-bound, bound + 1), repeat=3)
               if all(sum(a * (v - s) for a, v, s in zip(r, p, sol)) == 0 for r in rows3)]
        chance += 1 / len(box)
    return correct, chance, acquired


def test_a_solver_asking_both_alternatives_of_one_group_is_at_chance():
    """It gets both lines (eq3 and eq4), never eq2, and is left with a line of solutions: it is
    right no more often than picking one point of that line in the sampling box at random."""
    rows = _rows(RANKDEF)
    correct, chance, acquired = play_both_alternatives(rows)
    assert acquired == len(rows)
    # binomial bound: at chance the count exceeds mean + 3 sd only by a fluke (< 0.2%)
    assert correct <= chance + 3 * max(chance, 1.0) ** 0.5, (correct, chance, len(rows))


@pytest.mark.parametrize("name", ["linear_system_separator", "geometry_coordinates", "rankdef_linear_shared"])
def test_an_equation_hint_value_is_the_lines_text(name):
    """The separator's "equation 2" value was a coefficient list in 1.2.0; every equation hint's
    value is now the line's text after its label."""
    for inst in _rows(name):
        for h in inst.hints:
            label, _, text = h.constraint.partition(": ")
            if text and "=" in text:
                assert h.value == text, (inst.id, h)


def test_a_separator_hint_with_the_old_value_is_refused():
    family = registry.get("linear_system_separator", 2)
    inst = _rows("linear_system_separator")[0]
    hints = [dataclasses.replace(h, value="[-1,4,0,19]") if h.slot == "equation 2" else h
             for h in inst.hints]
    with pytest.raises(ValueError, match="not a canonical equation"):
        family.complete_many(family.known(inst.latent_state()), hints)
