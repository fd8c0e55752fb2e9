"""The inbox projection fold over durable ``agent/inbox/spliced`` records (spec area FOLD).

:func:`apply` is the one-event fold on frozen state, :func:`replay` folds a whole log from the
empty state; both run the one fold, :class:`loopspec.inbox.pending.PendingLists` (which the
checker's fold over parsed JSON runs too), through :class:`InboxProjector`, a private mutable
accumulator whose per-event cost does not grow with the number of pending messages for the
splices the loop writes (append at the end, claim or cancel at the front).
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import attrgetter
from typing import NamedTuple

from loopspec.data.errors import InvalidEvent  # noqa: F401 (apply's raises: contract names it)
from loopspec.data.messages import EMPTY_INBOX, InboxState, Messages, UserMessage
from loopspec.inbox.pending import NEXT_STEP, NEXT_TURN, PendingLists
from loopspec.log.events import InboxSpliced, SessionEvent
from loopspec.log.kinds import SPLICED
from loopspec.log.reader import EventReader


def apply(state: InboxState, event: SessionEvent) -> InboxState:
    """Fold one durable event into the inbox (FOLD-1 … FOLD-4).

    Every type other than ``agent/inbox/spliced`` returns ``state`` itself (FOLD-4); a splice
    that does not fit raises :class:`InvalidEvent` naming the event's seq.
    ``outcome`` is bookkeeping for consumed work and does not affect the fold.
    One step of the fold :func:`replay` runs: the splice is decoded (FOLD-1) and applied by
    :class:`InboxProjector` (FOLD-2, FOLD-3), started from ``state``.

    ``state`` is an inbox the fold can have made: no id twice across both lists (DATA-5).

    pre: len(set(state.ids())) == len(state.ids())
    raises: InvalidEvent
    post: event.type == SPLICED or __return__ is state
    post: event.type != SPLICED or len(set(__return__.ids())) == len(__return__.ids())
    post: __return__.next_turn == state.next_turn or __return__.next_step == state.next_step
    """
    if event.type != SPLICED:
        return state
    projector = InboxProjector(state)
    projector.feed_splice(InboxSpliced.from_data(event.data, event.seq), event.seq)
    return projector.state()


class _Placed(NamedTuple):
    """A decoded splice as the fold places it (:class:`loopspec.inbox.pending.Placement`)."""

    target: str
    start: int
    removed_n: int
    inserted: Messages


class InboxProjector:
    """The projection fold over model values: decoded splices into :class:`PendingLists` of messages."""

    __slots__ = ("lists",)

    def __init__(self, state: InboxState = EMPTY_INBOX) -> None:
        self.lists: PendingLists[UserMessage] = PendingLists(attrgetter("id"), state.next_turn, state.next_step)

    def state(self) -> InboxState:
        lanes = self.lists.lanes
        return InboxState(tuple(lanes[NEXT_TURN].view()), tuple(lanes[NEXT_STEP].view()))

    def feed_splice(self, splice: InboxSpliced, seq: int) -> list[UserMessage]:
        """Apply one decoded splice (FOLD-2, FOLD-3); returns the removed messages."""
        placed = _Placed(splice.target.value, splice.start, splice.removed, splice.inserted)
        self.lists.check_splice(placed.target, placed.start, placed.removed_n, placed.inserted, seq)
        return self.lists.apply_splice(placed)

    def feed(self, event: SessionEvent) -> None:
        if event.type == SPLICED:
            self.feed_splice(InboxSpliced.from_data(event.data, event.seq), event.seq)


def replay(events: Iterable[SessionEvent]) -> InboxState:
    """Fold a whole log from the empty inbox (FOLD-5); raises on the first invalid splice.

    From a log file (:class:`EventReader`) only the splices are built as events: every other line
    is still validated as an envelope (LOG-1) in order, but its data, which this fold ignores
    (FOLD-4), is never frozen.  Errors and result are those of folding every event.
    """
    projector = InboxProjector()
    for event in events.only(SPLICED) if isinstance(events, EventReader) else events:
        projector.feed(event)
    return projector.state()
