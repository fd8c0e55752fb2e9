"""``loopspec render``: draw a session log (and its live recording) as a self-contained HTML page.

Exit codes: 0 drawn (also for a log the model refuses somewhere: the page says where); 2 unusable
input (missing or unreadable file, a file that is not a session log, a live recording of another
session) or bad usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from loopspec.check.reader import UNREADABLE
from loopspec.cli.option_types import whole_number
from loopspec.cli.stdin_input import stdin_spooled
from loopspec.render.build import build
from loopspec.render.inputs import input_problem
from loopspec.render.page import render_page
from loopspec.render.svg import render_svg
from loopspec.render.window import DEFAULT_TURNS, WindowSpec


def _window(args: argparse.Namespace) -> WindowSpec | str:
    if args.first is not None and args.last is not None and args.first > args.last:
        return f"--from {args.first} is after --to {args.last}"
    return WindowSpec(first=args.first, last=args.last, turns=args.turns)


def run(args: argparse.Namespace) -> int:
    window = _window(args)
    if isinstance(window, str):
        print(f"loopspec render: {window}", file=sys.stderr)
        return 2
    if args.out is not None and (args.out.is_dir() or not args.out.absolute().parent.is_dir()):
        # Said before the drawing, which can take long.
        folder = args.out.absolute().parent
        why = "is a folder" if args.out.is_dir() else f"cannot be written: its folder {folder} does not exist"
        print(f"loopspec render: --out {args.out} {why}", file=sys.stderr)
        return 2
    try:
        with stdin_spooled([args.log, args.live]) as (log, live):
            return _draw(args, window, log, live)
    except ValueError as err:
        print(f"loopspec render: {err}", file=sys.stderr)
        return 2


def _draw(args: argparse.Namespace, window: WindowSpec, log: Path | None, live: Path | None) -> int:
    """Draw ``log`` (and ``live``): the files themselves, standard input already copied to one."""
    assert log is not None
    args = argparse.Namespace(**{**vars(args), "log": log, "live": live})
    for path in (args.log, args.live):
        if path is not None and path.is_dir():
            print(f"loopspec render: {path} is a folder; render draws one log file", file=sys.stderr)
            return 2
        if path is not None and not path.is_file():
            print(f"loopspec render: {path}: no such file", file=sys.stderr)
            return 2
    try:
        problem = input_problem(args.log, args.live)
        timeline = None if problem else build(args.log, window, live=args.live)
    except UNREADABLE as err:
        print(f"loopspec render: cannot read {args.log}: {getattr(err, 'strerror', None) or err}", file=sys.stderr)
        return 2
    if timeline is None:
        print(f"loopspec render: {problem}", file=sys.stderr)
        return 2
    if timeline.stop is not None:
        print(f"loopspec render: note: the model refuses the event at {timeline.stop.where()} [{timeline.stop.rule}] "
              f"{timeline.stop.message}; drawn uninterpreted from there (run loopspec check)", file=sys.stderr)
    text = (render_svg(timeline, window.describe(timeline)) if args.format == "svg"
            else render_page(timeline, window.describe(timeline)))
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        args.out.write_text(text, encoding="utf-8")
    except OSError as err:
        print(f"loopspec render: cannot write {args.out}: {err.strerror or err}", file=sys.stderr)
        return 2
    print(f"wrote {args.out} ({timeline.span()})", file=sys.stderr)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "render",
        help="draw a session log as a self-contained HTML timeline",
        description="Draw a session log (plain or .gz) along its seq axis: turns and steps with their end reasons, "
        "the next-turn and next-step lists as lanes with every message from insertion to fate, every splice and "
        "pre-step decision, and with --live the notifications where they were emitted. The page has no script "
        "and fetches nothing. By default the last few turns are drawn and what lies outside is summarized. "
        "The page goes to stdout unless --out is given. Exit 0: drawn; 2: unusable input (a missing file, a file "
        "that is not a session log, a live recording of another session) or usage.",
    )
    parser.add_argument("log", type=Path, metavar="LOG",
                        help="the session log (*.events.jsonl, plain or .gz; - reads standard input)")
    parser.add_argument("--live", type=Path, metavar="LIVE",
                        help="its live recording (*.live.jsonl; - reads standard input)")
    parser.add_argument("--out", type=Path, metavar="PAGE", help="write the page here instead of stdout")
    parser.add_argument("--from", dest="first", type=whole_number(0), metavar="SEQ", help="draw from this seq on")
    parser.add_argument("--to", dest="last", type=whole_number(0), metavar="SEQ",
                        help="draw up to this seq (inclusive)")
    parser.add_argument("--turns", type=whole_number(1), default=DEFAULT_TURNS, metavar="N",
                        help="without --from/--to, draw the last N turns")
    parser.add_argument("--format", choices=("html", "svg"), default="html",
                        help="html: the page (default); svg: the picture alone")
    parser.set_defaults(func=run)
