"""Fail-fast that counts right: a run stops for a server that is down or a
429 storm, never for a few fast failures among many successes; a stop keeps the finished
episodes and names the ones in flight; the async path fsyncs on a timer.

Everything goes through the real ``openai`` SDK over HTTP to the stub server on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.eval.openai_stub import AttackHandler, AttackState, serve
from mira_math.generators.layout import DEFAULT_RELEASE


@pytest.fixture(scope="module")
def attack_server():
    pytest.importorskip("openai")
    with serve(AttackHandler, AttackState()) as httpd:
        yield httpd


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch):
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


def _url(server) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def _rows(out: Path):
    return [json.loads(line) for line in (out / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()]


def test_two_percent_resets_at_256_in_flight_do_not_stop_the_run(attack_server, tmp_path, capsys):
    """Every 50th call is dropped at once while the others take 50 ms: the dropped ones come
    back first and, counted in completion order, looked like a down server."""
    from mira_math.cli.main import main

    out = tmp_path / "run"
    code = main(["eval", "--solver", f"openai:resets2@{_url(attack_server)}", "--limit", "600",
                 "--concurrency", "256", "--max-retries", "0", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 3, err                      # finished, with the dropped calls as errors
    rows = _rows(out)
    errors = [r["error"]["message"] for r in rows if r["error"]]
    assert len(rows) == 600 and len(errors) == 12
    assert all(e.startswith("APIConnectionError") for e in errors)


def test_a_429_storm_without_retry_after_stops_with_exit_6_and_the_resume_hint(attack_server, tmp_path,
                                                                                capsys):
    """Every reply a 429 without Retry-After: the SDK backs off per call and the run used to go
    on for ever; now 8 calls sent in a row rate-limited, nothing succeeding, stop it."""
    from mira_math.cli.main import EXIT_RATE_LIMITED, main

    out = tmp_path / "run"
    code = main(["eval", "--solver", f"openai:ratelimited@{_url(attack_server)}", "--limit", "40",
                 "--concurrency", "4", "--max-retries", "1", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == EXIT_RATE_LIMITED == 6, err
    assert err.count("\n") == 1 and "rate-limited (HTTP 429)" in err and "--resume" in err
    assert "Traceback" not in err and "in flight were not written" in err
    rows = _rows(out)
    assert 0 < len(rows) < 40                       # stopped early; what finished is kept
    assert all("RateLimitError" in r["error"]["message"] for r in rows)
    assert "--retry-errors" in err                  # the errors recorded before the stop


def test_a_stop_keeps_finished_episodes_names_those_in_flight_and_resume_runs_them(tmp_path):
    """Episodes 0-4 finish, 6-8 are in flight (waiting on their reply) when the call for 5 is
    fatal: 5 lines kept, "4 in flight" named, and --resume runs exactly the other five."""
    import asyncio

    from mira_math.eval.backends.base import FatalBackendError
    from mira_math.eval.runner import RunConfig, RunStopped, Selection, data_files, load_data, run
    from mira_math.eval.solvers import ReferenceSolver
    from mira_math.game.responders.rules import RulesResponder

    full = load_data(data_files("all", None, DEFAULT_RELEASE))
    sel = Selection(full.instances[:10], full.files, full.checksum)
    ids = [inst.id for inst in sel.instances]

    class Stopping(ReferenceSolver):
        is_async = True

        def __init__(self):
            self.waiting = 0

        async def agenerate(self, call):
            at = ids.index(call.instance.id)
            if at == 5:
                while self.waiting < 3:            # until 6, 7 and 8 are in flight
                    await asyncio.sleep(0)
                raise FatalBackendError("scripted: the server went away")
            if at > 5:
                self.waiting += 1
                await asyncio.Event().wait()       # never answered: cancelled by the stop
            await asyncio.sleep(0)
            return self.generate([call])[0]

    out = tmp_path / "run"
    config = RunConfig(solver="reference", responder="rules")
    with pytest.raises(RunStopped) as stop:
        run(out, sel, config, Stopping(), RulesResponder(), concurrency=4, progress=False)
    message = str(stop.value)
    assert "5 finished transcripts kept" in message and "4 episode(s) in flight were not written" in message
    assert "scripted: the server went away" in message and "--resume" in message
    assert [r["id"] for r in _rows(out)] == ids[:5]
    again = run(out, sel, config, ReferenceSolver(), RulesResponder(), resume=True, progress=False)
    assert (again.ran, again.skipped, again.errors) == (5, 5, 0)
    assert sorted(r["id"] for r in _rows(out)) == sorted(ids)


def test_the_async_path_fsyncs_a_finished_line_while_nothing_else_finishes(tmp_path, monkeypatch):
    """The second episode's reply waits until the first one's line has been fsync'd: before
    the timer, fsync came only with the next finished episode, so this waited for ever."""
    import asyncio
    import os

    from mira_math.eval import runner
    from mira_math.eval.rundir import writer
    from mira_math.eval.runner import RunConfig, Selection, data_files, load_data, run
    from mira_math.eval.solvers import ReferenceSolver
    from mira_math.game.responders.rules import RulesResponder

    full = load_data(data_files("all", None, DEFAULT_RELEASE))
    sel = Selection(full.instances[:2], full.files, full.checksum)
    first, second = (inst.id for inst in sel.instances)
    out = tmp_path / "run"
    synced_lines = []
    real_fsync = os.fsync

    def fsync(fd):
        real_fsync(fd)
        path = out / "transcripts.jsonl"
        synced_lines.append(path.read_text(encoding="utf-8").count("\n") if path.exists() else 0)

    monkeypatch.setattr(writer.os, "fsync", fsync)
    monkeypatch.setattr(runner, "SYNC_EVERY_S", 0.05)
    saw = {}

    class Slow(ReferenceSolver):
        is_async = True

        async def agenerate(self, call):
            if call.instance.id == second and not saw:
                for _ in range(2000):              # a bound, not a timing assertion
                    if any(n >= 1 for n in synced_lines):
                        break
                    await asyncio.sleep(0.01)
                saw["first line synced"] = any(n >= 1 for n in synced_lines)
            return self.generate([call])[0]

    run(out, sel, RunConfig(solver="reference", responder="rules"), Slow(), RulesResponder(),
        concurrency=2, progress=False)
    assert saw == {"first line synced": True}
    assert [r["id"] for r in _rows(out)][0] == first


# ------------------------------------------------------------------ the counting rule itself

def _watch(quiet_s=30.0, streak=3, sleep=None):
    from mira_math.eval.backends.health import DOWN, RATE_LIMITED, FailureWatch

    # a clock that stands still: the quiet window is always ahead, whatever the machine's load
    return FailureWatch({DOWN: streak, RATE_LIMITED: streak}, quiet_s, clock=lambda: 100.0,
                        **({"sleep": sleep} if sleep else {}))


class _Slept:
    """An injected sleep that only yields to the loop and adds up the time it was asked for:
    the whole quiet window passes at once."""

    def __init__(self):
        self.total = 0.0

    async def __call__(self, seconds: float) -> None:
        import asyncio

        self.total += seconds
        await asyncio.sleep(0)


def _fail(watch, seq, kind="down"):
    import asyncio

    watch.end(seq, kind, replied=kind != "down", succeeded=False)
    return asyncio.run(watch.persistent(seq, kind))


async def _failing(watch, seq, kind="down"):
    watch.end(seq, kind, replied=kind != "down", succeeded=False)
    return await watch.persistent(seq, kind)


def test_fast_failures_while_older_calls_are_in_flight_are_held_then_released_by_a_reply():
    import asyncio

    watch = _watch()

    async def scenario():
        for _ in range(10):
            watch.begin()
        # 2, 5, 7, 8, 9 fail first: in completion order five in a row, in sending order no streak
        held = [asyncio.ensure_future(_failing(watch, s)) for s in (2, 5, 7, 8, 9)]
        await asyncio.sleep(0)
        assert not any(h.done() for h in held)      # waiting for the calls sent before them
        watch.end(0, None, replied=True, succeeded=True)   # the first reply: the server is up
        return [await h for h in held]

    assert asyncio.run(scenario()) == [None] * 5     # each is its instance's error, no stop


def test_a_closed_port_at_the_start_stops_after_the_streak_at_once():
    import asyncio

    watch = _watch(streak=3)

    async def scenario():
        a, b, c = watch.begin(), watch.begin(), watch.begin()
        held = [asyncio.ensure_future(_failing(watch, s)) for s in (c, a)]   # b is still out
        await asyncio.sleep(0)
        assert not any(h.done() for h in held)
        return [await _failing(watch, b)] + [await h for h in held]       # every call failed

    assert asyncio.run(scenario()) == [3, 3, 3]
    lone = _watch(streak=3)
    assert asyncio.run(_failing(lone, lone.begin())) is None     # nothing out, streak of 1: no stop


def test_a_success_in_between_breaks_the_streak_in_sending_order():
    watch = _watch(streak=3)
    seqs = [watch.begin() for _ in range(5)]
    watch.end(seqs[2], None, replied=True, succeeded=True)
    assert [_fail(watch, s) for s in (0, 1, 3, 4)] == [None] * 4


def test_after_a_reply_a_streak_waits_for_the_quiet_window_and_a_reply_in_it_clears_it():
    import asyncio

    watch = _watch(quiet_s=0.2, streak=2)
    first = watch.begin()
    watch.end(first, None, replied=True, succeeded=True)

    async def outage(answered_meanwhile: bool):
        a, b, late = watch.begin(), watch.begin(), watch.begin()
        watch.end(a, "down", replied=False, succeeded=False)
        watch.end(b, "down", replied=False, succeeded=False)
        held = asyncio.ensure_future(watch.persistent(b, "down"))
        await asyncio.sleep(0)                   # the failure is held in the quiet window
        assert not held.done()
        if answered_meanwhile:
            watch.end(late, None, replied=True, succeeded=False)   # e.g. a 500: the server is there
        return await held

    assert asyncio.run(outage(answered_meanwhile=True)) is None
    assert asyncio.run(outage(answered_meanwhile=False)) == 2


def test_a_429_storm_is_cleared_only_by_a_success_and_a_down_server_by_any_reply():
    slept = _Slept()
    watch = _watch(streak=2, sleep=slept)
    a, b, c = watch.begin(), watch.begin(), watch.begin()
    watch.end(a, None, replied=True, succeeded=False)      # a 500 reply
    assert not watch.ever_cleared("429") and watch.ever_cleared("down")
    assert _fail(watch, b, "429") is None and _fail(watch, c, "429") == 2
    # b was held for the whole 30 s window (c still out could have cleared it), in no real time
    assert 29.9 < slept.total < 30.1


# ------------------------------------------------------------------ the reply cap at the transport

def test_an_oversize_reply_is_refused_by_its_content_length_or_dropped_as_it_streams():
    """The cap is applied while the body streams in (the transport used to read each
    whole body first, so 16 replies of 50 MB in flight held 700+ MiB before the cap saw them)."""
    import asyncio

    pytest.importorskip("openai")
    from mira_math.eval.backends.openai_backend import _capped_body, _http_library

    httpx = _http_library()
    pulled = []

    class Chunks(httpx.AsyncByteStream):
        def __init__(self, count=50):
            self.count = count

        async def __aiter__(self):
            for n in range(self.count):         # 50 MB, with no Content-Length
                pulled.append(n)
                yield b"A" * 2 ** 20

    streamed = httpx.Response(200, stream=Chunks())
    body, size = asyncio.run(_capped_body(streamed, 3 * 2 ** 20))
    assert body == b"" and size == 4 * 2 ** 20 and len(pulled) == 4     # stopped at the 4th MB
    declared = httpx.Response(200, headers={"content-length": str(50 * 2 ** 20)}, stream=Chunks())
    pulled.clear()
    assert asyncio.run(_capped_body(declared, 3 * 2 ** 20)) == (b"", 50 * 2 ** 20) and pulled == []
    small = httpx.Response(200, stream=Chunks(3))
    body, size = asyncio.run(_capped_body(small, 3 * 2 ** 20))
    assert size is None and len(body) == 3 * 2 ** 20              # exactly the cap: kept


# ------------------------------------------------------------------ a real write failure, SIGTERM

def _limited_eval(out: Path, max_file_bytes: int, *extra: str):
    """``mira-math eval`` in a child process whose files cannot grow past ``max_file_bytes``
    (RLIMIT_FSIZE: a write past it fails with EFBIG, as a full disk fails with ENOSPC)."""
    import resource
    import signal
    import subprocess
    import sys

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)     # the write fails instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_file_bytes, max_file_bytes))

    return subprocess.run([sys.executable, "-m", "mira_math.cli.main", "eval", "--solver", "reference",
                           "--limit", "300", "--out", str(out), *extra],
                          capture_output=True, text=True, timeout=600, preexec_fn=limit,
                          cwd=Path(__file__).resolve().parents[2])


def test_a_write_that_runs_out_of_space_is_exit_5_one_line_and_resume_completes(tmp_path):
    out = tmp_path / "run"
    proc = _limited_eval(out, 100_000)
    assert proc.returncode == 5, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "nothing lost" in proc.stderr and "--resume" in proc.stderr
    kept = (out / "transcripts.jsonl").read_bytes()
    assert 0 < kept.count(b"\n") < 300
    again = _limited_eval(out, 2 ** 40, "--resume")
    assert again.returncode == 0, again.stderr
    ids = [r["id"] for r in _rows(out)]
    assert len(ids) == len(set(ids)) == 300                  # nothing lost, nothing twice


def test_sigterm_on_the_async_path_is_exit_130_with_the_hint_and_resume_completes(attack_server, tmp_path):
    import os
    import signal
    import subprocess
    import sys

    out = tmp_path / "run"
    args = [sys.executable, "-m", "mira_math.cli.main", "eval", "--solver",
            f"openai:slow@{_url(attack_server)}", "--limit", "40", "--concurrency", "4",
            "--max-retries", "0", "--out", str(out)]
    env = dict(os.environ, NO_PROXY="127.0.0.1")
    proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=Path(__file__).resolve().parents[2])
    transcripts = out / "transcripts.jsonl"
    for _ in range(6000):                       # until 4 lines are written (a bound, not a timing)
        if transcripts.exists() and transcripts.read_bytes().count(b"\n") >= 4:
            break
        if proc.poll() is not None:
            break
        import time
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    err = proc.communicate(timeout=300)[1]
    assert proc.returncode == 130, err
    assert "interrupted" in err and "--resume" in err and "Traceback" not in err
    assert len(_rows(out)) < 40
    again = subprocess.run(args + ["--resume"], capture_output=True, text=True, env=env, timeout=300,
                           cwd=Path(__file__).resolve().parents[2])
    assert again.returncode == 0, again.stderr
    ids = [r["id"] for r in _rows(out)]
    assert len(ids) == len(set(ids)) == 40
