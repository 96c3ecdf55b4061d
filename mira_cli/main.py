"""``mira-math``: build, check and publish the MIRA-Math release, and evaluate models on it."""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from generators.errors import MiraError
from mira_cli import data, evaluation

DESCRIPTION = """\
MIRA-Math: does a model ask for the one fact it is missing? Each problem lacks exactly one
atomic fact; the solver may request it from an information holder within a budget, then
gives an exact answer.

Data:        generate, validate, verify, check-disjoint, publish, import-reference
Evaluation:  eval, score, report, audit

Quick start (from any directory):
  mira-math verify                                   # the committed release, byte for byte
  mira-math eval --solver reference --out runs/ref   # a scripted solver, no model needed
  mira-math score runs/ref
Run `mira-math COMMAND --help` for a command's options."""


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default (unless it is unset or a flag) and keeps descriptions'
    line breaks."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text or action.default is None or action.default is False \
                or action.default == argparse.SUPPRESS \
                or isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            return text
        if action.option_strings or action.nargs in (argparse.OPTIONAL, argparse.ZERO_OR_MORE):
            return f"{text} (default: %(default)s)" if text else "default: %(default)s"
        return text


def version() -> str:
    try:
        from importlib.metadata import version as installed

        return installed("mira-math")
    except Exception:  # pragma: no cover - running from a source tree that is not installed
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mira-math", description=DESCRIPTION,
                                     formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    data.add_commands(sub)         # generate, validate, verify, check-disjoint, publish, import-reference
    evaluation.add_commands(sub)   # eval, score, report, audit
    for command in sub.choices.values():
        command.formatter_class = HelpFormatter
        if command.description is None:  # the one-line summary, on the command's own page too
            command.description = next((a.help for a in sub._choices_actions
                                        if a.dest == command.prog.split()[-1]), None)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except MiraError as err:  # bad data, a refused run, ...: one line, no traceback
        print(f"mira-math {args.command}: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
