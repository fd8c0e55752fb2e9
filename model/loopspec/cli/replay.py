"""``loopspec replay PATH...``: fold session logs and print the pending inbox of each."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from loopspec.data.errors import InvalidEvent
from loopspec.inbox.fold import replay
from loopspec.log.reader import read_events


def _logs(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(path.rglob("*.events.jsonl")))
        else:
            found.append(path)
    return found


def run(args: argparse.Namespace) -> int:
    status = 0
    for path in _logs(args.paths):
        try:
            state = replay(read_events(path))
        except InvalidEvent as err:
            print(f"{path}: INVALID {err}")
            status = 1
            continue
        except OSError as err:
            print(f"{path}: cannot read ({err.strerror})")
            return 2
        summary = {
            "next-turn": [m.id.value for m in state.next_turn],
            "next-step": [m.id.value for m in state.next_step],
        }
        print(f"{path}: {json.dumps(summary)}")
    return status


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("replay", help="fold session logs and print each pending inbox")
    parser.add_argument("paths", nargs="+", type=Path, help="*.events.jsonl files or directories of them")
    parser.set_defaults(func=run)
