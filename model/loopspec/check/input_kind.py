"""What kind of file a command was given where a session log or a live recording belongs.

A live recording (NAME.live.jsonl: records with a ``kind``) given as a log, a session log given
as ``--live``, or a file with no JSON object line at all is unusable input (exit 2) saying what
it is and where it goes, never a LOG-1 violation of every line.
"""

from __future__ import annotations

import json
import zlib
from typing import TYPE_CHECKING

from loopspec.check.reader import holds_an_event, open_log

if TYPE_CHECKING:
    from loopspec.check.reader import LogPath


def is_live_recording(path: LogPath) -> bool:
    """Whether the file's first line is a live record (``kind``, no ``time``) rather than an event:
    a NAME.live.jsonl given where a session log belongs."""
    try:
        with open_log(path) as stream:
            first = json.loads(stream.readline().decode("utf-8"))
    except (OSError, EOFError, zlib.error, ValueError, RecursionError):
        return False
    return isinstance(first, dict) and isinstance(first.get("kind"), str) and "time" not in first


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
