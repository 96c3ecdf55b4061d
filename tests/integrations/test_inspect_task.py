"""The inspect_ai task against ``mira-math eval``: mockllm replays the scripted solvers, and
inspect's per-sample scores, transcripts and metrics equal the native run's exactly.

A documented sample (66 instances, ``--sample 66 --sample-seed 24``) by default; with
``MIRA_INTEGRATION_FULL=1`` (``make test-integrations`` sets it) the reference solver is compared
over the whole release, once: its episodes take every path (request, offer, answer) in every
family, while noask's are one answer turn each, which the sample covers as well (the whole
release twice was 140 s, 80% of the integrations)."""

from __future__ import annotations

import json
from dataclasses import replace
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="needs the inspect extra: pip install -e '.[inspect]' "
                                         "(make test-integrations)")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import get_model  # noqa: E402

from mira_math.eval.scoring import group_metrics, instance_stats  # noqa: E402
from mira_math.game.prompts import system_prompt  # noqa: E402
from mira_math.eval.rundir import InstanceInfo  # noqa: E402
from mira_math.integrations.common import release_instances, stats_from_dict  # noqa: E402
from mira_math.integrations.inspect_task import STATS, TRANSCRIPT, mira, mira_type_b  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from replay import plain, replaying  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FULL = os.environ.get("MIRA_INTEGRATION_FULL") == "1"
SAMPLE = ["--sample", "66", "--sample-seed", "24"]


WHOLE_RELEASE_SPEC = "reference"   # the one solver compared over the whole release under FULL


def _native(spec: str, out: Path) -> dict:
    args = [sys.executable, "-m", "mira_math.cli", "eval", "--solver", spec, "--out", str(out)]
    whole = FULL and spec == WHOLE_RELEASE_SPEC
    subprocess.run(args + ([] if whole else SAMPLE), cwd=ROOT, check=True, capture_output=True)
    lines = (out / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()
    return {row["id"]: row for row in map(json.loads, lines)}


@pytest.fixture(scope="module")
def release():
    return {inst.id: inst for inst in release_instances()}


@pytest.mark.parametrize("spec", ["reference", "noask"])
def test_inspect_scores_equal_mira_eval(spec, release, tmp_path):
    native = _native(spec, tmp_path / "native")
    model = get_model("mockllm/model", custom_outputs=replaying(spec, list(release.values())),
                      memoize=False)
    (log,) = inspect_eval(mira(), model=model, sample_id=sorted(native),
                          log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    samples = {s.id: s for s in log.samples}
    assert sorted(samples) == sorted(native)
    for tid, row in native.items():
        score = samples[tid].scores["mira_verifier"]
        assert score.value == ("C" if row["verdict"]["correct"] else "I"), tid
        assert plain(samples[tid].metadata[TRANSCRIPT]) == plain(row), tid
    native_stats = [instance_stats(row, InstanceInfo.of(release[tid])) for tid, row in native.items()]
    ours = [stats_from_dict(samples[tid].scores["mira_verifier"].metadata[STATS]) for tid in native]
    # inspect's reported usage reaches the stats; mira eval's scripted run reports none
    assert all(s.usage_turns == s.solver_turns > 0 for s in ours)
    assert sum(s.prompt_tokens for s in ours) == sum(samples[t].model_usage["mockllm/model"].input_tokens
                                                     for t in native)
    no_usage = {"prompt_tokens": 0, "completion_tokens": 0, "reasoning_tokens": 0, "usage_turns": 0,
                "reasoning_turns": 0}
    ours = [replace(s, **no_usage) for s in ours]
    assert sorted(ours, key=lambda s: s.key) == sorted(native_stats, key=lambda s: s.key)
    expected = group_metrics(native_stats)
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert metrics["accuracy"] == float(expected.accuracy)
    for name in ("first_request_success", "hit_rate", "avg_requests", "trace_no_canonical",
                 "trace_canonical_wrong", "trace_correct", "partial_credit", "all_facts_rate", "ask_f1"):
        want = getattr(expected, name)
        if want is None:       # undefined, as score leaves it: no entry, never NaN
            assert name not in metrics, name
        else:
            assert metrics[name] == float(Fraction(want)), name
    if spec == "reference":
        assert expected.accuracy == 1 and expected.first_request_success == 1
    else:
        assert expected.no_request == len(native)


def test_task_arguments_select_rows(release):
    task = mira_type_b(family="circuit_missing_resistance", regime="4s")
    rows = list(task.dataset)
    want = [i for i in release.values() if i.family == "circuit_missing_resistance"]
    assert [r.id for r in rows] == [i.id for i in want]
    assert {r.metadata["type"] for r in rows} == {"B"}
    assert rows[0].metadata["seed_set"] == want[0].seed_set
    assert rows[0].input[0].text == system_prompt("4s") != system_prompt("zs")


def test_an_unknown_family_is_one_line_error():
    with pytest.raises(ValueError, match="unknown family 'nope'"):
        mira_type_b(family="nope")


def test_the_entry_point_names_the_tasks(tmp_path):
    """``inspect eval mira_math/mira_type_a`` resolves through the ``inspect_ai`` entry point
    (run from another folder: a checkout's own egg-info would hide the editable install)."""
    code = ("from inspect_ai._eval.registry import task_create; "
            "t = task_create('mira_math/mira_type_a', regime='4s'); "
            "print(t.name, len(t.dataset), sorted({s.metadata['type'] for s in t.dataset}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    want = sum(1 for i in release_instances(type="A"))
    assert out.stdout.split()[:2] == ["mira_math/mira_type_a", str(want)], out.stdout
    assert out.stdout.strip().endswith("['A']")


def test_the_llm_responder_is_the_responder_role_with_structured_output(release, tmp_path):
    """``responder=llm``: the harness's LLM responder asks the model bound to the role
    ``responder``, with its reply schema as structured output; its decisions drive the episode."""
    from inspect_ai.model import ModelOutput, ModelUsage

    seen = []
    decline = json.dumps({"type": "decline", "has_exact_match": False, "quoted_constraint": "",
                          "hint": "no"})

    def holder(messages, tools, tool_choice, config):
        seen.append(config)
        out = ModelOutput.from_content(model="mockllm", content=decline)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    ids = sorted(release)[:3]
    solver = get_model("mockllm/model", custom_outputs=replaying("reference", list(release.values())),
                       memoize=False)
    responder = get_model("mockllm/model", custom_outputs=holder, memoize=False)
    (log,) = inspect_eval(mira(responder="llm"), model=solver, model_roles={"responder": responder},
                          sample_id=ids, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    assert seen and all(c.response_schema is not None and c.response_schema.name == "responder_reply"
                        for c in seen)
    for sample in log.samples:
        turns = [t for t in sample.metadata[TRANSCRIPT]["turns"] if t["role"] == "responder"]
        assert turns and all(t["decision"] == "decline" and t["raw"] == decline for t in turns)
        assert sample.metadata[TRANSCRIPT]["responder"] == "llm"
        assert sample.scores["mira_verifier"].value == "I"    # the reference solver never got its line


@pytest.mark.parametrize("spec", ["reference", "ask-all"])
def test_the_blind_tier_scores_as_eval(spec, tmp_path):
    """``-T config=blind -T protocol=blind``: the same transcripts and blind metrics as
    ``mira-math eval --config blind --protocol blind``."""
    subprocess.run([sys.executable, "-m", "mira_math.cli", "eval", "--solver", spec, "--config", "blind",
                    "--protocol", "blind", "--out", str(tmp_path / "native")], cwd=ROOT, check=True,
                   capture_output=True)
    lines = (tmp_path / "native" / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()
    native = {row["id"]: row for row in map(json.loads, lines)}
    tier = {i.id: i for i in release_instances(config="blind")}
    model = get_model("mockllm/model", custom_outputs=replaying(spec, list(tier.values())), memoize=False)
    (log,) = inspect_eval(mira(config="blind", protocol="blind"), model=model,
                          log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    samples = {s.id: s for s in log.samples}
    assert sorted(samples) == sorted(native) == sorted(tier)
    for tid, row in native.items():
        assert plain(samples[tid].metadata[TRANSCRIPT]) == plain(row), tid
    expected = group_metrics([instance_stats(row, InstanceInfo.of(tier[tid])) for tid, row in native.items()])
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    for name in ("minimal_accuracy", "ask_decision_accuracy", "over_ask_rate", "guess_rate", "accuracy"):
        assert metrics[name] == float(Fraction(getattr(expected, name))), name
    assert (metrics["minimal_accuracy"] == 1.0) == (spec == "reference")


def test_the_protocol_is_checked_when_the_task_is_made():
    for kwargs, said in (({"protocol": "blind"}, "not a blind-tier row"),
                         ({"config": "blind"}, "--protocol blind"),
                         ({"config": "blind", "protocol": "blind", "regime": "4s"}, "zero-shot"),
                         ({"config": "nope"}, "unknown instance config")):
        with pytest.raises(ValueError) as err:
            mira(**kwargs)
        assert said in str(err.value) and "\n" not in str(err.value), kwargs
