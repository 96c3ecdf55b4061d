"""Strict JSON: nothing writes NaN or Infinity into transcripts.jsonl,
manifest.json, scores.json or audit.json. A non-finite float that reaches a transcript (a
model's usage block, a backend's meta) is written as null; options that would put one in
the manifest are refused; the LLM responder reads NaN in a reply as a parse error."""

from __future__ import annotations

import json
import pytest

import mira_math.eval.solvers
from mira_math.cli.main import main
from mira_math.eval.llm_responder import parse_reply
from mira_math.eval.solvers import NoAskSolver
from mira_math.game.messages import Completion
from mira_math.game.transcript import Transcript


def _strict(text: str):
    def refuse(constant):
        raise AssertionError(f"{constant} written")
    return json.loads(text, parse_constant=refuse)


class NaNMetaSolver(NoAskSolver):
    """Answers 0, reporting a usage block full of non-finite numbers."""

    def generate(self, calls):
        meta = {"usage": {"prompt_tokens": float("nan"), "completion_tokens": float("inf"),
                          "latency": [float("-inf"), 1.5]}}
        return [Completion(text="ANSWER: 0", finish_reason="stop", meta=dict(meta)) for _ in calls]


def test_a_run_with_non_finite_meta_writes_strict_json_everywhere(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(mira_math.eval.solvers, "make_solver", lambda spec, params=None, **o: NaNMetaSolver())
    run = tmp_path / "run"
    assert main(["eval", "--solver", "noask", "--limit", "3", "--out", str(run)]) == 0
    lines = (run / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [_strict(line) for line in lines]
    usage = rows[0]["turns"][0]["meta"]["usage"]
    assert usage == {"prompt_tokens": None, "completion_tokens": None, "latency": [None, 1.5]}
    assert main(["score", str(run)]) == 0
    assert main(["audit", str(run)]) == 0
    for name in ("manifest.json", "scores.json", "audit.json"):
        _strict((run / name).read_text(encoding="utf-8"))


def test_a_transcript_line_is_strict_json():
    t = Transcript(id="x", family="f", type="A", difficulty=1, budget=3, solver="s", responder="r",
                   regime="zs", condition="standard", tokens_est=float("nan"), wall_s=float("inf"),
                   error={"detail": [float("nan")]})
    row = _strict(t.to_json_line())
    assert row["tokens_est"] is None and row["wall_s"] is None and row["error"] == {"detail": [None]}
    t.tokens_est = 2.5
    assert _strict(t.to_json_line())["tokens_est"] == 2.5   # finite values untouched


@pytest.mark.parametrize("option", [["--temperature", "nan"], ["--temperature", "inf"],
                                    ["--temperature", "-1"], ["--timeout", "inf"],
                                    ["--timeout", "nan"], ["--gpu-memory-utilization", "nan"]])
def test_non_finite_options_are_refused_before_a_manifest_is_written(option, tmp_path, capsys):
    run = tmp_path / "run"
    with pytest.raises(SystemExit) as done:
        main(["eval", "--solver", "noask", "--limit", "1", "--out", str(run), *option])
    assert done.value.code == 2 and not run.exists()
    assert "finite number" in capsys.readouterr().err or option[1] == "-1"


@pytest.mark.parametrize("reply", ['{"decision": NaN}', '{"x": Infinity}', '[-Infinity]'])
def test_the_llm_responder_reads_nan_as_a_parse_error(reply):
    value, error = parse_reply(reply)
    assert value is None and "is not strict JSON" in error


def test_a_manifest_is_never_written_with_nan(tmp_path, monkeypatch, capsys):
    """The writer itself refuses (allow_nan=False): a NaN that got past the options is one
    error line, never a manifest other tools cannot read."""
    from mira_math.eval.rundir import writer

    real = writer.manifest
    monkeypatch.setattr(writer, "manifest", lambda *a, **k: {**real(*a, **k), "oops": float("nan")})
    run = tmp_path / "run"
    assert main(["eval", "--solver", "noask", "--limit", "1", "--out", str(run)]) == 1
    err = capsys.readouterr().err
    assert "Out of range float values are not JSON compliant" in err and err.count("\n") == 1
    assert not (run / "manifest.json").exists()
