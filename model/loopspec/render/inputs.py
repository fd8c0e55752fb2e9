"""Whether ``loopspec render``'s files can be drawn together: a session log, and its own live recording.

A file in which no line is an event is not a session log, as ``loopspec check`` says (exit 2), not
a picture of unreadable lines.  A live recording belongs to the log when its durable markers name
the log's events: the first marker (before any crash, whose dying process's markers name its own
log, examples/recordings/README.md) that names a seq the log holds as another type, or beyond it,
shows another session's recording, which would be drawn over this log without a word.
"""

from __future__ import annotations

import json
from pathlib import Path

from loopspec.check.input_kind import live_stream_problem
from loopspec.check.reader import holds_an_event, open_log


def _lines(path: Path) -> list[object]:
    values: list[object] = []
    with open_log(path) as stream:
        for line in stream:
            try:
                values.append(json.loads(line.decode("utf-8", errors="replace")))
            except (ValueError, RecursionError):
                values.append(None)
    return values


def _markers(live: Path) -> list[tuple[int, int, str]]:
    """``(line, seq, type)`` of each durable marker until the first crash note."""
    found: list[tuple[int, int, str]] = []
    for number, record in enumerate(_lines(live), start=1):
        if not isinstance(record, dict):
            continue
        if record.get("kind") == "note" and record.get("crash") is True:
            break
        seq, kind = record.get("seq"), record.get("type")
        if record.get("kind") == "durable" and isinstance(seq, int) and isinstance(kind, str):
            found.append((number, seq, kind))
    return found


def input_problem(log: Path, live: Path | None) -> str:
    """Why the log (with ``live``) cannot be drawn, or "" when it can; OSError when a file cannot be read."""
    if not holds_an_event(log):
        return (f"{log}: not a session log: no line of it is a JSON object (loopspec check {log} says the "
                "same); nothing to draw")
    if live is None:
        return ""
    if wrong := live_stream_problem(live):
        return f"--live {live}: {wrong}"
    types = {e.get("seq"): e.get("type") for e in _lines(log) if isinstance(e, dict)}
    for number, seq, kind in _markers(live):
        if types.get(seq) != kind:
            held = f"holds {types[seq]}" if seq in types else "has no such event"
            return (f"{live} is not the live recording of {log}: its line {number} marks seq {seq} as {kind}, "
                    f"where the log {held}")
    return ""
