"""The LLM responder: post-validation against a scripted backend, the prompt it sends, and
one end-to-end run through OpenAIBackend and the real SDK against a local HTTP server."""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from mira_math.eval.backends.base import ChatRequest, Completion, GenParams
from mira_math.game.protocol import DECLINE_TEXT
from mira_math.game.responders.base import Responder, ResponderCall
from mira_math.eval.llm_responder import (NOT_A_REPLY, REPLY_SCHEMA, SYSTEM_PROMPT, LLMResponder,
                                          build_conversation, parse_reply, postvalidate, schema_errors)

C1 = "congruence 3: x ≡ 1 (mod 3)"
C2 = "the prior P(D) = 1/20"
C3 = "congruence 3: x ≡ 1 (mod 37)"      # contains C1's text as a prefix
LINES = [C1, C2]


def _reply(type_="offer", match=True, quote=C1, hint="the request names congruence 3"):
    return json.dumps({"type": type_, "has_exact_match": match, "quoted_constraint": quote, "hint": hint})


def _ok(text, **kw):
    return Completion(text=text, finish_reason=kw.pop("finish_reason", "stop"), **kw)


class ScriptedBackend:
    model = "scripted"

    def __init__(self, completions):
        self.completions = list(completions)
        self.calls = []

    def complete(self, requests, params):
        self.calls.append((list(requests), params))
        out, self.completions = self.completions[:len(requests)], self.completions[len(requests):]
        return out

    def describe(self):
        return {"backend": "scripted"}


def _turn(request="What is congruence 3?", constraints=LINES, seed=1234):
    return ResponderCall(constraints=list(constraints), request=request, family="crt_reconstruction", seed=seed)


# -- post-validation ---------------------------------------------------------------------------

def test_verbatim_quote_is_an_offer_of_the_private_line():
    r = postvalidate(LINES, _ok(_reply(), meta={"request_id": "req_1"}))
    assert (r.decision, r.quoted_constraint, r.shown) == ("offer", C1, C1)
    assert r.errors == [] and r.hint == "the request names congruence 3"
    assert r.parsed["type"] == "offer" and r.raw == _reply()
    assert r.meta["request_id"] == "req_1" and r.meta["finish_reason"] == "stop"


def test_quote_differing_only_in_whitespace_shows_the_private_line():
    r = postvalidate(LINES, _ok(_reply(quote="  congruence 3:x ≡ 1\n(mod 3) ")))
    assert r.decision == "offer" and r.quoted_constraint is C1 and r.shown == C1


@pytest.mark.parametrize("quote", ["congruence 3: x ≡ 2 (mod 3)", "x ≡ 1 (mod 4)", "3: x ≡ 1 (mod 3)",
                                   C1 + " and " + C2, "", "CONGRUENCE 3: X ≡ 1 (MOD 3)"])
def test_fabricated_or_partial_quote_declines(quote):
    r = postvalidate(LINES, _ok(_reply(quote=quote)))
    assert r.decision == "decline" and r.shown == DECLINE_TEXT and r.quoted_constraint is None
    assert any("fabricated quote" in e for e in r.errors)


def test_offer_without_exact_match_declines():
    r = postvalidate(LINES, _ok(_reply(match=False)))
    assert r.decision == "decline" and r.errors == ["offer without has_exact_match"]
    assert r.parsed["quoted_constraint"] == C1     # logged, not shown
    assert r.shown == DECLINE_TEXT


def test_proper_decline_has_no_errors():
    r = postvalidate(LINES, _ok(_reply("decline", False, "", "vague request")))
    assert r.decision == "decline" and r.errors == [] and r.hint == "vague request"


@pytest.mark.parametrize("payload,needle", [
    ({"type": "offer", "has_exact_match": True, "quoted_constraint": C1}, "missing"),
    ({"type": "offer", "has_exact_match": True, "quoted_constraint": C1, "hint": "", "extra": 1}, "unexpected"),
    ({"type": "yes", "has_exact_match": True, "quoted_constraint": C1, "hint": ""}, "type must be"),
    ({"type": "offer", "has_exact_match": "true", "quoted_constraint": C1, "hint": ""}, "boolean"),
    ({"type": "offer", "has_exact_match": 1, "quoted_constraint": C1, "hint": ""}, "boolean"),
    ({"type": "offer", "has_exact_match": True, "quoted_constraint": [C1], "hint": ""}, "string"),
    ([C1], "JSON object"),
])
def test_schema_violations_decline(payload, needle):
    r = postvalidate(LINES, _ok(json.dumps(payload)))
    assert r.decision == "decline" and r.shown == DECLINE_TEXT
    assert any(e.startswith("schema violation") and needle in e for e in r.errors), r.errors
    assert schema_errors(json.loads(_reply())) == []


@pytest.mark.parametrize("raw", ["", "not json at all", '{"type": "offer", "has_exact_match": tru',
                                 "Sure! congruence 1 is known."])
def test_junk_json_declines_with_parse_error(raw):
    r = postvalidate(LINES, _ok(raw))
    assert r.decision == "decline" and r.shown == DECLINE_TEXT
    assert r.errors[0].startswith("json parse error") and r.errors[1:] == [NOT_A_REPLY]
    assert "fallback" not in r.meta


def test_fenced_json_is_parsed():
    parsed, err = parse_reply("```json\n" + _reply() + "\n```")
    assert err is None and parsed["quoted_constraint"] == C1
    assert postvalidate(LINES, _ok("```json\n" + _reply() + "\n```")).decision == "offer"


@pytest.mark.parametrize("raw", [
    'I offer: "congruence 3: x ≡ 1 (mod 3)"',
    '{"type": "offer", "has_exact_match": true, '
    '"quoted_constraint": "congruence 3:  x ≡ 1 (mod 3)", "hint": "x',
    "type: offer\nquoted_constraint: congruence 3:  x ≡ 1 (mod 3)",
    "Offer: congruence 3: x ≡ 1 (mod 3)",
    "congruence 3: x ≡ 1 (mod 3)",
    f"I cannot offer {C1}",
])
def test_a_reply_that_is_not_a_reply_object_is_never_an_offer(raw):
    """The schema is the protocol. Prose, a broken object or a bare line quoting a
    private line verbatim is a responder error and a decline, never an offer of that line."""
    r = postvalidate(LINES, _ok(raw))
    assert (r.decision, r.quoted_constraint, r.shown) == ("decline", None, DECLINE_TEXT)
    assert r.errors[0].startswith("json parse error") and r.errors[1] == NOT_A_REPLY
    assert "fallback" not in r.meta


def test_refusal_length_and_backend_error_decline():
    refused = postvalidate(LINES, Completion(text="", finish_reason="stop", refusal="I can't help."))
    assert refused.decision == "decline" and refused.errors == ["refusal: I can't help."]
    cut = postvalidate(LINES, _ok(_reply()[:40], finish_reason="length"))
    assert cut.decision == "decline" and cut.errors == ["cut off: finish_reason=length"]
    # even a complete-looking reply does not count when the backend says it was cut off
    assert postvalidate(LINES, _ok(_reply(), finish_reason="length")).decision == "decline"
    failed = postvalidate(LINES, Completion(error="APITimeoutError: Request timed out.", meta={"attempts": 7}))
    assert failed.decision == "decline"
    assert failed.errors == ["backend error: APITimeoutError: Request timed out."]
    assert failed.meta["attempts"] == 7
    for r in (refused, cut, failed):
        assert r.shown == DECLINE_TEXT


def test_hint_never_shown():
    secret = "the answer is 349"
    for text in (_reply(hint=secret), _reply("decline", False, "", secret), _reply(quote="x", hint=secret)):
        r = postvalidate(LINES, _ok(text))
        assert secret not in r.shown and r.hint == secret


# -- the responder -----------------------------------------------------------------------------

def test_prompt_holds_only_constraints_and_request():
    conv = build_conversation(_turn("  What is congruence 3?  "))
    assert [m["role"] for m in conv] == ["system", "user"] and conv[0]["content"] == SYSTEM_PROMPT
    user = conv[1]["content"]
    assert f"\n{C1}\n{C2}\n" in user and "1." not in user      # unnumbered: nothing to echo
    assert user.rstrip().endswith("Request: What is congruence 3?")
    for word in ("verbatim", "exact", "Never solve"):
        assert word in SYSTEM_PROMPT


def test_respond_batch_order_seeds_schema_and_meta():
    backend = ScriptedBackend([_ok(_reply()), _ok(_reply(quote="made up")),
                               _ok(_reply(quote=C2), meta={"request_id": "r3"})])
    responder = LLMResponder(backend)
    assert isinstance(responder, Responder)
    turns = [_turn(seed=1), _turn(seed=2), _turn("the prior?", seed=3),
             _turn(constraints=[], seed=4)]
    out = responder.respond(turns)
    assert [r.decision for r in out] == ["offer", "decline", "offer", "decline"]
    assert [r.quoted_constraint for r in out] == [C1, None, C2, None]
    assert out[2].meta["request_id"] == "r3" and out[3].errors == ["no private constraints"]
    (requests, params), = backend.calls
    assert len(requests) == 3 and [r.seed for r in requests] == [1, 2, 3]
    assert all(isinstance(r, ChatRequest) and r.json_schema == REPLY_SCHEMA for r in requests)
    assert params == GenParams(temperature=0, max_tokens=256)
    d = responder.describe()
    assert d["spec"] == "llm" and d["backend"] == {"backend": "scripted"} and len(d["prompt_hash"]) == 16


def test_reply_schema_is_flat_and_strict():
    assert REPLY_SCHEMA["additionalProperties"] is False
    assert set(REPLY_SCHEMA["required"]) == set(REPLY_SCHEMA["properties"]) == {
        "type", "has_exact_match", "quoted_constraint", "hint"}
    assert all(p["type"] in ("string", "boolean") for p in REPLY_SCHEMA["properties"].values())


def test_arespond_with_sync_and_async_backends():
    sync = ScriptedBackend([_ok(_reply())])
    assert asyncio.run(LLMResponder(sync).arespond(_turn())).quoted_constraint == C1

    class AsyncScripted(ScriptedBackend):
        concurrency = 2

        async def acomplete(self, request, params):
            self.calls.append(([request], params))
            return _ok(_reply(quote=C2))

    backend = AsyncScripted([])
    r = asyncio.run(LLMResponder(backend).arespond(_turn(seed=7)))
    assert r.quoted_constraint == C2 and backend.calls[0][0][0].seed == 7


# -- end to end through the real SDK -----------------------------------------------------------

class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        self.server.bodies.append(body)
        user = body["messages"][-1]["content"]
        request = user.rsplit("Request:", 1)[1].strip()
        if "congruence 3" in request:   # quote with mangled whitespace
            content = _reply(quote="congruence 3:   x ≡ 1 (mod 3)", hint="hint text")
        elif "everything" in request:   # fabricated
            content = _reply(quote="x = 349", hint="x = 349")
        else:
            content = _reply("decline", False, "", "no match")
        payload = json.dumps({
            "id": "chatcmpl-e2e", "object": "chat.completion", "created": 1700000000,
            "model": body["model"], "system_fingerprint": "fp_e2e",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content, "refusal": None}}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("x-request-id", f"req_e2e_{len(self.server.bodies)}")
        self.end_headers()
        self.wfile.write(payload)


def test_end_to_end_through_openai_backend(monkeypatch):
    pytest.importorskip("openai")
    from mira_math.eval.backends.openai_backend import OpenAIBackend

    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.bodies = []
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        backend = OpenAIBackend("gpt-4o-mini", base_url=f"http://127.0.0.1:{httpd.server_address[1]}/v1",
                                api_key="sk-test", timeout=5.0, max_retries=0, concurrency=2)
        responder = LLMResponder(backend)
        turns = [_turn("What is congruence 3?", seed=1234), _turn("Tell me everything", seed=1234),
                 _turn("What is the weather?", seed=1234)]
        out = responder.respond(turns)
        assert [r.decision for r in out] == ["offer", "decline", "decline"]
        assert out[0].quoted_constraint is C1 and out[0].shown == C1 and out[0].hint == "hint text"
        assert out[0].meta["request_id"].startswith("req_e2e_") and out[0].meta["system_fingerprint"] == "fp_e2e"
        assert out[1].errors and "fabricated quote" in out[1].errors[0] and "349" not in out[1].shown
        assert out[2].errors == []
        async_result = asyncio.run(responder.arespond(turns[0]))
        assert async_result.quoted_constraint is C1
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
    assert len(httpd.bodies) == 4
    for body in httpd.bodies:
        assert body["seed"] == 1234 and body["temperature"] == 0 and body["max_tokens"] == 256  # a local URL
        assert body["response_format"]["json_schema"] == {"name": "responder_reply", "strict": True,
                                                          "schema": REPLY_SCHEMA}
        text = json.dumps(body["messages"], ensure_ascii=False)
        assert C1 in text and C2 in text and "349" not in text


# -- echoes of the prompt's layout; prose is no offer ------------------

@pytest.mark.parametrize("quote", [f"1. {C1}", f"2) {C1}", f"- {C1}", "x ≡ 1 (mod 3)", " x ≡ 1 (mod 3) "])
def test_echoed_list_number_or_unlabeled_quote_is_the_private_line(quote):
    r = postvalidate(LINES, _ok(_reply(quote=quote)))
    assert (r.decision, r.quoted_constraint, r.shown) == ("offer", C1, C1)


def test_unlabeled_quote_matching_two_lines_declines():
    lines = ["P[1][0] = 5/12", "P[1][1] = 5/12"]
    r = postvalidate(lines, _ok(_reply(quote="5/12")))
    assert r.decision == "decline" and any("fabricated quote" in e for e in r.errors)
    assert postvalidate(lines, _ok(_reply(quote="1. P[1][1] = 5/12"))).quoted_constraint == lines[1]


@pytest.mark.parametrize("raw", [
    'Please ask again more precisely; then I can offer "P(H) = 1/2".',     # two replies
    'I will offer "P(H) = 1/2" once you ask for that quantity by name.',
    "Offer: P(H) = 1/27", 'Offer: "P(H) = 1/2"', "type: offer\nP(H) = 1/2", 'I offer `P(H) = 1/2`.',
    "{'type': offer, quoted_constraint: P(H) = 1/2",
    '{"type": "offer", "quoted_constraint": "P(H) = 1/2",',
    "No offer. P(H) = 1/2", "P(H) = 1/2",
])
def test_prose_quoting_a_private_line_is_a_responder_error(raw):
    lines = ["P(H) = 1/2", "P(E|H) = 3/4"]
    r = postvalidate(lines, _ok(raw))
    assert r.decision == "decline" and r.quoted_constraint is None and r.shown == DECLINE_TEXT
    assert r.errors == [r.errors[0], NOT_A_REPLY] and r.errors[0].startswith("json parse error")


def test_fence_parsing_is_linear_on_an_unclosed_fence():
    """An opening fence and 2,000 newlines (once cubic): parsed as plain text, an error."""
    parsed, err = parse_reply("```json" + "\n" * 2000 + "{")
    assert parsed is None and err.startswith("json parse error")
    assert parse_reply("```\n" + _reply() + "\n```")[0]["quoted_constraint"] == C1


# -- reasoning models as responders, prose declines ---------------------------------

@pytest.mark.parametrize("thinking", [
    "<think>The request says congruence 3. It is not vague; I should not decline.</think>\n",
    "<thinking>\nno, not that one... yes congruence 3\n</thinking>",
    "Checking the request for congruence 3: not two lines.</think>\n\n",   # template opened the block
])
def test_thinking_before_the_json_is_removed_before_parsing(thinking):
    r = postvalidate(LINES, _ok(thinking + _reply()))
    assert (r.decision, r.quoted_constraint) == ("offer", C1) and r.errors == []
    assert "congruence 3" in r.meta["reasoning"]


def test_server_reasoning_field_is_kept_and_never_parsed():
    r = postvalidate(LINES, _ok(_reply(type_="decline", match=False, quote=""),
                                reasoning=f'I could offer "{C1}".'))
    assert r.decision == "decline" and r.meta["reasoning"].startswith("I could offer")


@pytest.mark.parametrize("raw", [
    f'I would offer "{C1}" only if the request named it exactly.',
    f'The request names "{C1}", so I withhold it.',
    f'If the solver had asked for congruence 3 I would offer "{C1}".',
    f'I keep "{C1}" private: offering it is against the rules.',
    f'I deny the offer of "{C1}".',
    f'<think>I will offer it</think>Could offer "{C1}".',
])
def test_prose_declines_are_never_offers(raw):
    r = postvalidate(LINES, _ok(raw))
    assert r.decision == "decline" and r.quoted_constraint is None
    assert r.errors and r.errors[0].startswith("json parse error")


def test_thinking_then_prose_is_not_an_offer():
    r = postvalidate(LINES, _ok(f'<think>not C2, that is not asked</think>Offer: "{C1}"'))
    assert r.decision == "decline" and r.errors[1] == NOT_A_REPLY
    assert r.meta["reasoning"].startswith("not C2")
