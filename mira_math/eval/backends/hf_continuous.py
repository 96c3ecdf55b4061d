"""Continuous batching with a paged KV cache, where the installed transformers offers it.

Checked in transformers 5.25's source (``generation/continuous_batching/continuous_api.py``,
``generation/configuration_utils.py``): a model has ``continuous_batching_context_manager(
generation_config=None, block=True, timeout=None, continuous_batching_config=None,
persistent_manager=False, warmup=True, workload_hints=None)``, a context manager yielding a
``ContinuousBatchingManager`` whose ``add_requests(inputs: list[list[int]], max_new_tokens=None)``
returns request ids and whose ``get_result(timeout=)`` returns one finished (or failed)
``GenerationOutput(request_id, prompt_ids, generated_tokens, error, status, ...)`` at a time, or
None; ``generate_batch`` is the same loop without a way to stop it early.
``ContinuousBatchingConfig(num_blocks=None, max_batch_tokens=None, max_memory_percent=None,
page_size=256, ...)`` sizes the paged cache from free GPU memory when left unset (0.9 of it).

Why the loop is our own rather than ``generate_batch``: a deadline (``gpu_llama_bench.py``)
stops a turn in progress; the manager is stopped when the context exits. Only greedy decoding
goes this way: the per-request seeded sampler of the padded path has no counterpart here.
On a CPU the paged cache is sized explicitly (auto-sizing probes GPU memory and takes minutes
there); ``scripts/gpu_llama_bench.py --tiny`` runs this path on a CPU.
"""

from __future__ import annotations

import time
from typing import Any, Dict, List, Optional, Sequence

from mira_math.eval.backends.hf_memory import free_memory

CPU_CACHE = {"num_blocks": 64, "max_batch_tokens": 2048, "page_size": 64}


def available(model: Any) -> bool:
    """Whether ``model`` offers the continuous batching manager."""
    return callable(getattr(model, "continuous_batching_context_manager", None))


def _config(device: str, memory_share: Optional[float]) -> Any:
    """The paged cache's size: explicit on a CPU; on CUDA transformers' own sizing, or, given
    ``memory_share`` (a share of the whole card, as vLLM's ``gpu_memory_utilization``), the
    part of the free memory that keeps the process under that share."""
    from transformers import ContinuousBatchingConfig

    if not str(device).startswith("cuda"):
        return ContinuousBatchingConfig(**CPU_CACHE)
    found = free_memory(device) if memory_share else None
    if memory_share is None or not found:
        return ContinuousBatchingConfig()
    free, total = found
    percent = (memory_share * total - (total - free)) / free if free else 0.0
    return ContinuousBatchingConfig(max_memory_percent=min(0.95, max(0.05, percent)))


def _hints(prompts: Sequence[Sequence[int]], max_new_tokens: int) -> Any:
    try:
        from transformers.generation.continuous_batching.continuous_api import WorkloadHints
    except ImportError:           # an older layout: the manager infers the workload itself
        return None
    return WorkloadHints(max_prompt_length=max(len(p) for p in prompts),
                         max_generated_length=max_new_tokens, num_requests=len(prompts))


def generate(model: Any, prompts: Sequence[Sequence[int]], max_new_tokens: int,
             eos_token_ids: Sequence[int], pad_token_id: Optional[int], device: str,
             memory_share: Optional[float] = None, deadline: Optional[float] = None) -> List[Optional[Any]]:
    """Greedy continuation of every prompt (token ids), in order; an item is None where it did
    not finish (the deadline passed, or the manager stopped), else a ``GenerationOutput``
    (its ``error`` set where that request failed)."""
    from transformers import GenerationConfig

    config = GenerationConfig(max_new_tokens=max_new_tokens, do_sample=False,
                              eos_token_id=list(eos_token_ids) or None, pad_token_id=pad_token_id)
    results: Dict[str, Any] = {}
    with model.continuous_batching_context_manager(
            generation_config=config, block=True, timeout=5,
            continuous_batching_config=_config(device, memory_share),
            warmup=str(device).startswith("cuda"), workload_hints=_hints(prompts, max_new_tokens)) as manager:
        ids = manager.add_requests(inputs=[list(p) for p in prompts], max_new_tokens=max_new_tokens)
        while len(results) < len(ids):
            if deadline is not None and time.monotonic() > deadline:
                break                    # the turn in progress stops here: the context stops the manager
            result = manager.get_result(timeout=0.2)
            if result is None:
                if not manager.is_running():
                    break
                continue
            if result.is_finished():
                results[result.request_id] = result
    return [results.get(i) for i in ids]


__all__ = ["CPU_CACHE", "available", "generate"]
