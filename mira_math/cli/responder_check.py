"""``mira-math responder-check``: measure a responder on the release's labelled request set and
write its responder card (``eval/responder_check.py``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mira_math.cli.data import positive_int, progress_bar
from mira_math.generators.layout import DEFAULT_RELEASE


def cmd_responder_check(args: argparse.Namespace) -> int:
    from mira_math.eval import responder_check as rc
    from mira_math.eval.assemble import make_responder

    rows = rc.subset(rc.load_rows(args.data), args.max_rows)
    options = {k: v for k, v in {
        "max_model_len": args.max_model_len, "gpu_memory_utilization": args.gpu_memory_utilization,
        "dtype": args.dtype, "enforce_eager": True if args.enforce_eager else None,
        "concurrency": args.concurrency, "timeout": args.timeout,
        "response_format": args.response_format}.items() if v is not None}
    try:
        responder = make_responder(args.responder, None, options)
    except ValueError as err:
        print(f"mira-math responder-check: {err}", file=sys.stderr)
        return 2
    # An LLM responder on a CPU takes minutes to an hour: a bar on a terminal (none in a log).
    with progress_bar(len(rows), "responder-check", unit="req") as bar:
        card = rc.check(responder, rows, args.responder, rc.file_sha256(args.data), progress=bar.update)
    out = args.out or Path(f"responder-card-{_slug(args.responder)}")
    js, md = rc.write_card(card, out)
    print(rc.render_text(card.as_dict()))
    print(f"wrote {js} and {md}")
    return 0


def _slug(spec: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in spec.split("@")[0])[:80]


def add_commands(sub: Any) -> None:
    rc = sub.add_parser("responder-check",
                        help="measure a responder on the labelled request set and write its responder card")
    rc.add_argument("--responder", default="rules", metavar="SPEC",
                    help="rules | llm:KIND:MODEL[@URL] (e.g. llm:openai:gpt-4o-mini, llm:vllm:Qwen/...)")
    rc.add_argument("--data", type=Path, default=DEFAULT_RELEASE, metavar="DIR",
                    help="a release folder holding responder_check/test.jsonl (default: the bundled release)")
    rc.add_argument("--out", type=Path, metavar="DIR",
                    help="where responder_card.json and responder_card.md go (default responder-card-<spec>)")
    rc.add_argument("--max-rows", type=positive_int, metavar="N",
                    help="at most N requests per stratum, evenly spaced (a subset for slow responders)")
    rc.add_argument("--response-format", choices=["auto", "json_schema", "json_object"],
                    help="API responder: how structured output is requested (as for eval)")
    rc.add_argument("--concurrency", type=positive_int, metavar="N", help="API: requests in flight")
    rc.add_argument("--timeout", type=float, metavar="S", help="API: seconds per request")
    rc.add_argument("--max-model-len", type=positive_int, metavar="N", help="vLLM: context length")
    rc.add_argument("--gpu-memory-utilization", type=float, metavar="SHARE", help="vLLM: share of GPU memory")
    rc.add_argument("--dtype", choices=["auto", "float32", "bfloat16", "float16"], help="vLLM/transformers dtype")
    rc.add_argument("--enforce-eager", action="store_true", help="vLLM: no torch.compile")
    rc.set_defaults(func=cmd_responder_check)
