#!/usr/bin/env python3
"""GPU smoke test for the local model backends, with no network and no downloaded weights.

Builds a tiny, randomly initialised Llama-architecture model and a word-level tokenizer with a
Jinja chat template in a temporary folder, then runs 8 short chats through
``TransformersBackend`` (greedy twice, seeded sampling twice, one chat asking for JSON) and,
when ``vllm`` imports, through ``VLLMBackend`` too. It checks order, error-free items, finish
reasons, token counts, the device the model sits on, and that reruns repeat; prints timings;
exits non-zero on any failure.

    python scripts/gpu_smoke.py                 # on cuda (fails if no GPU is visible)
    python scripts/gpu_smoke.py --device cpu    # the same on CPU (what the tests can run)

Needs torch, transformers and tokenizers (``pip install -e '.[transformers]'``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SPECIAL_TOKENS = ["<pad>", "<unk>", "<s>", "</s>", "<|system|>", "<|user|>", "<|assistant|>"]
WORDS = (
    "the a an of to and or is are be what which how many find give compute request answer "
    "value number sum product missing fact you i we it this that please one two three four "
    "five six seven eight nine ten zero x y z n k matrix vector entry row column prime "
    "remainder modulo mod equal equals than less greater solve system linear probability "
    "rate path graph node edge polynomial degree root coefficient json object type offer "
    "decline hint has exact match quoted constraint reply with only matching schema and "
    "nothing else string boolean properties required true false hello hi ok yes no"
).split()
PUNCT = list(".,:;?!()[]{}\"'+-*/=<>_|") + ["{\"", "\"}", "\":", "\",", ":{", "},", "\":\""]
DIGITS = [str(d) for d in range(100)]

CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "<|{{ message['role'] }}|> {{ message['content'] }} {{ eos_token }} "
    "{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def build_tiny_model(out_dir: Path, *, seed: int = 0, layers: int = 2, hidden: int = 256,
                     heads: int = 4, kv_heads: int = 2, max_positions: int = 1024) -> Path:
    """Write a random LlamaForCausalLM + PreTrainedTokenizerFast (word level, chat template)
    to ``out_dir``; ``from_pretrained(out_dir)`` then works offline. head_dim = hidden/heads
    (64 by default, a size every vLLM attention backend supports)."""
    import torch
    from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    vocab: Dict[str, int] = {}
    for token in SPECIAL_TOKENS + WORDS + PUNCT + DIGITS:
        vocab.setdefault(token, len(vocab))
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    core.add_special_tokens([AddedToken(t, special=True, normalized=False)
                             for t in SPECIAL_TOKENS])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, bos_token="<s>", eos_token="</s>",
                                        pad_token="<pad>", unk_token="<unk>")
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(str(out_dir))

    vocab_size = ((len(vocab) + 63) // 64) * 64
    config = LlamaConfig(vocab_size=vocab_size, hidden_size=hidden, intermediate_size=2 * hidden,
                         num_hidden_layers=layers, num_attention_heads=heads,
                         num_key_value_heads=kv_heads, max_position_embeddings=max_positions,
                         bos_token_id=vocab["<s>"], eos_token_id=vocab["</s>"],
                         pad_token_id=vocab["<pad>"], tie_word_embeddings=False)
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.generation_config.eos_token_id = vocab["</s>"]
    model.generation_config.pad_token_id = vocab["<pad>"]
    model.save_pretrained(str(out_dir))
    return out_dir


SCHEMA = {"type": "object", "properties": {"type": {"type": "string"},
                                           "has_exact_match": {"type": "boolean"}},
          "required": ["type", "has_exact_match"]}


def smoke_requests() -> List[Any]:
    """8 short chats: single and multi turn, with and without a system message, one JSON."""
    from mira_math.eval.backends.base import ChatRequest

    system = {"role": "system", "content": "You request one missing fact , then answer ."}
    chats = [
        [{"role": "user", "content": "hello"}],
        [system, {"role": "user", "content": "find the sum of 3 and 4 ."}],
        [system, {"role": "user", "content": "what is the missing value ?"},
         {"role": "assistant", "content": "request : the value of x"},
         {"role": "user", "content": "x = 7"}],
        [{"role": "user", "content": "compute 12 mod 5"}],
        [system, {"role": "user", "content": "how many edges has the graph ?"}],
        [{"role": "user", "content": "give the root of the polynomial x - 2 ."}],
        [system, {"role": "user", "content": "solve the linear system : x + y = 3 ; x - y = 1"}],
    ]
    requests = [ChatRequest(conversation=c, seed=1234 + i) for i, c in enumerate(chats)]
    requests.append(ChatRequest(conversation=[{"role": "user", "content": "offer or decline ?"}],
                                seed=1234 + len(chats), json_schema=SCHEMA))
    return requests


class SmokeFailure(AssertionError):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise SmokeFailure(message)


def check_batch(name: str, completions: List[Any], n: int, max_tokens: int) -> None:
    check(len(completions) == n, f"{name}: {len(completions)} completions for {n} chats")
    for i, c in enumerate(completions):
        check(c.error is None, f"{name}[{i}]: error {c.error}")
        check(c.finish_reason in ("stop", "length"), f"{name}[{i}]: finish {c.finish_reason!r}")
        used = (c.meta.get("usage") or {}).get("completion_tokens")
        check(used is not None and 0 <= used <= max_tokens,
              f"{name}[{i}]: completion_tokens {used!r} not in [0, {max_tokens}]")


def run_transformers(model_dir: Path, device: str, max_tokens: int, timings: Dict[str, float],
                     dtype: str) -> Dict[str, Any]:
    from mira_math.eval.backends.base import GenParams
    from mira_math.eval.backends.transformers_backend import TransformersBackend

    t0 = time.perf_counter()
    backend = TransformersBackend(str(model_dir), device=device, dtype=dtype, batch_size=8)
    timings["transformers_load_s"] = time.perf_counter() - t0
    param = next(backend.hf_model.parameters())
    check(param.device.type == device.split(":")[0],
          f"model is on {param.device}, asked for {device}")
    requests = smoke_requests()
    greedy = GenParams(temperature=0.0, max_tokens=max_tokens)
    sampled = GenParams(temperature=0.8, top_p=0.95, max_tokens=max_tokens)
    runs: Dict[str, List[Any]] = {}
    for name, params in (("greedy", greedy), ("greedy_again", greedy),
                         ("sampled", sampled), ("sampled_again", sampled)):
        t0 = time.perf_counter()
        runs[name] = backend.complete(requests, params)
        timings[f"transformers_{name}_s"] = time.perf_counter() - t0
        check_batch(f"transformers {name}", runs[name], len(requests), max_tokens)
    texts = {k: [c.text for c in v] for k, v in runs.items()}
    check(texts["greedy"] == texts["greedy_again"], "greedy rerun differs")
    check(texts["sampled"] == texts["sampled_again"], "seeded sampling rerun differs")
    check(runs["greedy"][-1].meta.get("structured_output") == "prompt_instruction",
          "JSON request not marked as prompt-instruction structured output")
    check(all(c.meta.get("decoding") == "seeded_sampling" for c in runs["sampled"]),
          "sampled batch not decoded with the seeded sampler")
    return {"describe": backend.describe(),
            "greedy": [{"text": c.text, "finish_reason": c.finish_reason,
                        "usage": c.meta.get("usage")} for c in runs["greedy"]],
            "sampled_differs_from_greedy": texts["sampled"] != texts["greedy"]}


def run_vllm(model_dir: Path, max_tokens: int, timings: Dict[str, float]) -> Dict[str, Any]:
    from mira_math.eval.backends.base import GenParams
    from mira_math.eval.backends.vllm_backend import VLLMBackend

    t0 = time.perf_counter()
    backend = VLLMBackend(str(model_dir), max_model_len=512, gpu_memory_utilization=0.3,
                          enforce_eager=True)
    timings["vllm_load_s"] = time.perf_counter() - t0
    requests = smoke_requests()
    plain, with_schema = requests[:-1], requests[-1:]
    params = GenParams(temperature=0.0, max_tokens=max_tokens)
    t0 = time.perf_counter()
    first = backend.complete(plain, params)
    timings["vllm_greedy_s"] = time.perf_counter() - t0
    check_batch("vllm greedy", first, len(plain), max_tokens)
    again = backend.complete(plain, params)
    check([c.text for c in first] == [c.text for c in again], "vllm greedy rerun differs")
    # Structured output on a random word-level model is informative only, never a failure.
    t0 = time.perf_counter()
    schema_out = backend.complete(with_schema, params)
    timings["vllm_json_s"] = time.perf_counter() - t0
    return {"describe": backend.describe(),
            "json_request": {"text": schema_out[0].text, "error": schema_out[0].error,
                             "finish_reason": schema_out[0].finish_reason}}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda", help="cuda (default), cuda:N or cpu")
    parser.add_argument("--dtype", default="auto", help="model dtype for transformers")
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--keep", metavar="DIR", help="build the model in DIR and keep it")
    parser.add_argument("--skip-vllm", action="store_true", help="do not try vLLM")
    args = parser.parse_args(argv)

    timings: Dict[str, float] = {}
    report: Dict[str, Any] = {"device": args.device}
    try:
        import torch

        report["torch"] = torch.__version__
        report["cuda_available"] = torch.cuda.is_available()
        if args.device.startswith("cuda"):
            check(torch.cuda.is_available(), "--device cuda but torch sees no GPU")
            report["gpu"] = torch.cuda.get_device_name(0)
        with tempfile.TemporaryDirectory(prefix="mira-tiny-llama-") as tmp:
            model_dir = Path(args.keep) if args.keep else Path(tmp) / "model"
            t0 = time.perf_counter()
            build_tiny_model(model_dir)
            timings["build_model_s"] = time.perf_counter() - t0
            report["transformers"] = run_transformers(model_dir, args.device, args.max_tokens,
                                                      timings, args.dtype)
            if args.skip_vllm:
                report["vllm"] = "skipped (--skip-vllm)"
            elif not args.device.startswith("cuda"):
                report["vllm"] = "skipped (vLLM runs only on cuda here)"
            else:
                try:
                    importlib.import_module("vllm")
                except ImportError as exc:
                    report["vllm"] = f"skipped (not importable: {exc})"
                else:
                    os.environ.setdefault("VLLM_NO_USAGE_STATS", "1")
                    report["vllm"] = run_vllm(model_dir, args.max_tokens, timings)
    except SmokeFailure as exc:
        report["timings"] = timings
        print(json.dumps(report, indent=2, default=str))
        print(f"SMOKE FAILED: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - any crash is a failed smoke test
        report["timings"] = timings
        print(json.dumps(report, indent=2, default=str))
        print(f"SMOKE FAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    report["timings"] = {k: round(v, 3) for k, v in timings.items()}
    print(json.dumps(report, indent=2, default=str))
    print("SMOKE OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
