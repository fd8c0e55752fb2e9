"""One streaming pass over a log: the model's folds over the whole log, the window's bounds.

The per-message fates are :func:`loopspec.loop.consumed_work.message_fates`' (WORK-2), folded by
its twin over parsed JSON (:class:`loopspec.render.fates.FateFold`, held to it by the tests); the
turn and step boundaries go through :func:`loopspec.loop.projection.apply`, so a log the
projection or the inbox fold refuses stops the reading where it does.  Nothing outside the
window is kept beyond what these folds need: the boundaries (a few ints per turn), the target
of each insertion and where each id was entered.  :func:`scan` returns a :class:`Scan` value.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import BinaryIO

import attrs

from loopspec.data.errors import InvalidEvent
from loopspec.data.json_value import freeze
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import SPLICED, STEP_END, STEP_START, TURN_END, TURN_START, USER_MESSAGE
from loopspec.loop import projection
from loopspec.loop.consumed_work import MessageFate
from loopspec.loop.state import LifecycleView
from loopspec.render.fates import FateFold
from loopspec.render.labels import reason_label
from loopspec.render.source import FoldLines, boundary_event, check_depth, open_source, read_folded
from loopspec.render.timeline import Stop
from loopspec.render.window import Bounds, WindowSpec

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
    ranks: tuple[tuple[tuple[str, int], float], ...] = ()
    """Each insertion's (id, seq) place in its list (:class:`~loopspec.render.fates.FateFold`)."""


class _Pass:
    """The pass's private accumulator (like :class:`~loopspec.inbox.fold.InboxProjector`)."""

    def __init__(self, spec: WindowSpec, limit: int | None) -> None:
        self.bounds = Bounds(spec)
        self.limit = -1 if limit is None else limit
        self.total = 0
        self.view = LifecycleView()
        self.fates = FateFold()
        self.boundaries: list[Boundary] = []
        self.targets: dict[int, str] = {}
        self.entries: dict[str, list[Entry]] = {}
        self.stop: Stop | None = None

    def read(self, stream: BinaryIO) -> None:
        """Every line: the folded ones through the folds, up to the first they refuse; the rest counted."""
        bounds, limit, fates, targets = self.bounds, self.limit, self.fates, self.targets
        lines = FoldLines(stream, bounds.range_start())
        found = iter(lines)
        for index, offset, line in found:
            if index == limit:
                break
            try:
                read = read_folded(line, index)
                if read is None:
                    continue
                etype, time, data = read
                if etype == SPLICED:
                    check_depth(data, len(line), index)
                    target = fates.splice(data, index)  # FOLD-1..3, DATA-2; raises InvalidEvent
                    if target is not None:
                        targets[index] = target
                elif etype == USER_MESSAGE:
                    if type(data) is dict:  # message_fates reads an object's id as str(id), whatever it is
                        mid = data.get("id")
                        self.entered(mid if type(mid) is str else _id_text(mid), index)
                else:
                    self.boundary(boundary_event(etype, index, time, data), data)
            except InvalidEvent as err:
                self.stop = Stop(index, err.rule, err.detail, err.seq)
                break
            if etype == TURN_END:
                bounds.turn_ended(index + 1, offset + len(line))
            elif etype == TURN_START:
                bounds.turn_started()
        for _ in found:  # only counted from here: the window may still reach past a stop
            pass
        self.total = lines.total
        if bounds.range_start() >= 0:
            bounds.at(bounds.range_start(), lines.offset_of)

    def entered(self, mid: str, seq: int) -> None:
        """A ``user/message``: where it stands in the lifecycle, and the fates' entry (WORK-2)."""
        self.entries.setdefault(mid, []).append((seq, self.view.open_turn, self.view.open_step))
        self.fates.entered(mid)

    def boundary(self, event: SessionEvent, data: object) -> None:
        """A ``turn/*`` or ``step/*`` event through the projection, then the fates' open turn."""
        self.view = projection.apply(self.view, event)  # TURN-1..3, STEP-1, STEP-2; raises InvalidEvent
        assert isinstance(data, dict)  # the projection has read a safe integer turn (and step) off it
        etype, turn = event.type, data["turn"]
        step = data["step"] if etype in (STEP_START, STEP_END) else None
        reason = None
        if etype == TURN_START:
            self.fates.turn_started(turn)
        elif etype == TURN_END:
            self.fates.turn_ended()
            reason = reason_label(data.get("reason"))
        self.boundaries.append((event.seq, etype, turn, step, reason))


def _id_text(value: object) -> str:
    try:
        return str(freeze(value))
    except RecursionError:  # no message id reads like this
        return "\0nested"


def scan(path: Path, spec: WindowSpec, stop_before: int | None = None) -> Scan:
    """Read ``path`` once; interpret nothing from ``stop_before`` on.

    raises: OSError, EOFError, zlib.error for an unreadable file (the caller reports them).
    """
    state = _Pass(spec, stop_before)
    collecting = gc.isenabled()
    gc.disable()  # the pass allocates no cycles; collections would only cost time on long logs
    try:
        with open_source(path) as stream:
            state.read(stream)
    finally:
        if collecting:
            gc.enable()
    first, offset, last = state.bounds.window(state.total)
    return Scan(
        total=state.total, first=first, offset=offset, last=last, fates=state.fates.result(),
        boundaries=tuple(state.boundaries), targets=tuple(state.targets.items()),
        entries=tuple((k, tuple(v)) for k, v in state.entries.items()), stop=state.stop,
        ranks=state.fates.rank_list(),
    )
