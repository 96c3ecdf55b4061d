"""scripts/gpu_llama_bench.py: the turn bound and its accounting (a fake backend, always), and
the whole script on a tiny random model on CPU where torch and transformers are installed."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

import pytest

from mira_math.eval.backends.base import ChatRequest, Completion, GenParams
from mira_math.generators.layout import DEFAULT_RELEASE

ROOT = Path(__file__).resolve().parents[2]
HAVE_TORCH = (importlib.util.find_spec("torch") is not None
              and importlib.util.find_spec("transformers") is not None
              and importlib.util.find_spec("tokenizers") is not None)


def load_bench():
    spec = importlib.util.spec_from_file_location("gpu_llama_bench",
                                                  ROOT / "scripts" / "gpu_llama_bench.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["gpu_llama_bench"] = module   # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


class FakeInner:
    def __init__(self):
        self.calls = 0

    def complete(self, requests, params):
        self.calls += 1
        return [Completion(text="x", meta={"usage": {"completion_tokens": 3}}) for _ in requests]

    def describe(self):
        return {"backend": "fake"}


def test_bounded_backend_counts_turns_then_errors_every_chat(capsys):
    bench = load_bench()
    inner = FakeInner()
    b = bench.BoundedBackend(inner, max_turns=2, deadline=time.monotonic() + 3600, batch_size=4)
    reqs = [ChatRequest([{"role": "user", "content": "q"}], seed=k) for k in range(6)]
    for _ in range(3):
        out = b.complete(reqs, GenParams())
    assert inner.calls == 2
    assert all(c.error == "bench: turn bound reached" for c in out)
    assert [(t.chats, t.generate_calls, t.completion_tokens) for t in b.turns] == [(6, 2, 18)] * 2
    assert "occupancy 0.75" in capsys.readouterr().out


def test_bounded_backend_past_deadline_runs_nothing():
    bench = load_bench()
    inner = FakeInner()
    b = bench.BoundedBackend(inner, max_turns=5, deadline=time.monotonic() - 1, batch_size=4)
    out = b.complete([ChatRequest([{"role": "user", "content": "q"}], seed=0)], GenParams())
    assert inner.calls == 0 and out[0].error


def test_release_words_are_ranked_deterministically():
    words = load_bench().release_words(DEFAULT_RELEASE, 50)
    assert len(words) == 50 and len(set(words)) == 50
    assert words == load_bench().release_words(DEFAULT_RELEASE, 50)


def test_committed_config_is_llama_31_8b():
    import json

    raw = json.loads((ROOT / "scripts" / "configs" / "llama-3.1-8b-instruct.json").read_text())
    assert (raw["hidden_size"], raw["num_hidden_layers"], raw["num_key_value_heads"],
            raw["vocab_size"]) == (4096, 32, 8, 128256)
    assert raw["rope_scaling"]["rope_type"] == "llama3"


@pytest.mark.skipif(not HAVE_TORCH, reason="needs torch+transformers+tokenizers; the "
                    "BoundedBackend tests above cover the turn bound and accounting")
def test_tiny_bench_runs_on_cpu(capsys):  # pragma: no cover - needs torch
    assert load_bench().main(["--tiny", "--device", "cpu", "--limit", "4", "--max-turns", "1",
                              "--max-tokens", "4", "--batch-size", "4"]) == 0
    out = capsys.readouterr().out
    assert "turn 1: 4 chats" in out and "BENCH OK" in out
