"""game/prompts.py on the whole release: what a harness sees first identifies the instance."""

from __future__ import annotations

from collections import Counter

from mira_math.game.prompts import initial_conversation
from mira_math.generators.layout import DEFAULT_RELEASE
from mira_math.generators.release import multi_hint_files
from mira_math.generators.schema import read_jsonl


def _opening(inst) -> tuple:
    return tuple(m["content"] for m in initial_conversation(inst, "zs"))


def test_no_two_instances_open_alike(release_instances):
    """Harnesses that see only the messages (inspect's replay, a served model's cache, a
    transcript matched back to its instance) find the instance by its opening. Views are
    unique within a family by construction; this is the cross-family and two-fact check (a
    family copied without its own text would fail it)."""
    two_fact = [inst for path in multi_hint_files(DEFAULT_RELEASE) for inst in read_jsonl(path)]
    assert two_fact
    openings = [(inst.id, _opening(inst)) for inst in list(release_instances) + two_fact]
    seen = Counter(opening for _, opening in openings)
    assert [ident for ident, opening in openings if seen[opening] > 1] == []
