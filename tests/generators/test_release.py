"""The committed release (``mira-math/``): regenerates byte for byte, counts, ids, validity.

This is the regression suite the paper promises: a generator change that alters any byte
fails here until the release, its checksums and the changelog are updated deliberately
(with ``GENERATOR_VERSION`` bumped).
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from fractions import Fraction

import pytest

from mira_math.generators import registry
from mira_math.generators.build import GENERATOR_VERSION, latent_key, view_key
from mira_math.cli.main import main
from mira_math.generators.release import check_manifest, data_path, verify_release
from mira_math.generators.validate import validate_instance

from mira_math.generators.layout import DEFAULT_RELEASE as RELEASE

# verify regenerates each release once per session (tests/conftest.py: regenerate_once); every
# verify here still compares every byte of its own folder
pytestmark = pytest.mark.usefixtures("regenerate_once")


def test_release_regenerates_byte_for_byte(counts):
    report = verify_release(RELEASE)
    assert report.problems == []
    # data, the request set, release_info.json, README.md, croissant.json, eval.yaml, CHECKSUMS
    assert report.files_checked == counts.data_files + 1 + 5


def test_manifest_is_sha256sum_compatible(counts):
    assert check_manifest(RELEASE) == []
    lines = (RELEASE / "CHECKSUMS.sha256").read_text().splitlines()
    assert all(len(line.split("  ")[0]) == 64 for line in lines)
    assert len(lines) == counts.data_files + 1 + 4  # every file but the manifest itself (+1: the request set)


def test_release_info(release_instances, release_info):
    """release_info.json describes the folder it sits in: every registered family, its count,
    the total, at the per-type block size the public seed set promises (docs/benchmark.md §2)."""
    assert release_info["generator_version"] == GENERATOR_VERSION
    assert release_info["families"] == registry.names()
    assert release_info["counts"] == dict(Counter(i.family for i in release_instances))
    assert release_info["total"] == len(release_instances) == sum(release_info["counts"].values())
    assert release_info["per_type"] == {"A": 20, "B": 50}


def test_counts_order_and_ids(release_instances, counts):
    instances = release_instances
    per_block = Counter((i.family, i.difficulty) for i in instances)
    for name in registry.names():
        expected = counts.per_block[registry.type_of(name)]
        assert [per_block[(name, d)] for d in (1, 2, 3)] == [expected] * 3
        assert counts.per_family[name] == 3 * expected
    for kind in ("A", "B"):
        assert sum(i.type == kind for i in instances) == counts.by_type[kind] > 0
    # The scheme (docs/decisions/harness.md): v1.1's families share one counter in
    # release order; a family added later counts within itself.
    first = [i for i in instances if i.family in registry.V1_1]
    assert [i.id for i in first] == [f"{i.family[:3]}-{n:06d}" for n, i in enumerate(first)]
    for name in registry.names():
        if name not in registry.V1_1:
            own = [i.id for i in instances if i.family == name]
            assert own == [f"{name}-{n:06d}" for n in range(len(own))]
    by_id = {i.id: i for i in instances}
    for id_, family in (("bay-000044", "bayes_missing_prior"), ("mom-000404", "moment_problem"),
                        ("bir-000768", "birth_death_missing_rate"),
                        ("cir-000924", "circuit_missing_resistance")):
        assert (by_id[id_].family, by_id[id_].difficulty) == (family, 3)


def test_every_committed_instance_is_valid(release_instances):
    failures = [f for i in release_instances for f in validate_instance(i, registry.get(i.family))]
    assert failures == []


def test_no_two_instances_share_a_latent_state_or_a_view(release_instances):
    instances = release_instances
    assert len({latent_key(i) for i in instances}) == len(instances)
    assert len({view_key(i) for i in instances}) == len(instances)


def test_fixed_level_families_keep_their_nominal_difficulty(release_instances):
    for i in release_instances:
        if i.family in ("crt_reconstruction", "discrete_tomography"):
            assert i.level == 1 and i.difficulty in (1, 2, 3)
        else:
            assert i.level == i.difficulty


def test_flipped_byte_fails_verify_and_names_the_file(tmp_path, capsys):
    copy = tmp_path / "release"
    shutil.copytree(RELEASE, copy)
    target = copy / data_path("laplace_grid")
    data = bytearray(target.read_bytes())
    pos = data.index(b'"answer"') + 30
    data[pos] ^= 0x01
    target.write_bytes(bytes(data))
    capsys.readouterr()
    assert main(["verify", str(copy)]) == 1
    out = capsys.readouterr().out
    assert str(target) in out and "sha256 does not match" in out and "instance lap-" in out


def test_missing_file_fails_verify(tmp_path, capsys):
    copy = tmp_path / "release"
    shutil.copytree(RELEASE, copy)
    (copy / data_path("deconvolution")).unlink()
    assert main(["verify", str(copy)]) == 1
    assert "deconvolution" in capsys.readouterr().out


def test_records_hold_no_floats():
    for name in registry.names():
        for line in (RELEASE / data_path(name)).read_text(encoding="utf-8").splitlines():
            assert _no_floats(json.loads(line))


def _no_floats(obj) -> bool:
    if isinstance(obj, float):
        return False
    if isinstance(obj, dict):
        return all(_no_floats(v) for v in obj.values())
    if isinstance(obj, list):
        return all(_no_floats(v) for v in obj)
    return True


def test_no_answer_value_clusters_in_any_block(release_instances):
    instances = release_instances
    blocks = Counter((i.family, i.difficulty, i.answer.value) for i in instances)
    sizes = Counter((i.family, i.difficulty) for i in instances)
    for (family, d, value), count in blocks.items():
        share = Fraction(count, sizes[(family, d)])
        assert share <= registry.get(family).max_answer_share, (family, d, value, count)
