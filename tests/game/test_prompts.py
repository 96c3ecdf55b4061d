"""game/prompts.py on the whole release: what a harness sees first identifies the instance."""

from __future__ import annotations

from collections import Counter

from mira_math.game.prompts import initial_conversation
from mira_math.generators.layout import DEFAULT_RELEASE, multi_hint_path
from mira_math.generators.registry import multi_hint_names
from mira_math.generators.schema import read_jsonl


def _opening(inst) -> tuple:
    return tuple(m["content"] for m in initial_conversation(inst, "zs"))


def test_no_two_instances_open_alike(release_instances):
    """Harnesses that see only the messages (inspect's replay, a served model's cache, a
    transcript matched back to its instance) find the instance by its opening. Views are
    unique within a family by construction; this is the cross-family and two-fact check (a
    family copied without its own text would fail it)."""
    two_fact = [inst for name in multi_hint_names()
                for inst in read_jsonl(DEFAULT_RELEASE / multi_hint_path(name))]
    everything = list(release_instances) + two_fact
    assert two_fact
    seen = Counter(_opening(inst) for inst in everything)
    repeated = [inst.id for inst in everything if seen[_opening(inst)] > 1]
    assert repeated == []
