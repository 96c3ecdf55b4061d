"""Faults: backends that raise, hang past the timeout, answer 429/500 storms,
return empty or truncated text, or feed invalid JSON to the ``llm`` responder. In every case
the run finishes, each instance is either scored or recorded as an error with its cause
(``error: {where, message}`` in its transcript), and ``retry_errors=True`` (``--retry-errors``)
completes the run later with a healthy backend.

A batched solver call that raises as a whole (an engine error, not one item's) fails the
live episodes of that turn: each is recorded as a ``solver`` error carrying the exception,
and the run goes on (``run_batched``; the async scheduler does the same per episode).

The API cases go through the real ``openai`` SDK over HTTP to a scripted OpenAI-compatible
server on 127.0.0.1 that plays the reference solver (and a holder that offers the canonical
line), keyed by the per-request seed. Every wait is tiny and bounded.
"""

from __future__ import annotations

import functools
import json
import threading
import time
from tests.eval.openai_stub import AttackHandler, AttackState, JSONHandler, serve
from pathlib import Path

import pytest

from mira_math.eval.backends.base import Completion
from mira_math.eval.llm_responder import LLMResponder
from mira_math.game.responders.rules import RulesResponder
from mira_math.eval.runner import RunConfig, Selection, TRANSCRIPTS, data_files, load_data, run
from mira_math.eval.solvers import ReferenceSolver, make_solver
from mira_math.game.messages import RUN_SEED, SolverCall, request_seed
from mira_math.generators.layout import DEFAULT_RELEASE

RELEASE = DEFAULT_RELEASE
HANG_MAX_S = 12.0         # a hanging handler is released after this at the latest
TIMEOUT_S = 4.0           # the client timeout of the hang test: well above a healthy reply


@functools.lru_cache(maxsize=1)
def _release() -> Selection:
    return load_data(data_files("all", None, RELEASE))


def _selection(n: int, step: int = 97) -> Selection:
    """``n`` instances spread over the families (every ``step``-th of the release)."""
    full = _release()
    return Selection(full.instances[::step][:n], full.files, full.checksum)


def _rows(out: Path):
    return [json.loads(line) for line in (out / TRANSCRIPTS).read_text(encoding="utf-8").splitlines()]


def _by_id(out: Path):
    rows = _rows(out)
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), "an instance was recorded twice"
    return {r["id"]: r for r in rows}


def _assert_complete(out: Path, sel: Selection, all_correct: bool = True):
    rows = _by_id(out)
    assert set(rows) == {i.id for i in sel.instances}
    assert not any(r["error"] for r in rows.values())
    if all_correct:
        assert all(r["verdict"]["correct"] for r in rows.values())
    return rows


def _config(solver="reference", responder="rules"):
    return RunConfig(solver=solver, responder=responder)


# ======================================================================= in-process solvers

class FlakySolver(ReferenceSolver):
    """The reference solver whose batch call raises on the given call numbers (1-based), or
    returns one completion too few on ``short_on``."""

    def __init__(self, raise_on=(), short_on=()):
        self.calls, self.raise_on, self.short_on = 0, set(raise_on), set(short_on)

    def generate(self, calls):
        self.calls += 1
        if self.calls in self.raise_on:
            raise RuntimeError("CUDA error: device-side assert triggered (scripted)")
        out = super().generate(calls)
        return out[:-1] if self.calls in self.short_on else out


@pytest.mark.parametrize("raise_on,mid_episode", [(3, False), (2, True)])
def test_a_raising_batch_call_records_its_live_episodes_as_errors(tmp_path, raise_on, mid_episode):
    out, sel = tmp_path / "r", _selection(20)
    # window 7: calls 1-2 run instances 0-6 (ask, answer), calls 3-4 run 7-13, calls 5-6 the rest
    result = run(out, sel, _config(), FlakySolver(raise_on={raise_on}), RulesResponder(), window=7,
                 progress=False)
    failed = {i.id for i in sel.instances[7:14] if not mid_episode} | \
             {i.id for i in sel.instances[:7] if mid_episode}
    rows = _by_id(out)
    assert set(rows) == {i.id for i in sel.instances}                  # nothing lost
    assert {tid for tid, r in rows.items() if r["error"]} == failed
    assert result.errors == 7 and result.correct == 13 and result.ran == 20
    for tid in failed:
        r = rows[tid]
        assert r["error"]["where"] == "solver"
        assert r["error"]["message"].startswith("RuntimeError: CUDA error: device-side assert")
        assert "batched solver call for 7 episodes failed" in r["error"]["message"]
        assert r["verdict"] is None
        # a turn that failed mid-episode keeps the turns it had: the request and the offer
        assert [t["role"] for t in r["turns"]] == (["solver", "responder"] if mid_episode else [])
    again = run(out, sel, _config(), FlakySolver(), RulesResponder(), retry_errors=True, progress=False)
    assert (again.ran, again.skipped, again.errors, again.correct) == (7, 13, 0, 7)
    _assert_complete(out, sel)


def test_a_batch_call_with_too_few_completions_is_an_error_not_a_hang(tmp_path):
    out, sel = tmp_path / "r", _selection(10)
    result = run(out, sel, _config(), FlakySolver(short_on={1}), RulesResponder(), window=4,
                 progress=False)
    rows = _by_id(out)
    failed = {tid for tid, r in rows.items() if r["error"]}
    assert failed == {i.id for i in sel.instances[:4]} and result.errors == 4
    assert all("returned 3 completions for 4 requests" in rows[t]["error"]["message"] for t in failed)
    run(out, sel, _config(), FlakySolver(), RulesResponder(), retry_errors=True, progress=False)
    _assert_complete(out, sel)


def test_per_item_errors_are_recorded_with_their_cause(tmp_path):
    """One item's backend error (``Completion.error``) fails that episode only, in either turn."""
    out, sel = tmp_path / "r", _selection(9)
    first = {sel.instances[1].id}
    second = {sel.instances[4].id, sel.instances[8].id}

    class PerItem(ReferenceSolver):
        def generate(self, calls):
            res = super().generate(calls)
            for n, c in enumerate(calls):
                turn = sum(m["role"] == "assistant" for m in c.conversation)
                if (c.instance.id in first and turn == 0) or (c.instance.id in second and turn == 1):
                    res[n] = Completion(error="RateLimitError: Error code: 429 - slow down",
                                        meta={"attempts": 3, "status_code": 429})
            return res

    result = run(out, sel, _config(), PerItem(), RulesResponder(), progress=False)
    rows = _by_id(out)
    assert {t for t, r in rows.items() if r["error"]} == first | second and result.errors == 3
    for tid in first | second:
        assert rows[tid]["error"] == {"where": "solver",
                                      "message": "RateLimitError: Error code: 429 - slow down",
                                      "meta": {"attempts": 3, "status_code": 429}}
    assert [len(rows[t]["turns"]) for t in sorted(second)] == [2, 2]
    run(out, sel, _config(), ReferenceSolver(), RulesResponder(), retry_errors=True, progress=False)
    _assert_complete(out, sel)


def test_async_solver_that_raises_fails_only_its_episode(tmp_path):
    out, sel = tmp_path / "r", _selection(12)
    bad = {sel.instances[3].id, sel.instances[10].id}

    class AsyncFlaky(ReferenceSolver):
        is_async = True

        async def agenerate(self, call):
            if call.instance.id in bad:
                raise ConnectionResetError("peer reset (scripted)")
            return self.generate([call])[0]

    result = run(out, sel, _config(), AsyncFlaky(), RulesResponder(), concurrency=4, progress=False)
    rows = _by_id(out)
    assert {t for t, r in rows.items() if r["error"]} == bad and result.errors == 2
    assert result.correct == 10
    for tid in bad:
        assert rows[tid]["error"]["where"] == "solver"
        assert rows[tid]["error"]["message"].startswith("ConnectionResetError: peer reset (scripted)")
    bad.clear()   # healthy now
    again = run(out, sel, _config(), AsyncFlaky(), RulesResponder(), retry_errors=True, concurrency=4,
                progress=False)
    assert (again.ran, again.errors) == (2, 0)
    _assert_complete(out, sel)


def test_empty_and_truncated_solver_text_is_scored_not_lost(tmp_path):
    """Empty text and text cut off at the token limit (``finish_reason: length``) are solver
    messages like any other: recorded verbatim with their finish reason, parsed by the
    protocol (no action: a format error), and the instance is scored."""
    out, sel = tmp_path / "r", _selection(12)
    empty_first = {sel.instances[0].id, sel.instances[5].id}
    cut_first = {sel.instances[1].id, sel.instances[6].id}
    always_empty = {sel.instances[2].id}

    class Garbling(ReferenceSolver):
        def generate(self, calls):
            res = super().generate(calls)
            for n, c in enumerate(calls):
                turn = sum(m["role"] == "assistant" for m in c.conversation)
                tid = c.instance.id
                if tid in always_empty or (tid in empty_first and turn == 0):
                    res[n] = Completion(text="", finish_reason="length")
                elif tid in cut_first and turn == 0:
                    res[n] = Completion(text=res[n].text[:24], finish_reason="length")
            return res

    result = run(out, sel, _config(), Garbling(), RulesResponder(), progress=False)
    rows = _by_id(out)
    assert result.errors == 0 and all(r["error"] is None and r["verdict"] for r in rows.values())
    for tid in empty_first | cut_first:
        first = rows[tid]["turns"][0]
        assert first["finish_reason"] == "length"
        assert first["raw"] == ("" if tid in empty_first else "REQUEST: What is the val")
        assert rows[tid]["verdict"]["correct"]         # it asked again and answered
    assert rows[sel.instances[0].id]["turns"][0]["action"] == "format_error"
    (gone,) = always_empty
    r = rows[gone]
    assert [t["action"] for t in r["turns"]] == ["format_error"] * (r["budget"] + 1)
    assert r["verdict"]["reason"] == "no answer" and not r["verdict"]["correct"]
    assert result.correct == 11


# ======================================================================= llm responder faults

class ScriptedBackend:
    """A chat backend for the ``llm`` responder: ``script(instance, request)`` -> Completion."""

    model = "scripted-holder"

    def __init__(self, seeds, script):
        self.seeds, self.script, self.requests = seeds, script, 0

    def complete(self, requests, params):
        self.requests += len(requests)
        return [self.script(self.seeds[("responder", r.seed)][0], r) for r in requests]

    def describe(self):
        return {"backend": "scripted"}


def _seed_map(sel: Selection, turns: int = 12):
    """(role, per-request seed) -> (instance, turn): how scripted backends know the instance."""
    return {(role, request_seed(RUN_SEED, inst.id, turn, role)): (inst, turn)
            for inst in sel.instances for turn in range(turns) for role in ("solver", "responder")}


def _offer(inst) -> str:
    return json.dumps({"type": "offer", "has_exact_match": True,
                       "quoted_constraint": inst.hints[0].constraint, "hint": ""})


# what each class of instance gets from the holder's model, and the error it leaves
HOLDER_FAULTS = [
    ("ok", None),
    ("invalid_json", "json parse error"),
    ("invalid_json_quoting_the_line", "json parse error"),   # quoting the line is no offer
    ("empty", "json parse error: empty reply"),
    ("truncated", "cut off: finish_reason=length"),
    ("schema", "schema violation"),
    ("backend_error", None),   # an item the backend gave up on: a responder error, retried later
]


def _holder_reply(kind, inst) -> Completion:
    if kind == "invalid_json":
        return Completion(text="{type: offer, has_exact_match: yes}}", finish_reason="stop")
    if kind == "invalid_json_quoting_the_line":
        return Completion(text="{'type': offer, quoted_constraint: " + inst.hints[0].constraint,
                          finish_reason="stop")
    if kind == "empty":
        return Completion(text="", finish_reason="stop")
    if kind == "truncated":
        return Completion(text=_offer(inst)[:30], finish_reason="length")
    if kind == "schema":
        return Completion(text='["offer"]', finish_reason="stop")
    if kind == "backend_error":
        return Completion(error="APIConnectionError: Connection error.", meta={"attempts": 3})
    return Completion(text=_offer(inst), finish_reason="stop")


def test_llm_responder_with_invalid_json_empty_truncated_and_failed_replies(tmp_path):
    out, sel = tmp_path / "r", _selection(21)
    kinds = {inst.id: HOLDER_FAULTS[n % len(HOLDER_FAULTS)][0] for n, inst in enumerate(sel.instances)}
    seeds = _seed_map(sel)
    backend = ScriptedBackend(seeds, lambda inst, req: _holder_reply(kinds[inst.id], inst))
    config = _config(responder="llm:scripted")
    result = run(out, sel, config, ReferenceSolver(), LLMResponder(backend), progress=False)
    rows = _by_id(out)
    assert set(rows) == set(kinds)
    expected_error = dict(HOLDER_FAULTS)
    for tid, kind in kinds.items():
        r = rows[tid]
        if kind == "ok":
            assert r["error"] is None and r["verdict"]["correct"]
        elif kind == "backend_error":
            assert r["verdict"] is None
            meta = r["error"].pop("meta")
            assert r["error"] == {"where": "responder",
                                  "message": "backend error: APIConnectionError: Connection error."}
            assert meta["attempts"] >= 1   # the errored responder call keeps its attempt count
        else:   # scored: every request declined, with the reason logged; the solver never sees it
            assert r["error"] is None and r["verdict"] is not None and not r["verdict"]["correct"]
            holder = [t for t in r["turns"] if t["role"] == "responder"]
            assert len(holder) == r["budget"]
            for t in holder:
                assert t["decision"] == "decline" and t["shown"] == "I do not have that information."
                assert any(e.startswith(expected_error[kind]) for e in t["errors"]), t["errors"]
    assert result.errors == 3 and result.correct == 3
    scored_before = {t: r for t, r in rows.items() if r["error"] is None}

    healthy = ScriptedBackend(seeds, lambda inst, req: _holder_reply("ok", inst))
    again = run(out, sel, config, ReferenceSolver(), LLMResponder(healthy), retry_errors=True,
                progress=False)
    assert (again.ran, again.errors, again.correct) == (3, 0, 3)
    rows = _by_id(out)
    assert set(rows) == set(kinds) and not any(r["error"] for r in rows.values())
    for tid, r in scored_before.items():   # retry-errors reruns errors only: scored rows stay
        assert rows[tid] == r


# ======================================================================= over HTTP (openai SDK)

class _State:
    def __init__(self):
        self.lock = threading.Lock()
        self.attempts = {}        # (role, seed) -> attempts
        self.seeds = {}           # (role, seed) -> (instance, turn)
        self.policy = lambda role, inst, turn, attempt: ("ok",)
        self.release = threading.Event()


class _Handler(JSONHandler):
    def do_POST(self):
        st: _State = self.server.state
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        role = "responder" if "response_format" in body else "solver"
        key = (role, body["seed"])
        with st.lock:
            attempt = st.attempts[key] = st.attempts.get(key, 0) + 1
            inst, turn = st.seeds[key]
            policy, release = st.policy, st.release
        action = policy(role, inst, turn, attempt)
        if action[0] == "status":
            _, code, headers = action
            return self._send(code, {"error": {"message": f"scripted {code}", "type": "scripted"}}, headers)
        if action[0] == "hang":
            release.wait(HANG_MAX_S)
        if action[0] == "text":
            text, finish = action[1], action[2]
        elif role == "solver":
            call = SolverCall(inst, body["messages"], body["seed"])
            text, finish = ReferenceSolver()._reply(call), "stop"
        else:
            text, finish = _offer(inst), "stop"
        return self._send(200, {
            "id": f"chatcmpl-{body['seed']}-{attempt}", "object": "chat.completion",
            "created": 1700000000, "model": body["model"], "system_fingerprint": "fp_faults",
            "choices": [{"index": 0, "finish_reason": finish, "logprobs": None,
                         "message": {"role": "assistant", "content": text, "refusal": None}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})


@pytest.fixture(scope="module")
def server():
    pytest.importorskip("openai")
    with serve(_Handler, _State()) as httpd:
        yield httpd
        httpd.state.release.set()


@pytest.fixture
def api(server, monkeypatch):
    """The server, reset for one test: its seed map, its policy, its attempt counts."""
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    st = server.state
    with st.lock:
        st.attempts, st.seeds = {}, {}
        st.policy = lambda role, inst, turn, attempt: ("ok",)
        st.release = threading.Event()
    yield server
    st.release.set()   # free any handler still hanging


def _url(server) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def _set(server, sel, policy):
    with server.state.lock:
        server.state.seeds = _seed_map(sel)
        server.state.policy = policy


def _api_solver(server, scheduler="async", **options):
    solver = make_solver(f"openai:fault-model@{_url(server)}", **options)
    if scheduler == "batched":   # drive the batch call (OpenAIBackend.complete) through run_batched
        class Batched:
            is_async = False
            generate, describe = solver.generate, solver.describe
        return Batched()
    return solver


API_CONFIG = dict(solver="openai:fault-model", responder="rules")


def test_hang_past_the_timeout_is_a_recorded_error_then_retried(api, tmp_path):
    out, sel = tmp_path / "r", _selection(8)
    hung = {i.id for i in sel.instances[::2]}
    _set(api, sel, lambda role, inst, turn, attempt:
         ("hang",) if inst.id in hung and turn == 0 else ("ok",))
    t0 = time.monotonic()
    result = run(out, sel, RunConfig(**API_CONFIG),
                 _api_solver(api, timeout=TIMEOUT_S, max_retries=0, concurrency=8), RulesResponder(),
                 concurrency=8, progress=False)
    assert time.monotonic() - t0 < HANG_MAX_S - 1.0     # the timeout ended it, not the server
    rows = _by_id(out)
    assert {t for t, r in rows.items() if r["error"]} == hung and result.errors == 4, \
        [(t, r["error"]) for t, r in rows.items() if r["error"]]
    for tid in hung:
        assert rows[tid]["error"]["where"] == "solver"
        assert rows[tid]["error"]["message"].startswith("APITimeoutError: ")
    api.state.release.set()
    _set(api, sel, lambda role, inst, turn, attempt: ("ok",))
    again = run(out, sel, RunConfig(**API_CONFIG), _api_solver(api, timeout=5, max_retries=0),
                RulesResponder(), retry_errors=True, progress=False)
    assert (again.ran, again.errors, again.correct) == (4, 0, 4)
    _assert_complete(out, sel)


@pytest.mark.parametrize("scheduler", ["async", "batched"])
def test_429_and_500_storms(api, tmp_path, scheduler):
    """Every third instance gets four 429s per request (``Retry-After: 0``, and
    ``retry-after-ms: 1`` because the SDK honours only a positive delay and would otherwise
    back off 0.5 s, 1 s, ...), then a reply; every third a permanent 500. With
    ``max_retries=4`` the first are scored, the second recorded as errors, then retried."""
    out, sel = tmp_path / "r", _selection(12)
    storm = {i.id for i in sel.instances[1::3]}
    broken = {i.id for i in sel.instances[2::3]}
    fast = [("Retry-After", "0"), ("retry-after-ms", "1")]

    def policy(role, inst, turn, attempt):
        if inst.id in storm and attempt <= 4:
            return ("status", 429, fast)
        if inst.id in broken:
            return ("status", 500, fast)
        return ("ok",)

    _set(api, sel, policy)
    result = run(out, sel, RunConfig(**API_CONFIG),
                 _api_solver(api, scheduler, timeout=5, max_retries=4, concurrency=6), RulesResponder(),
                 concurrency=6, progress=False)
    rows = _by_id(out)
    assert set(rows) == {i.id for i in sel.instances}
    assert {t for t, r in rows.items() if r["error"]} == broken and result.errors == 4
    assert result.correct == 8
    for tid in storm:
        solver_turns = [t for t in rows[tid]["turns"] if t["role"] == "solver"]
        assert [t["meta"]["attempts"] for t in solver_turns] == [5, 5]
    for tid in broken:
        assert rows[tid]["error"]["where"] == "solver"
        assert rows[tid]["error"]["message"].startswith("InternalServerError: Error code: 500")
    seeds = {inst.id: request_seed(RUN_SEED, inst.id, 0, "solver") for inst in sel.instances}
    assert all(api.state.attempts[("solver", seeds[t])] == 5 for t in broken)   # 1 + max_retries
    _set(api, sel, lambda role, inst, turn, attempt: ("ok",))
    again = run(out, sel, RunConfig(**API_CONFIG), _api_solver(api, scheduler, max_retries=0),
                RulesResponder(), retry_errors=True, progress=False)
    assert (again.ran, again.errors, again.correct) == (4, 0, 4)
    _assert_complete(out, sel)


def test_llm_responder_over_http_with_bad_json_and_a_500_storm(api, tmp_path):
    """The reference solver with an ``llm`` responder whose model (through OpenAIBackend)
    returns invalid JSON, empty or truncated text, or 500 forever."""
    from mira_math.eval.backends.openai_backend import OpenAIBackend

    out, sel = tmp_path / "r", _selection(10)
    kinds = {inst.id: ("ok", "invalid_json", "empty", "truncated", "500")[n % 5]
             for n, inst in enumerate(sel.instances)}

    def policy(role, inst, turn, attempt):
        kind = kinds[inst.id]
        if role == "solver" or kind == "ok":
            return ("ok",)
        if kind == "500":
            return ("status", 500, [("retry-after-ms", "1")])
        if kind == "truncated":
            return ("text", _offer(inst)[:20], "length")
        return ("text", "" if kind == "empty" else 'Sure! {"type": "offer", "has_exact_match": tru', "stop")

    _set(api, sel, policy)
    config = _config(responder="llm:openai:fault-model")
    holder = LLMResponder(OpenAIBackend("fault-model", base_url=_url(api), timeout=5, max_retries=2))
    result = run(out, sel, config, ReferenceSolver(), holder, progress=False)
    rows = _by_id(out)
    assert set(rows) == set(kinds)
    assert {t for t, r in rows.items() if r["error"]} == {t for t, k in kinds.items() if k == "500"}
    assert result.errors == 2 and result.correct == 2
    for tid, kind in kinds.items():
        r = rows[tid]
        if kind == "500":
            assert r["error"]["where"] == "responder"
            assert r["error"]["message"].startswith("backend error: InternalServerError: Error code: 500")
        elif kind != "ok":
            holder_turns = [t for t in r["turns"] if t["role"] == "responder"]
            assert holder_turns and all(t["decision"] == "decline" and t["errors"] for t in holder_turns)
            assert r["verdict"] is not None and not r["verdict"]["correct"]
    _set(api, sel, lambda role, inst, turn, attempt: ("ok",))
    again = run(out, sel, config, ReferenceSolver(),
                LLMResponder(OpenAIBackend("fault-model", base_url=_url(api), timeout=5, max_retries=0)),
                retry_errors=True, progress=False)
    assert (again.ran, again.errors, again.correct) == (2, 0, 2)
    rows = _by_id(out)
    assert set(rows) == set(kinds) and not any(r["error"] for r in rows.values())


# ------------------------------------------------------------------ fail fast, deadline,
# odd replies. One scripted server; the request's model name picks the behaviour.

@pytest.fixture(scope="module")
def attack_server():
    pytest.importorskip("openai")
    with serve(AttackHandler, AttackState()) as httpd:
        yield httpd


def _attack_backend(server, model, **kw):
    from mira_math.eval.backends.openai_backend import OpenAIBackend

    return OpenAIBackend(model, base_url=_url(server), max_retries=kw.pop("max_retries", 2), **kw)


def _one(backend, schema=None, max_tokens=64):
    from mira_math.eval.backends.base import ChatRequest, GenParams

    req = ChatRequest([{"role": "user", "content": "hi"}], seed=1, json_schema=schema)
    return backend.complete([req], GenParams(max_tokens=max_tokens))[0]


@pytest.mark.parametrize("model", ["unauthorized", "missing"])
def test_auth_and_missing_model_stop_the_run_at_once(attack_server, model):
    from mira_math.eval.backends.base import FatalBackendError

    with pytest.raises(FatalBackendError, match="HTTP 40"):
        _one(_attack_backend(attack_server, model))


def test_a_down_server_stops_after_consecutive_connection_failures():
    import socket
    from mira_math.eval.backends.base import FatalBackendError
    from mira_math.eval.backends.openai_backend import OpenAIBackend

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()   # nothing listens there
    backend = OpenAIBackend("m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0,
                            max_connection_failures=3)
    assert _one(backend).error.startswith("APIConnectionError")
    assert _one(backend).error.startswith("APIConnectionError")
    with pytest.raises(FatalBackendError, match="3 calls in a row got no reply"):
        _one(backend)


@pytest.fixture(params=["aiohttp", "httpx"])
def transport(request, monkeypatch):
    """Both connection layers the backend can run on; the aiohttp one is what the test venv
    (``openai[aiohttp]``) uses."""
    import mira_math.eval.backends.openai_backend as ob
    if request.param == "httpx":
        monkeypatch.setattr(ob, "_aiohttp_transport_class", lambda: None)
    else:
        pytest.importorskip("aiohttp")
    return request.param


def test_the_test_venv_runs_the_aiohttp_connection_layer(attack_server):
    backend = _attack_backend(attack_server, "ok")
    assert backend.http_transport == "aiohttp" and backend.describe()["http_transport"] == "aiohttp"
    assert _one(backend).text == "ANSWER: 0"


def test_connection_errors_keep_their_kind_on_either_transport(attack_server, transport):
    from mira_math.eval.backends.base import FatalBackendError
    from mira_math.eval.backends.openai_backend import OpenAIBackend
    import socket

    # a server that hangs up is a connection error (retryable), never a timeout
    c = _one(_attack_backend(attack_server, "hangup", max_retries=1))
    assert c.error.startswith("APIConnectionError"), c.error
    assert "RemoteProtocolError" in c.error, c.error    # the cause, not just "Connection error."
    assert c.meta["attempts"] == 2
    # nothing listening: a connection error, counted towards the down-server stop
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    backend = OpenAIBackend("m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0,
                            max_connection_failures=2)
    refused = _one(backend).error
    assert refused.startswith("APIConnectionError") and "ConnectError" in refused, refused
    with pytest.raises(FatalBackendError, match="got no reply"):
        _one(backend)


def test_timeout_is_a_deadline_for_the_whole_request_against_a_trickling_server(attack_server):
    c = _one(_attack_backend(attack_server, "trickle", timeout=0.5, max_retries=0))
    # today the per-read timeout never fires (a byte every 0.2 s) and the call ends 40 s later
    # with a protocol error when the server gives up
    assert c.error is not None and c.error.startswith("APITimeoutError"), c.error


def test_an_html_200_page_is_reported_as_such(attack_server):
    c = _one(_attack_backend(attack_server, "html"))
    assert c.error.startswith("NotJSON: HTTP 200 reply is an HTML page")


def test_a_rejected_json_schema_falls_back_to_json_object_without_six_retries(attack_server):
    state = attack_server.state
    with state.lock:
        state.bodies.clear()
    backend = _attack_backend(attack_server, "schema500", max_retries=6)
    c = _one(backend, schema={"type": "object"})
    assert c.error is None
    formats = [b["response_format"]["type"] for b in state.bodies]
    assert formats == ["json_schema", "json_object"]   # the 500 was not retried
    assert state.bodies[1]["response_format"]["schema"] == {"type": "object"}


def test_token_limit_parameter_per_endpoint_and_the_over_limit_warning(attack_server, monkeypatch, caplog):
    from mira_math.eval.backends.openai_backend import OpenAIBackend

    state = attack_server.state
    with state.lock:
        state.bodies.clear()
    c = _one(_attack_backend(attack_server, "ok"), max_tokens=20)
    assert state.bodies[0]["max_tokens"] == 20 and "max_completion_tokens" not in state.bodies[0]
    assert c.meta["over_token_limit"] is True
    assert "ignored the token limit" in caplog.text
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    official = OpenAIBackend("gpt-x")
    assert official.max_tokens_param == "max_completion_tokens"
    assert official.hash_params() != _attack_backend(attack_server, "gpt-x").hash_params()


def test_a_missing_key_for_the_official_endpoint_is_refused_before_any_call(monkeypatch, capsys):
    from mira_math.cli.main import main

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    code = main(["eval", "--solver", "openai:gpt-4o-mini", "--limit", "1", "--out", "/nonexistent/x"])
    assert code == 2 and "OPENAI_API_KEY is not set" in capsys.readouterr().err


def test_eval_stops_on_401_with_exit_4_and_a_resumable_run_dir(attack_server, tmp_path, capsys):
    from mira_math.cli.main import main

    out = tmp_path / "run"
    code = main(["eval", "--solver", f"openai:unauthorized@{_url(attack_server)}", "--limit", "5",
                 "--max-retries", "0", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 4 and "refused the API key" in err and "--resume" in err
    assert err.count("\n") == 1 and (out / "manifest.json").is_file()


def test_no_sampling_params_and_openai_base_url_change_the_config_hash(monkeypatch):
    from mira_math.eval.backends.openai_backend import OpenAIBackend
    from mira_math.eval.runner import RunConfig, _backend_params

    class Solver:
        def __init__(self, backend):
            self.backend = backend

    def config_hash(**kw):
        backend = OpenAIBackend("m", **kw)
        return RunConfig(solver="openai:m", responder="rules",
                         backend=_backend_params(Solver(backend), object())).hash()

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    local = config_hash()
    assert config_hash(sampling_params=False) != local
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:2/v1")
    assert config_hash() != local


def test_a_lone_surrogate_and_nan_in_a_reply_are_repaired_not_fatal(attack_server, tmp_path):
    """A "\\udc80" in a reply once aborted the run for good; NaN reached the transcripts."""
    from mira_math.cli.main import main

    out = tmp_path / "run"
    code = main(["eval", "--solver", f"openai:surrogate@{_url(attack_server)}", "--limit", "3",
                 "--max-retries", "0", "--out", str(out)])
    assert code == 0
    text = (out / "transcripts.jsonl").read_text(encoding="utf-8")
    assert "NaN" not in text and "Infinity" not in text
    rows = [json.loads(line, parse_constant=lambda c: pytest.fail(f"non-strict JSON {c}")) for line in
            text.splitlines()]
    assert len(rows) == 3
    turn = rows[0]["turns"][0]
    assert turn["raw"].endswith("\ufffd") and "lone surrogate" in json.dumps(turn["meta"])


@pytest.mark.parametrize("where", ["userinfo", "query"])
def test_credentials_in_the_endpoint_url_are_never_written(attack_server, tmp_path, capsys, where,
                                                           monkeypatch):
    """Userinfo and key-like query parameters are cut from every recorded URL. The URL
    sent carries no userinfo (the HTTP client refuses it beside the SDK's Authorization header):
    without OPENAI_API_KEY its password is the key, so such a run works."""
    from mira_math.cli.main import main
    from mira_math.eval.redact import redact_url

    port = attack_server.server_address[1]
    assert redact_url(f"http://u:SECRETPW@127.0.0.1:{port}/v1?api-key=SECRETQ&x=1") == \
        f"http://127.0.0.1:{port}/v1?x=1"
    out = tmp_path / "run"
    spec = (f"openai:m@http://user:SECRETPW@127.0.0.1:{port}/v1" if where == "userinfo"
            else f"openai:m@http://127.0.0.1:{port}/v1?api-key=SECRETPW")
    clean = f"openai:m@http://127.0.0.1:{port}/v1"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    before = len(attack_server.state.authorizations)     # the server is shared by the module
    assert main(["eval", "--solver", spec, "--limit", "3", "--max-retries", "0", "--out", str(out)]) == 0
    if where == "userinfo":
        assert set(attack_server.state.authorizations[before:]) == {"Bearer SECRETPW"}
    assert main(["score", str(out)]) == 0
    assert main(["report", str(out), "--out", str(tmp_path / "report")]) == 0
    assert main(["view", str(out), "--out", str(tmp_path / "viewer")]) == 0
    captured = capsys.readouterr()
    assert "SECRETPW" not in captured.out + captured.err
    leaks = [p for p in tmp_path.rglob("*") if p.is_file() and b"SECRETPW" in p.read_bytes()]
    assert leaks == []
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["config"]["solver"] == clean
    # the config hash is the redacted form's: another password is the same run
    other = tmp_path / "other"
    main(["eval", "--solver", spec.replace("SECRETPW", "OTHERPW"), "--limit", "3",
          "--max-retries", "0", "--out", str(other)])
    assert json.loads((other / "manifest.json").read_text(encoding="utf-8"))["run_hash"] == manifest["run_hash"]


@pytest.mark.parametrize("model", ["huge", "gzipbomb"])
def test_an_oversize_reply_is_that_instances_error(attack_server, tmp_path, model):
    """A reply body over --max-reply-bytes (decoded) is a per-instance error, no OOM."""
    from mira_math.cli.main import main

    out = tmp_path / "run"
    code = main(["eval", "--solver", f"openai:{model}@{_url(attack_server)}", "--limit", "2",
                 "--max-retries", "0", "--max-reply-bytes", "1000000", "--out", str(out)])
    assert code == 3                                  # errors recorded, --retry-errors hint
    rows = [json.loads(line) for line in (out / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 2 and all("ReplyTooLarge" in r["error"]["message"] for r in rows)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["models"]["solver"]["max_reply_bytes"] == 1000000


def test_a_full_disk_is_exit_5_with_nothing_lost_and_a_resume_hint(tmp_path, monkeypatch, capsys):
    import errno as errno_mod

    from mira_math.cli.main import main
    from mira_math.eval.rundir import writer

    def full(self, line):
        raise OSError(errno_mod.ENOSPC, "No space left on device")

    monkeypatch.setattr(writer.TranscriptLog, "write", full)
    code = main(["eval", "--solver", "noask", "--limit", "3", "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 5 and "nothing lost" in err and "--resume" in err and "Traceback" not in err


def test_sigterm_ends_a_run_like_ctrl_c_with_the_resume_hint(tmp_path):

    import subprocess
    import sys

    out = tmp_path / "run"
    code = ("import os, signal, sys\n"
            "from mira_math.eval.rundir import writer\n"
            "real = writer.TranscriptLog.write\n"
            "def write(self, line):\n"
            "    real(self, line); os.kill(os.getpid(), signal.SIGTERM)\n"
            "writer.TranscriptLog.write = write\n"
            "from mira_math.cli.main import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    proc = subprocess.run([sys.executable, "-c", code, "eval", "--solver", "noask", "--limit", "5",
                           "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 130 and "--resume" in proc.stderr and "Traceback" not in proc.stderr



@pytest.mark.parametrize("command", ["validate", "eval"])
def test_a_lone_surrogate_in_a_data_file_is_a_one_line_error_naming_the_field(tmp_path, capsys, command):
    from mira_math.cli.main import main

    root = Path(__file__).resolve().parents[2]
    row = json.loads((root / "mira-math/data/crt_reconstruction/test.jsonl").read_text().splitlines()[0])
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(row).replace(json.dumps(row["id"]), '"crt-\\udc80"', 1) + "\n")
    args = ["validate", str(bad)] if command == "validate" else \
        ["eval", "--solver", "noask", "--data", str(bad), "--out", str(tmp_path / "run")]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "bad.jsonl:1: field 'id': text holds a lone surrogate" in err and err.count("\n") == 1
