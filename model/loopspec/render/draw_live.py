"""Drawing the live recording: each notification or observation in its own column, calls as spans."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from loopspec.log.kinds import AGENT_ERROR, AGENT_STATUS, CLAIMED, DISCARDED, INSERTED, PRE_STEP_HOOK
from loopspec.render.draw_lifecycle import fits
from loopspec.render.frame import ROW, Frame
from loopspec.render.layout import Column, x_before
from loopspec.render.svg_text import clipped, element, label, mark
from loopspec.render.timeline import Highlight, Notice, violation_tip

SYMBOL: Mapping[str, tuple[str, str]] = MappingProxyType({
    INSERTED: ("+", "n-inserted"),
    DISCARDED: ("−", "n-discarded"),
    CLAIMED: ("▲", "n-claimed"),
    AGENT_STATUS: ("●", "n-status"),
    AGENT_ERROR: ("!", "n-error"),
    PRE_STEP_HOOK: ("◆", "n-prestep"),
    "note": ("✎", "n-note"),
})


def _notice(f: Frame, column: Column, notice: Notice, found: Highlight | None) -> str:
    assert f.live is not None
    symbol, css = SYMBOL.get(notice.type, ("•", "n-other"))
    if notice.kind == "op":
        symbol, css = "⟨", "n-call"
    y = f.live
    body = element("circle", cx=column.x, cy=y + ROW / 2, r=7.0, class_=f"notice-dot {css}")
    body += label(column.x, y + ROW / 2 + 4, symbol, class_="notice-sym")
    if notice.crash:
        body += element("line", x1=column.x, y1=f.rows_top - 4, x2=column.x, y2=f.rows_bottom, class_="crash")
    dead = " [from the process that ended; never reached the stored log]" if notice.dead else ""
    tip = f"{notice.label}{dead}\nat nextSeq {notice.next_seq}\n{notice.json}"
    classes = f"notice {css}" + (" dead" if notice.dead else "")
    drawn = mark(tip, body, class_=classes, data_next_seq=notice.next_seq, data_order=notice.order,
                 data_type=notice.type, data_x=column.x)
    if found is None or found.live_line != notice.order + 1:
        return drawn
    # The live record a live-side violation names: ringed in red, with the rule beside it.
    ring = element("circle", cx=column.x, cy=y + ROW / 2, r=11.0, class_="highlight")
    ring += label(column.x + 14, y + ROW / 2 + 4, clipped(f"✖ {found.rule}: {found.message}", 90),
                  class_="highlight-label")
    return drawn + mark(violation_tip(found), ring, class_="violation", data_live_line=found.live_line,
                        data_rule=found.rule)


def _call(f: Frame, column: Column, notice: Notice) -> str:
    assert f.calls is not None
    end = x_before(f.layout, notice.end_seq) if notice.end_seq is not None else column.right
    end = max(end, column.right)
    y = f.calls + 6
    body = element("rect", x=column.left + 2, y=y, width=end - column.left - 4, height=ROW - 12, rx=3.0,
                   class_="call")
    shown = notice.label if fits(notice.label, end - column.left) else notice.type
    body += label(column.left + 6, y + ROW - 13, shown if fits(shown, end - column.left) else "", class_="call-label")
    wrote = notice.end_seq is not None and notice.end_seq > notice.next_seq
    writes = f"wrote seq {notice.next_seq}–{(notice.end_seq or 0) - 1}" if wrote else "wrote nothing"
    return mark(f"call {notice.label} ({writes})\n{notice.json}", body, class_="call-span", data_order=notice.order,
                data_next_seq=notice.next_seq, data_end_seq=notice.end_seq)


def notices(f: Frame, found: Highlight | None = None) -> list[str]:
    out: list[str] = []
    if f.live is None:
        return out
    out.append(label(8, f.live + ROW / 2 + 4, "live", class_="row-name"))
    if f.calls is not None:
        out.append(label(8, f.calls + ROW / 2 + 4, "calls", class_="row-name"))
    for column in f.layout.columns:
        notice = column.notice
        if notice is None:
            continue
        out.append(_notice(f, column, notice, found))
        if notice.kind == "op" and f.calls is not None:
            out.append(_call(f, column, notice))
    return out
