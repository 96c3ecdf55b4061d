"""MkDocs hooks (``mkdocs.yml``: ``hooks``): the CLI reference is written from the argparse
parsers at build time, never by hand."""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cli_reference import fill  # noqa: E402


_ROLE = re.compile(r":(?:func|class|mod|data|meth|attr|exc):(?=<code>|`)")


def on_page_content(html: str, page, config, files) -> str:  # noqa: ANN001 - MkDocs' signature
    """The docstrings' Sphinx roles (``:func:`load```) shown as plain code in the API reference."""
    return _ROLE.sub("", html)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ANN001 - MkDocs' signature
    if DECISIONS_MARKER in markdown:
        markdown = markdown.replace(DECISIONS_MARKER, decisions_index(Path(config["docs_dir"]) / "decisions"))
    return fill(markdown)


DECISIONS_MARKER = "<!-- decisions-index -->"
TOPICS = ("data", "protocol", "responder", "scoring", "harness", "integrations", "release")


def decisions_index(folder: Path) -> str:
    """A list of every record file under ``docs/decisions/``, by topic, each with its title."""
    lines = []
    for topic in TOPICS + ("other",):
        files = sorted(p for p in folder.glob("*.md")
                       if (p.stem.split("-")[0] if p.stem.split("-")[0] in TOPICS else "other") == topic)
        if not files:
            continue
        lines += [f"## {topic.capitalize()}", ""]
        for path in files:
            first = path.read_text(encoding="utf-8").lstrip().splitlines()[:1] or [path.stem]
            title = first[0].lstrip("# ").strip() or path.stem
            lines.append(f"- [{title}](decisions/{path.name})")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":     # what the decisions page lists, without building the site
    print(decisions_index(Path(__file__).resolve().parents[1] / "docs" / "decisions"))
