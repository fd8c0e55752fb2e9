"""Reading real session logs (JSONL, one envelope per line, plain or gzip) into model events.

A command line's ``-`` (standard input) becomes a file in :mod:`loopspec.log.stdin`
(:func:`spool`, re-exported here).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

from loopspec.data.errors import InvalidEvent
from loopspec.log.events import SessionEvent, check_envelope
from loopspec.log.json_fault import why_not_json

# Re-exported (``X as X``): the command line's readers import them from here.
from loopspec.log.stdin import GZIP_MAGIC as GZIP_MAGIC
from loopspec.log.stdin import STDIN as STDIN
from loopspec.log.stdin import spool as spool

SHALLOW_BRACKETS = 100
"""A line with fewer ``[`` and ``{`` than this nests less deeply than that, so freezing its data
cannot exhaust the stack; only such lines may skip freezing (see :meth:`EventReader.only`)."""

Decode = Callable[[str], object]


def _no_constants(token: str) -> object:
    raise ValueError(f"{token} is not JSON")


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """Refuse a key repeated in one object, which ``JSON.stringify`` never writes (decisions.md G3)."""
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        repeated = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise ValueError(f"key {repeated!r} appears twice in one object")
    return value


def _decoder() -> Decode:
    # One decoder per reader: ``json.loads`` with options builds a new decoder for every line.
    return json.JSONDecoder(parse_constant=_no_constants, object_pairs_hook=_unique_keys).decode


def _decode(decode: Decode, line: str, line_no: int) -> object:
    try:
        if line.startswith("\ufeff"):  # let json.loads word the BOM error exactly as it always has
            return json.loads(line, parse_constant=_no_constants, object_pairs_hook=_unique_keys)
        return decode(line)
    except ValueError as err:
        raise InvalidEvent("LOG-1", f"line {line_no}: not valid JSON ({why_not_json(err, line)})") from None
    except RecursionError:
        raise InvalidEvent("LOG-1", f"line {line_no}: JSON nested too deeply to read") from None


def parse_line(line: str, line_no: int) -> SessionEvent:
    """One JSONL line as an event; :class:`InvalidEvent` (LOG-1) for anything that is not one."""
    return SessionEvent.from_json(_decode(_decoder(), line, line_no), line_seq=line_no - 1)


class EventReader(Iterator[SessionEvent]):
    """The events of a ``*.events.jsonl`` file in order, read lazily; blank lines are not allowed (LOG-1).

    Iterating yields every event.  :meth:`only` serves a fold that reads one event type: it
    still decodes and validates every line's envelope in order (LOG-1), but freezes the payload
    only of the lines it yields, which is most of the cost of reading a log.
    """

    __slots__ = ("_decode", "_lines", "_path")

    def __init__(self, path: Path) -> None:
        self._path = path
        self._decode = _decoder()
        self._lines: Iterator[tuple[int, str]] | None = None

    def _numbered(self) -> Iterator[tuple[int, str]]:
        if self._lines is None:  # opened on first use, as a generator would be
            self._lines = self._read()
        return self._lines

    def _read(self) -> Iterator[tuple[int, str]]:
        line_no = 0
        with open_text(self._path) as handle:
            try:
                for line_no, line in enumerate(handle, start=1):
                    yield line_no, line
            except UnicodeDecodeError as err:
                # Text is decoded ahead in blocks: the bad byte is after the last line read, not exactly on it.
                raise InvalidEvent("LOG-1", f"after line {line_no}: not valid UTF-8 ({err.reason})") from None

    def __iter__(self) -> EventReader:
        return self

    def __next__(self) -> SessionEvent:
        line_no, line = next(self._numbered())
        return SessionEvent.from_json(_decode(self._decode, line, line_no), line_seq=line_no - 1)

    def only(self, etype: str) -> Iterator[SessionEvent]:
        """The remaining events of type ``etype``; raises on the first bad line of any type, as iterating does."""
        decode = self._decode
        for line_no, line in self._numbered():
            raw = _decode(decode, line, line_no)
            if check_envelope(raw, line_no - 1) == etype:
                yield SessionEvent.from_json(raw, line_seq=line_no - 1)
            elif line.count("[") + line.count("{") >= SHALLOW_BRACKETS:
                # Possibly deep: freeze it anyway, so data too deep to freeze fails here as in __next__.
                SessionEvent.from_json(raw, line_seq=line_no - 1)


def read_events(path: Path) -> EventReader:
    """Events of a ``*.events.jsonl`` file in order; blank lines are not allowed (LOG-1)."""
    return EventReader(path)


def open_text(path: Path) -> TextIO:
    """A log's text, decompressed when the name ends in ``.gz``."""
    if path.name.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")
