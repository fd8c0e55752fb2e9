"""Reading real session logs (JSONL, one envelope per line) into model events."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from loopspec.errors import InvalidEvent
from loopspec.events import SessionEvent


def _no_constants(token: str) -> object:
    raise ValueError(f"{token} is not JSON")


def parse_line(line: str, line_no: int) -> SessionEvent:
    """One JSONL line as an event; :class:`InvalidEvent` (LOG-1) for anything that is not one."""
    try:
        raw = json.loads(line, parse_constant=_no_constants)
    except ValueError as err:
        raise InvalidEvent("LOG-1", f"line {line_no}: not valid JSON ({err})") from None
    return SessionEvent.from_json(raw, line_seq=line_no - 1)


def read_events(path: Path) -> Iterator[SessionEvent]:
    """Events of a ``*.events.jsonl`` file in order; blank lines are not allowed (LOG-1)."""
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            yield parse_line(line, line_no)
