"""Drawing the upper rows: the events (with their axis labels), turn and step bands, decisions."""

from __future__ import annotations

from loopspec.render.frame import LABELS, ROW, Frame
from loopspec.render.svg_text import element, label, mark
from loopspec.render.timeline import Band, Decision, EventMark, Timeline

AXIS_CHARS = 34
CHAR = 6.2  # average advance of the 11px sans-serif face, to decide whether a label fits


def fits(content: str, width: float) -> bool:
    return len(content) * CHAR + 8 <= width


def grid(f: Frame) -> list[str]:
    """A faint vertical line per column, under everything else, so each mark can be traced to its label."""
    lines = [element("line", x1=c.x, y1=f.turns - 4, x2=c.x, y2=f.rows_bottom,
                     class_="grid" if c.kind == "event" else "notice-grid")
             for c in f.layout.columns if c.kind in ("event", "notice")]
    return [element("g", "".join(lines), class_="grid-lines")]


def _event(f: Frame, event: EventMark) -> str:
    column = f.column(event.first)
    y = f.events
    where = str(event.first) if event.count == 1 else f"{event.first}–{event.last}"
    caption = f"{where} {event.caption}".strip()
    body = element("rect", x=column.left + 3, y=y + 4, width=column.width - 6, height=ROW - 8, rx=3.0,
                   class_=f"ev cat-{event.category}")
    if event.count > 1:
        body += label(column.x, y + ROW / 2 + 4, str(event.count), class_="run-count")
    axis_y = f.turns - 6
    body += label(column.x + 3, axis_y, caption[:AXIS_CHARS], class_="axis",
                  transform=f"rotate(-60 {column.x + 3:.1f} {axis_y:.1f})")
    state = "" if event.interpreted else " (not interpreted)"
    tip = f"seq {where} {event.type} {event.summary}{state}\n{event.json}"
    return mark(tip, body, class_=f"event cat-{event.category}",
                data_first=event.first, data_last=event.last, data_x=column.x)


def events(f: Frame, timeline: Timeline) -> list[str]:
    return [_event(f, e) for e in timeline.events]


def _band_span(f: Frame, band: Band) -> tuple[float, float]:
    left = f.column(band.start).left if band.start is not None else f.layout.before.left
    right = f.column(band.end).right if band.end is not None else f.layout.after.right
    return left, right


def _band(f: Frame, band: Band) -> str:
    left, right = _band_span(f, band)
    y = f.turns if band.step is None else f.steps
    kind = "turn" if band.step is None else "step"
    reason = band.reason.split(" ")[0] if band.reason else "open"
    shown = band.label if fits(band.label, right - left) else (
        f"T{band.turn}" if band.step is None else f"{band.turn}.{band.step}")
    body = element("rect", x=left + 1, y=y + 2, width=max(2.0, right - left - 2), height=ROW - 4, rx=4.0,
                   class_=f"band-{kind} end-{reason}")
    body += label(left + 6, y + ROW / 2 + 4, shown if fits(shown, right - left) else "", class_="band-label")
    began = f"seq {band.start}" if band.start is not None else "before the window"
    ended = f"seq {band.end}" if band.end is not None else "after the window (or still open)"
    tip = f"{band.label}\nfrom {began} to {ended}"
    return mark(tip, body, class_=f"band {kind}", data_turn=band.turn, data_step=band.step,
                data_start=band.start, data_end=band.end, data_reason=band.reason)


def bands(f: Frame, timeline: Timeline) -> list[str]:
    return [_band(f, b) for b in timeline.bands]


def _decision(f: Frame, decision: Decision) -> str:
    if decision.source == "live":
        x = next((c.x for c in f.layout.columns if c.notice is not None and c.notice.json == decision.detail),
                 f.column(decision.seq).x)
    else:
        x = f.column(decision.seq).x
    y = f.decisions + ROW / 2
    size = 7.0
    points = f"{x:.1f},{y - size:.1f} {x + size:.1f},{y:.1f} {x:.1f},{y + size:.1f} {x - size:.1f},{y:.1f}"
    body = element("polygon", points=points, class_=f"dec-{decision.kind}")
    body += label(x + size + 3, y + 4, decision.label[:28], class_="dec-label")
    where = f"turn {decision.turn}, step {decision.step}" if decision.step else f"turn {decision.turn}"
    unknown = ("" if decision.written or decision.kind != "enter" else
               "\n? : the drawn events may not show every message entered (the step is still open where the "
               "drawing ends, or an abort came before v0.1.5 wrote the entries)")
    tip = f"pre-step decision ({decision.source}) at {where}: {decision.label}{unknown}\n{decision.detail}"
    return mark(tip, body, class_=f"decision decision-{decision.kind}" + (" entries-unknown" if unknown else ""),
                data_seq=decision.seq,
                data_source=decision.source)


def decisions(f: Frame, timeline: Timeline) -> list[str]:
    return [_decision(f, d) for d in timeline.decisions]


def row_names(f: Frame) -> list[str]:
    names = [("turns", f.turns), ("steps", f.steps), ("pre-step", f.decisions), ("events", f.events)]
    out = [label(8, y + ROW / 2 + 4, name, class_="row-name") for name, y in names]
    out.append(label(8, f.turns - LABELS + 14, "seq · event", class_="row-name"))
    return out
