"""A run whose every solver reply was empty (content null, or reasoning only) is not
a quiet 0%: eval prints a warning line, the manifest records it, score repeats it."""

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
    assert "warning:" in err and "every solver reply" in err and "was empty" in err
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert "was empty" in manifest["warnings"]["empty_replies"]
    assert main(["score", str(out)]) == 0
    assert "every solver reply" in capsys.readouterr().err


def test_a_run_with_visible_replies_has_no_such_warning(tmp_path, capsys):
    ids = [i.id for i in all_instances() if i.family == "bayes_missing_prior"][:1]
    out = tmp_path / "run"
    with serve(_FineServer, None) as httpd:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        assert main(["eval", "--solver", f"openai:m@{url}", "--ids", *ids, "--max-retries", "0",
                     "--out", str(out)]) == 0
    assert "was empty" not in capsys.readouterr().err
    assert "warnings" not in json.loads((out / "manifest.json").read_text(encoding="utf-8"))


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
