"""``mira-math``: build, check and publish the MIRA-Math release, and evaluate models on it."""

from __future__ import annotations

import argparse
import errno
import os
import signal
import sys
import traceback
from typing import Optional, Sequence

from mira_math.common.errors import MiraError
from mira_math.cli import data, evaluation, responder_check, terminal

DESCRIPTION = """\
MIRA-Math: does a model ask for the facts it is missing? Each problem lacks one atomic fact
(two in the multi_hint configs); the solver may request them from an information holder
within a budget, then gives an exact answer.

Data:        generate, validate, verify, reveal, check-disjoint, publish, import-reference
Evaluation:  eval, score, compare, report, audit, view, responder-check

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
    """The software's version, the committed release's version (with the generator versions
    of its one-fact, two-fact and blind-tier rows) and the protocol's."""
    import json

    from mira_math._version import __version__
    from mira_math.game.protocol import PROTOCOL_VERSION
    from mira_math.generators.layout import DEFAULT_RELEASE

    try:
        info = json.loads((DEFAULT_RELEASE / "release_info.json").read_text(encoding="utf-8"))
        parts = [info.get(name) or {} for name in ("multi_hint", "blind")]
        gens = ", ".join([info["generator_version"]] + [p["generator_version"] for p in parts if p])
        release = (f"release {info.get('release_version', info['generator_version'])} "
                   f"({info['seed_set']}; generators {gens})")
    except (OSError, ValueError, KeyError, TypeError):
        release = "no committed release found"
    return f"{__version__}; {release}; protocol {PROTOCOL_VERSION}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mira-math", description=DESCRIPTION,
                                     formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    parser.set_defaults(entry=main)   # what a work unit runs (cli/scaleout.py), without an import circle
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    data.add_commands(sub)         # generate, validate, verify, check-disjoint, publish, import-reference
    evaluation.add_commands(sub)   # eval, score, report, audit
    responder_check.add_commands(sub)   # responder-check
    for command in sub.choices.values():
        command.formatter_class = HelpFormatter
        if command.description is None:  # the one-line summary, on the command's own page too
            command.description = next((a.help for a in sub._choices_actions
                                        if a.dest == command.prog.split()[-1]), None)
    return parser


# Exit codes (docs/evaluate.md, "Reliability"): 0 done, every instance without error; 1 a user-facing
# error (bad data, a refused run), nothing run; 2 a bad option; 3 the run finished but some
# instances ended in an error (``--retry-errors`` reruns them); 4 the run was stopped by a
# fatal backend error (401/403/404, a server that is down; ``--resume`` continues it); 5 no
# space left on the device, a quota or a file-size limit (nothing lost: resume); 6 the run was
# stopped by a rate-limit storm (every recent call answered 429, none succeeded: wait, then
# ``--resume``); 130 interrupted (Ctrl-C or SIGTERM); 141 closed pipe.
EXIT_INSTANCE_ERRORS = 3
EXIT_STOPPED = 4
EXIT_DISK_FULL = 5            # no space left: nothing lost (every line is written whole), resume
EXIT_RATE_LIMITED = 6         # a 429 storm: a limit or quota to wait for, then resume
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


def _sigterm_as_interrupt() -> object:
    """SIGTERM (a scheduler's kill, `timeout`) ends a run as Ctrl-C does: the resume hint.
    Returns the handler it replaced (None where it could not install one)."""
    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        return signal.signal(signal.SIGTERM, interrupt)
    except ValueError:                       # not the main thread (embedding): leave it
        return None


_NO_SPACE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)   # a full disk, a quota, a file-size limit


def _disk_full(err: BaseException) -> Optional[str]:
    """What ran out (``os.strerror``) where a write failed for want of space anywhere in the
    exception's chain (a full disk often surfaces again during cleanup), else None."""
    seen = 0
    while err is not None and seen < 20:
        if isinstance(err, OSError) and err.errno in _NO_SPACE:
            return os.strerror(err.errno)
        err = err.__cause__ or err.__context__   # type: ignore[assignment]
        seen += 1
    return None


def _resume_hint(args: argparse.Namespace) -> str:
    where = getattr(args, "out", None)
    return (f"; finished transcripts are kept in {where}: rerun the same command with --resume"
            if args.command == "eval" and where is not None else "")


def main(argv: Optional[Sequence[str]] = None) -> int:
    with terminal.safe_streams():     # an id from a file cannot drive the terminal
        return _command(argv)


def _command(argv: Optional[Sequence[str]]) -> int:
    args = build_parser().parse_args(argv)
    previous = _sigterm_as_interrupt()
    try:
        return _main(args)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)  # type: ignore[arg-type]


def _main(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args))
    except MiraError as err:  # bad data, a refused run, ...: one line, no traceback
        from mira_math.eval.errors import RunRateLimited, RunStopped

        full = _disk_full(err)
        if full:
            return _say_disk_full(args, full)
        print(f"mira-math {args.command}: {err}", file=sys.stderr)
        if isinstance(err, RunRateLimited):
            return EXIT_RATE_LIMITED
        return EXIT_STOPPED if isinstance(err, RunStopped) else 1
    except KeyboardInterrupt:
        print(f"mira-math {args.command}: interrupted{_resume_hint(args)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `mira-math ... | head`: the reader left; say nothing more
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_BROKEN_PIPE
    except Exception as err:
        full = _disk_full(err)
        if not full:
            return _say_bug(args, err)
        return _say_disk_full(args, full)


def _say_bug(args: argparse.Namespace, err: Exception) -> int:
    """The last resort: an exception no reader turned into a one-line error is a bug. One line
    naming it (exit 1; an eval's finished transcripts are kept), the traceback with MIRA_DEBUG=1."""
    if os.environ.get("MIRA_DEBUG"):
        traceback.print_exc()
    text = " ".join(str(err).split())
    print(f"mira-math {args.command}: internal error ({type(err).__name__}: "
          f"{text[:300] + '...' if len(text) > 300 else text or 'no message'}): this is a bug, please "
          f"report it with the command{_resume_hint(args)}"
          + ("" if os.environ.get("MIRA_DEBUG") else "; MIRA_DEBUG=1 prints the traceback"), file=sys.stderr)
    return 1


def _say_disk_full(args: argparse.Namespace, what: str) -> int:
    hint = _resume_hint(args) or "; free some space and run the command again"
    where = "no space left on the device" if what == os.strerror(errno.ENOSPC) else f"no space left ({what})"
    print(f"mira-math {args.command}: {where}: nothing lost{hint}", file=sys.stderr)
    return EXIT_DISK_FULL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
