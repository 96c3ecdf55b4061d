"""How many chats one padded ``generate`` call may take on this card, and what to do when it
does not fit (the transformers backend).

A padded batch costs memory for every row at the longest row's length: the KV cache (2 x layers
x KV heads x head size per token, in the weights' type) for prompt plus new tokens, and during
the prefill the MLP's intermediate activations for every prompt token. :func:`token_budget` turns
the card's free memory into a number of such tokens; the backend then packs chats into a call
while ``rows x (longest prompt + max new tokens)`` stays inside it (and never more than its
``batch_size``). The estimate is deliberately simple: an out-of-memory error still happens on
odd shapes, and the backend then splits the batch in halves and retries them (a single chat that
does not fit alone is that chat's error, which ``--retry-errors`` reruns: never lost).
torch is imported only where a CUDA device is in use.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2}
HEADROOM = 0.85               # share of the free memory a batch may plan to use


def is_out_of_memory(err: BaseException) -> bool:
    """torch's ``OutOfMemoryError`` (CUDA or other accelerators) or its message, by name so that
    this needs no torch import."""
    names = {cls.__name__ for cls in type(err).__mro__}
    return "OutOfMemoryError" in names or "out of memory" in str(err).lower()


def release_cached_memory() -> None:
    """Give the allocator's cached blocks back after an out-of-memory error (a no-op on CPU)."""
    try:
        import torch
    except ImportError:
        return
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def _dtype_bytes(model: Any) -> int:
    dtype = str(getattr(model, "dtype", "float32")).replace("torch.", "")
    return DTYPE_BYTES.get(dtype, 4)


def bytes_per_token(model: Any) -> int:
    """Memory one token of one row costs in a padded batch: its KV cache entries plus the
    prefill's MLP activations (gate, up and their product), in the model's type."""
    config = getattr(model, "config", None)
    layers = int(getattr(config, "num_hidden_layers", 0) or 0)
    heads = int(getattr(config, "num_attention_heads", 0) or 0)
    kv_heads = int(getattr(config, "num_key_value_heads", 0) or heads)
    hidden = int(getattr(config, "hidden_size", 0) or 0)
    head_dim = int(getattr(config, "head_dim", 0) or (hidden // heads if heads else 0))
    inter = int(getattr(config, "intermediate_size", 0) or 4 * hidden)
    width = _dtype_bytes(model)
    return max(1, (2 * layers * kv_heads * head_dim + 3 * inter + 4 * hidden) * width)


def free_memory(device: str) -> Optional[Tuple[int, int]]:
    """(free, total) bytes of the CUDA device, or None (CPU, or no torch)."""
    if not str(device).startswith("cuda"):
        return None
    try:
        import torch
    except ImportError:
        return None
    free, total = torch.cuda.mem_get_info(torch.device(device))
    return int(free), int(total)


def token_budget(model: Any, device: str, share: Optional[float] = None) -> Optional[int]:
    """Tokens (rows x padded length) one ``generate`` call may hold on ``device``: the free
    memory (or, given ``share``, that share of the card less what is already in use) over
    :func:`bytes_per_token`; None where memory is not measured (CPU)."""
    found = free_memory(device)
    if found is None:
        return None
    free, total = found
    usable = free * HEADROOM if share is None else min(free, share * total - (total - free))
    return max(1, int(usable // bytes_per_token(model)))


__all__ = ["DTYPE_BYTES", "HEADROOM", "bytes_per_token", "free_memory", "is_out_of_memory",
           "release_cached_memory", "token_budget"]
