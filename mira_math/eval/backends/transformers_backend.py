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
* Fitting the card (:mod:`hf_memory`): on a CUDA device a call packs chats while rows x
  (longest prompt + ``max_tokens``) stays inside a token budget from the free memory (or the
  ``gpu_memory_utilization`` share of the card), never more than ``batch_size`` chats; an
  out-of-memory error splits the call in halves and retries them, and lowers the budget for the
  calls after it; a chat that does not fit alone is that chat's error (``--retry-errors``).
  On a CPU nothing is measured: calls of ``batch_size`` chats, as before.
* Continuous batching (:mod:`hf_continuous`): where the installed transformers offers it and
  the device is CUDA, greedy turns go through its paged-attention manager instead of padded
  ``generate`` (``continuous_batching=False`` turns it off; ``True`` forces it, also on a CPU).
  Should it fail, the backend says so in ``describe()`` and falls back to padded batches.
* ``deadline`` (a ``time.monotonic()`` value; ``scripts/gpu_llama_bench.py``): a call in
  progress stops at the next token once it passes, and its chats get an error.
* Structured output is not supported: a request with ``json_schema`` gets a short instruction
  to reply with only the JSON object (schema included) appended to its last user message, and
  ``meta["structured_output"] = "prompt_instruction"`` records that nothing enforced it.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

from mira_math.eval.backends import hf_continuous
from mira_math.eval.backends.base import ChatRequest, Completion, Conversation, GenParams
from mira_math.eval.backends.hf_memory import is_out_of_memory, release_cached_memory, token_budget

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


def _deadline_criteria(deadline: float) -> Any:
    """A ``StoppingCriteriaList`` that ends ``generate`` at the next token once
    ``time.monotonic()`` passes ``deadline`` (a plain callable list where transformers is faked)."""
    def past(input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        stop = time.monotonic() > deadline
        try:
            import torch
        except ImportError:
            return stop
        return torch.full((input_ids.shape[0],), stop, dtype=torch.bool, device=input_ids.device)

    try:
        from transformers import StoppingCriteria, StoppingCriteriaList
    except ImportError:
        return [past]

    class Deadline(StoppingCriteria):
        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            return past(input_ids, scores)

    return StoppingCriteriaList([Deadline()])


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
                 chat_template_kwargs: Optional[Dict[str, Any]] = None,
                 token_budget: Optional[int] = None, gpu_memory_utilization: Optional[float] = None,
                 continuous_batching: Optional[bool] = None, deadline: Optional[float] = None) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.token_budget = token_budget                  # None: measured on CUDA, none on CPU
        self.gpu_memory_utilization = gpu_memory_utilization
        self.continuous_batching = continuous_batching    # None: where available, on CUDA
        self.continuous_failure: Optional[str] = None
        self.deadline = deadline
        self.generate_calls = 0                           # padded generate calls (and continuous turns)
        self.oom_splits = 0
        self._learned_budget: Optional[int] = None        # below the size of the last batch that ran out
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
        if live and self._continuous(params):
            done_map = self._complete_continuous(live, requests, prompts, params)
            if done_map is not None:
                for i, completion in done_map.items():
                    results[i] = completion
                return results
        budget = self._budget()
        lengths = self._lengths(live, prompts) if budget is not None else {}
        for chunk in self._chunks(live, lengths, params.max_tokens, budget):
            if self.deadline is not None and time.monotonic() > self.deadline:
                done = [Completion(error="deadline reached before this batch started",
                                   meta=self._base_meta(requests[i])) for i in chunk]
            else:
                done = self._generate_fitting(chunk, requests, prompts, lengths, params)
            for i, completion in zip(chunk, done):
                results[i] = completion
        return results

    # -- fitting the card ----------------------------------------------------------------------
    def _budget(self) -> Optional[int]:
        """Tokens one call may hold: the given budget, else measured (CUDA), lowered by any
        out-of-memory error seen; None: no limit but ``batch_size``."""
        budget = self.token_budget
        if budget is None:
            budget = token_budget(self.hf_model, self.device, self.gpu_memory_utilization)
        if self._learned_budget is not None:
            budget = self._learned_budget if budget is None else min(budget, self._learned_budget)
        return budget

    def _lengths(self, indices: List[int], prompts: Dict[int, str]) -> Dict[int, int]:
        out: Dict[int, int] = {}
        for i in indices:
            ids = self.tokenizer([prompts[i]], add_special_tokens=False)["input_ids"]
            rows = ids if isinstance(ids, list) else ids.tolist()
            out[i] = len(rows[0])
        return out

    def _chunks(self, live: List[int], lengths: Dict[int, int], new_tokens: int,
                budget: Optional[int]) -> List[List[int]]:
        """Consecutive chats, at most ``batch_size`` a call and, with a budget, at most
        ``budget`` tokens of padded rows (a chat always goes, alone if need be)."""
        chunks: List[List[int]] = []
        current: List[int] = []
        longest = 0
        for i in live:
            width = max(longest, lengths.get(i, 0)) + new_tokens
            full = len(current) >= self.batch_size or (
                budget is not None and current and (len(current) + 1) * width > budget)
            if full:
                chunks.append(current)
                current, longest = [], 0
            current.append(i)
            longest = max(longest, lengths.get(i, 0))
        if current:
            chunks.append(current)
        return chunks

    def _generate_fitting(self, chunk: List[int], requests: List[ChatRequest], prompts: Dict[int, str],
                          lengths: Dict[int, int], params: GenParams) -> List[Completion]:
        """One call for ``chunk``; out of memory, its halves (and a lower budget from then on)."""
        try:
            return self._generate(chunk, [requests[i] for i in chunk], [prompts[i] for i in chunk], params)
        except Exception as exc:  # noqa: BLE001 - out of memory: split; else each item says why
            if not is_out_of_memory(exc):
                message = f"transformers generate: {type(exc).__name__}: {exc}"
                return [Completion(error=message, meta=self._base_meta(requests[i])) for i in chunk]
            release_cached_memory()
            self.oom_splits += 1
            if len(chunk) == 1:
                i = chunk[0]
                return [Completion(error=f"transformers generate: out of memory for this chat alone "
                                         f"({type(exc).__name__}); rerun it with --retry-errors on a "
                                         "larger card or with a smaller --max-tokens",
                                   meta=self._base_meta(requests[i]))]
            missing = [i for i in chunk if i not in lengths]
            if missing:                   # no budget was planned (CPU, or none measured yet)
                lengths.update(self._lengths(missing, prompts))
            longest = max((lengths[i] for i in chunk), default=0)
            tried = len(chunk) * (longest + params.max_tokens)
            self._learned_budget = max(1, min(self._learned_budget or tried, tried - 1))
            mid = len(chunk) // 2
            return (self._generate_fitting(chunk[:mid], requests, prompts, lengths, params)
                    + self._generate_fitting(chunk[mid:], requests, prompts, lengths, params))

    # -- continuous batching -------------------------------------------------------------------
    def _continuous(self, params: GenParams) -> bool:
        if params.temperature > 0 or self.continuous_batching is False or self.continuous_failure:
            return False
        if not hf_continuous.available(self.hf_model):
            return False
        return bool(self.continuous_batching) or self.device.startswith("cuda")

    def _continuous_state(self) -> str:
        """What ``describe()`` says of continuous batching (greedy turns only)."""
        if self.continuous_failure:
            return f"failed, padded batches instead ({self.continuous_failure})"
        if self.continuous_batching is False:
            return "off"
        if not hf_continuous.available(self.hf_model):
            return "unavailable in this transformers: padded batches"
        if self.continuous_batching or self.device.startswith("cuda"):
            return "on (greedy turns)"
        return "off on CPU (continuous_batching=True turns it on)"

    def _complete_continuous(self, live: List[int], requests: List[ChatRequest], prompts: Dict[int, str],
                             params: GenParams) -> Optional[Dict[int, Completion]]:
        """The turn through the paged-attention manager; None (and padded batches from now on)
        where the manager itself fails."""
        token_lists = []
        for i in live:
            ids = self.tokenizer([prompts[i]], add_special_tokens=False)["input_ids"]
            token_lists.append(list((ids if isinstance(ids, list) else ids.tolist())[0]))
        t0 = time.perf_counter()
        try:
            outputs = hf_continuous.generate(
                self.hf_model, token_lists, int(params.max_tokens), self.eos_token_ids,
                self.tokenizer.pad_token_id, self.device, self.gpu_memory_utilization, self.deadline)
        except Exception as exc:  # noqa: BLE001 - fall back to padded generate, and say so
            self.continuous_failure = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
            release_cached_memory()
            return None
        self.generate_calls += 1
        latency = time.perf_counter() - t0
        eos = set(self.eos_token_ids)
        done: Dict[int, Completion] = {}
        for i, prompt_ids, output in zip(live, token_lists, outputs):
            meta = self._base_meta(requests[i])
            meta.update({"decoding": "greedy", "generation": "continuous", "batch_size": len(live),
                         "latency_s": latency / len(live), "batch_latency_s": latency})
            if output is None or getattr(output, "error", None):
                why = getattr(output, "error", None) or (
                    "deadline reached during the turn" if self.deadline is not None
                    and time.monotonic() > self.deadline else "the batching manager stopped")
                done[i] = Completion(error=f"transformers continuous batching: {why}", meta=meta)
                continue
            generated = [int(t) for t in output.generated_tokens]
            stop_at = next((k for k, t in enumerate(generated) if t in eos), None)
            kept = generated if stop_at is None else generated[:stop_at]
            finish = "stop" if stop_at is not None or len(generated) < params.max_tokens else "length"
            meta["usage"] = {"prompt_tokens": len(prompt_ids),
                             "completion_tokens": len(generated) if stop_at is None else stop_at + 1}
            done[i] = Completion(text=self.tokenizer.decode(kept, skip_special_tokens=True),
                                 finish_reason=finish, meta=meta)
        return done

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
        if self.deadline is not None:
            kwargs["stopping_criteria"] = _deadline_criteria(self.deadline)
        t0 = time.perf_counter()
        self.generate_calls += 1
        output = self.hf_model.generate(**inputs, **kwargs)
        latency = time.perf_counter() - t0
        cut = self.deadline is not None and time.monotonic() > self.deadline
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
            if cut and stop_at is None:          # cut off by the deadline, not finished
                completions.append(Completion(error="deadline reached during this batch", meta=meta))
                continue
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
            "token_budget": self.token_budget,
            "gpu_memory_utilization": self.gpu_memory_utilization,
            "continuous_batching": self._continuous_state(),
            "chat_template_kwargs": dict(self.chat_template_kwargs),
            "injected_model": self._injected,
            "structured_output": "prompt_instruction (not enforced)",
            "seeding": "per-request torch.Generator; approximate across batch compositions",
            "torch_version": _version("torch"),
            "transformers_version": _version("transformers"),
        }
