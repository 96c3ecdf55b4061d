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
from pathlib import Path

import pytest

from mira_math.generators import registry
from mira_math.generators.build import GENERATOR_VERSION, latent_key, view_key
from mira_math.cli.main import main
from mira_math.generators.release import check_manifest, data_path, read_release_info, verify_release
from mira_math.generators.schema import read_jsonl
from mira_math.generators.validate import validate_instance

RELEASE = Path(__file__).resolve().parents[2] / "mira-math"


@pytest.fixture(scope="module")
def instances():
    return [inst for name in registry.names() for inst in read_jsonl(RELEASE / data_path(name))]


def test_release_regenerates_byte_for_byte():
    report = verify_release(RELEASE)
    assert report.problems == []
    info = json.loads((RELEASE / "release_info.json").read_text())
    parts = len(info["counts"]) + len(info.get("multi_hint", {}).get("counts", {}))
    assert report.files_checked == parts + 3  # data files, release_info.json, README.md, CHECKSUMS


def test_manifest_is_sha256sum_compatible():
    assert check_manifest(RELEASE) == []
    lines = (RELEASE / "CHECKSUMS.sha256").read_text().splitlines()
    assert all(len(line.split("  ")[0]) == 64 for line in lines)
    info = json.loads((RELEASE / "release_info.json").read_text())
    parts = len(info["counts"]) + len(info.get("multi_hint", {}).get("counts", {}))
    assert len(lines) == parts + 2  # every file but the manifest itself


def test_release_info(instances):
    info = read_release_info(RELEASE)
    assert info["generator_version"] == GENERATOR_VERSION
    assert info["total"] == len(instances) == 2310
    assert info["per_type"] == {"A": 20, "B": 50}


def test_counts_order_and_ids(instances):
    per_block = Counter((i.family, i.difficulty) for i in instances)
    for name in registry.names():
        expected = 20 if registry.type_of(name) == "A" else 50
        assert [per_block[(name, d)] for d in (1, 2, 3)] == [expected] * 3
    assert sum(i.type == "A" for i in instances) == 660
    assert sum(i.type == "B" for i in instances) == 1650
    assert [i.id for i in instances] == [f"{i.family[:3]}-{n:06d}" for n, i in enumerate(instances)]
    by_id = {i.id: i for i in instances}
    for id_, family in (("bay-000044", "bayes_missing_prior"), ("mom-000404", "moment_problem"),
                        ("bir-000768", "birth_death_missing_rate"),
                        ("cir-000924", "circuit_missing_resistance")):
        assert (by_id[id_].family, by_id[id_].difficulty) == (family, 3)


def test_every_committed_instance_is_valid(instances):
    failures = [f for i in instances for f in validate_instance(i, registry.get(i.family))]
    assert failures == []


def test_no_two_instances_share_a_latent_state_or_a_view(instances):
    assert len({latent_key(i) for i in instances}) == len(instances)
    assert len({view_key(i) for i in instances}) == len(instances)


def test_fixed_level_families_keep_their_nominal_difficulty(instances):
    for i in instances:
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


def test_no_answer_value_clusters_in_any_block(instances):
    blocks = Counter((i.family, i.difficulty, i.answer.value) for i in instances)
    sizes = Counter((i.family, i.difficulty) for i in instances)
    for (family, d, value), count in blocks.items():
        share = Fraction(count, sizes[(family, d)])
        assert share <= registry.get(family).max_answer_share, (family, d, value, count)
