"""Reading a log for a picture: every line streamed, only what the folds read turned into events.

The inbox fold and the per-message fates read ``agent/inbox/spliced``, ``turn/*`` and
``user/message`` events; the lifecycle projection reads ``turn/*`` and ``step/*``.  Every other
line — in a real log almost all of them are streamed model chunks — is only counted, and when the
real writer's layout shows its type up front (``{"type":"assistant/chunk",...``) it is not even
parsed.  So the picture reads a line's type from its first key where it can: this is a reading
shortcut, not a check (``loopspec check`` judges lines; a line whose JSON is broken past its type
still counts as an event here).  Lines of the drawn window are parsed in full later.

Outside the window a ``user/message`` becomes an event carrying only its ``id``: the fates read
nothing else of it (WORK-2), and freezing every message body of a long log would cost more than
all the rest of the reading.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from loopspec.check.reader import fast_loads, open_log, strict_loads
from loopspec.data.errors import InvalidEvent
from loopspec.data.json_value import JsonObject
from loopspec.log.events import SPLICED, SessionEvent, check_envelope
from loopspec.loop.records import STEP_END, STEP_START, TURN_END, TURN_START, USER_MESSAGE

FOLDED = frozenset({SPLICED, TURN_START, TURN_END, STEP_START, STEP_END, USER_MESSAGE})
"""The event types the folds read (FOLD-4: the inbox fold ignores every other type)."""

_TYPE_FIRST = b'{"type":"'
_START = len(_TYPE_FIRST)
Loads = Callable[[bytes], object]


def open_source(path: Path) -> BinaryIO:
    """The log's bytes (``.gz`` decompressed), as ``loopspec check`` reads them."""
    return open_log(path)


def leading_type(line: bytes) -> str | None:
    """The type a line shows as its first key, or None when it does not start that way.

    A type holding a backslash (an escape) is not read here: only a JSON parse can decode it.
    """
    if not line.startswith(_TYPE_FIRST):
        return None
    end = line.find(b'"', _START)
    if end < 0:
        return None
    raw = line[_START:end]
    if b"\\" in raw:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def parse(line: bytes, index: int) -> object:
    """One line's JSON value; :class:`InvalidEvent` (LOG-1) naming the line when it is not JSON."""
    try:
        return fast_loads(line)
    except (ValueError, RecursionError):
        try:  # the standard library under JSON's exact rules says why (no NaN, strict UTF-8)
            return strict_loads(line)
        except (ValueError, RecursionError) as err:
            raise InvalidEvent("LOG-1", f"line {index + 1}: not valid JSON ({err})", index) from None


def envelope_type(raw: object, index: int) -> str:
    """The type of a parsed line after the envelope check (LOG-1); raises :class:`InvalidEvent`."""
    return check_envelope(raw, index)


def fold_event(raw: object, etype: str, index: int) -> SessionEvent:
    """The event the folds read for a parsed line of a type in :data:`FOLDED`.

    Its ``seq`` must be the line's index (LOG-2), or the seqs the folds report would not name
    the lines the picture draws.
    """
    assert isinstance(raw, dict)  # check_envelope has accepted it
    if raw["seq"] != index:
        raise InvalidEvent("LOG-2", f"seq {raw['seq']} on line {index + 1}; seq must be the line's index", index)
    if etype == USER_MESSAGE:
        data = raw["data"]
        mid = data.get("id") if isinstance(data, dict) else None
        return SessionEvent(etype, index, raw["time"], JsonObject((("id", mid if isinstance(mid, str) else ""),)))
    return SessionEvent.from_json(raw, line_seq=index)


def numbered(stream: BinaryIO) -> Iterator[tuple[int, bytes]]:
    """(index, line) for every line; the index is the seq the line's event must carry (LOG-2)."""
    return enumerate(stream)
