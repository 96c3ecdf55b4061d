"""The CLI reference page, generated from ``mira-math``'s own argparse parsers, so the page
cannot drift from what the command accepts. Run by the docs build (``scripts/mkdocs_hooks.py``
replaces the page's marker with it); ``python scripts/cli_reference.py`` prints it."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

MARKER = "<!-- cli-reference -->"


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:                              # argparse keeps them here only
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _help(parser: argparse.ArgumentParser) -> str:
    """The parser's ``--help`` at a fixed width, so the page is the same on every terminal."""
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        return parser.format_help().rstrip()
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous


def render() -> str:
    """Markdown: the top-level help, then one section per command with its whole ``--help``."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from mira_math.cli.main import build_parser

    parser = build_parser()
    commands = _subcommands(parser)
    lines = ["## `mira-math`", "", "```text", _help(parser), "```", ""]
    for name, command in commands.items():
        lines += [f"## `mira-math {name}`", ""]
        if command.description:
            lines += [command.description.strip().splitlines()[0], ""]
        lines += ["```text", _help(command), "```", ""]
    return "\n".join(lines)


def fill(markdown: str) -> str:
    """The page with its marker replaced by the generated reference (unchanged without one)."""
    return markdown.replace(MARKER, render()) if MARKER in markdown else markdown


if __name__ == "__main__":
    print(render())
