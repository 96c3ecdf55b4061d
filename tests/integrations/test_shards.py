"""Past one node, on one machine: the Slurm array's per-task script (scripts/slurm/shard_task.sh)
runs as N local processes, one after another on the same port as N nodes would (the server's URL
is part of a run's identity, so shards share it), each starting its own stub server (tests/integrations/stub_vllm.py,
which replies as the reference solver and exports vLLM's prefix-cache counters), evaluating its
shard and recording the server's prefix-cache hit rate; ``mira-math score`` over the shards then
merges them into one complete run that scores like a one-process reference run."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("openai", reason="needs the openai extra (the shards talk HTTP)")
if shutil.which("bash") is None:
    pytest.skip("needs bash", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
SLURM = ROOT / "scripts" / "slurm"
CONFIG = "crt_reconstruction"
N = 3


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _metrics(run_dir: Path) -> dict:
    data = json.loads((run_dir / "scores.json").read_text(encoding="utf-8"))
    return data


def test_the_array_flow_with_local_processes(tmp_path):
    run_dir = tmp_path / "run"
    mira = f"{sys.executable} -m mira_math.cli"
    port = _free_port()
    for index in range(N):
        env = {**os.environ, "MODEL": "stub-model", "RUN_DIR": str(run_dir), "SHARD_INDEX": str(index),
               "SHARD_COUNT": str(N), "PORT": str(port), "PYTHON": sys.executable, "MIRA": mira,
               "SERVE": f"{sys.executable} {ROOT / 'tests/integrations/stub_vllm.py'} --port {port}",
               "EVAL_ARGS": f"--config {CONFIG}", "OPENAI_API_KEY": "stub", "PYTHONPATH": str(ROOT)}
        done = subprocess.run(["bash", str(SLURM / "shard_task.sh")], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
        assert done.returncode == 0, done.stdout[-3000:]

    shards = sorted(run_dir.glob("shard-*"))
    assert [p.name for p in shards] == [f"shard-{i}" for i in range(N)]
    merged_dir = tmp_path / "merged"      # merged shards are scored into their own folder, never a shard's
    scored = subprocess.run([*mira.split(), "score", *map(str, shards), "--out", str(merged_dir)], cwd=ROOT,
                            capture_output=True, text=True)
    assert scored.returncode == 0, scored.stdout + scored.stderr    # 3 would mean INCOMPLETE

    single = tmp_path / "single"
    subprocess.run([*mira.split(), "eval", "--solver", "reference", "--config", CONFIG, "--out",
                    str(single)], cwd=ROOT, check=True, capture_output=True)
    subprocess.run([*mira.split(), "score", str(single)], cwd=ROOT, check=True, capture_output=True)
    assert not (shards[0] / "scores.json").exists()
    merged, alone = _metrics(merged_dir), _metrics(single)
    merged_all = _group(merged, "all")
    alone_all = _group(alone, "all")
    assert merged_all["n"] == alone_all["n"] > N
    for name in ("correct", "accuracy", "first_request_success", "hit_rate", "avg_requests"):
        assert merged_all[name] == alone_all[name], name
    assert merged_all["accuracy"] in (1, "1", "1.0000", 1.0)

    for index in range(N):
        cache = json.loads((run_dir / f"prefix_cache-{index}.json").read_text(encoding="utf-8"))
        assert cache["queries"] > cache["hits"] > 0          # multi-turn prompts share prefixes
        assert 0 < cache["hit_rate"] < 1
        assert cache["hit_rate"] == round(cache["hits"] / cache["queries"], 6)


def _group(scores: dict, kind: str) -> dict:
    runs = scores["runs"] if "runs" in scores else [scores]
    (run,) = runs
    for group in run["groups"]:
        if group["kind"] == kind:
            return group["metrics"] if "metrics" in group else group
    raise AssertionError(f"no {kind} group in {sorted(run)}")


def test_prefix_cache_parser_reads_vllm_counters():
    sys.path.insert(0, str(SLURM))
    import prefix_cache

    text = ('# HELP vllm:prefix_cache_queries_total x\n'
            'vllm:prefix_cache_queries_total{engine="0"} 100.0\n'
            'vllm:prefix_cache_queries_total{engine="1"} 50.0\n'
            'vllm:prefix_cache_hits_total{engine="0"} 30.0\n'
            'vllm:num_requests_running 2.0\n')
    assert prefix_cache.parse(text) == {"queries": 150.0, "hits": 30.0}
    assert prefix_cache.record("http://127.0.0.1:9/v1", {"error": "no metrics page"})["hit_rate"] is None


def test_the_slurm_scripts_parse():
    for script in ("shard_task.sh", "mira_array.sbatch", "score.sbatch"):
        subprocess.run(["bash", "-n", str(SLURM / script)], check=True)
