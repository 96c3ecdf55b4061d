"""The two-fact (k = 2) part of the release: ids, schema, proofs and bytes."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from pathlib import Path

import pytest

from mira_math.generators import registry
from mira_math.generators.build import build_split, layout
from mira_math.generators.card import configs, features
from mira_math.generators.layout import DEFAULT_RELEASE, data_path, multi_hint_path
from mira_math.generators.release import multi_hint_files, read_release_info
from mira_math.generators.schema import DataError, Hint, instance_from_dict, read_jsonl
from mira_math.generators.seeds import SeedSet
from mira_math.generators.validate import validate_instance

RELEASE = DEFAULT_RELEASE


def _rows():
    return [inst for path in multi_hint_files(RELEASE) for inst in read_jsonl(path)]


def test_the_part_covers_both_types_and_at_least_twelve_families():
    info = read_release_info(RELEASE)
    part = info["multi_hint"]
    assert part["families"] == registry.multi_hint_names()
    assert len(part["families"]) >= 12
    assert {registry.type_of(n) for n in part["families"]} == {"A", "B"}
    assert part["total"] == sum(part["counts"].values()) == len(_rows())
    assert part["generator_version"] == "1.3.0"     # unchanged since the part was fixed


def test_every_family_module_with_a_k2_variant_is_registered():
    import importlib

    with_variant = [n for n in registry.names()
                    if hasattr(importlib.import_module(f"mira_math.generators.families.{n}"), "FAMILY_K2")]
    assert with_variant == registry.multi_hint_names()


def test_ids_count_within_family_and_part():
    rows = _rows()
    for name in registry.multi_hint_names():
        ids = [i.id for i in rows if i.family == name]
        assert ids == [f"{name}-k2-{n:05d}" for n in range(len(ids))]
    assert all(i.k == 2 and len(i.hint_groups or []) == 2 for i in rows)


def test_v11_ids_do_not_move_when_a_family_is_added(monkeypatch):
    before = {s.id for s in layout({"A": 20, "B": 50})}
    monkeypatch.setattr(registry, "TYPE_A", ("aaa_new_family",) + registry.TYPE_A)
    monkeypatch.setattr(registry, "type_of", lambda n: "A" if n in registry.TYPE_A else "B")
    after = layout({"A": 20, "B": 50})
    assert {s.id for s in after if s.family != "aaa_new_family"} == before
    assert [s.id for s in after if s.family == "aaa_new_family"][:2] == ["aaa_new_family-000000",
                                                                       "aaa_new_family-000001"]


def test_v11_is_written_out_so_a_family_appended_to_type_a_joins_no_counter():
    """What a maintainer does, on the registry's source: append a name to TYPE_A. V1_1 (the
    families of the global id counter) stays the 22 v1.1 families, so no v1.1 id moves (a clone
    that derived V1_1 from TYPE_A + TYPE_B renumbered every Type B id)."""
    source = Path(registry.__file__).read_text(encoding="utf-8")
    edited = re.sub(r"(TYPE_A = \((?:\n    \"\w+\",)+)\n\)", r'\1\n    "toy_family",\n)', source, count=1)
    assert edited != source
    namespace: dict = {"__name__": "registry_copy"}
    exec(compile(edited, registry.__file__, "exec"), namespace)
    assert namespace["TYPE_A"][-1] == "toy_family" and namespace["V1_1"] == registry.V1_1
    assert len(registry.V1_1) == 22 and list(registry.V1_1) == [n for n in registry.names() if n in registry.V1_1]


def test_every_k2_row_is_proven():
    rows = _rows()
    assert rows
    for inst in rows:
        assert validate_instance(inst, registry.get(inst.family, 2)) == [], inst.id
        assert sorted(inst.responder) == sorted(h.constraint for h in inst.hints)
        assert inst.budget == 6 * inst.difficulty


def test_one_fact_rows_serialise_without_the_new_field():
    path = RELEASE / data_path("bayes_missing_prior")
    first = path.read_bytes().splitlines()[0]
    inst = next(iter(read_jsonl(path)))
    assert inst.hint_groups is None and inst.k == 1
    assert inst.to_json_line().encode().rstrip(b"\n") == first
    assert b"hint_groups" not in first


def test_a_k2_row_round_trips_and_bad_groups_are_named():
    path = RELEASE / multi_hint_path("rankdef_linear_shared")
    line = path.read_bytes().splitlines()[0]
    raw = json.loads(line)
    inst = instance_from_dict(raw)
    assert inst.to_json_line().encode().rstrip(b"\n") == line
    assert [[h.slot for h in g] for g in inst.groups()] == [["eq2"], ["eq3", "eq4"]]
    for bad, why in (([["eq2"]], "at least two"), ([["eq2"], []], "empty"),
                     ([["eq2"], ["eq3"]], "exactly once"), ([["eq2", "eq2"], ["eq3", "eq4"]], "exactly once"),
                     ("eq2", "expected list")):
        with pytest.raises(DataError, match=why) as err:
            instance_from_dict({**raw, "hint_groups": bad}, "f.jsonl", 3)
        assert "f.jsonl:3" in str(err.value) and "hint_groups" in str(err.value)


@pytest.mark.parametrize("name", registry.multi_hint_names())
def test_a_broken_proof_is_reported(name):
    """A second completion that no longer differs, a dropped hint, a responder line too many:
    each fails the property it breaks."""
    inst = next(i for i in _rows() if i.family == name)
    family = registry.get(name, 2)
    extra = dataclasses.replace(inst, responder=inst.responder + ["x = 1"])
    assert "consistency" in {f.property for f in validate_instance(extra, family)}
    wrong = dataclasses.replace(inst, hints=[Hint(h.slot, h.constraint, "12345") if i == 0 else h
                                             for i, h in enumerate(inst.hints)])
    assert {f.property for f in validate_instance(wrong, family)} & {"consistency", "hint_sufficiency"}

    class NoWitness(type(family)):          # type: ignore[misc]
        def witness_given(self, latent, given):
            return latent if given is not None else super().witness_given(latent, given)

        def candidates_given(self, known, given):
            return None if given else super().candidates_given(known, given)

    found = {f.property for f in validate_instance(inst, NoWitness())}
    assert "single_fact_underdetermination" in found


def test_k2_part_is_disjoint_from_the_one_fact_part_and_held_out_splits_from_both():
    from mira_math.generators.build import instance_keys
    from mira_math.generators.release import excluded_keys, public_split_reference

    public = {k for path in RELEASE.glob("data/*/*.jsonl") for i in read_jsonl(path)
              for k in instance_keys(i)}
    assert len(public) == 2 * sum(1 for p in RELEASE.glob("data/*/*.jsonl") for _ in read_jsonl(p))
    assert excluded_keys([public_split_reference()]) == public


def test_configs_and_features():
    names = configs()
    assert names["multi_hint"] == [multi_hint_path(n) for n in registry.multi_hint_names()]
    assert set(names["multi_hint_type_a"]) | set(names["multi_hint_type_b"]) == set(names["multi_hint"])
    assert all(f"multi_hint_{n}" in names for n in registry.multi_hint_names())
    assert all(multi_hint_path(n) not in names["all"] for n in registry.names())
    assert "hint_groups" not in [f["name"] for f in features()]
    assert {"name": "hint_groups", "list": {"list": "string"}} in features("multi_hint")


def test_a_small_held_out_k2_split_regenerates():
    one = [i.to_json_line() for i in build_split(SeedSet.named("multi-hint-t"), {"A": 2, "B": 2},
                                                 ["bayes_missing_prior", "laplace_grid"], k=2)]
    two = [i.to_json_line() for i in build_split(SeedSet.named("multi-hint-t"), {"A": 2, "B": 2},
                                                 ["bayes_missing_prior", "laplace_grid"], k=2)]
    assert one == two and len(one) == 12
    assert hashlib.sha256("".join(one).encode()).hexdigest() != \
        hashlib.sha256((RELEASE / multi_hint_path("laplace_grid")).read_bytes()).hexdigest()


def test_release_files_stay_where_v11_readers_look():
    assert all(Path(p).name == "multi_hint.jsonl" for p in configs()["multi_hint"])
