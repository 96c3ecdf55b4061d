"""``mira-math``: build, check and publish the MIRA-Math release, and evaluate models on it."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Sequence

from mira_math.generators.errors import MiraError
from mira_math.cli import data, evaluation

DESCRIPTION = """\
MIRA-Math: does a model ask for the one fact it is missing? Each problem lacks exactly one
atomic fact; the solver may request it from an information holder within a budget, then
gives an exact answer.

Data:        generate, validate, verify, check-disjoint, publish, import-reference
Evaluation:  eval, score, compare, report, audit

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
    """The software's version, the committed release's generator version and the protocol's."""
    import json

    from mira_math._version import __version__
    from mira_math.game.protocol import PROTOCOL_VERSION
    from mira_math.generators.layout import DEFAULT_RELEASE

    try:
        info = json.loads((DEFAULT_RELEASE / "release_info.json").read_text(encoding="utf-8"))
        release = f"release {info['generator_version']} ({info['seed_set']})"
    except (OSError, ValueError, KeyError, TypeError):
        release = "no committed release found"
    return f"{__version__}; {release}; protocol {PROTOCOL_VERSION}"


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


# Exit codes (README "Reliability"): 0 done, every instance without error; 1 a user-facing
# error (bad data, a refused run), nothing run; 2 a bad option; 3 the run finished but some
# instances ended in an error (``--retry-errors`` reruns them); 4 the run was stopped by a
# fatal backend error (``--resume`` continues it); 130 interrupted (Ctrl-C); 141 closed pipe.
EXIT_INSTANCE_ERRORS = 3
EXIT_STOPPED = 4
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except MiraError as err:  # bad data, a refused run, ...: one line, no traceback
        from mira_math.eval.runner import RunStopped

        print(f"mira-math {args.command}: {err}", file=sys.stderr)
        return EXIT_STOPPED if isinstance(err, RunStopped) else 1
    except KeyboardInterrupt:
        where = getattr(args, "out", None)
        hint = (f"; finished transcripts are kept in {where}: rerun the same command with --resume"
                if args.command == "eval" and where is not None else "")
        print(f"mira-math {args.command}: interrupted{hint}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `mira-math ... | head`: the reader left; say nothing more
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
