"""Runs from run directories, reading manifests only: which directories are one run (declared
shards i/N of one ``run_hash`` merge), a run's identity and bookkeeping (:class:`RunInfo`) and its
short, unique label (what every table shows)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from mira_math.eval.rundir.dataset import Dataset
from mira_math.eval.rundir.files import ScoringError, declared_shard, read_manifest


def short_spec(spec: str, limit: int = 44) -> str:
    """A model spec short enough for a label: a Hub id or path keeps its last part, an API URL
    only its host's first name and port; anything still long is cut in the middle ("…"). The
    full spec is in the Runs table."""
    prefix = ""
    if spec.startswith("llm:"):
        prefix, spec = "llm:", spec[4:]
    kind, sep, rest = spec.partition(":")
    if not sep:
        return prefix + spec
    model, at, url = rest.partition("@")
    model = model.rstrip("/").rsplit("/", 1)[-1] or model
    if at:
        host = url.split("://", 1)[-1].split("/", 1)[0]
        name, colon, port = host.partition(":")
        if not name.replace(".", "").isdigit():
            name = name.split(".", 1)[0]
        url = name + (colon + port if colon else "")
    text = f"{kind}:{model}" + (f"@{url}" if at else "")
    if len(text) > limit:
        text = text[:limit // 2] + "…" + text[-(limit - limit // 2 - 1):]
    return prefix + text


@dataclass
class RunInfo:
    """A run's identity and bookkeeping (no transcripts): what the tables show."""

    config: Dict[str, Any]
    run_hash: str
    dirs: List[Path]                       # shard directories, first as given
    manifests: List[Dict[str, Any]]
    shard_count: Optional[int] = None      # N of declared shards i/N, None: not sharded
    shards_present: List[int] = field(default_factory=list)
    transcripts: int = 0
    expected: int = 0                      # instances the run selects (missing shards included)
    seed_sets: List[str] = field(default_factory=list)
    fingerprint: str = ""                  # sha256 over the shards' manifests and transcripts
    label: str = ""                        # set by :func:`assign_labels`

    @property
    def out_dir(self) -> Path:
        return self.dirs[0]

    @property
    def missing(self) -> int:
        return max(0, self.expected - self.transcripts)

    @property
    def complete(self) -> bool:
        shards_ok = self.shard_count is None or sorted(self.shards_present) == list(range(self.shard_count))
        return shards_ok and self.missing == 0

    @property
    def status(self) -> str:
        return "complete" if self.complete else f"INCOMPLETE ({self.missing} missing)"

    def get(self, name: str, default: Any = None) -> Any:
        return self.config.get(name, default)

    @property
    def condition(self) -> str:
        return self.get("condition", "standard")

    @property
    def regime(self) -> str:
        return self.get("regime", "")

    @property
    def split(self) -> str:
        return "+".join(self.seed_sets) or "-"

    @property
    def dataset_checksum(self) -> str:
        return (self.manifests[0].get("dataset") or {}).get("checksum") or self.get("dataset_checksum", "")

    @property
    def decoding(self) -> str:
        params = self.get("solver_params") or {}
        return ", ".join(f"{k}={params[k]}" for k in sorted(params)) or "-"

    @property
    def responder_label(self) -> str:
        """The responder a run used: an oracle-hint run uses none."""
        return "oracle hint" if self.condition == "oracle_hint" else short_spec(self.get("responder", "?"))

    def base_label(self) -> str:
        parts = [short_spec(self.get("solver", "?")), self.responder_label, self.regime]
        if self.get("protocol", "paper") != "paper":
            parts.append(self.get("protocol"))
        return " | ".join(parts)

    def pairing_key(self) -> Tuple[Any, ...]:
        """Everything but the regime (and the prompt it implies): runs with equal keys in both
        regimes are compared for the four-shot deltas."""
        ignore = {"regime", "prompt_hash", "selection"}
        return (json.dumps({k: v for k, v in self.config.items() if k not in ignore}, sort_keys=True),
                json.dumps({k: v for k, v in (self.get("selection") or {}).items() if k != "shard"},
                           sort_keys=True), self.dataset_checksum, self.shard_count)


def assign_labels(runs: Sequence[RunInfo]) -> None:
    """Short labels, unique among ``runs``: where two share one, what differs is appended
    (split, decoding, shard count, else the run directory)."""
    base = {id(r): r.base_label() for r in runs}
    for r in runs:
        r.label = base[id(r)]
    clashes: Dict[str, List[RunInfo]] = {}
    for r in runs:
        clashes.setdefault(base[id(r)], []).append(r)
    for label, group in clashes.items():
        if len(group) < 2:
            continue
        extras: Dict[int, List[str]] = {id(r): [] for r in group}
        for _name, value in (("split", lambda r: r.split), ("decoding", lambda r: r.decoding),
                            ("shards", lambda r: f"{r.shard_count or 1} shards")):
            if len({value(r) for r in group}) > 1:
                for r in group:
                    extras[id(r)].append(value(r))
        for r in group:
            if not extras[id(r)] or sum(1 for o in group if extras[id(o)] == extras[id(r)]) > 1:
                extras[id(r)].append(r.out_dir.name)
            r.label = f"{label} [{', '.join(extras[id(r)])}]"


# ================================================================== loading run directories

def run_epochs(config: Mapping[str, Any]) -> int:
    """Samples per instance a run asked for (``--epochs``; 1 when the manifest predates it)."""
    epochs = config.get("epochs", 1)
    return epochs if type(epochs) is int and epochs >= 1 else 1


def selected_count(dataset: Dataset, selection: Mapping[str, Any], shard: Optional[Tuple[int, int]]) -> int:
    """How many instances the selection picks (families, ids, shard, then limit, as eval does)."""
    infos = dataset.infos
    if selection.get("families"):
        wanted = set(selection["families"])
        infos = [i for i in infos if i.family in wanted]
    if selection.get("ids"):
        wanted = set(selection["ids"])
        infos = [i for i in infos if i.id in wanted]
    if shard:
        infos = infos[shard[0]::shard[1]]
    limit = selection.get("limit")
    return len(infos) if limit is None else min(len(infos), max(0, int(limit)))


def group_runs(run_dirs: Sequence[Path]) -> List[RunInfo]:
    """Directories into runs: each directory is a run, declared shards i/N of one run_hash and N
    are merged. Reads manifests only."""
    runs: List[RunInfo] = []
    by_shard_key: Dict[Tuple[str, int], RunInfo] = {}
    seen: List[Path] = []
    for run_dir in (Path(p) for p in run_dirs):
        if any(run_dir.resolve() == s.resolve() for s in seen):
            continue                                   # the same directory given twice
        seen.append(run_dir)
        manifest = read_manifest(run_dir)
        shard = declared_shard(manifest, run_dir)
        config = {k: v for k, v in manifest["config"].items()}
        if shard is None:
            runs.append(RunInfo(config, manifest["run_hash"], [run_dir], [manifest]))
            continue
        key = (manifest["run_hash"], shard[1])
        run = by_shard_key.get(key)
        if run is None:
            run = by_shard_key[key] = RunInfo(config, manifest["run_hash"], [], [], shard_count=shard[1])
            runs.append(run)
        if shard[0] in run.shards_present:
            other = run.dirs[run.shards_present.index(shard[0])]
            raise ScoringError(f"{run_dir} and {other} are both shard {shard[0]}/{shard[1]} of one run")
        run.dirs.append(run_dir)
        run.manifests.append(manifest)
        run.shards_present.append(shard[0])
    return runs



__all__ = ["RunInfo", "assign_labels", "group_runs", "run_epochs", "selected_count", "short_spec"]
