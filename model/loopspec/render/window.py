"""Which part of a log is drawn: a seq range, the last few turns, or the turns around one event.

A :class:`WindowSpec` is a value.  While the log streams past once, :class:`Bounds` (a private
accumulator) remembers only where the window may begin — line index and byte offset — so no line
outside the window is kept; the window's lines are read again from that offset at the end.  The
log is cut into *segments*, each ending with a ``turn/end``: a segment holds the sends that led to
its turn and the turn itself, and "the last few turns" are the last segments.
"""

from __future__ import annotations

from collections import deque
from typing import Protocol

import attrs


class Drawn(Protocol):
    """What a window's description needs of the timeline drawn (its last seq)."""

    @property
    def last(self) -> int: ...


DEFAULT_TURNS = 3
AROUND_TURNS = 2
AFTER_EVENTS = 12


@attrs.frozen
class WindowSpec:
    """``first``/``last`` bound the seqs (inclusive; None = open); without either, the last ``turns``.

    ``around`` centres the window on one event: the ``turns`` segments up to and including the one
    holding it, then ``after`` more events.
    """

    first: int | None = None
    last: int | None = None
    turns: int = DEFAULT_TURNS
    around: int | None = None
    after: int = AFTER_EVENTS

    @property
    def by_range(self) -> bool:
        return self.first is not None or self.last is not None

    def describe(self, drawn: Drawn | None = None) -> str:
        """What the window asks for; with ``drawn`` (the timeline), only what it holds of that."""
        if self.by_range:
            first = self.first if self.first is not None else 0
            return f"seq {first}–{self.last if self.last is not None else 'end'} (--from/--to)"
        if self.around is not None:
            after = self.after if drawn is None else max(0, drawn.last - self.around)
            return (f"around seq {self.around}: its turn and up to {self.turns - 1} turn(s) before it, and "
                    f"{after} event(s) after it")
        chosen = "the default; choose with --turns or --from/--to" if self.turns == DEFAULT_TURNS else "--turns"
        return f"at most the last {self.turns} turn(s) ({chosen})"


class Bounds:
    """Where the window starts and ends, found in one pass; never part of a value."""

    __slots__ = ("spec", "starts", "turned")

    def __init__(self, spec: WindowSpec) -> None:
        self.spec = spec
        # The trailing segment (after the last turn/end) may hold no turn: keep one more.
        keep = max(1, spec.turns) + (1 if spec.around is None else 0)
        self.starts: deque[tuple[int, int]] = deque([(0, 0)], maxlen=None if spec.by_range else keep)
        self.turned: deque[bool] = deque([False], maxlen=None if spec.by_range else keep)

    def range_start(self) -> int:
        """The index whose offset :meth:`at` must be given in range mode (-1: none needed)."""
        return self.spec.first if self.spec.first is not None else (0 if self.spec.by_range else -1)

    def at(self, index: int, offset: int) -> None:
        """Range mode: line ``index`` starts at byte ``offset``."""
        self.starts = deque([(index, offset)])

    def turn_ended(self, index: int, offset: int) -> None:
        """The line before ``index`` (which starts at ``offset``) was a ``turn/end``: a new segment."""
        spec = self.spec
        if spec.by_range or (spec.around is not None and index > spec.around):
            return
        self.starts.append((index, offset))
        self.turned.append(False)

    def turn_started(self) -> None:
        """The current segment holds a ``turn/start``."""
        self.turned[-1] = True

    def window(self, total: int) -> tuple[int, int, int]:
        """``(first index, its byte offset, last index)``; first > last for an empty window."""
        spec = self.spec
        last = total - 1
        if spec.by_range:
            if spec.last is not None:
                last = min(last, spec.last)
            first, offset = self.starts[0] if spec.first is None or spec.first < total else (total, 0)
            return first, offset, last
        segments = [(s, t) for s, t in zip(self.starts, self.turned, strict=True) if s[0] < total]
        if spec.around is not None:
            last = min(last, spec.around + spec.after)
            segments = [(s, t) for s, t in segments if s[0] <= spec.around]
            take = spec.turns
        else:  # the last ``turns`` turns, with whatever follows the last of them
            take = spec.turns + (1 if segments and not segments[-1][1] else 0)
        first, offset = segments[-take:][0][0] if segments else (0, 0)
        return first, offset, last
