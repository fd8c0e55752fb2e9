"""What kind of file a command was given where a session log or a live recording belongs.

A live recording (NAME.live.jsonl: records with a ``kind``) given as a log, a session log given
as ``--live``, or a file with no JSON object line at all is unusable input (exit 2) saying what
it is and where it goes, never a LOG-1 violation of every line.  So is another session's live
recording given as a log's ``--live``: :func:`foreign_marker` is the one reading of "this recording
belongs to this log" that ``check``, ``render`` and ``reproduce`` share.
"""

from __future__ import annotations

import json
import zlib
from typing import TYPE_CHECKING

from loopspec.check.reader import holds_an_event, open_log

if TYPE_CHECKING:
    from collections.abc import Iterator

    from loopspec.check.reader import LogPath


LIVE_NOT_A_LOG = ("a live recording, not a session log: give its NAME.events.jsonl as the log and this file "
                  "as --live (loopspec check NAME.events.jsonl --live NAME.live.jsonl)")


def is_live_recording(path: LogPath) -> bool:
    """Whether the file's first line is a live record (``kind``, no ``time``) rather than an event:
    a NAME.live.jsonl given where a session log belongs."""
    try:
        with open_log(path) as stream:
            first = json.loads(stream.readline().decode("utf-8"))
    except (OSError, EOFError, zlib.error, ValueError, RecursionError):
        return False
    return isinstance(first, dict) and isinstance(first.get("kind"), str) and "time" not in first


def _objects(path: LogPath) -> Iterator[tuple[int, dict[str, object]]]:
    """``(line number, object)`` of each line that is a JSON object; other lines are skipped."""
    with open_log(path) as stream:
        for number, line in enumerate(stream, start=1):
            try:
                value = json.loads(line.decode("utf-8", errors="replace"))
            except (ValueError, RecursionError):
                continue
            if isinstance(value, dict):
                yield number, value


def foreign_marker(log: LogPath, live: LogPath) -> tuple[int, str] | None:
    """The first durable marker of ``live`` that names no event of ``log`` (its line and why), or None
    when every marker names an event of its type: the recording is the log's own.

    Markers written by a killed process after its ``crash: true`` note, up to the next note, name
    the dead process's own log, never the stored one (examples/recordings/README.md, process
    boundaries), so they are not compared.  OSError when a file cannot be read.
    """
    types = {value.get("seq"): value.get("type") for _, value in _objects(log)}
    dead = False
    for number, record in _objects(live):
        kind = record.get("kind")
        if kind == "note":
            dead = record.get("crash") is True
            continue
        seq, event_type = record.get("seq"), record.get("type")
        if dead or kind != "durable" or not isinstance(seq, int) or not isinstance(event_type, str):
            continue
        if types.get(seq) != event_type:
            held = f"holds {_shown(types[seq])}" if seq in types else "has no event of that seq"
            return number, f"its line {number} marks seq {seq} as {_shown(event_type)}, where the log {held}"
    return None


def _shown(value: object) -> str:
    return json.dumps(value, ensure_ascii=True)


def live_stream_problem(path: LogPath) -> str:
    """Why ``path`` cannot be a live recording ("" when it can): a session log given as one (its first
    line an event, not a record), or a file in which no line is a JSON object."""
    if not holds_an_event(path):
        return "not a live recording: no line of it is a JSON object"
    try:
        with open_log(path) as stream:
            first = json.loads(stream.readline().decode("utf-8"))
    except (OSError, EOFError, zlib.error, ValueError, RecursionError):
        return ""
    if isinstance(first, dict) and "kind" not in first and {"type", "seq", "time"} <= first.keys():
        return "a session log, not a live recording: give it as the LOG (the live recording is NAME.live.jsonl)"
    return ""
