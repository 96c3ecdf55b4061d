"""Validation once per content checksum: the second run over the same bytes skips the validator;
an edited byte, a file changed mid-read, or a cache turned off never skips it."""

from __future__ import annotations

import json

import pytest

from mira_math.eval import selection, validated
from mira_math.eval.selection import RunError, load_data
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
    assert len(calls) == len(first.instances) > 0
    assert validated.is_validated(validated.file_sha256(data))
    again = load_data([data])
    assert len(calls) == len(first.instances)           # nothing validated the second time
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
    monkeypatch.setattr(selection, "file_sha256", lambda path: stamped)
    with pytest.raises(RunError, match="changed while it was checked"):
        load_data([data])


def test_cache_off_validates_every_time(data, monkeypatch):
    monkeypatch.setenv(validated.CACHE_ENV, "off")
    calls = _count_validations(monkeypatch)
    n = len(load_data([data]).instances)
    load_data([data])
    assert len(calls) == 2 * n and not validated.is_validated(validated.file_sha256(data))


def test_stamp_is_keyed_by_versions(data, monkeypatch):
    load_data([data])
    sha = validated.file_sha256(data)
    monkeypatch.setattr(validated, "GENERATOR_VERSION", "9.9.9")
    assert not validated.is_validated(sha)


def test_an_unwritable_cache_only_costs_speed(data, monkeypatch, tmp_path, counts):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder", encoding="utf-8")
    monkeypatch.setenv(validated.CACHE_ENV, str(blocker / "cache"))
    assert len(load_data([data]).instances) == counts.per_family["bayes_missing_prior"]


# ------------------------------------------------------------------ generate stamps what it wrote

def _generated(tmp_path, monkeypatch):
    from mira_math.cli.main import main

    monkeypatch.setenv(validated.CACHE_ENV, str(tmp_path / "cache"))
    out = tmp_path / "split"
    assert main(["generate", "--families", "bayes_missing_prior", "moment_problem", "--per-type", "3/0",
                 "--out", str(out)]) == 0
    return out


def test_the_first_eval_after_generate_skips_the_validator(tmp_path, monkeypatch):
    """generate validated every instance as it built it, and reads each line back through the
    schema: the bytes it wrote are stamped, so the first eval over them validates nothing."""
    out = _generated(tmp_path, monkeypatch)
    files = selection.data_files(None, out, out)
    assert len(files) == 2 and all(validated.is_validated(validated.file_sha256(f)) for f in files)
    calls = _count_validations(monkeypatch)
    loaded = load_data(files)
    assert calls == [] and len(loaded.instances) == 18


def test_a_generated_file_edited_afterwards_is_validated_in_full(tmp_path, monkeypatch):
    out = _generated(tmp_path, monkeypatch)
    path = out / "data" / "bayes_missing_prior" / "test.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows[1]["answer"]["value"] = "1/7"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    (out / "CHECKSUMS.sha256").unlink()       # no manifest to catch it first: the validator must
    with pytest.raises(DataError, match="fails validation"):
        load_data([path])


def test_mark_generated_stamps_only_files_whose_every_line_reads_through_the_schema(tmp_path, monkeypatch):
    import hashlib

    monkeypatch.setenv(validated.CACHE_ENV, str(tmp_path / "cache"))
    good = SOURCE.read_bytes()
    broken = good.replace(b'"family"', b'"famly"', 1)                 # a field missing
    not_json = good.replace(b"}\n", b"\n", 1)
    files = {"data/a/test.jsonl": good, "data/c/test.jsonl": broken, "data/e/test.jsonl": not_json,
             "data/d/test.jsonl": good[:-1], "README.md": b"x\n"}
    assert validated.mark_generated(files) == 1
    assert validated.is_validated(hashlib.sha256(good).hexdigest())
    assert not any(validated.is_validated(hashlib.sha256(b).hexdigest()) for b in (broken, not_json, good[:-1]))


def test_verify_stamps_the_release_it_regenerated_but_not_a_file_changed_since(tmp_path, monkeypatch):
    from mira_math.cli.main import main

    out = _generated(tmp_path, monkeypatch)
    monkeypatch.setenv(validated.CACHE_ENV, str(tmp_path / "fresh-clone-cache"))
    files = selection.data_files(None, out, out)
    assert not any(validated.is_validated(validated.file_sha256(f)) for f in files)
    assert main(["verify", str(out)]) == 0
    assert all(validated.is_validated(validated.file_sha256(f)) for f in files)
    calls = _count_validations(monkeypatch)
    load_data(files)
    assert calls == []
    # the manifest names the bytes verify checked: a file that no longer has them is not stamped
    monkeypatch.setenv(validated.CACHE_ENV, str(tmp_path / "another-cache"))
    files[0].write_bytes(files[0].read_bytes().replace(b"P(H)", b"P(G)", 1))
    listed = [line for line in (out / "CHECKSUMS.sha256").read_text().splitlines() if "  data/" in line]
    assert validated.mark_verified(out) == len(listed) - 1      # the two-fact file too
    assert not validated.is_validated(validated.file_sha256(files[0]))
