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
    only of the lines it yields, which is most of the cost of reading a log.  Every line's ``seq``
    is its index (LOG-2), and a torn tail, a last line without a newline that is no JSON value, is
    LOG-5, or the end of the log when ``allow_torn_tail`` says a crash may have cut it.
    """

    __slots__ = ("_allow_torn_tail", "_decode", "_lines", "_path")

    def __init__(self, path: Path, *, allow_torn_tail: bool = False) -> None:
        self._path = path
        self._decode = _decoder()
        self._lines: Iterator[tuple[int, str]] | None = None
        self._allow_torn_tail = allow_torn_tail

    def _envelope(self, line: str, line_no: int) -> object:
        """The line's JSON value, or StopIteration at an allowed torn tail (LOG-5)."""
        try:
            return _decode(self._decode, line, line_no)
        except InvalidEvent as err:
            if line.endswith("\n") or err.rule != "LOG-1":
                raise
            if self._allow_torn_tail:
                raise StopIteration from None
            raise InvalidEvent("LOG-5", f"line {line_no}: a torn tail: the last line has no newline and is cut "
                               "off (--allow-torn-tail accepts it as a crash's cut append)", line=line_no) from None

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
        event = SessionEvent.from_json(self._envelope(line, line_no), line_seq=line_no - 1)
        _seq_is_index(event.seq, line_no)
        return event

    def only(self, etype: str) -> Iterator[SessionEvent]:
        """The remaining events of type ``etype``; raises on the first bad line of any type, as iterating does."""
        for line_no, line in self._numbered():
            try:
                raw = self._envelope(line, line_no)
            except StopIteration:
                return
            kind = check_envelope(raw, line_no - 1)
            _seq_is_index(raw["seq"], line_no)  # type: ignore[index]  # check_envelope: a dict with a seq
            if kind == etype:
                yield SessionEvent.from_json(raw, line_seq=line_no - 1)
            elif line.count("[") + line.count("{") >= SHALLOW_BRACKETS:
                # Possibly deep: freeze it anyway, so data too deep to freeze fails here as in __next__.
                SessionEvent.from_json(raw, line_seq=line_no - 1)


def _seq_is_index(seq: object, line_no: int) -> None:
    if seq != line_no - 1:
        raise InvalidEvent("LOG-2", f"line {line_no}: seq {seq}, but this is event {line_no - 1} of the log",
                           line=line_no)


def read_events(path: Path, *, allow_torn_tail: bool = False) -> EventReader:
    """Events of a ``*.events.jsonl`` file in order; blank lines are not allowed (LOG-1)."""
    return EventReader(path, allow_torn_tail=allow_torn_tail)


def open_text(path: Path) -> TextIO:
    """A log's text, decompressed when the name ends in ``.gz``."""
    if path.name.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")
