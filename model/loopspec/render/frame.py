"""The picture's rows from top to bottom, and where each seq's column is.

A :class:`Frame` is computed once per drawing from the timeline and its layout; every drawing
function reads positions from it and from nothing else, so rows never overlap.
"""

from __future__ import annotations

from bisect import bisect_right

import attrs

from loopspec.inbox.pending import NEXT_STEP, NEXT_TURN
from loopspec.render.layout import Column, Layout
from loopspec.render.timeline import Timeline

HEADER = 64.0
LABELS = 170.0
ROW = 24.0
LANE_ROW = 16.0
LANE_TOP = 13.0
LANE_PAD = 17.0
MIN_WIDTH = 980.0


@attrs.frozen
class Frame:
    layout: Layout
    turns: float
    steps: float
    decisions: float
    events: float
    lanes: tuple[tuple[str, float, float], ...]
    live: float | None
    calls: float | None
    bottom: float
    event_columns: tuple[Column, ...] = ()
    firsts: tuple[int, ...] = ()

    @property
    def width(self) -> float:
        # The last axis labels lean right; the header and legend need room even for a short log.
        return max(self.layout.width + 120, MIN_WIDTH)

    @property
    def rows_top(self) -> float:
        return self.turns

    @property
    def rows_bottom(self) -> float:
        return self.bottom - 8

    def lane(self, target: str) -> tuple[float, float]:
        """(top, height) of a lane; an unknown target (an invalid log) is drawn in next-turn's."""
        for name, top, height in self.lanes:
            if name == target:
                return top, height
        return self.lanes[0][1], self.lanes[0][2]

    def column(self, seq: int) -> Column:
        """The event column holding ``seq``; the edge columns stand for seqs outside the window."""
        at = bisect_right(self.firsts, seq) - 1
        if at >= 0:
            column = self.event_columns[at]
            if column.event is not None and seq <= column.event.last:
                return column
        return self.layout.before if seq <= self.layout.before.position else self.layout.after


def frame(timeline: Timeline, lay: Layout) -> Frame:
    y = HEADER + LABELS
    turns, steps, decisions, events = y, y + ROW, y + 2 * ROW, y + 3 * ROW
    y += 4 * ROW + 6
    lanes = []
    for name in (NEXT_TURN, NEXT_STEP):
        height = max(1, lay.lane_height(name)) * LANE_ROW + LANE_PAD
        lanes.append((name, y, height))
        y += height + 4
    live = calls = None
    if timeline.notices:
        live, y = y, y + ROW + 4
        if any(n.kind == "op" for n in timeline.notices):
            calls, y = y, y + ROW
    columns = tuple(c for c in lay.columns if c.event is not None)
    firsts = tuple(c.event.first for c in columns if c.event is not None)
    return Frame(lay, turns, steps, decisions, events, tuple(lanes), live, calls, y + 10, columns, firsts)
