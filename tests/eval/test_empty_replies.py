"""A run whose every solver reply was empty (content null, or reasoning only) is not a quiet
0%: eval prints a warning line that says what it saw, the manifest records it, score repeats
it. A reply whose content is a list of parts is read as its text parts."""

from __future__ import annotations

import json

import pytest

from mira_math.cli.main import main
from tests.eval.openai_stub import JSONHandler, serve
from tests.eval.reasoning_corpus import all_instances


class _EmptyServer(JSONHandler):
    """A model whose answer never reaches ``content``: null, with or without reasoning."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        message = {"role": "assistant", "content": None}
        if self.server.state == "reasoning only":
            message["reasoning_content"] = "Let me think... ANSWER: 1/4"
        self._send(200, {"id": "e1", "object": "chat.completion", "created": 1, "model": body["model"],
                         "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                         "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})


class _FineServer(JSONHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        message = {"role": "assistant", "content": "ANSWER: 1/4"}
        self._send(200, {"id": "f1", "object": "chat.completion", "created": 1, "model": body["model"],
                         "choices": [{"index": 0, "finish_reason": "stop", "message": message}]})


@pytest.mark.parametrize("kind", ["content null", "reasoning only"])
def test_every_reply_empty_warns_in_eval_manifest_and_score(kind, tmp_path, capsys):
    ids = [i.id for i in all_instances() if i.family == "bayes_missing_prior"][:2]
    out = tmp_path / "run"
    with serve(_EmptyServer, kind) as httpd:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        code = main(["eval", "--solver", f"openai:m@{url}", "--ids", *ids, "--max-retries", "0",
                     "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 0
    assert "warning:" in err and "every solver reply" in err and "had no visible text" in err
    said = "with reasoning only" if kind == "reasoning only" else "with no content"
    assert said in err and ("reasoning field" in err) == (kind == "reasoning only")
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert said in manifest["warnings"]["empty_replies"]
    assert main(["score", str(out)]) == 0
    assert "every solver reply" in capsys.readouterr().err


def test_a_run_with_visible_replies_has_no_such_warning(tmp_path, capsys):
    ids = [i.id for i in all_instances() if i.family == "bayes_missing_prior"][:1]
    out = tmp_path / "run"
    with serve(_FineServer, None) as httpd:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        assert main(["eval", "--solver", f"openai:m@{url}", "--ids", *ids, "--max-retries", "0",
                     "--out", str(out)]) == 0
    assert "no visible text" not in capsys.readouterr().err
    assert "warnings" not in json.loads((out / "manifest.json").read_text(encoding="utf-8"))


class _PartsServer(JSONHandler):
    """Content as a list of parts, a thinking part first (as some reasoning-model APIs send)."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        content = self.server.state
        message = {"role": "assistant", "content": content}
        self._send(200, {"id": "p1", "object": "chat.completion", "created": 1, "model": body["model"],
                         "choices": [{"index": 0, "finish_reason": "stop", "message": message}]})


def _run_with(content, tmp_path, capsys):
    inst = next(i for i in all_instances() if i.family == "bayes_missing_prior")
    out = tmp_path / "run"
    state = [part if not isinstance(part, dict) else {k: (v.replace("{answer}", inst.answer.value)
                                                          if isinstance(v, str) else v)
                                                      for k, v in part.items()} for part in content] \
        if isinstance(content, list) else content
    with serve(_PartsServer, state) as httpd:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        code = main(["eval", "--solver", f"openai:m@{url}", "--ids", inst.id, "--max-retries", "0",
                     "--out", str(out)])
    record = json.loads((out / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()[0])
    return code, record, capsys.readouterr().err


@pytest.mark.parametrize("content", [
    [{"type": "text", "text": "ANSWER: {answer}"}],
    [{"type": "thinking", "thinking": "P(H) is missing... ANSWER: 0"}, {"type": "text", "text": "ANSWER: {answer}"}],
    [{"type": "reasoning", "text": "draft"}, {"type": "text", "text": "Draft done.\n"},
     {"type": "text", "text": "ANSWER: {answer}"}],
    [{"type": "output_text", "text": "ANSWER: {answer}"}],
])
def test_content_parts_are_read_as_their_text(content, tmp_path, capsys):
    code, record, err = _run_with(content, tmp_path, capsys)
    assert code == 0 and "no visible text" not in err
    solver = record["turns"][0]
    assert record["verdict"]["correct"] is True, record
    assert solver["format_error"] is None
    thought = [p for p in content if p.get("type") in ("thinking", "reasoning")]
    assert (solver.get("reasoning") is not None) == bool(thought)


@pytest.mark.parametrize("content, shape", [
    ([{"type": "image_url", "image_url": {"url": "x"}}], "part of type 'image_url'"),
    ({"text": "ANSWER: 1/4"}, "a JSON dict"),
    ([42], "part 0 is int"),
])
def test_an_unreadable_content_shape_is_the_instance_error(content, shape, tmp_path, capsys):
    code, record, _err = _run_with(content, tmp_path, capsys)
    assert record["error"] is not None and "UnreadableContent" in record["error"]["message"]
    assert shape in record["error"]["message"]


class _BoldLabelServer(JSONHandler):
    """A solver that plays the information holder in markdown: bold label, then an answer."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        text = "REQUEST: What is P(H)?\n**Information holder**: P(H) = 1/2\nANSWER: 1/4"
        self._send(200, {"id": "b1", "object": "chat.completion", "created": 1, "model": body["model"],
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": text}}]})


def test_a_bold_speaker_label_is_cut_through_the_real_cli(tmp_path, capsys):
    inst = next(i for i in all_instances() if i.id == "bay-000000")
    out = tmp_path / "run"
    with serve(_BoldLabelServer, None) as httpd:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        assert main(["eval", "--solver", f"openai:m@{url}", "--ids", inst.id, "--max-retries", "0",
                     "--out", str(out)]) == 0
    capsys.readouterr()
    (line,) = (out / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()
    transcript = json.loads(line)
    first = transcript["turns"][0]
    assert first["action"] == "request" and first["speaker_cut"]["line"] == 2
    assert transcript["verdict"]["correct"] is False          # the invented answer is never read
