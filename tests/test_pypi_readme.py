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


def test_the_sdist_carries_the_docs_the_pypi_page_promises():
    """The page sends readers to the README and docs/ "also in the source distribution": the
    sdist's manifest (MANIFEST.in, read as setuptools reads it) must include each of them."""
    from setuptools._distutils.filelist import FileList

    files = FileList()
    files.allfiles = [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*")
                      if p.is_file() and not any(part.startswith((".", "build")) for part in p.relative_to(ROOT).parts)]
    for line in (ROOT / "MANIFEST.in").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            files.process_template_line(line)
    shipped = set(files.files)
    text = (ROOT / "docs" / "pypi.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:docs/)?[\w./-]+\.md)`", text))
    assert {"README.md", "docs/benchmark.md"} <= named
    assert named <= shipped, named - shipped
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert pages <= shipped and "mkdocs.yml" in shipped, pages - shipped
