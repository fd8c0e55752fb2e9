"""``loopspec docs --write | --check``: regenerate or verify the generated documents under ``docs/``."""

from __future__ import annotations

import argparse

from loopspec.rules.catalogue import SpecFormatError
from loopspec.specdoc.generate import stale_documents, write_all
from loopspec.specdoc.project import load_project


def run(args: argparse.Namespace) -> int:
    try:
        project = load_project()
    except SpecFormatError as err:
        print(f"loopspec docs: {err}")
        return 2
    if args.write:
        changed = write_all(project)
        for path in changed:
            print(f"wrote {path}")
        if not changed:
            print("generated documents are up to date")
        return 0
    stale = stale_documents(project)
    for path in stale:
        print(f"{path} is out of date")
    if stale:
        print("run `loopspec docs --write` to regenerate")
        return 1
    print("generated documents are up to date")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("docs", help="regenerate (--write) or verify (--check) the generated docs")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--write", action="store_true", help="write every generated document (docs/*.md, spec/lifecycle-table.json)"
    )
    mode.add_argument("--check", action="store_true", help="exit 1 if a generated document is out of date")
    parser.set_defaults(func=run)
