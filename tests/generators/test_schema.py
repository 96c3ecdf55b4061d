from __future__ import annotations

import json
from dataclasses import asdict
from fractions import Fraction

import pytest

from mira_math.generators import registry
from mira_math.generators.build import make_instance
from mira_math.generators.schema import (DataError, decode_latent, dumps_canonical, encode_latent,
                               instance_from_dict, read_jsonl)


@pytest.fixture
def inst():
    return make_instance(registry.get("bayes_missing_prior"), 2, 5, id="bay-000001", seed_set="t")


def test_json_line_round_trips(inst):
    line = inst.to_json_line()
    assert line.endswith("\n") and line.count("\n") == 1
    assert instance_from_dict(json.loads(line)) == inst
    assert list(json.loads(line)) == ["id", "family", "type", "difficulty", "level", "seed", "seed_set",
                                      "generator_version", "view", "responder", "hints", "answer",
                                      "candidate_answers", "latent"]


def test_latent_encoding_is_canonical():
    latent = {"b": Fraction(3, 4), "a": [1, Fraction(2, 1)], "name": "R3"}
    text = encode_latent(latent)
    assert text == '{"a":[1,"2/1"],"b":"3/4","name":"R3"}'
    assert decode_latent(text) == latent
    with pytest.raises(TypeError):
        dumps_canonical({"x": 0.5})


def _write(tmp_path, lines):
    path = tmp_path / "test.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.pop("answer"), "answer"),
    (lambda d: d["view"].pop("facts"), "view.facts"),
    (lambda d: d.__setitem__("difficulty", "2"), "difficulty"),
    (lambda d: d["hints"][0].__setitem__("value", 3), "hints[0].value"),
    (lambda d: d["answer"].__setitem__("value", "0.5"), "answer.value"),
    (lambda d: d.__setitem__("latent", "{not json"), "latent"),
    (lambda d: d.__setitem__("extra", 1), "extra"),
    (lambda d: d.__setitem__("type", "C"), "type"),
])
def test_bad_fields_are_named_with_file_and_line(tmp_path, inst, mutate, field):
    good = inst.to_json_line()
    bad = json.loads(good)
    mutate(bad)
    path = _write(tmp_path, [good.replace("bay-000001", "bay-000000"), json.dumps(bad) + "\n"])
    with pytest.raises(DataError) as err:
        list(read_jsonl(path))
    assert err.value.line == 2 and err.value.field_name == field
    assert f"{path}:2" in str(err.value)


def test_torn_last_line_and_duplicates_are_errors(tmp_path, inst):
    line = inst.to_json_line()
    with pytest.raises(DataError, match="not newline-terminated"):
        list(read_jsonl(_write(tmp_path, [line, line[:40]])))
    with pytest.raises(DataError, match="duplicate id") as err:
        list(read_jsonl(_write(tmp_path, [line, line])))
    assert err.value.field_name == "id"
    with pytest.raises(DataError, match="not valid JSON"):
        list(read_jsonl(_write(tmp_path, [line, "{\n"])))


def test_no_floats_in_a_record(inst):
    assert "." not in json.dumps(asdict(inst)["candidate_answers"])
    assert not any(isinstance(v, float) for v in json.loads(inst.to_json_line()).values())
