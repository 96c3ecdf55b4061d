"""A model server's prefix-cache counters, from its Prometheus ``/metrics`` page (vLLM's).

    python prefix_cache.py wait URL [--timeout S]      # until URL/health answers 200
    python prefix_cache.py snapshot URL > before.json   # the counters now
    python prefix_cache.py record URL before.json OUT   # the run's hit rate: the counters' growth

vLLM (v1 engine) exports the counters ``vllm:prefix_cache_queries`` and ``vllm:prefix_cache_hits``
(tokens; ``_total`` in the exposition), summed here over every label set (engines, models).
A server without them (an API, an older server) records ``"hit_rate": null`` with the reason."""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.request
from typing import Dict, Optional

COUNTERS = {"queries": "vllm:prefix_cache_queries", "hits": "vllm:prefix_cache_hits"}


def _root(url: str) -> str:
    url = url.rstrip("/")
    return url[:-3] if url.endswith("/v1") else url


def parse(text: str) -> Dict[str, float]:
    """The summed counters in a Prometheus text exposition (names with or without ``_total``)."""
    out: Dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name_labels, _, value = line.rpartition(" ")
        name = name_labels.split("{", 1)[0].strip()
        for key, counter in COUNTERS.items():
            if name in (counter, counter + "_total"):
                out[key] = out.get(key, 0.0) + float(value)
    return out


def snapshot(url: str) -> Dict[str, Optional[float]]:
    try:
        with urllib.request.urlopen(_root(url) + "/metrics", timeout=10) as response:
            counters = parse(response.read().decode("utf-8", "replace"))
    except OSError as err:
        return {"error": f"no metrics page: {err}"}  # type: ignore[dict-item]
    if set(counters) != set(COUNTERS):
        return {"error": "the server exports no prefix-cache counters"}  # type: ignore[dict-item]
    return dict(counters)


def record(url: str, before: Dict[str, Optional[float]]) -> Dict[str, object]:
    after = snapshot(url)
    if "error" in before or "error" in after:
        return {"server": url, "hit_rate": None, "reason": before.get("error") or after.get("error")}
    queries = (after["queries"] or 0.0) - (before["queries"] or 0.0)
    hits = (after["hits"] or 0.0) - (before["hits"] or 0.0)
    return {"server": url, "queries": queries, "hits": hits,
            "hit_rate": round(hits / queries, 6) if queries > 0 else None}


def wait(url: str, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(_root(url) + "/health", timeout=5) as response:
                if response.status == 200:
                    return 0
        except OSError:
            pass
        time.sleep(0.5)
    print(f"prefix_cache.py: {url} not healthy after {timeout:g} s", file=sys.stderr)
    return 1


def main(argv: Optional[list] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("wait")
    w.add_argument("url")
    w.add_argument("--timeout", type=float, default=1800.0)
    s = sub.add_parser("snapshot")
    s.add_argument("url")
    r = sub.add_parser("record")
    r.add_argument("url")
    r.add_argument("before")
    r.add_argument("out")
    args = p.parse_args(argv)
    if args.cmd == "wait":
        return wait(args.url, args.timeout)
    if args.cmd == "snapshot":
        print(json.dumps(snapshot(args.url)))
        return 0
    with open(args.before, encoding="utf-8") as fh:
        result = record(args.url, json.load(fh))
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(result, indent=1) + "\n")
    print(f"prefix cache: {result.get('hit_rate')} ({args.out})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
