"""``loopspec vectors pack --out DIR``: write ``loopspec-vectors-VERSION.tar.gz`` (reproducible).

Registered under ``loopspec vectors`` by :mod:`loopspec.cli.vectors`.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from loopspec.cli.option_types import any_whole_number, whole_number
from loopspec.vectors.pack import archive_name, pack
from loopspec.vectors.suite import SuiteError, written


def run(args: argparse.Namespace) -> int:
    try:
        target, manifest = pack(args.out, seed=args.seed, count=args.count)
    except SuiteError as err:
        print(f"loopspec vectors pack: {err}", file=sys.stderr)
        return 1
    except OSError as err:
        print(f"loopspec vectors pack: cannot write into {args.out} ({err.strerror or err})", file=sys.stderr)
        return 2
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    print(f"{target}: sha256 {digest}; {written(manifest['counts'], args.count)}")
    return 0


def register(vectors: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = vectors.add_parser(
        "pack", help="write the suite as a versioned, reproducible loopspec-vectors-VERSION.tar.gz",
        description=f"Generate the conformance suite and pack it as {archive_name('VERSION')} (one folder "
        "holding manifest.json, with the formats, the version and the spec digest, and the case files). "
        "The same version, seed and count give the same bytes, so an implementation can pin the suite by "
        "version and sha256. Exit 0: written; 1: the suite cannot be generated; 2: the folder is not writable.",
    )
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="folder to write the archive into")
    parser.add_argument("--seed", type=any_whole_number, default=0, help="seed of the generated walks")
    parser.add_argument("--count", type=whole_number(0), default=20, help="number of extra random-walk cases")
    parser.set_defaults(func=run)
