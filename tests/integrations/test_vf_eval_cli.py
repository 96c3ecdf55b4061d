"""``vf-eval mira-math-rl --model stub --client.base-url URL``, the command a researcher types
after ``pip install`` of ``environments/mira_math_rl``, run as a process against a scripted
OpenAI-compatible server on 127.0.0.1 (``stub_mira.py``), with no other network: every reward
equals the verdict of ``mira-math eval`` on the same replies, and every episode's transcript
(kept in the trace's ``info``) equals the native one, with the rules responder and with eval's
LLM responder. A run whose every rollout failed exits 3 through ``mira-math-rl-eval``.

Against a seed-honouring server (``State(..., seeded=True)``: each reply depends on the request's
temperature, seed, token limit and stops) the two agree only because vf-eval's requests carry
eval's settings, per-request seeds included; a ``--sampling.temperature`` flag is recorded as
what was sent, and shows in the replies."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("verifiers.v1", reason="needs the rl extra (make test-integrations)")
pytest.importorskip("mira_math_rl", reason="needs the environment package: "
                                           "pip install -e environments/mira_math_rl (make test-integrations)")

sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).resolve().parents[1] / "eval")]
from openai_stub import serve  # noqa: E402
from replay import plain  # noqa: E402
from stub_mira import DECODING, SCRIPTS, Handler, State, script_of  # noqa: E402

from mira_math.cli.main import main as mira_math  # noqa: E402
from mira_math.cli.evaluation import DEFAULT_MAX_TOKENS  # noqa: E402
from mira_math.integrations.common import release_instances  # noqa: E402
from mira_math.integrations.verifiers_env import MAX_TOKENS  # noqa: E402
from mira_math.integrations.vf_check import ALL_FAILED  # noqa: E402

N = 24
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def stub():
    with serve(Handler, State(release_instances())) as httpd:
        yield httpd


@pytest.fixture
def server(stub):
    return f"http://127.0.0.1:{stub.server_address[1]}/v1"


def asked(stub) -> list:
    """What the server was asked since the last call (conversations and, for the holder, the
    structured-output request), in a canonical order."""
    with stub.state.lock:
        bodies, stub.state.bodies = stub.state.bodies, []
    return sorted(json.dumps({"messages": b["messages"], "response_format": b.get("response_format")},
                             sort_keys=True) for b in bodies)


def vf_eval(cwd: Path, url: str, *extra: str, command: str = "vf-eval") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_PROXY") and not k.endswith("_proxy")}
    env.update(HOME=str(cwd), NO_PROXY="127.0.0.1")   # verifiers' caches under this HOME only
    return subprocess.run([str(BIN / command), "mira-math-rl", "--model", "stub", "--client.base-url", url,
                           "-n", str(N), "--no-push", "--no-rich", "-o", str(cwd / "out"), *extra],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def solver_traces(out: Path) -> dict:
    (path,) = out.glob("*/traces.jsonl")
    rows = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        episode = json.loads(line)
        (trace,) = [t for t in episode["traces"] if t["agent"]["name"] == "solver"]
        rows[trace["task"]["data"]["id"]] = trace
    return rows


def native(tmp: Path, url: str, responder: str) -> dict:
    out = tmp / "native"
    assert mira_math(["eval", "--solver", f"openai:stub@{url}", "--responder", responder,
                      "--limit", str(N), "--out", str(out)]) == 0
    return {row["id"]: row for row in map(json.loads, (out / "transcripts.jsonl").read_text().splitlines())}


@pytest.mark.parametrize("responder", ["rules", "llm"])
def test_vf_eval_rewards_are_mira_math_eval_verdicts(stub, server, tmp_path, responder):
    spec = "rules" if responder == "rules" else f"llm:openai:stub@{server}"
    asked(stub)
    done = vf_eval(tmp_path, server, "--env.responder", spec)
    assert done.returncode == 0, done.stderr[-3000:]
    traces = solver_traces(tmp_path / "out")
    via_verifiers = asked(stub)
    expected = native(tmp_path, server, spec)
    assert via_verifiers == asked(stub)          # the model and the holder were asked the same
    assert sorted(traces) == sorted(expected) and len(traces) == N
    assert {script_of(i) for i in traces} == set(SCRIPTS)        # every scripted behaviour ran
    verdicts = [row["verdict"]["correct"] for row in expected.values()]
    assert 0 < sum(verdicts) < N                                 # rights and wrongs both
    for inst_id, trace in traces.items():
        row = expected[inst_id]
        assert trace["rewards"]["correct"]["score"] == (1.0 if row["verdict"]["correct"] else 0.0), inst_id
        mira = trace["info"]["mira"]
        assert mira["protocol"] == "paper"
        assert plain(mira["transcript"]) == plain(row), inst_id
        assert trace["metrics"]["requests"] == sum(t["role"] == "responder" for t in row["turns"])
    if responder == "llm":   # the LLM holder answered (and its fabricated quotes were refused)
        turns = [t for row in expected.values() for t in row["turns"] if t["role"] == "responder"]
        assert any(t["decision"] == "offer" for t in turns)
        assert any("fabricated quote" in " ".join(t["errors"]) for t in turns)


def test_a_run_with_no_server_fails_loudly(tmp_path):
    dead = "http://127.0.0.1:9/v1"     # the discard port: nothing listens
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain_run = vf_eval(tmp_path / "a", dead)
    assert plain_run.returncode == 0          # verifiers' own status: 0 although nothing ran
    checked = vf_eval(tmp_path / "b", dead, command="mira-math-rl-eval")
    assert checked.returncode == ALL_FAILED, checked.stderr[-2000:]
    assert f"{N} of {N} rollouts failed" in checked.stderr


# ------------------------------------------------------------------ a seed-honouring server

@pytest.fixture(scope="module")
def seeded():
    with serve(Handler, State(release_instances(), seeded=True)) as httpd:
        yield httpd


def settings_sent(stub) -> dict:
    """(instance id, turn) -> the decoding fields of each solver request since the last call."""
    with stub.state.lock:
        bodies, stub.state.bodies = stub.state.bodies, []
    out = {}
    for body in bodies:
        if "response_format" in body:
            continue
        key = (stub.state.opening[tuple(m["content"] for m in body["messages"][:2])].id,
               sum(m["role"] == "assistant" for m in body["messages"]))
        assert key not in out, key
        out[key] = {k: body[k] for k in DECODING if k in body}
    return out


def agreement(traces: dict, expected: dict) -> tuple:
    """(vf-eval's rewards summed, eval's verdicts summed, transcripts equal), over the instances."""
    rewards = sum(t["rewards"]["correct"]["score"] for t in traces.values())
    verdicts = sum(1 for row in expected.values() if row["verdict"]["correct"])
    same = sum(plain(t["info"]["mira"]["transcript"]) == plain(expected[i]) for i, t in traces.items())
    return rewards, verdicts, same


def test_the_environment_default_is_evals_token_limit():
    assert MAX_TOKENS == DEFAULT_MAX_TOKENS


def test_vf_eval_sends_evals_settings_to_a_seed_honouring_server(seeded, tmp_path, capsys):
    url = f"http://127.0.0.1:{seeded.server_address[1]}/v1"
    settings_sent(seeded)
    done = vf_eval(tmp_path, url)
    assert done.returncode == 0, done.stderr[-3000:]
    traces = solver_traces(tmp_path / "out")
    via_verifiers = settings_sent(seeded)
    expected = native(tmp_path, url, "rules")
    via_eval = settings_sent(seeded)
    rewards, verdicts, same = agreement(traces, expected)
    with capsys.disabled():
        print(f"\nseeded server, vf-eval (no --sampling flags) vs mira-math eval: rewards {rewards:g}/{N}, "
              f"verdicts {verdicts}/{N}, transcripts identical {same}/{N}")
    assert via_verifiers == via_eval                              # every request, turn by turn
    first = via_eval[(sorted(expected)[0], 0)]
    assert first["temperature"] == 0.0 and first["max_tokens"] == DEFAULT_MAX_TOKENS and first["stop"]
    assert len({s["seed"] for s in via_eval.values()}) == len(via_eval)   # a seed per request
    assert sorted(traces) == sorted(expected) and len(traces) == N
    assert 0 < verdicts < N
    for inst_id, trace in traces.items():
        row = expected[inst_id]
        assert trace["rewards"]["correct"]["score"] == (1.0 if row["verdict"]["correct"] else 0.0), inst_id
        mira = trace["info"]["mira"]
        assert plain(mira["transcript"]) == plain(row), inst_id
        turns = sum(t["role"] == "solver" for t in row["turns"])
        assert [{k: s.get(k) for k in ("seed", "temperature", "max_tokens", "stop")} for s in mira["sent"]] == [
            {k: via_eval[(inst_id, n)].get(k) for k in ("seed", "temperature", "max_tokens", "stop")}
            for n in range(turns)], inst_id
        assert mira["overridden"] == []
    manifest = json.loads((tmp_path / "native" / "manifest.json").read_text(encoding="utf-8"))["config"]
    for trace in traces.values():        # the settings as both records show them
        mira = trace["info"]["mira"]
        assert mira["run_seed"] == manifest["run_seed"]
        assert {k: mira["decoding"][k] for k in manifest["solver_params"]} == manifest["solver_params"]


def test_a_vf_eval_sampling_flag_is_what_is_sent_and_recorded(seeded, tmp_path):
    url = f"http://127.0.0.1:{seeded.server_address[1]}/v1"
    settings_sent(seeded)
    done = vf_eval(tmp_path, url, "--sampling.temperature", "0.7")
    assert done.returncode == 0, done.stderr[-3000:]
    traces = solver_traces(tmp_path / "out")
    sent = settings_sent(seeded)
    assert {s["temperature"] for s in sent.values()} == {0.7}
    for trace in traces.values():
        mira = trace["info"]["mira"]
        assert mira["overridden"] == ["temperature"]
        assert {s["temperature"] for s in mira["sent"]} == {0.7}
    expected = native(tmp_path, url, "rules")
    settings_sent(seeded)
    _, _, same = agreement(traces, expected)
    assert same < N                    # the server heard the other temperature


def test_vf_eval_rollouts_of_a_task_are_evals_epochs(seeded, tmp_path):
    """``-r 2``: the two rollouts of a task play eval's epochs 0 and 1 (their own seeds), so a
    seed-honouring server can answer them differently, and together they are ``--epochs 2``."""
    url = f"http://127.0.0.1:{seeded.server_address[1]}/v1"
    done = vf_eval(tmp_path, url, "-r", "2", "-n", "12")
    assert done.returncode == 0, done.stderr[-3000:]
    (path,) = (tmp_path / "out").glob("*/traces.jsonl")
    rollouts: dict = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        (trace,) = [t for t in json.loads(line)["traces"] if t["agent"]["name"] == "solver"]
        mira = trace["info"]["mira"]
        rollouts.setdefault(trace["task"]["data"]["id"], {})[mira["epoch"]] = mira["transcript"]
    assert len(rollouts) == 12 and all(sorted(r) == [0, 1] for r in rollouts.values())
    out = tmp_path / "native"
    assert mira_math(["eval", "--solver", f"openai:stub@{url}", "--limit", "12", "--epochs", "2",
                      "--out", str(out)]) == 0
    native: dict = {}
    for row in map(json.loads, (out / "transcripts.jsonl").read_text().splitlines()):
        native.setdefault(row["id"], {})[row.get("epoch", 0)] = row
    for inst_id, epochs in rollouts.items():
        for epoch, transcript in epochs.items():
            assert plain(transcript) == plain(native[inst_id][epoch]), (inst_id, epoch)
    assert any(plain(e[0]["turns"]) != plain(e[1]["turns"]) for e in rollouts.values())   # the seeds differ
