"""``mira-math``: build, check and publish the MIRA-Math release, and evaluate models on it."""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from generators.errors import MiraError
from mira_cli import data, evaluation


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mira-math", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    data.add_commands(sub)         # generate, validate, verify, check-disjoint, publish, import-reference
    evaluation.add_commands(sub)   # eval, score, report, audit
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
