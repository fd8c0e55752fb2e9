"""One streaming pass over a log: the model's folds over the whole log, the window's bounds.

The per-message fates are :func:`loopspec.loop.consumed_work.message_fates` itself (which folds
the inbox with :class:`loopspec.inbox.fold.InboxProjector`), fed lazily from the file; the turn
and step boundaries go through :func:`loopspec.loop.projection.apply`, so a log the projection
refuses stops the reading where it does.  Nothing outside the window is kept beyond what these
folds need: the boundaries (a few ints per turn), the target of each insertion and where each
id was entered.  :func:`scan` returns a :class:`Scan` value.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import attrs

from loopspec.data.errors import InvalidEvent
from loopspec.data.json_value import JsonObject
from loopspec.log.events import SPLICED, SessionEvent
from loopspec.loop import projection
from loopspec.loop.consumed_work import MessageFate, message_fates
from loopspec.loop.records import STEP_END, STEP_START, TURN_END, TURN_START, USER_MESSAGE
from loopspec.loop.state import LifecycleView
from loopspec.render.labels import reason_label
from loopspec.render.source import FOLDED, FoldLines, envelope_type, fold_event, open_source, parse
from loopspec.render.timeline import Stop
from loopspec.render.window import Bounds, WindowSpec

FATES_READ = frozenset({SPLICED, TURN_START, TURN_END, USER_MESSAGE})
"""What :func:`message_fates` reads; the projection also reads ``step/*``."""

Boundary = tuple[int, str, int, int | None, str | None]
"""A ``turn/*`` or ``step/*`` event: (seq, type, turn, step, turn end reason label)."""


Entry = tuple[int, int | None, int | None]
"""A ``user/message`` the fates read: (seq, open turn, open step)."""


@attrs.frozen
class Scan:
    """What one pass learned: the log's length, the window, the fates and the boundaries."""

    total: int
    first: int
    offset: int
    last: int
    fates: tuple[MessageFate, ...]
    boundaries: tuple[Boundary, ...]
    targets: tuple[tuple[int, str], ...]
    entries: tuple[tuple[str, tuple[Entry, ...]], ...]
    stop: Stop | None


class _Pass:
    """The pass's private accumulator (like :class:`~loopspec.inbox.fold.InboxProjector`)."""

    def __init__(self, spec: WindowSpec, limit: int | None) -> None:
        self.bounds = Bounds(spec)
        self.limit = -1 if limit is None else limit
        self.total = 0
        self.view = LifecycleView()
        self.boundaries: list[Boundary] = []
        self.targets: dict[int, str] = {}
        self.entries: dict[str, list[Entry]] = {}
        self.stop: Stop | None = None

    def events(self, stream: BinaryIO) -> Iterator[SessionEvent]:
        """The events the fates read, in order; everything else is seen and counted on the way."""
        bounds, limit = self.bounds, self.limit
        lines = FoldLines(stream, bounds.range_start())
        found = iter(lines)
        for index, offset, line in found:
            if index == limit:
                break
            try:
                raw = parse(line, index)
                etype = envelope_type(raw, index)
                if etype not in FOLDED:
                    continue
                event = fold_event(raw, etype, index)
                self.lifecycle(event, raw)
            except InvalidEvent as err:
                self.stop = Stop(index, err.rule, err.detail)
                break
            if etype == TURN_END:
                bounds.turn_ended(index + 1, offset + len(line))
            elif etype == TURN_START:
                bounds.turn_started()
            if etype in FATES_READ:
                yield event
        for _ in found:  # only counted from here: the window may still reach past a stop
            pass
        self.total = lines.total
        if bounds.range_start() >= 0:
            bounds.at(bounds.range_start(), lines.offset_of)

    def lifecycle(self, event: SessionEvent, raw: object) -> None:
        etype = event.type
        if etype == SPLICED:
            data = raw.get("data") if isinstance(raw, dict) else None
            if isinstance(data, dict) and data.get("inserted"):
                self.targets[event.seq] = str(data.get("target"))
            return
        if etype == USER_MESSAGE:
            mid = event.data.get("id") if isinstance(event.data, JsonObject) else None
            self.entries.setdefault(str(mid), []).append((event.seq, self.view.open_turn, self.view.open_step))
            return
        self.view = projection.apply(self.view, event)  # TURN-1..3, STEP-1, STEP-2; raises InvalidEvent
        data = raw.get("data") if isinstance(raw, dict) else None
        step = data.get("step") if isinstance(data, dict) and etype in (STEP_START, STEP_END) else None
        turn = data.get("turn") if isinstance(data, dict) else None
        reason = reason_label(data.get("reason")) if etype == TURN_END and isinstance(data, dict) else None
        self.boundaries.append((event.seq, etype, int(turn) if isinstance(turn, int | float) else 0,
                                int(step) if isinstance(step, int | float) else None, reason))


def _run(path: Path, spec: WindowSpec, limit: int | None) -> tuple[_Pass, tuple[MessageFate, ...]]:
    state = _Pass(spec, limit)
    with open_source(path) as stream:
        fates = message_fates(state.events(stream))
    return state, fates


def scan(path: Path, spec: WindowSpec, stop_before: int | None = None) -> Scan:
    """Read ``path`` once (twice when the fold refuses a splice); interpret nothing from ``stop_before`` on.

    raises: OSError, EOFError, zlib.error for an unreadable file (the caller reports them).
    """
    collecting = gc.isenabled()
    gc.disable()  # the pass allocates no cycles; collections would only cost time on long logs
    try:
        try:
            state, fates = _run(path, spec, stop_before)
        except InvalidEvent as err:  # the fold refused a splice (FOLD-1..3, DATA-2): read up to it
            limit = err.seq if err.seq is not None else 0
            state, fates = _run(path, spec, limit)
            state.stop = Stop(limit, err.rule, err.detail)
    finally:
        if collecting:
            gc.enable()
    first, offset, last = state.bounds.window(state.total)
    return Scan(
        total=state.total, first=first, offset=offset, last=last, fates=fates,
        boundaries=tuple(state.boundaries), targets=tuple(state.targets.items()),
        entries=tuple((k, tuple(v)) for k, v in state.entries.items()), stop=state.stop,
    )
