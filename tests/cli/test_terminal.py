"""What reaches the terminal: control characters from a data file are
escaped in every line ``mira-math`` prints, and an exception no reader turned into a one-line
error is one line that says it is a bug (the traceback with ``MIRA_DEBUG=1``)."""

from __future__ import annotations

import io
import json

import pytest

import mira_math.cli.evaluation
from mira_math.cli.main import main
from mira_math.cli.terminal import TerminalSafe, terminal_safe
from mira_math.generators.layout import DEFAULT_RELEASE

DATA = DEFAULT_RELEASE / "data" / "bayes_missing_prior" / "test.jsonl"
EVIL = "evil\x1b[2J\x1b]0;owned\x07\x9b\x7f\rOK"


def test_terminal_safe_escapes_c0_c1_del_and_esc_but_not_tab_or_newline():
    assert terminal_safe(EVIL) == "evil\\x1b[2J\\x1b]0;owned\\x07\\x9b\\x7f\\x0dOK"
    assert terminal_safe("a\tb\nc é ∑") == "a\tb\nc é ∑"


def test_bidirectional_controls_are_escaped_so_an_id_cannot_display_as_other_text():
    """"Trojan Source": a right-to-left override makes ``abc\u202edcba`` display reordered."""
    assert terminal_safe("id-\u202eevil\u2066x\u2069\u200f") == "id-\\u202eevil\\u2066x\\u2069\\u200f"
    assert terminal_safe("عربي עברית") == "عربي עברית"            # right-to-left text itself is fine


def test_colour_sequences_pass_but_no_other_escape_sequence():
    """vLLM's logger colours its lines on a terminal: those stay colours, while a cursor move,
    a screen clear or a title set around them is still escaped."""
    coloured = "\x1b[32mINFO\x1b[0m 12-03 [core.py:1] ready"
    assert terminal_safe(coloured) == coloured
    assert terminal_safe("\x1b[1;31mX\x1b[2J\x1b[H\x1b]0;t\x07") == "\x1b[1;31mX\\x1b[2J\\x1b[H\\x1b]0;t\\x07"


def test_a_progress_bar_keeps_its_leading_carriage_return():
    out = io.StringIO()
    stream = TerminalSafe(out)
    stream.write("\rgenerate:  50%|#####     | 1/2")
    stream.write("id\rspoof\n")
    assert out.getvalue() == "\rgenerate:  50%|#####     | 1/2id\\x0dspoof\n"


def test_an_unknown_id_with_escape_sequences_is_printed_escaped(tmp_path, capsys):
    code = main(["eval", "--data", str(DATA), "--solver", "noask", "--out", str(tmp_path / "r"),
                 "--ids", EVIL])
    err = capsys.readouterr().err
    assert code == 1 and "\x1b" not in err and "\x9b" not in err and "\r" not in err
    assert "evil" in err and "\\x1b" in err and err.count("\n") == 1


def test_an_id_in_a_data_file_reaches_stdout_escaped(tmp_path, capsys):
    """``validate`` prints each failure with its raw id on stdout."""
    row = json.loads(DATA.read_bytes().splitlines()[0])
    row["id"], row["answer"]["value"] = EVIL, "1/3"          # a wrong answer: a FAIL line
    bad = tmp_path / "test.jsonl"
    bad.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert main(["validate", str(bad)]) == 1
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out and "\x07" not in captured.out and "\r" not in captured.out
    assert f"FAIL {bad}:1: evil\\x1b[2J\\x1b]0;owned\\x07\\x9b\\x7f\\x0dOK: " in captured.out


def test_an_id_in_a_transcript_reaches_stderr_escaped(tmp_path, capsys):
    """``score`` names an unknown transcript id as it is (no repr) in its one-line error."""
    run = tmp_path / "run"
    assert main(["eval", "--solver", "reference", "--limit", "2", "--out", str(run)]) == 0
    path = run / "transcripts.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[-1])
    row["id"] = EVIL
    path.write_text("\n".join(lines[:-1] + [json.dumps(row)]) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["score", str(run)]) == 1
    err = capsys.readouterr().err
    assert "instance evil\\x1b[2J" in err and "\x1b" not in err and err.count("\n") == 1


def test_an_unexpected_exception_is_one_line_that_says_it_is_a_bug(tmp_path, capsys, monkeypatch):
    def broken(args):
        raise KeyError("latent\nstate")

    monkeypatch.setattr(mira_math.cli.evaluation, "cmd_audit", broken)
    monkeypatch.delenv("MIRA_DEBUG", raising=False)
    assert main(["audit", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("mira-math audit: internal error (KeyError: 'latent\\nstate'): this is a bug")
    assert "MIRA_DEBUG=1" in err
    monkeypatch.setenv("MIRA_DEBUG", "1")
    assert main(["audit", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "in broken" in err
    assert err.rstrip("\n").splitlines()[-1].startswith("mira-math audit: internal error (KeyError")


def test_an_eval_that_hits_a_bug_keeps_the_resume_hint(tmp_path, capsys, monkeypatch):
    import mira_math.eval.runner

    def broken(*args, **kwargs):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(mira_math.eval.runner, "run", broken)
    out = tmp_path / "run"
    assert main(["eval", "--solver", "reference", "--limit", "1", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "internal error (ZeroDivisionError: boom): this is a bug" in err
    assert "--resume" in err and err.count("\n") == 1


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_the_streams_are_restored_after_a_command(stream):
    import sys

    before = getattr(sys, stream)
    with pytest.raises(SystemExit):
        main(["--version"])
    assert getattr(sys, stream) is before
