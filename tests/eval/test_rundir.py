"""The run directory module: one reader of the manifest for the runner, scoring, viewer, audit."""

import json

import pytest

from mira_math.eval import audit, runner, scores_file
from mira_math.eval.rundir import writer
from mira_math.eval.rundir import (MANIFEST, TRANSCRIPTS, RunDirError, declared_shard, finished_ids,
                                   read_manifest)
from mira_math.eval.view import build


def _write(run_dir, manifest):
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")


GOOD = {"run_hash": "abc", "config": {"solver": "s", "responder": "r", "regime": "zs"}}


def test_every_reader_uses_the_same_file_names():
    assert writer.MANIFEST == MANIFEST and runner.TRANSCRIPTS == writer.TRANSCRIPTS == TRANSCRIPTS
    assert audit.AUDIT_JSON == "audit.json" and scores_file.SCORES_JSON == "scores.json"
    assert not hasattr(build, "LoadedRun")          # one LoadedRun name left: scoring's


def test_read_manifest_accepts_a_manifest_with_the_fields_readers_rely_on(tmp_path):
    _write(tmp_path, GOOD)
    assert read_manifest(tmp_path)["run_hash"] == "abc"


@pytest.mark.parametrize("manifest, problem", [
    (None, "manifest.json: missing"),
    ({"run_hash": "x"}, "field 'config': missing"),
    ({"run_hash": "x", "config": {"solver": "s", "responder": "r"}}, "config has no 'regime'"),
    ({"config": GOOD["config"]}, "no run_hash"),
])
def test_read_manifest_refuses_with_one_line(tmp_path, manifest, problem):
    if manifest is not None:
        _write(tmp_path, manifest)
    with pytest.raises(RunDirError, match=problem) as err:
        read_manifest(tmp_path)
    assert "\n" not in str(err.value)


def test_read_manifest_refuses_bytes_that_are_not_json(tmp_path):
    (tmp_path / MANIFEST).write_bytes(b"\xff{")
    with pytest.raises(RunDirError, match="not a readable run manifest"):
        read_manifest(tmp_path)


@pytest.mark.parametrize("shard, expected", [(None, None), ([1, 4], (1, 4))])
def test_declared_shard(shard, expected, tmp_path):
    config = dict(GOOD["config"], selection={"shard": shard} if shard else {})
    assert declared_shard({"config": config}, tmp_path) == expected


def test_declared_shard_out_of_range_is_refused(tmp_path):
    with pytest.raises(RunDirError, match="config.selection.shard"):
        declared_shard({"config": {"selection": {"shard": [4, 4]}}}, tmp_path)


def test_finished_ids(tmp_path):
    assert finished_ids(tmp_path) == set()
    (tmp_path / TRANSCRIPTS).write_text('{"id": "a"}\n\n{"id": "b"}\n', encoding="utf-8")
    assert finished_ids(tmp_path) == {"a", "b"}
