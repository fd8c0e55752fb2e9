"""Drawing the two inbox lists as swimlanes: one bar per message, a mark per splice.

A bar runs from its inserting splice to its fate.  A claimed bar ends in a claim cap and, when a
``user/message`` entered it, a dashed line climbs from the claim to that event: the ownership
transfer (CLAIM-5) leaves the lane there.  A discarded bar ends in a cross; a pending bar runs on
to the right edge (or to where the picture stops interpreting).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from loopspec.render.frame import LANE_ROW, LANE_TOP, ROW, Frame
from loopspec.render.layout import bar_end, bar_start
from loopspec.render.svg_text import element, label, mark
from loopspec.render.timeline import Bar, SpliceMark, Timeline

SYMBOL: Mapping[str, str] = MappingProxyType({"insert": "+", "claim": "▲", "cancel": "✕", "replace": "⇄", "edit": "✎"})
LANE_CLASS: Mapping[str, str] = MappingProxyType({"next-turn": "nt", "next-step": "ns"})
BAR = 10.0


def lane_backgrounds(f: Frame) -> list[str]:
    out = []
    for name, top, height in f.lanes:
        out.append(element("rect", x=4.0, y=top, width=f.layout.width - 4, height=height,
                           class_=f"lane lane-{LANE_CLASS[name]}"))
        out.append(label(8, top + height / 2 + 4, name, class_="row-name"))
    return out


def _y(f: Frame, bar: Bar, row: int) -> float:
    top, _ = f.lane(bar.target)
    return top + LANE_TOP + row * LANE_ROW + (LANE_ROW - BAR) / 2


def _cap(bar: Bar, x: float, y: float) -> str:
    mid = y + BAR / 2
    if bar.fate == "claimed":
        points = f"{x - 6:.1f},{y - 1:.1f} {x + 2:.1f},{mid:.1f} {x - 6:.1f},{y + BAR + 1:.1f}"
        return element("polygon", points=points, class_="cap-claimed" if bar.entered else "cap-dropped")
    if bar.fate == "canceled":
        return (element("line", x1=x - 5, y1=y - 1, x2=x + 3, y2=y + BAR + 1, class_="cap-canceled")
                + element("line", x1=x - 5, y1=y + BAR + 1, x2=x + 3, y2=y - 1, class_="cap-canceled"))
    points = f"{x - 4:.1f},{y - 2:.1f} {x + 4:.1f},{mid:.1f} {x - 4:.1f},{y + BAR + 2:.1f}"
    return element("polygon", points=points, class_="cap-pending")


def _transfer(f: Frame, bar: Bar, x: float, y: float) -> str:
    """The claimed message's way out of the lane: up to the ``user/message`` that entered it."""
    if bar.entered_seq is None:
        return ""
    to = f.column(bar.entered_seq)
    target_y = f.events + ROW - 4
    path = f"M{x:.1f},{y:.1f} L{x:.1f},{target_y + 10:.1f} L{to.x:.1f},{target_y:.1f}"
    return element("path", d=path, class_="transfer")


def _bar(f: Frame, timeline: Timeline, bar: Bar, row: int, event_x: dict[int, float]) -> str:
    lay = f.layout
    x1, x2 = bar_start(lay, event_x, bar), bar_end(lay, event_x, bar, timeline)
    y = _y(f, bar, row)
    body = element("rect", x=x1, y=y, width=max(2.0, x2 - x1), height=BAR, rx=3.0,
                   class_=f"bar-{LANE_CLASS.get(bar.target, 'nt')}")
    if bar.inserted < timeline.first:
        body += label(x1 - 14, y + BAR - 1, "◀", class_="clip")
    body += label(x1 + 4, y + BAR - 2, bar.id[:24], class_="bar-label")
    body += _cap(bar, x2, y)
    if bar.fate == "claimed":
        body += _transfer(f, bar, x2, y)
        body += label(x2 + 4, y + BAR - 1, bar.tag, class_="cap-label")
    return mark(bar.describe(), body, class_=f"bar fate-{bar.fate}", data_id=bar.id, data_target=bar.target,
                data_inserted=bar.inserted, data_left=bar.left, data_x1=x1, data_x2=x2,
                data_entered=bar.entered_seq)


def bars(f: Frame, timeline: Timeline) -> list[str]:
    event_x = dict(f.layout.event_x)
    return [_bar(f, timeline, bar, row, event_x) for bar, row in zip(timeline.bars, f.layout.rows, strict=True)]


def _splice(f: Frame, splice: SpliceMark) -> str:
    column = f.column(splice.seq)
    top, height = f.lane(splice.target)
    body = element("line", x1=column.x, y1=top, x2=column.x, y2=top + height, class_=f"splice-{splice.kind}")
    body += label(column.x, top + 10, SYMBOL[splice.kind], class_=f"sym sym-{splice.kind}")
    words = [f"{splice.kind} in {splice.target} at seq {splice.seq}"]
    if splice.removed:
        words.append("took out " + ", ".join(splice.removed))
    if splice.inserted:
        words.append("inserted " + ", ".join(splice.inserted))
    return mark("; ".join(words) + "\n" + splice.json, body, class_=f"splice splice-{splice.kind}",
                data_seq=splice.seq, data_target=splice.target)


def splices(f: Frame, timeline: Timeline) -> list[str]:
    return [_splice(f, s) for s in timeline.splices]
