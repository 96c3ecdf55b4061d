#!/usr/bin/env bash
# One shard of a MIRA-Math run: start a model server, wait until it is healthy, evaluate shard
# SHARD_INDEX/SHARD_COUNT against it, record the server's prefix-cache hit rate, stop the server.
# The Slurm array (mira_array.sbatch) runs it once per task; tests/integrations/test_shards.py runs
# it as N local processes against stub servers. Merge the shards with `mira-math score RUN_DIR/shard-*`.
#
# Environment: MODEL, RUN_DIR, SHARD_INDEX, SHARD_COUNT (required); PORT (default 8000);
# SERVE (the server command; default: vLLM with prefix caching, plus VLLM_ARGS, e.g.
# "--data-parallel-size 8" for a whole node); EVAL_ARGS (more eval flags, e.g.
# "--config type_b --regime 4s"); MIRA (default mira-math); PYTHON (default python3);
# DP_RANKS (with VLLM_ARGS="--data-parallel-size N": pin each episode to one of the N engines,
# eval --dp-ranks N, so its turns reuse that engine's prefix cache; docs/scale-out.md).
#
# Every shard must reach its server at the same URL: the endpoint is part of a run's identity,
# and `score` merges only shards of one identity. Hence one task per node, the same PORT on each.
set -euo pipefail
: "${MODEL:?}" "${RUN_DIR:?}" "${SHARD_INDEX:?}" "${SHARD_COUNT:?}"
PORT="${PORT:-8000}"
SERVE="${SERVE:-vllm serve $MODEL --port $PORT --enable-prefix-caching ${VLLM_ARGS:-}}"
MIRA="${MIRA:-mira-math}"
PYTHON="${PYTHON:-python3}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
URL="http://127.0.0.1:$PORT/v1"
SHARD_DIR="$RUN_DIR/shard-$SHARD_INDEX"
mkdir -p "$RUN_DIR"

$SERVE > "$RUN_DIR/server-$SHARD_INDEX.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT

"$PYTHON" "$HERE/prefix_cache.py" wait "$URL"
"$PYTHON" "$HERE/prefix_cache.py" snapshot "$URL" > "$RUN_DIR/prefix_cache-$SHARD_INDEX.before.json"
# shellcheck disable=SC2086  # EVAL_ARGS is a list of flags
$MIRA eval --solver "openai:$MODEL@$URL" --shard "$SHARD_INDEX/$SHARD_COUNT" --out "$SHARD_DIR" \
  ${DP_RANKS:+--dp-ranks "$DP_RANKS"} ${EVAL_ARGS:-} --resume
"$PYTHON" "$HERE/prefix_cache.py" record "$URL" "$RUN_DIR/prefix_cache-$SHARD_INDEX.before.json" \
  "$RUN_DIR/prefix_cache-$SHARD_INDEX.json"
