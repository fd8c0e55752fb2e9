"""Building a :class:`~loopspec.render.timeline.Timeline` from a log file (and its live recording).

:func:`build` makes one streaming pass (:func:`loopspec.render.scan.scan`: the model's folds over
the whole log, the window's bounds), reads the window's lines again to mark them, and puts the
parts together.  It never raises on bad log content: where the folds refuse an event the timeline
says so (:class:`~loopspec.render.timeline.Stop`) and draws the rest uninterpreted.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from loopspec.render import decisions, lanes
from loopspec.render.live import LiveRecords, read_live
from loopspec.render.marks import mark_window, read_window
from loopspec.render.scan import scan
from loopspec.render.timeline import Highlight, Timeline
from loopspec.render.window import WindowSpec


def build(
    path: Path,
    window: WindowSpec | None = None,
    *,
    live: Path | None = None,
    stop_before: int | None = None,
    highlight: Highlight | None = None,
    title: str | None = None,
) -> Timeline:
    """The timeline of ``path`` in ``window`` (default: the last few turns).

    ``stop_before`` leaves events from that seq on uninterpreted (a check page's violation);
    ``highlight`` marks the violation.  Raises ``OSError`` (and the decompressor's errors) only.
    """
    spec = window or WindowSpec()
    seen = scan(path, spec, stop_before)
    stop_seq = seen.stop.seq if seen.stop is not None else stop_before
    records = read_live(live, seen.first, seen.last) if live is not None else LiveRecords((), ())
    window_events = list(read_window(path, seen.offset, seen.first, seen.last))
    alone: set[int] = set()
    if highlight is not None:
        alone.update(highlight.context)
        if highlight.seq is not None:
            alone.add(highlight.seq)
    if stop_seq is not None:
        alone.add(stop_seq)
    breaks = {n.next_seq for n in records.notices}
    marked = mark_window(window_events, stop_seq, alone, breaks)
    bars = lanes.bars(seen)
    taken: dict[int, list[str]] = {}
    for bar in bars:
        if bar.left is not None:
            taken.setdefault(bar.left, []).append(bar.id)
    splices = tuple(attrs.evolve(s, removed=tuple(taken.get(s.seq, ()))) for s in marked.splices)
    found = records.decisions if live is not None else decisions.from_log(
        marked.events, seen.boundaries, seen.first, stop_seq)
    return Timeline(
        title=title or str(path),
        total=seen.total,
        first=seen.first,
        last=seen.last,
        events=marked.marks,
        splices=splices,
        bands=lanes.bands(seen),
        bars=bars,
        decisions=found,
        notices=records.notices,
        before=lanes.outside(seen, 0, seen.first - 1),
        after=lanes.outside(seen, seen.last + 1, seen.total - 1, stop_seq),
        stop=seen.stop,
        highlight=highlight,
        cut=stop_seq,
    )
