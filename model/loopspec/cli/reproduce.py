"""``loopspec reproduce``: drive the model with the calls a recording holds and compare everything it emits.

Exit codes: 0 every recording reproduced; 1 some recording differs (the first difference is
reported: file, line, seq, what the recording holds and what the model emitted, the rule where
known); 2 unusable input (a file that is missing or not in the recording format, a record kind
or call the engine cannot express) or bad usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from loopspec.cli.stdin_input import reads_stdin, stdin_spooled
from loopspec.reproduce.files import live_beside
from loopspec.reproduce.report import FORMATS, render
from loopspec.reproduce.run import Outcome, exit_code, reproduce_folder, reproduce_log

DESCRIPTION = (
    "Reproduce recorded runs of an implementation with the model. A recording is NAME.events.jsonl (the "
    "durable log), NAME.live.jsonl (the public calls, durable commit markers, notifications, pre-step "
    "observations and notes, in emission order) and optionally NAME.final.json (the end state); the format is "
    "documented in examples/recordings/README.md. The model is given the recorded calls and pre-step "
    "decisions, and its durable log, live stream (with the interleaving), inbox snapshots, refusals and final "
    "state are compared with the recording. A difference shows both sides: recording (what the implementation "
    "did) and model (what the spec's model emits there). Exit 0: reproduced; 1: a difference (the first is reported); "
    "2: unusable input or usage; 3: internal error."
)


def _usage(message: str) -> int:
    print(f"loopspec reproduce: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:  # a recording may hold lone surrogates, which UTF-8 cannot print
        reconfigure(errors="backslashreplace")
    if any(reads_stdin(p) for p in args.paths) and (len(args.paths) > 1 or args.live is None):
        return _usage("a LOG read from standard input (-) goes alone and needs --live RECORDING")
    try:
        with stdin_spooled([*args.paths, args.live, args.final]) as spooled:
            paths = [p for p in spooled[:-2] if p is not None]
            return _reproduce(args, paths, spooled[-2], spooled[-1])
    except ValueError as err:
        return _usage(str(err))


def _reproduce(args: argparse.Namespace, paths: list[Path], live: Path | None, final: Path | None) -> int:
    """Reproduce the recordings at ``paths`` (standard input already copied to a file)."""
    missing = [p for p in paths if not p.exists()]
    if missing:
        return _usage(f"{missing[0]}: no such file or folder")
    files = [p for p in paths if not p.is_dir()]
    if files and len(paths) == 1 and live is None:
        live = live_beside(files[0])
    if files and (len(paths) > 1 or live is None):
        return _usage("a LOG file goes alone and needs its live recording: --live NAME.live.jsonl, unless that file "
                      "lies beside NAME.events.jsonl (or give folders of recordings)")
    if not files and (live is not None or final is not None):
        return _usage("--live and --final go with a LOG file, not a folder")
    outcomes: tuple[Outcome, ...]
    if files:
        assert live is not None
        outcomes = (reproduce_log(files[0], live, final),)
    else:
        outcomes = tuple(outcome for folder in paths for outcome in reproduce_folder(folder))
    sys.stdout.write(render(args.format, outcomes))
    return exit_code(outcomes)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "reproduce", help="drive the model with a recorded run and compare what it emits", description=DESCRIPTION
    )
    parser.add_argument("paths", type=Path, nargs="+", metavar="LOG_OR_DIR",
                        help="NAME.events.jsonl (alone, with its NAME.live.jsonl beside it or --live; - reads "
                             "standard input, with --live), or folders of NAME.events.jsonl + NAME.live.jsonl pairs "
                             "(each optionally with NAME.final.json)")
    parser.add_argument("--live", type=Path, metavar="RECORDING",
                        help="the live recording of LOG; without it, NAME.live.jsonl next to LOG")
    parser.add_argument("--final", type=Path, metavar="FILE",
                        help="the final state of LOG; without it, NAME.final.json next to LOG if there is one")
    parser.add_argument("--format", choices=FORMATS, default="text", help="report format")
    parser.set_defaults(func=run)
