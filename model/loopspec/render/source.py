"""Reading a log for a picture: every line counted, only what the folds read turned into events.

The inbox fold and the per-message fates read ``agent/inbox/spliced``, ``turn/*`` and
``user/message`` events; the lifecycle projection reads ``turn/*`` and ``step/*``.  In a real log
almost every other line is a streamed model chunk.  :class:`FoldLines` reads the file in large
blocks and finds, with one regular expression per block, the lines a fold may read: those whose
first key shows a folded type (``{"type":"turn/start",...`` as the real writer lays lines out),
and every line that does not start that way (it has to be parsed to know its type).  The others
are only counted: reading a type off a line's first key is a reading shortcut, not a check
(``loopspec check`` judges lines).  The window's lines are parsed in full later.

A folded line is read as ``(type, time, data)`` (:func:`read_folded`); the splices' data stays
parsed JSON for the lean fold (:mod:`loopspec.render.fates`), and only the
turn and step numbers become an event, for the lifecycle projection (:func:`boundary_event`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from loopspec.check.reader import fast_loads, open_log, strict_loads
from loopspec.data.errors import InvalidEvent
from loopspec.data.json_value import Frozen, JsonObject, freeze, nests_too_deep
from loopspec.log.events import SessionEvent, check_envelope
from loopspec.log.json_fault import why_not_json
from loopspec.log.kinds import SPLICED, STEP_END, STEP_START, TURN_END, TURN_START, USER_MESSAGE

FOLDED = frozenset({SPLICED, TURN_START, TURN_END, STEP_START, STEP_END, USER_MESSAGE})
"""The event types the folds read (FOLD-4: the inbox fold ignores every other type)."""

BLOCK = 1 << 23
_TYPES = b"|".join(re.escape(t.encode()) for t in sorted(FOLDED))
# A line (after its newline) the folds may read: a folded type as first key, a first-key type holding
# an escape (only a parse can decode it), or a line that does not begin with a type at all.
_FOLD_LINE = re.compile(rb'\n(?:\{"type":"(?:' + _TYPES + rb')"|\{"type":"[^"\\\n]*\\|(?!\{"type":"))[^\n]*')
# The same for a block holding no backslash at all, where no type can hold an escape: the escape branch,
# which runs along every line's type, is most of the search's cost.
_FOLD_LINE_PLAIN = re.compile(rb'\n(?:\{"type":"(?:' + _TYPES + rb')"|(?!\{"type":"))[^\n]*')


def open_source(path: Path) -> BinaryIO:
    """The log's bytes (``.gz`` decompressed), as ``loopspec check`` reads them."""
    return open_log(path)


class FoldLines:
    """The lines a fold may read, as ``(index, byte offset, line)``; counts every line on the way.

    ``total`` is the number of lines once iteration ends; ``offset_of`` the byte offset of line
    ``find`` (given at construction; -1 for none), which a seq-range window starts at.
    """

    def __init__(self, stream: BinaryIO, find: int = -1) -> None:
        self.stream = stream
        self.find = find
        self.total = 0
        self.offset_of = 0

    def __iter__(self) -> Iterator[tuple[int, int, bytes]]:
        carry, lines, consumed = b"", 0, 0  # the partial last line, lines and bytes before ``carry``
        while True:
            block = self.stream.read(BLOCK)
            buf = b"\n" + carry + block  # a sentinel newline: the first line is found like the others
            cut = len(buf) - 1 if not block else buf.rfind(b"\n")
            if not block and not carry:
                break
            if not block:
                buf, cut = buf + b"\n", len(buf)  # the last line has no newline (a torn tail)
            complete = buf.count(b"\n", 1, cut + 1)
            if lines <= self.find < lines + complete:
                self.offset_of = consumed + _nth_newline(buf, self.find - lines)
            before, last, count = lines, 0, buf.count
            search = _FOLD_LINE if b"\\" in buf else _FOLD_LINE_PLAIN
            for at, end in [found.span() for found in search.finditer(buf, 0, cut)]:
                before += count(b"\n", last, at)
                last = at
                yield before, consumed + at, buf[at + 1 : end + 1]
            lines += complete
            consumed += cut
            carry = buf[cut + 1 :]
            if not block:
                break
        self.total = lines


def _nth_newline(buf: bytes, n: int) -> int:
    at = 0
    for _ in range(n):
        at = buf.index(b"\n", at + 1)
    return at


def parse(line: bytes, index: int) -> object:
    """One line's JSON value; :class:`InvalidEvent` (LOG-1) naming the line when it is not JSON."""
    try:
        return fast_loads(line)
    except (ValueError, RecursionError):
        try:  # the standard library under JSON's exact rules says why (no NaN, strict UTF-8)
            return strict_loads(line)
        except (ValueError, RecursionError) as err:
            why = why_not_json(err, line)
            raise InvalidEvent("LOG-1", f"line {index + 1}: not valid JSON ({why})", index) from None


def _field(data: object, key: str) -> tuple[tuple[str, Frozen], ...]:
    if not isinstance(data, dict) or key not in data:
        return ()
    value = data[key]
    if type(value) is int:  # the usual case: nothing to freeze
        return ((key, value),)
    try:
        return ((key, freeze(value)),)
    except RecursionError:
        raise InvalidEvent("LOG-1", f"'{key}' is nested too deeply") from None


def check_depth(data: object, size: int, index: int) -> None:
    """LOG-1 (D9): refuse ``data`` nested deeper than the model freezes, from a line of ``size`` bytes."""
    if nests_too_deep(data, size):
        raise InvalidEvent("LOG-1", "'data' is nested too deeply", index)


def read_folded(line: bytes, index: int) -> tuple[str, int, object] | None:
    """``(type, time, data)`` of line ``index`` when its type is one a fold reads (:data:`FOLDED`), else None.

    Raises :class:`InvalidEvent` for a line that is not JSON or not an envelope (LOG-1), and for
    a folded one whose ``seq`` is not its index (LOG-2): the seqs the folds report must name the
    lines the picture draws.
    """
    raw = parse(line, index)
    etype = check_envelope(raw, index)
    if etype not in FOLDED:
        return None
    assert isinstance(raw, dict)  # check_envelope has accepted it
    if raw["seq"] != index:
        raise InvalidEvent("LOG-2", f"seq {raw['seq']} on line {index + 1}; seq must be the line's index", index)
    time = raw["time"]
    assert isinstance(time, int)
    return etype, time, raw["data"]


def boundary_event(etype: str, index: int, time: int, data: object) -> SessionEvent:
    """A ``turn/*`` or ``step/*`` line as the lifecycle projection reads it: its turn and step numbers."""
    return SessionEvent(etype, index, time, JsonObject(_field(data, "turn") + _field(data, "step")))
