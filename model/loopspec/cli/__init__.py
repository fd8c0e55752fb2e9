"""The ``loopspec`` command line: a thin dispatcher over subcommand modules.

Each subcommand lives in its own module exposing ``register(subparsers)``; the module sets
``func`` on its parser, which receives the parsed arguments and returns the exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

SUBCOMMANDS = ("loopspec.cli.replay", "loopspec.cli.docs", "loopspec.cli.check", "loopspec.cli.vectors",
               "loopspec.cli.explore")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="loopspec", description=__doc__.splitlines()[0] if __doc__ else None)
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMANDS:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
