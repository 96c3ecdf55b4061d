"""The two-fact answer sets of geometry_coordinates and linear_system_missing_coeff are computed
by shortcuts (distance sets shared through offset spans; Cramer's determinants read from the
unit cube's corners). Each is checked here against the direct enumeration it replaced: one
distance per lattice point, one elimination per grid point."""

from __future__ import annotations

import random
from fractions import Fraction
from math import isqrt
from typing import List, Sequence, Set

import pytest

from mira_math.generators import registry
from mira_math.generators.families import geometry_coordinates as geo
from mira_math.generators.families import linear_system_missing_coeff as lsmc
from mira_math.generators.family import Reject
from mira_math.generators.release import multi_hint_files
from mira_math.generators.schema import Hint, read_jsonl


def _release_rows(release_dir, family: str):
    path = next(p for p in multi_hint_files(release_dir) if p.parent.name == family)
    return list(read_jsonl(path))


def _direct_distances(p: Sequence[int], box: int) -> Set[int]:
    out = set()
    for x in range(-box, box + 1):
        for y in range(-box, box + 1):
            sq = (p[0] - x) ** 2 + (p[1] - y) ** 2
            if sq and isqrt(sq) ** 2 == sq:
                out.add(isqrt(sq))
    return out


@pytest.mark.parametrize("box", [0, 1, 5, 31])
def test_distances_match_the_direct_count_inside_and_outside_the_box(box):
    rng = random.Random(box)
    points = [(0, 0), (box, -box), (-box - 3, 2), (box + 9, box + 1)]
    points += [(rng.randint(-box - 5, box + 5), rng.randint(-box - 5, box + 5)) for _ in range(20)]
    for p in points:
        assert geo._distances_from(p, box) == _direct_distances(p, box), (p, box)


def test_geometry_sets_match_on_every_release_instance(release_dir):
    family = registry.get("geometry_coordinates", 2)
    rows = _release_rows(release_dir, "geometry_coordinates")
    assert rows
    for inst in rows:
        known = family.known(inst.latent_state())
        q_box = geo._q_box(known["level"])
        line2, q = inst.hints
        direct_none: Set[int] = set()
        for p in geo._lattice_points(known["line1"], geo._box(known["level"])):
            direct_none |= _direct_distances(p, q_box)
        assert family.candidates_given(known, []) == direct_none, inst.id
        p = inst.latent_state()["P"]
        assert family.candidates_given(known, [line2]) == _direct_distances(p, q_box), inst.id
        assert family.candidates_given(known, [q]) == geo.FAMILY.candidates(
            {**known, "Q": family._q(q)}), inst.id


def _direct_lsmc(known: dict, given: List[Hint]) -> Set[Fraction]:
    a = [list(r) for r in known["A"]]
    for h in given:
        i, j = (int(x) for x in h.slot[2:-1].split("]["))
        a[i][j] = int(h.value)
    free = [(i, j) for i, j in known["missing"] if a[i][j] is None]
    bound = lsmc._bound(known["level"])
    out = set()
    for choice in lsmc._grid(range(-bound, bound + 1), len(free)):
        m = [list(r) for r in a]
        for (i, j), y in zip(free, choice):
            m[i][j] = y
        d = lsmc._det(m)
        if d:
            out.add(Fraction(lsmc._det(lsmc._replaced(m, known["target"], known["b"])), d))
    return out


def test_missing_coeff_sets_match_on_release_and_generated_instances(release_dir):
    family = registry.get("linear_system_missing_coeff", 2)
    latents = [inst.latent_state() for inst in _release_rows(release_dir, "linear_system_missing_coeff")]
    rng, wanted = random.Random(7), 2 * len(latents)    # as many again, freshly drawn, every level
    while len(latents) < wanted:
        try:
            latents.append(family.generate(rng, 1 + len(latents) % 3))
        except Reject:
            continue
    same_row = 0
    for latent in latents:
        known, hints = family.known(latent), family.render(latent).hints
        same_row += latent["missing"][0][0] == latent["missing"][1][0]
        for given in ([], [hints[0]], [hints[1]], list(hints)):
            assert family.candidates_given(known, given) == _direct_lsmc(known, given), (latent, given)
    assert 0 < same_row < len(latents)     # both shapes of the pair (bilinear and affine) seen
