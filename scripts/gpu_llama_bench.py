#!/usr/bin/env python3
"""Throughput of the transformers backend at Llama-3.1-8B-Instruct's size, offline, on one GPU.

For a machine with torch and transformers, no vllm, no internet, and only this repository:
the model is Llama-3.1-8B-Instruct's architecture (``scripts/configs/llama-3.1-8b-instruct.json``)
with random bf16 weights built on the GPU, and a word-level tokenizer built from the release's
own text (padded to the model's 128,256 ids, with a Llama-3.1-style chat template). The whole
release runs through the normal runner (rules responder, default turn budget) for at most
``--max-turns`` solver turns, then every live episode gets a "turn bound reached" error. Random
weights never write REQUEST/ANSWER lines, so each turn is a format error and the episode goes
on to its budget: the figure of interest is throughput, not score. Prints, per solver turn,
the engine calls (padded ``generate`` calls and their occupancy, or one continuous-batching
turn), tokens, tokens/s and the peak memory of the turn (CUDA: the allocator's peak, allocated
and reserved, reset at each turn; CPU: the process's peak resident size so far), and at the end
the model share and harness share of the run.

    python scripts/gpu_llama_bench.py                     # H200-class GPU: well under 8 minutes
    python scripts/gpu_llama_bench.py --tiny --device cpu --limit 12 --max-turns 2   # smoke
    python scripts/gpu_llama_bench.py --tiny --device cpu --limit 12 --continuous on  # CB on CPU

Options: --batch-size (most chats per padded generate call, default 256; the backend's token
budget from free memory may make calls smaller), --continuous auto|on|off (continuous batching
with paged attention where transformers has it; auto: on CUDA), --gpu-memory-utilization
(the share of the card the batches or the paged cache may plan for), --max-tokens (per turn,
128), --deadline-s (default 300: a turn in progress stops at its next token, and no turn starts
after it).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mira_math.eval.backends.base import ChatRequest, Completion, GenParams  # noqa: E402

CONFIG = ROOT / "scripts" / "configs" / "llama-3.1-8b-instruct.json"
SPECIALS = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>",
            "<|eot_id|>", "<pad>", "<unk>"]
# Llama-3.1's header layout, date line included (the backend pins date_string).
CHAT_TEMPLATE = (
    "{{ bos_token }}{% if date_string is not defined %}{% set date_string = '26 Jul 2024' %}"
    "{% endif %}{% for m in messages %}<|start_header_id|>{{ m['role'] }}<|end_header_id|>\n\n"
    "{% if loop.first and m['role'] == 'system' %}Today Date: {{ date_string }}\n\n{% endif %}"
    "{{ m['content'] }}<|eot_id|>{% endfor %}"
    "{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>\n\n{% endif %}")
TINY = {"hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 32, "vocab_size": 8192,
        "max_position_embeddings": 16384}


@dataclass
class TurnStat:
    chats: int
    generate_calls: int
    completion_tokens: int
    model_s: float
    peak: str = ""


def reset_peak(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.reset_peak_memory_stats()


def peak_memory(device: str) -> str:
    """The turn's peak: CUDA allocator peaks since the last reset; on CPU the process's peak
    resident size (it never goes down, so it is the run's peak so far)."""
    if device.startswith("cuda"):
        import torch

        return (f"peak {torch.cuda.max_memory_allocated() / 1e9:.1f} GB allocated, "
                f"{torch.cuda.max_memory_reserved() / 1e9:.1f} GB reserved")
    import resource

    return f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB (process)"


@dataclass
class BoundedBackend:
    """Wraps a backend: records each ``complete`` call (one per protocol turn in the batched
    runner) and, after ``max_turns`` calls or past ``deadline``, answers every chat with an error
    so the run ends quickly and records why."""

    inner: Any
    max_turns: int
    deadline: float
    batch_size: int
    device: str = "cpu"
    turns: List[TurnStat] = field(default_factory=list)

    def complete(self, requests: Sequence[ChatRequest], params: GenParams) -> List[Completion]:
        requests = list(requests)
        if len(self.turns) >= self.max_turns or time.monotonic() > self.deadline:
            return [Completion(error="bench: turn bound reached") for _ in requests]
        reset_peak(self.device)
        calls_before = self.inner.generate_calls
        t0 = time.perf_counter()
        out = self.inner.complete(requests, params)
        wall = time.perf_counter() - t0
        tokens = sum(int((c.meta or {}).get("usage", {}).get("completion_tokens") or 0)
                     for c in out)
        calls = self.inner.generate_calls - calls_before
        continuous = any((c.meta or {}).get("generation") == "continuous" for c in out)
        cut = sum(1 for c in out if c.error and "deadline" in c.error)
        self.turns.append(TurnStat(len(requests), calls, tokens, wall, peak_memory(self.device)))
        stat = self.turns[-1]
        how = ("1 continuous-batching run" if continuous else
               f"{calls} generate calls, occupancy {stat.chats / max(1, calls * self.batch_size):.2f}")
        print(f"turn {len(self.turns)}: {stat.chats} chats in {how}, {tokens} tokens, {wall:.1f} s, "
              f"{tokens / wall if wall > 0 else 0.0:.0f} tok/s, {stat.peak}"
              + (f"; deadline reached: {cut} chats stopped" if cut else ""), flush=True)
        return out

    def describe(self) -> Dict[str, Any]:
        return {"bench_max_turns": self.max_turns, **self.inner.describe()}


def release_words(release: Path, limit: int) -> List[str]:
    """The most frequent word-level pieces of the release text (what the tokenizer splits
    on), most frequent first, ties by text, at most ``limit``."""
    counts: Dict[str, int] = {}
    pattern = re.compile(r"\w+|[^\w\s]+")
    for path in sorted((release / "data").glob("*/test.jsonl")):
        for piece in pattern.findall(path.read_text(encoding="utf-8")):
            counts[piece] = counts.get(piece, 0) + 1
    ranked = sorted(counts, key=lambda w: (-counts[w], w))
    return ranked[:limit]


def build_tokenizer(release: Path, vocab_size: int) -> Any:
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab: Dict[str, int] = {}
    for token in SPECIALS + release_words(release, vocab_size - len(SPECIALS)):
        vocab.setdefault(token, len(vocab))
    k = 0
    while len(vocab) < vocab_size:  # filler so every id the model can emit decodes
        vocab.setdefault(f"<r{k}>", len(vocab))
        k += 1
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    core.decoder = decoders.WordPiece(prefix="##")  # joins with spaces
    core.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in SPECIALS])
    tok = PreTrainedTokenizerFast(tokenizer_object=core, bos_token="<|begin_of_text|>",
                                  eos_token="<|eot_id|>", pad_token="<pad>", unk_token="<unk>")
    tok.chat_template = CHAT_TEMPLATE
    return tok


def build_model(config_path: Path, tiny: bool, device: str, tokenizer: Any) -> Any:
    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig

    raw = json.loads(config_path.read_text(encoding="utf-8"))
    if tiny:
        raw.update(TINY)
    raw.pop("torch_dtype", None)
    raw["bos_token_id"] = tokenizer.bos_token_id
    raw["eos_token_id"] = tokenizer.eos_token_id
    raw["pad_token_id"] = tokenizer.pad_token_id
    config = LlamaConfig(**raw)
    dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=dtype)
    model.eval()
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--tiny", action="store_true", help="a 2-layer model (CPU smoke test)")
    parser.add_argument("--release", type=Path, default=ROOT / "mira-math")
    parser.add_argument("--limit", type=int, help="first N instances (default: all)")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--max-turns", type=int, default=3)
    parser.add_argument("--deadline-s", type=float, default=300.0)
    parser.add_argument("--continuous", choices=["auto", "on", "off"], default="auto")
    parser.add_argument("--gpu-memory-utilization", type=float)
    parser.add_argument("--out", type=Path, help="run folder (default: a temporary one)")
    args = parser.parse_args(argv)

    import torch

    from mira_math.eval.backends.transformers_backend import TransformersBackend
    from mira_math.game.responders.rules import RulesResponder
    from mira_math.eval.runner import RunConfig, data_files, load_data, run
    from mira_math.eval.solvers import ModelSolver

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("no CUDA device visible (use --device cpu --tiny for the smoke test)")
        return 2
    t_start = time.perf_counter()
    raw = json.loads(CONFIG.read_text(encoding="utf-8"))
    vocab_size = TINY["vocab_size"] if args.tiny else int(raw["vocab_size"])
    tokenizer = build_tokenizer(args.release, vocab_size)
    t0 = time.perf_counter()
    model = build_model(CONFIG, args.tiny, args.device, tokenizer)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"model: {n_params / 1e9:.2f} B parameters on {args.device} "
          f"(built in {time.perf_counter() - t0:.1f} s); tokenizer: {len(tokenizer)} ids",
          flush=True)
    deadline = time.monotonic() + args.deadline_s
    inner = TransformersBackend("random-llama-3.1-8b" + ("-tiny" if args.tiny else ""),
                                device=args.device, batch_size=args.batch_size, model=model,
                                tokenizer=tokenizer, deadline=deadline,
                                continuous_batching={"auto": None, "on": True, "off": False}[args.continuous],
                                gpu_memory_utilization=args.gpu_memory_utilization)
    backend = BoundedBackend(inner, args.max_turns, deadline, args.batch_size, args.device)
    params = GenParams(temperature=0.0, max_tokens=args.max_tokens)
    solver = ModelSolver("transformers:random-llama", backend, params)
    selection = load_data(data_files(None, args.release, args.release), None, None,
                          args.limit, None)
    config = RunConfig(solver="transformers:random-llama", responder="rules",
                       solver_params=params.as_dict(), selection={"limit": args.limit})
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp) / "run"
        result = run(out, selection, config, solver, RulesResponder(), progress=False)
    model_s = sum(t.model_s for t in backend.turns)
    tokens = sum(t.completion_tokens for t in backend.turns)
    run_s = result.wall_s
    print(f"instances: {len(selection.instances)}; solver turns run: {len(backend.turns)}; "
          f"out-of-memory splits: {inner.oom_splits}; generation: {inner.describe()['continuous_batching']}")
    print(f"tokens: {tokens} in {model_s:.1f} s of model time: "
          f"{tokens / model_s if model_s > 0 else 0.0:.0f} tok/s")
    print(f"run: {run_s:.1f} s; model share {model_s / run_s:.1%}, harness share "
          f"{max(run_s - model_s, 0.0) / run_s:.1%}; total with model build "
          f"{time.perf_counter() - t_start:.1f} s")
    print("BENCH OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
