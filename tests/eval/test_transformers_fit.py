"""The transformers backend fits the card it runs on: calls packed under a token budget, an
out-of-memory error split and retried (never a lost chat), a deadline that stops a turn, and
continuous batching where transformers offers it. Fakes raise a torch-like
``OutOfMemoryError`` above a batch size; the real-model tests need the transformers extra."""

from __future__ import annotations

import importlib.util
import time

import pytest

from mira_math.eval.backends.base import GenParams
from mira_math.eval.backends.hf_memory import bytes_per_token, is_out_of_memory
from tests.eval.test_transformers_backend import FakeModel, fake_backend, req

HAVE_TORCH = (importlib.util.find_spec("torch") is not None
              and importlib.util.find_spec("transformers") is not None)
needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="needs the transformers extra (torch)")


class OutOfMemoryError(RuntimeError):      # torch.OutOfMemoryError's name
    pass


class SmallCard(FakeModel):
    """Runs out of memory for any call of more than ``fits`` rows."""

    def __init__(self, fits: int) -> None:
        super().__init__()
        self.fits = fits
        self.sizes: list = []

    def generate(self, input_ids, attention_mask=None, **kwargs):
        self.sizes.append(len(input_ids.rows))
        if len(input_ids.rows) > self.fits:
            raise OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return super().generate(input_ids, attention_mask, **kwargs)


TEXTS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"]


def test_out_of_memory_splits_the_call_and_loses_no_chat():
    model = SmallCard(fits=2)
    b = fake_backend(model=model, batch_size=8)
    out = b.complete([req(t, seed=i) for i, t in enumerate(TEXTS)], GenParams(max_tokens=16))
    assert [c.text for c in out] == [t.upper() for t in TEXTS]
    assert all(c.error is None for c in out)
    assert model.sizes[0] == 7 and max(s for s in model.sizes if s <= 2) == 2
    assert sum(s for s in model.sizes if s <= 2) == 7          # each chat generated exactly once
    assert b.oom_splits >= 2
    # the next turn starts from what was learned (below every size that failed): no call fails
    model.sizes.clear()
    splits = b.oom_splits
    again = b.complete([req(t) for t in TEXTS], GenParams(max_tokens=16))
    assert [c.text for c in again] == [t.upper() for t in TEXTS]
    assert model.sizes == [2, 2, 2, 1] and b.oom_splits == splits


def test_a_chat_that_does_not_fit_alone_is_its_own_error():
    class Tiny(SmallCard):
        def generate(self, input_ids, attention_mask=None, **kwargs):
            if any("echo" in "".join(chr(t) for t in row if t >= 10) for row in input_ids.rows):
                raise OutOfMemoryError("CUDA out of memory")
            return super().generate(input_ids, attention_mask, **kwargs)

    b = fake_backend(model=Tiny(fits=8), batch_size=8)
    out = b.complete([req(t) for t in TEXTS], GenParams(max_tokens=16))
    assert [c.error is not None for c in out] == [t == "echo" for t in TEXTS]
    assert "out of memory for this chat alone" in out[4].error and "--retry-errors" in out[4].error
    assert [c.text for c in out if c.error is None] == [t.upper() for t in TEXTS if t != "echo"]


def test_a_token_budget_packs_calls_by_padded_size():
    model = FakeModel()
    # the fake tokenizer is one token per character: "system:S|user:alpha|assistant:" is 31
    b = fake_backend(model=model, batch_size=8, token_budget=3 * (35 + 10))
    out = b.complete([req(t) for t in TEXTS], GenParams(max_tokens=10))
    assert all(c.error is None for c in out)
    sizes = [len(c["input_ids"].rows) for c in model.calls]
    assert sum(sizes) == 7 and max(sizes) <= 3 and len(sizes) == 3
    unbounded = FakeModel()
    fake_backend(model=unbounded, batch_size=8).complete([req(t) for t in TEXTS], GenParams(max_tokens=10))
    assert [len(c["input_ids"].rows) for c in unbounded.calls] == [7]     # CPU, no budget: batch_size


def test_other_errors_are_not_retried():
    class Broken(FakeModel):
        def generate(self, input_ids, attention_mask=None, **kwargs):
            self.calls.append({})
            raise RuntimeError("CUDA error: device-side assert triggered")

    model = Broken()
    out = fake_backend(model=model, batch_size=8).complete([req(t) for t in TEXTS], GenParams())
    assert len(model.calls) == 1 and all("device-side assert" in c.error for c in out)


def test_a_passed_deadline_starts_no_call():
    model = FakeModel()
    b = fake_backend(model=model, batch_size=2, deadline=time.monotonic() - 1)
    out = b.complete([req(t) for t in TEXTS], GenParams())
    assert model.calls == [] and all("deadline" in c.error for c in out)


def test_a_deadline_stops_a_call_in_progress():
    """generate gets a stopping criterion that turns true once the deadline passes (the call
    then ends at its next token), and the chats of a call cut by it get an error."""
    from mira_math.eval.backends.transformers_backend import _deadline_criteria

    class Rows:
        shape, device = (3, 5), "cpu"

    def stops(criteria) -> bool:
        result = criteria[0](Rows() if not HAVE_TORCH else __import__("torch").zeros(3, 5), None)
        return bool(result.all()) if hasattr(result, "all") else bool(result)

    assert stops(_deadline_criteria(time.monotonic() - 1))
    assert not stops(_deadline_criteria(time.monotonic() + 3600))

    class PastTheDeadline(FakeModel):
        def generate(self, input_ids, attention_mask=None, **kwargs):
            assert "stopping_criteria" in kwargs
            out = super().generate(input_ids, attention_mask, **kwargs)
            backend.deadline = time.monotonic() - 1          # the deadline passes during the call
            return out

    backend = fake_backend(model=PastTheDeadline(replies={"alpha": [ord("A")] * 40}), batch_size=8,
                           deadline=time.monotonic() + 3600)
    out = backend.complete([req("alpha"), req("bravo")], GenParams(max_tokens=40))
    assert out[0].error == "deadline reached during this batch"    # cut off, no end of sequence
    assert out[1].error is None and out[1].text == "BRAVO"          # it had finished


def test_out_of_memory_is_recognised_by_name_or_message():
    assert is_out_of_memory(OutOfMemoryError("x"))
    assert is_out_of_memory(RuntimeError("CUDA error: out of memory"))
    assert not is_out_of_memory(RuntimeError("device-side assert"))


def test_bytes_per_token_of_llama_3_1_8b():
    class Config:
        num_hidden_layers, num_attention_heads, num_key_value_heads = 32, 32, 8
        hidden_size, intermediate_size, head_dim = 4096, 14336, 128

    class Model:
        config, dtype = Config(), "torch.bfloat16"

    # KV cache 2 x 32 x 8 x 128 x 2 bytes = 128 KiB a token, plus the prefill's activations
    assert bytes_per_token(Model()) == (2 * 32 * 8 * 128 + 3 * 14336 + 4 * 4096) * 2


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory):
    if not HAVE_TORCH:
        pytest.skip("torch/transformers not installed")
    from tests.eval.test_transformers_backend import _load_smoke_module

    path = tmp_path_factory.mktemp("tiny-llama")
    _load_smoke_module().build_tiny_model(path)
    return path


@needs_torch
def test_continuous_batching_matches_padded_greedy(tiny_model_dir):
    from mira_math.eval.backends import hf_continuous
    from mira_math.eval.backends.transformers_backend import TransformersBackend

    padded = TransformersBackend(str(tiny_model_dir), device="cpu", batch_size=4, continuous_batching=False)
    if not hf_continuous.available(padded.hf_model):
        pytest.skip("this transformers has no continuous batching")
    paged = TransformersBackend(str(tiny_model_dir), device="cpu", batch_size=4, continuous_batching=True)
    reqs = [req("hello", seed=1), req("find the sum of 3 and 4 .", seed=2), req("what is missing ?", seed=3)]
    greedy = GenParams(temperature=0.0, max_tokens=6)
    a, b = padded.complete(reqs, greedy), paged.complete(reqs, greedy)
    assert paged.continuous_failure is None, paged.continuous_failure
    assert all(c.error is None for c in b)
    assert [c.meta.get("generation") for c in b] == ["continuous"] * 3
    assert [c.text for c in b] == [c.text for c in a]
    assert [c.meta["usage"]["completion_tokens"] for c in b] == [c.meta["usage"]["completion_tokens"] for c in a]
    sampled = paged.complete(reqs, GenParams(temperature=1.0, max_tokens=4))   # seeded: padded path
    assert all("generation" not in c.meta for c in sampled)


def test_the_card_share_becomes_budgets(monkeypatch):
    """``gpu_memory_utilization`` is a share of the whole card (as vLLM's): with 40 of 140 GB in
    use (the weights), a share of 0.5 leaves 30 of the 100 free for batches or the paged cache."""
    import sys
    import types

    from mira_math.eval.backends import hf_continuous, hf_memory

    gb = 10 ** 9
    monkeypatch.setattr(hf_memory, "free_memory", lambda device: (100 * gb, 140 * gb))
    monkeypatch.setattr(hf_continuous, "free_memory", lambda device: (100 * gb, 140 * gb))

    class Model:
        class config:
            num_hidden_layers, num_attention_heads, num_key_value_heads = 32, 32, 8
            hidden_size, intermediate_size, head_dim = 4096, 14336, 128
        dtype = "torch.bfloat16"

    per_token = bytes_per_token(Model())
    assert hf_memory.token_budget(Model(), "cuda", 0.5) == int(30 * gb // per_token)
    assert hf_memory.token_budget(Model(), "cuda") == int(100 * gb * hf_memory.HEADROOM // per_token)
    fake = types.ModuleType("transformers")
    fake.ContinuousBatchingConfig = lambda **kwargs: kwargs
    monkeypatch.setitem(sys.modules, "transformers", fake)
    assert hf_continuous._config("cuda:0", 0.5) == {"max_memory_percent": pytest.approx(0.3)}
    assert hf_continuous._config("cuda:0", None) == {}                  # transformers' own sizing
    assert hf_continuous._config("cpu", 0.5) == hf_continuous.CPU_CACHE
