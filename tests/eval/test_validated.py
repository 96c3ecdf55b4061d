"""Validation once per content checksum: the second run over the same bytes skips the validator;
an edited byte, a file changed mid-read, or a cache turned off never skips it."""

from __future__ import annotations

import json

import pytest

from mira_math.eval import runner, validated
from mira_math.eval.runner import RunError, load_data
from mira_math.generators.schema import DataError, read_jsonl
from mira_math.generators.layout import DEFAULT_RELEASE

SOURCE = DEFAULT_RELEASE / "data" / "bayes_missing_prior" / "test.jsonl"


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv(validated.CACHE_ENV, str(tmp_path / "cache"))
    path = tmp_path / "data.jsonl"                      # a --data file: no CHECKSUMS beside it
    path.write_bytes(SOURCE.read_bytes())
    return path


def _count_validations(monkeypatch) -> list:
    from mira_math.generators import validate

    calls: list = []
    real = validate.validate_instance
    monkeypatch.setattr(validate, "validate_instance", lambda inst, fam: calls.append(inst.id) or real(inst, fam))
    return calls


def test_second_run_over_the_same_bytes_skips_the_validator(data, monkeypatch):
    calls = _count_validations(monkeypatch)
    first = load_data([data])
    assert len(calls) == len(first.instances) == 60
    assert validated.is_validated(validated.file_sha256(data))
    again = load_data([data])
    assert len(calls) == 60                             # nothing validated the second time
    assert again.checksum == first.checksum and list(again.instances) == list(read_jsonl(data))


def test_an_edited_byte_is_validated_and_caught(data):
    load_data([data])                                   # the original bytes are stamped
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()]
    rows[3]["answer"]["value"] = "1/7"                  # still schema-valid, but wrong
    data.write_text("".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in rows),
                    encoding="utf-8")
    with pytest.raises(DataError, match="fails validation") as err:
        load_data([data])
    assert ":4" in str(err.value) or "line 4" in str(err.value)


def test_bytes_that_differ_from_the_stamped_ones_are_refused(data, monkeypatch):
    """A file changed between hashing and reading: the stamp matched the hash, not what was parsed."""
    load_data([data])
    stamped = validated.file_sha256(data)
    data.write_bytes(data.read_bytes().replace(b"P(H)", b"P(G)", 1))
    monkeypatch.setattr(runner, "file_sha256", lambda path: stamped)
    with pytest.raises(RunError, match="changed while it was checked"):
        load_data([data])


def test_cache_off_validates_every_time(data, monkeypatch):
    monkeypatch.setenv(validated.CACHE_ENV, "off")
    calls = _count_validations(monkeypatch)
    load_data([data])
    load_data([data])
    assert len(calls) == 120 and not validated.is_validated(validated.file_sha256(data))


def test_stamp_is_keyed_by_versions(data, monkeypatch):
    load_data([data])
    sha = validated.file_sha256(data)
    monkeypatch.setattr(validated, "GENERATOR_VERSION", "9.9.9")
    assert not validated.is_validated(sha)


def test_an_unwritable_cache_only_costs_speed(data, monkeypatch, tmp_path):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder", encoding="utf-8")
    monkeypatch.setenv(validated.CACHE_ENV, str(blocker / "cache"))
    assert len(load_data([data]).instances) == 60
