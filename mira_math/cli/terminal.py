"""What ``mira-math`` prints reaches a terminal with control characters escaped: an id, an
answer or a path from a data file cannot clear the screen, move the cursor, set the window
title or hide text (ESC sequences, C1 controls, DEL, a carriage return mid-line), nor reorder
what follows it (the bidirectional overrides and isolates of "Trojan Source"). Every write
to stdout and stderr goes through :class:`TerminalSafe` while a command runs, so no error,
progress or report line needs to remember it."""

from __future__ import annotations

import re
import sys
from contextlib import contextmanager
from typing import Any, Iterator, TextIO

# C0 controls except tab and newline, DEL, and the C1 controls (U+0080-U+009F); a colour
# sequence (SGR, ``ESC [ digits ; ... m``) is kept whole: libraries the command imports (vLLM's
# logger) colour their lines when the stream is a terminal, and SGR can neither move the cursor,
# clear the screen nor set the title. The bidirectional controls (U+061C, U+200E/F, U+202A-E,
# U+2066-9) would let an id display as other text; they are escaped as ``\uNNNN``.
_CONTROL = re.compile("(\x1b\\[[0-9;]{0,32}m)|[\x00-\x08\x0b-\x1f\x7f-\x9f"
                      "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: "re.Match[str]") -> str:
    if match.group(1):
        return match.group(1)
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with each control character shown as a ``\\xNN`` (``\\uNNNN``) escape, colour sequences kept."""
    return _CONTROL.sub(_escape, text)


class TerminalSafe:
    """A text stream that escapes control characters before writing to ``stream``. A
    carriage return that starts a write is kept: that is a progress bar redrawing its line
    (tqdm), never text from a file."""

    def __init__(self, stream: TextIO):
        self.stream = stream

    def write(self, text: str) -> int:
        if not _CONTROL.search(text):
            return self.stream.write(text)
        if text.startswith("\r"):
            self.stream.write("\r" + terminal_safe(text[1:]))
        else:
            self.stream.write(terminal_safe(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:   # flush, isatty, fileno, encoding, ...
        return getattr(self.stream, name)


@contextmanager
def safe_streams() -> Iterator[None]:
    """stdout and stderr escaped for the duration of the block (one command)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout = TerminalSafe(out)
    sys.stderr = TerminalSafe(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
