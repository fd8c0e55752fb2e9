"""``loopspec reproduce``: drive the model with the calls a recording holds and compare everything it emits.

Exit codes: 0 every recording reproduced; 1 some recording differs (the first difference is
reported: file, line, seq, expected and got, the rule where known); 2 unusable input (a file that
is missing or not in the recording format, a record kind or call the engine cannot express) or bad
usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from loopspec.reproduce.report import FORMATS, render
from loopspec.reproduce.run import Outcome, exit_code, reproduce_folder, reproduce_log

DESCRIPTION = (
    "Reproduce recorded runs of an implementation with the model. A recording is NAME.events.jsonl (the "
    "durable log), NAME.live.jsonl (the public calls, durable commit markers, notifications, pre-step "
    "observations and notes, in emission order) and optionally NAME.final.json (the end state); the format is "
    "documented in examples/recordings/README.md. The model is given the recorded calls and pre-step "
    "decisions, and its durable log, live stream (with the interleaving), inbox snapshots, refusals and final "
    "state are compared with the recording. Exit 0: reproduced; 1: a difference (the first is reported); "
    "2: unusable input or usage."
)


def _usage(message: str) -> int:
    print(f"loopspec reproduce: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    path: Path = args.path
    outcomes: tuple[Outcome, ...]
    if path.is_dir():
        if args.live is not None or args.final is not None:
            return _usage("--live and --final go with a LOG file, not a folder")
        outcomes = reproduce_folder(path)
    elif path.is_file():
        if args.live is None:
            return _usage("a LOG file needs --live NAME.live.jsonl (or give a folder of recordings)")
        outcomes = (reproduce_log(path, args.live, args.final),)
    else:
        return _usage(f"{path}: no such file or folder")
    sys.stdout.write(render(args.format, outcomes))
    return exit_code(outcomes)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "reproduce", help="drive the model with a recorded run and compare what it emits", description=DESCRIPTION
    )
    parser.add_argument("path", type=Path, metavar="LOG_OR_DIR",
                        help="NAME.events.jsonl (with --live), or a folder of NAME.events.jsonl + NAME.live.jsonl "
                             "pairs (each optionally with NAME.final.json)")
    parser.add_argument("--live", type=Path, metavar="RECORDING", help="the live recording NAME.live.jsonl of LOG")
    parser.add_argument("--final", type=Path, metavar="FILE",
                        help="the final state of LOG (default: NAME.final.json next to LOG, if present)")
    parser.add_argument("--format", choices=FORMATS, default="text", help="report format (default: text)")
    parser.set_defaults(func=run)
