"""``loopspec docs --write | --check``: regenerate or verify the generated documents under ``docs/``."""

from __future__ import annotations

import argparse
import sys

from loopspec.rules.catalogue import SpecFormatError
from loopspec.rules.shipped import checkout_root
from loopspec.specdoc.generate import stale_documents, write_all
from loopspec.specdoc.project import load_project

NEEDS_CHECKOUT = (
    "loopspec docs: this command regenerates and verifies the documents of a source checkout "
    "(docs/*.md and spec/lifecycle-table.json, built from spec/, model/loopspec/ and tests/), and this "
    "loopspec is an installed package with no checkout around it. Run it in a clone of the loopspec "
    "repository (after `bash scripts/main.sh` there, `loopspec docs --check`). The installed package "
    "already carries the spec it reads; `loopspec --version` names its digest."
)


def run(args: argparse.Namespace) -> int:
    root = checkout_root()
    if root is None:
        print(NEEDS_CHECKOUT, file=sys.stderr)
        return 2
    try:
        project = load_project(root)
    except SpecFormatError as err:
        print(f"loopspec docs: {err}", file=sys.stderr)
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
    parser = subparsers.add_parser(
        "docs", help="regenerate (--write) or verify (--check) the generated docs",
        description="Regenerate (--write) or verify (--check) the documents generated from the spec, the model "
        "and the tests: docs/traceability.md, docs/events.md, docs/state-diagrams.md, spec/lifecycle-table.json, "
        "docs/checker-table.md, the layer picture of docs/architecture.md, docs/scenarios.md with its "
        "pictures under docs/scenarios/, and the generated regions and Scenarios sections of the spec chapters "
        "spec/NN-*.md. Two documents have commands of their own, since producing "
        "them takes minutes: docs/exploration.md (loopspec explore --write-doc) and docs/conformance.md (bash "
        "scripts/dsh-conformance.sh --write). Works in a source checkout only. Exit 0: up to date (or written); "
        "1: --check found a stale document; 2: no checkout or a malformed spec.",
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--write", action="store_true", help="write every document listed above"
    )
    mode.add_argument("--check", action="store_true", help="exit 1 if a generated document is out of date")
    parser.set_defaults(func=run)
