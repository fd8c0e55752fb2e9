"""Where things go: the timeline's columns along the seq axis and the rows of the two lanes.

The axis is ordinal, not linear: each event (or run of like events) and each live record gets one
column, in the order the session wrote them — a live record with ``next_seq`` n comes after event
n-1 and before event n.  An edge column on each side stands for what lies outside the window, so
a bar inserted before the window or claimed after it still has somewhere to begin or end.
"""

from __future__ import annotations

from typing import Literal

import attrs

from loopspec.render.timeline import Bar, EventMark, Notice, Timeline

GUTTER = 96.0
COLUMN = 20.0
WIDEST = 44.0
SPREAD = 820.0  # a short log's columns widen to about this width, so its marks and labels breathe
EDGE = 34.0
TAG_CHAR = 6.0  # advance of the 9px bold face, generously

ColumnKind = Literal["before", "event", "notice", "after"]


@attrs.frozen
class Column:
    kind: ColumnKind
    position: int
    left: float
    width: float
    event: EventMark | None = None
    notice: Notice | None = None

    @property
    def x(self) -> float:
        return self.left + self.width / 2

    @property
    def right(self) -> float:
        return self.left + self.width


@attrs.frozen
class Layout:
    """Columns left to right, and each bar's row inside its lane."""

    columns: tuple[Column, ...]
    rows: tuple[int, ...]
    lane_rows: tuple[tuple[str, int], ...]
    event_x: tuple[tuple[int, float], ...]

    @property
    def width(self) -> float:
        return self.columns[-1].right if self.columns else GUTTER

    @property
    def before(self) -> Column:
        return self.columns[0]

    @property
    def after(self) -> Column:
        return self.columns[-1]

    def lane_height(self, target: str) -> int:
        return dict(self.lane_rows).get(target, 1)


def _columns(timeline: Timeline) -> list[Column]:
    notices = sorted(timeline.notices, key=lambda n: (n.next_seq, n.order))
    unit = min(WIDEST, max(COLUMN, SPREAD / max(1, len(timeline.events) + len(notices))))
    columns = [Column("before", timeline.first - 1, GUTTER, EDGE)]
    left = GUTTER + EDGE
    pending = 0

    def notices_up_to(position: int) -> None:
        nonlocal left, pending
        while pending < len(notices) and notices[pending].next_seq <= position:
            notice = notices[pending]
            columns.append(Column("notice", notice.next_seq, left, unit, notice=notice))
            left += unit
            pending += 1

    for mark in timeline.events:
        notices_up_to(mark.first)
        width = unit if mark.count == 1 else unit * 1.6
        columns.append(Column("event", mark.first, left, width, event=mark))
        left += width
    notices_up_to(timeline.last + 1)
    columns.append(Column("after", timeline.last + 1, left, EDGE))
    return columns


def _pack(bars: tuple[Bar, ...], start: dict[int, float], end: dict[int, float]) -> tuple[list[int], dict[str, int]]:
    """Each bar's row in its lane, rows in list order: of two bars drawn side by side, the one
    earlier in the list is higher.  In rank order each bar takes the row below the lowest bar
    drawn beside it that comes before it in the list (row 0 when none does)."""
    rows = [0] * len(bars)
    placed: dict[str, list[int]] = {}
    for index in sorted(range(len(bars)), key=lambda i: (bars[i].rank, start[i])):
        lane = placed.setdefault(bars[index].target, [])
        beside = [rows[j] for j in lane if start[j] <= end[index] and start[index] <= end[j]]
        rows[index] = max(beside, default=-1) + 1
        lane.append(index)
    heights = {target: max((rows[j] for j in lane), default=0) + 1 for target, lane in placed.items()}
    return rows, heights


def layout(timeline: Timeline) -> Layout:
    columns = _columns(timeline)
    event_x: dict[int, float] = {}
    for column in columns:
        if column.event is not None:
            for seq in range(column.event.first, column.event.last + 1):
                event_x[seq] = column.x
    ends = Layout(tuple(columns), (), (), ())
    starts = {i: bar_start(ends, event_x, bar) for i, bar in enumerate(timeline.bars)}
    stops = {i: bar_end(ends, event_x, bar, timeline) for i, bar in enumerate(timeline.bars)}
    # A claimed bar's cap carries a label (→T2.1, →T1 dropped): keep the row free for it.
    room = {i: stops[i] + 12.0 + TAG_CHAR * len(bar.tag) for i, bar in enumerate(timeline.bars)}
    rows, heights = _pack(timeline.bars, starts, room)
    return Layout(tuple(columns), tuple(rows), tuple(sorted(heights.items())), tuple(sorted(event_x.items())))


def bar_start(lay: Layout, event_x: dict[int, float], bar: Bar) -> float:
    return event_x.get(bar.inserted, lay.before.x)


def bar_end(lay: Layout, event_x: dict[int, float], bar: Bar, timeline: Timeline) -> float:
    """Where a bar ends: its fate's column; the stop or the right edge while it is pending."""
    if bar.left is not None:
        return event_x.get(bar.left, lay.after.x)
    if timeline.cut is not None and timeline.cut in event_x:
        return event_x[timeline.cut]
    return lay.after.x


def x_before(lay: Layout, position: int) -> float:
    """The left edge of the first column at ``position`` or later (a point between two events)."""
    for column in lay.columns[1:]:
        if column.position >= position:
            return column.left
    return lay.after.left
