"""A plain Hugging Face ``transformers`` backend for small local models (tests, smoke runs,
machines without vLLM). torch and transformers are imported only when a model is loaded or a
sampled batch runs (``pip install -e '.[transformers]'``).

* Prompts: ``tokenizer.apply_chat_template(conversation, tokenize=False,
  add_generation_prompt=True)``, then one left-padded batch of up to ``batch_size`` chats
  (the template already holds the special tokens, so ``add_special_tokens=False``).
* Decoding: ``temperature == 0`` is greedy (``do_sample=False``). Otherwise each request
  samples from its own ``torch.Generator`` seeded with ``ChatRequest.seed``: a logits processor
  applies temperature and top-p per row, draws the row's token with that row's generator, and
  leaves only that token for ``generate`` to pick. A request's random stream therefore never
  depends on its neighbours, but the seeds are still only *approximately* reproducible across
  batchings: the logits of a left-padded row in a batch can differ in the last bits from the
  same chat run alone (other kernels, other padding), so a draw near a boundary can flip.
  Reruns with the same batch composition, device and dtype repeat exactly.
* ``finish_reason``: ``"stop"`` when an end-of-sequence token ended the reply, ``"length"`` when
  ``max_tokens`` new tokens were generated without one. ``meta["usage"]["completion_tokens"]``
  counts the stop token.
* ``model_path`` may be a folder or a ``.gguf`` file: transformers 5.x dequantizes GGUF on load
  (``gguf_file=``; needs the ``gguf`` and ``accelerate`` packages).
* The chat template gets ``date_string`` pinned (:data:`DEFAULT_CHAT_TEMPLATE_KWARGS`, the same as
  the vLLM backend): the Llama-3.1 template otherwise writes today's date into every prompt.
* ``meta["latency_s"]`` is the item's equal share of its ``generate`` call (summing it over items
  gives the model time); ``meta["batch_latency_s"]`` is the whole call.
* Structured output is not supported: a request with ``json_schema`` gets a short instruction
  to reply with only the JSON object (schema included) appended to its last user message, and
  ``meta["structured_output"] = "prompt_instruction"`` records that nothing enforced it.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

from mira_math.eval.backends.base import ChatRequest, Completion, Conversation, GenParams

DEFAULT_CHAT_TEMPLATE_KWARGS: Dict[str, Any] = {"date_string": "26 Jul 2024"}

JSON_INSTRUCTION = ("Reply with only a JSON object matching this JSON schema, and nothing "
                    "else: {schema}")


def _version(dist: str) -> Optional[str]:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover
        return None
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def with_json_instruction(conversation: Conversation, schema: Dict[str, Any]) -> Conversation:
    """A copy of ``conversation`` whose last user message asks for only the JSON object (a new
    user message when the conversation does not end with one)."""
    note = JSON_INSTRUCTION.format(schema=json.dumps(schema, separators=(",", ":")))
    messages = [dict(m) for m in conversation]
    if messages and messages[-1].get("role") == "user":
        messages[-1]["content"] = f"{messages[-1].get('content', '')}\n\n{note}"
    else:
        messages.append({"role": "user", "content": note})
    return messages


def make_seeded_sampler(seeds: Sequence[int], temperature: float, top_p: float) -> Any:
    """A ``transformers.LogitsProcessor`` that samples row ``i`` with a ``torch.Generator``
    seeded with ``seeds[i]`` (temperature, then nucleus top-p) and masks every other token, so
    greedy selection in ``generate`` returns exactly the drawn token."""
    import torch
    from transformers import LogitsProcessor

    class SeededSampler(LogitsProcessor):
        def __init__(self) -> None:
            self.seeds = [int(s) for s in seeds]
            self.temperature = float(temperature)
            self.top_p = float(top_p)
            self.generators: Optional[List[Any]] = None

        def __call__(self, input_ids: Any, scores: Any) -> Any:
            if self.generators is None:
                self.generators = []
                for seed in self.seeds:
                    g = torch.Generator(device=scores.device)
                    g.manual_seed(seed % (2 ** 63))
                    self.generators.append(g)
            logits = scores.float() / self.temperature
            probs = torch.softmax(logits, dim=-1)
            if self.top_p < 1.0:
                sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
                cumulative = torch.cumsum(sorted_probs, dim=-1)
                # keep the smallest prefix whose mass reaches top_p (always the top token)
                drop_sorted = (cumulative - sorted_probs) >= self.top_p
                drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)
                probs = probs.masked_fill(drop, 0.0)
            chosen = torch.empty(probs.shape[0], dtype=torch.long, device=probs.device)
            for row in range(probs.shape[0]):
                row_probs = probs[row]
                if not torch.isfinite(row_probs).all() or float(row_probs.sum()) <= 0.0:
                    chosen[row] = int(torch.argmax(scores[row]))
                    continue
                chosen[row] = torch.multinomial(row_probs, 1, generator=self.generators[row])[0]
            out = torch.full_like(scores, float("-inf"))
            out.scatter_(-1, chosen.unsqueeze(-1), 0.0)
            return out

    return SeededSampler()


def _as_id_list(value: Any) -> List[int]:
    if value is None:
        return []
    if isinstance(value, (list, tuple, set)):
        return [int(v) for v in value if v is not None]
    return [int(value)]


class TransformersBackend:
    """``transformers`` generation, batched, in order; never raises for one failed chat.

    ``model``/``tokenizer`` inject ready objects (the tests use fakes); otherwise both are
    loaded from ``model_path`` with ``AutoModelForCausalLM``/``AutoTokenizer``. ``device=None``
    picks ``cuda`` when available, else ``cpu``. ``sampler_factory`` replaces
    :func:`make_seeded_sampler`.
    """

    def __init__(self, model_path: str, device: Optional[str] = None, dtype: str = "auto",
                 batch_size: int = 16, model: Any = None, tokenizer: Any = None,
                 sampler_factory: Optional[Callable[..., Any]] = None,
                 chat_template_kwargs: Optional[Dict[str, Any]] = None) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.model = str(model_path)
        self.dtype = dtype
        self.batch_size = int(batch_size)
        self._sampler_factory = sampler_factory or make_seeded_sampler
        self.chat_template_kwargs: Dict[str, Any] = dict(
            DEFAULT_CHAT_TEMPLATE_KWARGS if chat_template_kwargs is None else chat_template_kwargs)
        self._injected = model is not None
        if tokenizer is None:
            tokenizer = self._load_tokenizer()
        if model is None:
            device = device or self._default_device()
            model = self._load_model(device)
        elif device is None:
            device = str(getattr(model, "device", "cpu"))
        self.device = str(device)
        self.hf_model = model
        self.tokenizer = tokenizer
        self.tokenizer.padding_side = "left"
        if getattr(self.tokenizer, "pad_token_id", None) is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.eos_token_ids = self._eos_ids()

    # -- loading -----------------------------------------------------------------------------
    @staticmethod
    def _default_device() -> str:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"

    def _source(self) -> tuple:
        """``(folder, extra from_pretrained kwargs)``: a ``.gguf`` file loads from its folder
        with ``gguf_file=``."""
        from pathlib import Path

        path = Path(self.model)
        if path.suffix.lower() == ".gguf":
            return str(path.parent), {"gguf_file": path.name}
        return self.model, {}

    def _load_tokenizer(self) -> Any:
        from transformers import AutoTokenizer

        folder, extra = self._source()
        return AutoTokenizer.from_pretrained(folder, **extra)

    def _load_model(self, device: str) -> Any:
        import transformers
        from transformers import AutoModelForCausalLM

        # transformers >= 4.56 names the argument ``dtype`` (``torch_dtype`` before).
        major, minor = (int(x) for x in transformers.__version__.split(".")[:2])
        key = "dtype" if (major, minor) >= (4, 56) else "torch_dtype"
        folder, extra = self._source()
        dtype = self.dtype
        if extra and dtype == "auto":
            dtype = "float32"  # GGUF tensors are dequantized; "auto" has no stored dtype to use
        model = AutoModelForCausalLM.from_pretrained(folder, **{key: dtype}, **extra)
        model.to(device)
        model.eval()
        return model

    def _eos_ids(self) -> List[int]:
        ids = _as_id_list(getattr(getattr(self.hf_model, "generation_config", None),
                                  "eos_token_id", None))
        for extra in _as_id_list(getattr(self.tokenizer, "eos_token_id", None)):
            if extra not in ids:
                ids.append(extra)
        return ids

    # -- generation --------------------------------------------------------------------------
    def complete(self, requests: Sequence[ChatRequest], params: GenParams) -> List[Completion]:
        requests = list(requests)
        results: List[Completion] = [Completion() for _ in requests]
        prompts: Dict[int, str] = {}
        for i, request in enumerate(requests):
            conversation = request.conversation
            if request.json_schema is not None:
                conversation = with_json_instruction(conversation, request.json_schema)
            try:
                prompts[i] = self.tokenizer.apply_chat_template(
                    conversation, tokenize=False, add_generation_prompt=True,
                    **self.chat_template_kwargs)
            except Exception as exc:  # noqa: BLE001 - recorded on the item
                results[i] = Completion(error=f"chat template: {type(exc).__name__}: {exc}",
                                        meta=self._base_meta(request))
        live = [i for i in range(len(requests)) if i in prompts]
        for start in range(0, len(live), self.batch_size):
            chunk = live[start:start + self.batch_size]
            try:
                done = self._generate(chunk, [requests[i] for i in chunk],
                                      [prompts[i] for i in chunk], params)
            except Exception as exc:  # noqa: BLE001 - this batch failed: each item says why
                message = f"transformers generate: {type(exc).__name__}: {exc}"
                done = [Completion(error=message, meta=self._base_meta(requests[i]))
                        for i in chunk]
            for i, completion in zip(chunk, done):
                results[i] = completion
        return results

    @staticmethod
    def _base_meta(request: ChatRequest) -> Dict[str, Any]:
        meta: Dict[str, Any] = {"backend": "transformers", "seed": request.seed}
        if request.json_schema is not None:
            meta["structured_output"] = "prompt_instruction"
        return meta

    def _generate(self, indices: List[int], requests: List[ChatRequest], prompts: List[str],
                  params: GenParams) -> List[Completion]:
        encoded = self.tokenizer(prompts, return_tensors="pt", padding=True,
                                 add_special_tokens=False)
        inputs = {key: value.to(self.device) for key, value in dict(encoded).items()
                  if key in ("input_ids", "attention_mask")}
        prompt_len = int(inputs["input_ids"].shape[1])
        kwargs: Dict[str, Any] = {
            "max_new_tokens": int(params.max_tokens),
            "do_sample": False,
            "pad_token_id": self.tokenizer.pad_token_id,
        }
        if self.eos_token_ids:
            kwargs["eos_token_id"] = list(self.eos_token_ids)
        sampled = params.temperature > 0
        if sampled:
            processors = [self._sampler_factory(seeds=[r.seed for r in requests],
                                                temperature=params.temperature,
                                                top_p=params.top_p)]
            try:
                from transformers import LogitsProcessorList
            except ImportError:  # injected fakes, no transformers installed
                kwargs["logits_processor"] = processors
            else:
                kwargs["logits_processor"] = LogitsProcessorList(processors)
        t0 = time.perf_counter()
        output = self.hf_model.generate(**inputs, **kwargs)
        latency = time.perf_counter() - t0
        sequences = getattr(output, "sequences", output)
        rows = sequences.tolist()
        mask = inputs.get("attention_mask")
        mask_rows = mask.tolist() if mask is not None else None
        eos = set(self.eos_token_ids)
        completions: List[Completion] = []
        for pos, (request, row) in enumerate(zip(requests, rows)):
            generated = [int(t) for t in row[prompt_len:]]
            stop_at = next((k for k, t in enumerate(generated) if t in eos), None)
            if stop_at is not None:
                kept, finish, count = generated[:stop_at], "stop", stop_at + 1
            else:
                kept = generated
                finish = "length" if len(generated) >= params.max_tokens else "stop"
                count = len(generated)
            text = self.tokenizer.decode(kept, skip_special_tokens=True)
            meta = self._base_meta(request)
            meta.update({
                "decoding": "seeded_sampling" if sampled else "greedy",
                "batch_size": len(requests),
                "latency_s": latency / len(requests),
                "batch_latency_s": latency,
                "usage": {"prompt_tokens": int(sum(mask_rows[pos])) if mask_rows else prompt_len,
                          "completion_tokens": count},
            })
            completions.append(Completion(text=text, finish_reason=finish, meta=meta))
        if len(completions) != len(requests):
            raise RuntimeError(f"generate returned {len(rows)} rows for {len(requests)} chats")
        return completions

    def describe(self) -> Dict[str, Any]:
        return {
            "backend": "transformers",
            "model": self.model,
            "device": self.device,
            "dtype": self.dtype if isinstance(self.dtype, str) else repr(self.dtype),
            "batch_size": self.batch_size,
            "chat_template_kwargs": dict(self.chat_template_kwargs),
            "injected_model": self._injected,
            "structured_output": "prompt_instruction (not enforced)",
            "seeding": "per-request torch.Generator; approximate across batch compositions",
            "torch_version": _version("torch"),
            "transformers_version": _version("transformers"),
        }
