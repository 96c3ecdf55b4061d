"""Fail-fast that counts right (issue 22, part A): a run stops for a server that is down or a
429 storm, never for a few fast failures among many successes; a stop keeps the finished
episodes and names the ones in flight; the async path fsyncs on a timer.

Everything goes through the real ``openai`` SDK over HTTP to the stub server on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.eval.openai_stub import AttackHandler, AttackState, serve


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
    back first and, counted in completion order, looked like a down server (issue 22)."""
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
