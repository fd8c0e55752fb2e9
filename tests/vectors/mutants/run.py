"""Launch one mutant as a ``loopspec-adapter/1`` program: ``python tests/vectors/mutants/run.py NAME``.

``--list`` prints the mutant names with the rule each one breaks.  The file is run by path (the
conformance tools start adapters as plain programs), so it puts ``tests/`` on ``sys.path`` to
import the :mod:`mutants` package it belongs to.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from loopspec.vectors.adapter.reference import serve
from vectors.mutants.catalogue import BY_NAME, MUTANTS, handler


def main(argv: list[str]) -> int:
    if argv == ["--list"]:
        for m in MUTANTS:
            print(f"{m.name:28} {m.rule:9} {m.bug}")
        return 0
    if len(argv) != 1 or argv[0] not in BY_NAME:
        print(f"usage: run.py NAME | --list   (NAME one of {', '.join(BY_NAME)})", file=sys.stderr)
        return 2
    serve(handler(argv[0]), sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
