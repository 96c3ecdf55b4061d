"""Whether a ``vf-eval`` run of ``mira-math-rl`` produced anything: verifiers decides its own exit
status, 0 whenever the run finishes, even when every rollout failed (no model reachable). This
reads the run's ``traces.jsonl`` (one episode per rollout) and counts the rollouts that
failed: a verifiers error on the trace, or a MIRA episode that ended in an error.

``mira-math-rl-eval ARGS`` (the environment package's command) runs ``vf-eval ARGS`` unchanged
and then exits 3 when every rollout failed or none ran; ``python -m
mira_math.integrations.vf_check RUN_DIR`` checks a finished run the same way."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple

TRACES = "traces.jsonl"
ALL_FAILED = 3


def _solver(episode: dict) -> Optional[dict]:
    return next((t for t in episode.get("traces") or [] if (t.get("agent") or {}).get("name") == "solver"), None)


def failed(episode: dict) -> bool:
    """A rollout (one line of ``traces.jsonl``, an episode) failed: verifiers recorded an error
    or no solver trace, the trace has no ``correct`` reward, or the MIRA episode errored."""
    trace = _solver(episode)
    if episode.get("errors") or not episode.get("ok", False) or trace is None or trace.get("errors"):
        return True
    return "correct" not in (trace.get("rewards") or {}) or (trace.get("metrics") or {}).get("errored") == 1.0


def episodes(run_dir: Path) -> List[dict]:
    path = run_dir / TRACES
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def count_failures(run_dir: Path) -> Tuple[int, int]:
    """(failed rollouts, rollouts) of one run directory."""
    rows = episodes(run_dir)
    return sum(map(failed, rows)), len(rows)


def verdict(run_dir: Path) -> int:
    bad, total = count_failures(run_dir)
    if total == 0 or bad == total:
        print(f"mira-math-rl: {run_dir}: {bad} of {total} rollouts failed: no result "
              "(is the model server reachable?)", file=sys.stderr)
        return ALL_FAILED
    if bad:
        print(f"mira-math-rl: {run_dir}: {bad} of {total} rollouts failed", file=sys.stderr)
    return 0


def eval_main(argv: Optional[Sequence[str]] = None) -> None:
    """``vf-eval`` with an exit status: the run, then :func:`verdict` on its directory."""
    import verifiers.v1.cli.eval.main as vf_main
    from verifiers.v1.cli.output import output_path

    seen: List[Any] = []
    run_eval = vf_main.run_eval

    async def recording(config: Any) -> Any:
        seen.append(config)
        return await run_eval(config)

    vf_main.run_eval = recording
    try:
        vf_main.main(list(argv) if argv is not None else None)
    finally:
        vf_main.run_eval = run_eval
    if seen:   # a --help or --dry-run call runs nothing and keeps vf-eval's status
        raise SystemExit(verdict(Path(output_path(seen[0]))))


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m mira_math.integrations.vf_check RUN_DIR", file=sys.stderr)
        return 2
    return verdict(Path(args[0]))


if __name__ == "__main__":
    raise SystemExit(main())
