"""A :class:`~loopspec.render.timeline.Timeline` as one SVG document (text).

The same SVG is the body of the HTML page and, written alone, a scenario picture in ``docs/``;
its CSS is inside it and it references nothing outside itself.  Elements carry ``class`` and
``data-*`` attributes naming what they show (``data-first``/``data-last`` seqs of an event mark,
``data-x2`` where a bar ends ...), so tests can read the drawing's structure back.
"""

from __future__ import annotations

import html
import re

from loopspec.render import draw_lanes, draw_lifecycle, draw_live
from loopspec.render.frame import Frame, frame
from loopspec.render.layout import layout
from loopspec.render.legend import legend
from loopspec.render.style import SVG_CSS
from loopspec.render.svg_text import clipped, element, label, mark, num, text
from loopspec.render.timeline import Timeline, violation_tip


def _header(timeline: Timeline, f: Frame, window: str) -> list[str]:
    span = timeline.span()
    out = [label(8, 20, timeline.title, class_="title"),
           label(8, 38, span + (f" · window: {window}" if window else ""), class_="subtitle")]
    outside = [f"before: {timeline.before.describe()}" if timeline.before else "",
               f"after: {timeline.after.describe()}" if timeline.after else ""]
    shown = " · ".join(part for part in outside if part)
    if shown:
        out.append(label(8, 54, shown, class_="subtitle"))
    return out


def _highlight(timeline: Timeline, f: Frame) -> list[str]:
    out: list[str] = []
    found = timeline.highlight
    if found is None:
        return out
    top, height = f.rows_top - 4, f.rows_bottom - f.rows_top + 8
    for seq, words in zip(found.context, found.context_text, strict=False):
        column = f.column(seq)
        box = element("rect", x=column.left, y=top, width=column.width, height=height, class_="context")
        out.append(mark(f"set up by: {words}", box, class_="context-mark", data_seq=seq))
    if found.seq is not None:
        column = f.column(found.seq)
        box = element("rect", x=column.left, y=top, width=column.width, height=height, class_="highlight")
        box += label(column.right + 4, f.rows_bottom - 4, clipped(f"✖ {found.rule}: {found.message}", 90),
                     class_="highlight-label")
        tip = violation_tip(found)
        out.append(mark(tip, box, class_="violation", data_seq=found.seq, data_rule=found.rule))
    return out


def _cut(timeline: Timeline, f: Frame) -> list[str]:
    if timeline.cut is None or timeline.cut > timeline.last:
        return []
    column = f.column(timeline.cut)
    left = column.left if timeline.highlight is None else column.right
    if f.layout.after.right - left <= 0:
        return []
    box = element("rect", x=left, y=f.rows_top - 4, width=f.layout.after.right - left,
                  height=f.rows_bottom - f.rows_top + 8, class_="cut")
    words = "not interpreted from here on"
    if timeline.stop is not None:
        words = f"[{timeline.stop.rule}] {timeline.stop.message} — {words}"
    box += label(left + 4, f.decisions + 16, clipped(words, 100), class_="cut-label")
    return [mark(words, box, class_="cut-mark", data_seq=timeline.cut)]


_CLASSES = re.compile(r'class="([^"]*)"')
_LEVEL_TEXT = re.compile(r'<text x="([\d.]+)"(?![^>]*transform)[^>]*>([^<]*)</text>')
TEXT_ADVANCE = 6.6  # about the widest average advance of the 11 px sans-serif text, per character


def _text_right(drawn: str) -> float:
    """Where the furthest-reaching level text ends (rotated axis labels lean within the columns)."""
    return max((float(x) + len(html.unescape(words)) * TEXT_ADVANCE for x, words in _LEVEL_TEXT.findall(drawn)),
               default=0.0)

SVG_NAMESPACE = 'xmlns="http://www.w3.org/2000/svg" '
"""Required by a standalone ``.svg`` file, and the one URL it holds (a name, never fetched)."""


def render_svg(timeline: Timeline, window: str = "", *, standalone: bool = True) -> str:
    """The timeline as an SVG document; ``standalone=False`` leaves out the namespace for inline HTML."""
    lay = layout(timeline)
    f = frame(timeline, lay)
    parts = _header(timeline, f, window)
    parts += draw_lifecycle.row_names(f)
    parts += draw_lanes.lane_backgrounds(f)
    parts += draw_lifecycle.grid(f)
    parts += _cut(timeline, f)
    parts += _highlight(timeline, f)
    parts += draw_lifecycle.bands(f, timeline)
    parts += draw_lifecycle.events(f, timeline)
    parts += draw_lifecycle.decisions(f, timeline)
    parts += draw_lanes.splices(f, timeline)
    parts += draw_lanes.bars(f, timeline)
    parts += draw_live.notices(f, timeline.highlight)
    used = frozenset(name for classes in _CLASSES.findall("".join(parts)) for name in classes.split())
    legend_svg, bottom = legend(8.0, f.bottom + 12, f.width - 8, used)
    wide = max(f.width, _text_right("".join(parts)) + 8)  # no caption or title cut at the right edge
    parts = [f"<style>{SVG_CSS}</style>",
             element("rect", x=0.0, y=0.0, width=wide, height=bottom + 8, fill="#ffffff"), *parts, legend_svg]
    width, height = num(wide), num(bottom + 8)
    namespace = SVG_NAMESPACE if standalone else ""
    return (f'<svg {namespace}class="loopspec-timeline" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{text(timeline.title)}">'
            + "\n".join(parts) + "\n</svg>\n")

