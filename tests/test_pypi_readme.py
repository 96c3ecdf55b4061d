"""The wheel's long description is a short PyPI page, not the repository README (whose
make targets and relative links mean nothing on PyPI)."""

import configparser
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_long_description_is_the_short_pypi_page():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg", encoding="utf-8")
    source = cfg["metadata"]["long_description"]
    assert source.startswith("file: ") and source != "file: README.md"
    path = ROOT / source[len("file: "):]
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 60
    assert "make " not in text                                # no make targets
    assert not re.search(r"\]\((?!https?://)[^)]+\)", text)   # no relative links
    assert path.relative_to(ROOT).as_posix() in (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
