"""``inspect eval mira_math/mira --model mockllm/model --limit 20``, the command a researcher
types, run as a process from another folder: it writes an inspect log with MIRA's metrics, and
each sample's transcript and verdict equal the native episode's for the same replies.

mockllm's default output has no token counts, so inspect counts them with tiktoken's
``o200k_base`` file, which tiktoken downloads on first use. ``make test-integrations`` puts a
verified copy in ``build/tiktoken`` (``scripts/fetch_tiktoken.py``) and names it with
``TIKTOKEN_CACHE_DIR``; without it the test is skipped, except under ``MIRA_INTEGRATION_FULL=1``
where it fails."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="needs the inspect extra: pip install -e '.[inspect]' "
                                         "(make test-integrations)")

from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model._providers.mockllm import MockLLM  # noqa: E402

from mira_math import run_episode  # noqa: E402
from mira_math.integrations.common import release_instances  # noqa: E402
from mira_math.integrations.inspect_task import TRANSCRIPT  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import fetch_tiktoken  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from replay import plain  # noqa: E402

CACHE = Path(os.environ.get("TIKTOKEN_CACHE_DIR") or ROOT / "build" / "tiktoken")
METRICS = ("accuracy", "first_request_success", "hit_rate", "avg_requests", "trace_no_canonical",
           "trace_canonical_wrong", "trace_correct")


@pytest.fixture(scope="module")
def tiktoken_cache() -> Path:
    if not (CACHE / fetch_tiktoken.CACHE_NAME).is_file():
        why = (f"no o200k_base file in {CACHE}: run python scripts/fetch_tiktoken.py {CACHE} "
               "(make test-integrations does)")
        if os.environ.get("MIRA_INTEGRATION_FULL") == "1":
            pytest.fail(why)
        pytest.skip(why)
    return CACHE


def test_inspect_eval_cli_with_mockllm(tiktoken_cache, tmp_path):
    inspect = Path(sys.executable).parent / "inspect"
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(tiktoken_cache)}
    done = subprocess.run([str(inspect), "eval", "mira_math/mira", "--model", "mockllm/model",
                           "--limit", "20", "--log-dir", str(tmp_path / "logs"), "--display", "none"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    (log_file,) = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(log_file))
    assert log.status == "success", log.error
    assert len(log.samples) == 20
    metrics = log.results.scores[0].metrics
    assert set(METRICS) - {"hit_rate"} <= set(metrics), sorted(metrics)
    # hit_rate over no request is undefined: absent, never NaN or 0.0
    assert all(m.value == m.value for m in metrics.values())
    stats = [s.scores["mira_verifier"].metadata["mira_stats"] for s in log.samples]
    assert ("hit_rate" in metrics) == any(st["requests"] for st in stats)
    # the usage inspect counted reaches the transcript's stats
    assert sum(st["prompt_tokens"] or 0 for st in stats) == sum(s.model_usage["mockllm/model"].input_tokens
                                                                  for s in log.samples) > 0

    # The same replies through the facade's episode loop: identical transcripts and verdicts.
    release = {inst.id: inst for inst in release_instances()}
    reply = MockLLM.default_output
    correct = 0
    for sample in log.samples:
        native = run_episode(release[sample.id], lambda messages: reply)
        assert plain(sample.metadata[TRANSCRIPT]) == plain(native), sample.id
        verdict = sample.scores["mira_verifier"].value
        assert verdict == ("C" if native["verdict"]["correct"] else "I"), sample.id
        correct += native["verdict"]["correct"]
    assert metrics["accuracy"].value == correct / 20
    assert metrics["avg_requests"].value == 0       # the default output never asks
