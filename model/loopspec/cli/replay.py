"""``loopspec replay PATH...``: fold session logs and print the pending inbox of each.

Input is found and refused as ``loopspec check`` does it (:func:`loopspec.check.reader.discover`):
``-`` is standard input, ``.gz`` logs are decompressed, and a missing path, a symlink loop, a
folder without logs, an unreadable or corrupt file or a file that is not a session log at all
exits 2 with a message.  A session log whose fold breaks a rule is reported INVALID (exit 1).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from loopspec.check.input_kind import LIVE_NOT_A_LOG, is_live_recording
from loopspec.check.reader import UNREADABLE, discover, holds_an_event
from loopspec.data.errors import InvalidEvent
from loopspec.inbox.fold import replay
from loopspec.log.reader import STDIN, read_events, spool


def _replay_one(path: Path, shown: str, allow_torn_tail: bool) -> int:
    """Print one log's pending inbox; its exit status (0 folded, 1 a rule broken, 2 unusable)."""
    try:
        state = replay(read_events(path, allow_torn_tail=allow_torn_tail))
    except InvalidEvent as err:
        if not holds_an_event(path):
            print(f"loopspec replay: {shown}: not a session log (no line of it is a JSON object)", file=sys.stderr)
            return 2
        if is_live_recording(path):
            print(f"loopspec replay: {shown}: {LIVE_NOT_A_LOG}", file=sys.stderr)
            return 2
        print(f"{shown}: INVALID {err}")
        return 1
    except UNREADABLE as err:
        reason = getattr(err, "strerror", None) or str(err) or type(err).__name__
        print(f"loopspec replay: {shown}: cannot read ({reason})", file=sys.stderr)
        return 2
    summary = {
        "next-turn": [m.id.value for m in state.next_turn],
        "next-step": [m.id.value for m in state.next_step],
    }
    print(f"{shown}: {json.dumps(summary)}")
    return 0


def run(args: argparse.Namespace) -> int:
    if sum(1 for p in args.paths if str(p) == STDIN) > 1:
        print("loopspec replay: standard input (-) can be read once only", file=sys.stderr)
        return 2
    files, problems = discover(args.paths)
    for problem in problems:
        print(f"loopspec replay: {problem}", file=sys.stderr)
    if not files:
        print("loopspec replay: no session log to replay", file=sys.stderr)
        return 2
    worst = 2 if problems else 0
    with tempfile.TemporaryDirectory(prefix="loopspec-stdin-") as folder:
        for path in files:
            if str(path) == STDIN:
                status = _replay_one(Path(spool(sys.stdin.buffer, folder)), "<stdin>", args.allow_torn_tail)
            else:
                status = _replay_one(Path(path), path, args.allow_torn_tail)
            worst = max(worst, status)
    return worst


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay", help="fold session logs and print each pending inbox",
        description="Fold each session log's inbox records (spec area FOLD) and print the pending next-turn and "
        "next-step message ids. Logs are found as check finds them (plain or .gz, - for standard input, "
        "folders searched for *.jsonl except *.live.jsonl). The log format is judged as check judges it: "
        "each line one envelope (LOG-1), each seq its index (LOG-2), the whole file read (LOG-5); the turn and "
        "step rules are check's. Exit 0: every log folded; 1: a log breaks a rule of the fold or the log format; "
        "2: unusable input; 3: internal error.",
    )
    parser.add_argument("paths", nargs="+", type=Path,
                        help="session logs (*.jsonl, *.jsonl.gz, or - for standard input) or folders of them")
    parser.add_argument("--allow-torn-tail", action="store_true",
                        help="accept a last line without a newline that does not parse (a crash's cut append, "
                        "LOG-5) and fold the log without it")
    parser.set_defaults(func=run)
