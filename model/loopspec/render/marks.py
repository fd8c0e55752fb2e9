"""The window's events as marks: every event gets one (a run of like model events shares one).

The window's lines are read again from the byte offset the pass remembered and parsed in full;
a line that is not an event is still drawn (``unreadable``).  Consecutive events of one type the
picture has nothing to say about (streamed chunks, request records, foreign events) fold into one
*run* mark, unless something is placed between them (a live record, a highlighted event).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path

import attrs

from loopspec.check.describe import summarize
from loopspec.data.errors import InvalidEvent
from loopspec.log.kinds import SPLICED
from loopspec.render.labels import category, event_json, message_ids, splice_kind
from loopspec.render.source import open_source, parse
from loopspec.render.timeline import EventMark, SpliceMark

RUN_CATEGORIES = frozenset({"model", "other"})
MIN_RUN = 3


@attrs.frozen
class Seen:
    """One window event as parsed: its line index, type and data (None when unreadable)."""

    index: int
    type: str
    data: object
    json: str


@attrs.frozen
class WindowEvents:
    events: tuple[Seen, ...]
    marks: tuple[EventMark, ...]
    splices: tuple[SpliceMark, ...]


def read_window(path: Path, offset: int, first: int, last: int) -> Iterator[Seen]:
    """The events of lines ``first``..``last``, reading from byte ``offset`` (where line ``first`` starts)."""
    if last < first:
        return
    with open_source(path) as stream:
        stream.seek(offset)
        for index, line in enumerate(stream, start=first):
            text = line.decode("utf-8", errors="replace")
            try:
                raw = parse(line, index)
            except InvalidEvent as err:
                yield Seen(index, "unreadable line", None, f"{err.detail}: {event_json(text)}")
            else:
                etype = raw.get("type") if isinstance(raw, dict) else None
                data = raw.get("data") if isinstance(raw, dict) else None
                shown = etype if isinstance(etype, str) else f"<{type(raw).__name__}>"
                yield Seen(index, shown, data, event_json(text))
            if index >= last:
                return


def _caption(seen: Seen, summary: str) -> str:
    if seen.type == SPLICED and isinstance(seen.data, dict):
        ids = message_ids(seen.data.get("inserted"))
        shown = f" [{', '.join(ids)}]" if ids else ""
        return f"{splice_kind(seen.data)} {seen.data.get('target')}{shown}"
    return f"{seen.type} {summary}".strip()


def _mark(seen: Seen, interpreted: bool) -> EventMark:
    kind = "unreadable" if seen.data is None and seen.type == "unreadable line" else category(seen.type)
    summary = summarize({"type": seen.type, "data": seen.data})
    return EventMark(seen.index, seen.index, seen.type, kind, summary, seen.json, interpreted,
                     _caption(seen, summary))


def _run(run: list[Seen], interpreted: bool) -> EventMark:
    head, tail = run[0], run[-1]
    text = f"{len(run)} events, seq {head.index}–{tail.index}; first: {head.json}\nlast: {tail.json}"
    return EventMark(head.index, tail.index, head.type, category(head.type), f"×{len(run)}", text, interpreted,
                     f"{head.type} ×{len(run)}")


def mark_window(seen: list[Seen], stop: int | None, alone: Collection[int], breaks: Collection[int]) -> WindowEvents:
    """Marks for ``seen``.

    An index in ``alone`` (a highlighted event) gets its own mark; a run does not continue into an
    index of ``breaks`` (something is placed right before it) nor across ``stop``.
    """
    marks: list[EventMark] = []
    splices: list[SpliceMark] = []
    run: list[Seen] = []

    def interpreted(index: int) -> bool:
        return stop is None or index < stop

    def flush() -> None:
        if len(run) >= MIN_RUN:
            marks.append(_run(run, interpreted(run[0].index)))
        else:
            marks.extend(_mark(s, interpreted(s.index)) for s in run)
        run.clear()

    for s in seen:
        joins = (run and s.type == run[-1].type and s.index not in breaks
                 and interpreted(s.index) == interpreted(run[-1].index))
        if not joins:
            flush()
        if category(s.type) in RUN_CATEGORIES and s.index not in alone:
            run.append(s)
            continue
        flush()
        marks.append(_mark(s, interpreted(s.index)))
        if s.type == SPLICED and interpreted(s.index) and isinstance(s.data, dict):
            target = s.data.get("target")
            splices.append(SpliceMark(s.index, str(target), splice_kind(s.data), message_ids(s.data.get("inserted")),
                                      (), s.json))
    flush()
    return WindowEvents(tuple(seen), tuple(marks), tuple(splices))
