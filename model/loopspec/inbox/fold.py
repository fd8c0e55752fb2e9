"""The inbox projection fold over durable ``agent/inbox/spliced`` records (spec area FOLD).

:func:`apply` is the normative one-event fold on frozen state.  :func:`replay` folds a whole log
from the empty state with :class:`InboxProjector`, a private mutable accumulator whose per-event
cost does not grow with the number of pending messages for the splices the loop writes (append
at the end, claim or cancel at the front); ``tests`` prove it equals folding :func:`apply`.
"""

from __future__ import annotations

from collections.abc import Iterable

from loopspec.data.errors import InvalidEvent
from loopspec.data.json_value import Frozen, freeze
from loopspec.data.messages import EMPTY_INBOX, InboxState, InboxTarget, MessageId, UserMessage
from loopspec.inbox.lane import Lane
from loopspec.inbox.operations import first_duplicate
from loopspec.log.events import InboxSpliced, SessionEvent
from loopspec.log.kinds import SPLICED
from loopspec.log.reader import EventReader


def _check_range(splice: InboxSpliced, length: int, seq: int) -> None:
    # FOLD-2: safe-integer, in-range coordinates: 0 <= start <= len, 0 <= removed, start + removed <= len.
    if not (0 <= splice.start <= length and splice.removed >= 0 and splice.start + splice.removed <= length):
        raise InvalidEvent(
            "FOLD-2",
            f"invalid inbox splice: start {splice.start}, removedCount {splice.removed} "
            f"do not fit {splice.target.value} of length {length}",
            seq,
        )


def _duplicate_error(dup: MessageId, seq: int) -> InvalidEvent:
    return InvalidEvent("FOLD-3", f'message "{dup}" is already pending after this splice', seq)


def apply(state: InboxState, event: SessionEvent) -> InboxState:
    """Fold one durable event into the inbox (FOLD-1 … FOLD-4).

    Every type other than ``agent/inbox/spliced`` returns ``state`` itself (FOLD-4); a splice
    that does not fit raises :class:`InvalidEvent` naming the event's seq.
    ``outcome`` is bookkeeping for consumed work and does not affect the fold.

    raises: InvalidEvent
    post: event.type == SPLICED or __return__ is state
    post: event.type != SPLICED or len(set(__return__.ids())) == len(__return__.ids())
    post: __return__.next_turn == state.next_turn or __return__.next_step == state.next_step
    """
    if event.type != SPLICED:
        return state
    splice = InboxSpliced.from_data(event.data, event.seq)
    lane = state.lane(splice.target)
    _check_range(splice, len(lane), event.seq)
    candidate = lane[: splice.start] + splice.inserted + lane[splice.start + splice.removed :]
    # FOLD-3: ids unique over the new target list plus the other list (same walk as SPLICE-3).
    walk = candidate + state.next_step if splice.target is InboxTarget.NEXT_TURN else state.next_turn + candidate
    dup = first_duplicate(walk)
    if dup is not None:
        raise _duplicate_error(dup, event.seq)
    return state.with_lane(splice.target, candidate)


class InboxProjector:
    """Mutable twin of :func:`apply` for folding long logs; never part of the model's state."""

    __slots__ = ("ids", "lanes")

    def __init__(self, state: InboxState = EMPTY_INBOX) -> None:
        self.lanes = {
            InboxTarget.NEXT_TURN: Lane(state.next_turn),
            InboxTarget.NEXT_STEP: Lane(state.next_step),
        }
        self.ids: set[MessageId] = set(state.ids())

    def lane_length(self, target: InboxTarget) -> int:
        return len(self.lanes[target])

    def state(self) -> InboxState:
        lanes = self.lanes
        return InboxState(tuple(lanes[InboxTarget.NEXT_TURN].view()), tuple(lanes[InboxTarget.NEXT_STEP].view()))

    def feed_splice(self, splice: InboxSpliced, seq: int) -> list[UserMessage]:
        """Apply one parsed splice; returns the removed messages.  Same errors as :func:`apply`."""
        lane = self.lanes[splice.target]
        _check_range(splice, len(lane), seq)
        if splice.inserted:
            leaving = {m.id for m in lane.items[lane.head + splice.start : lane.head + splice.start + splice.removed]}
            fresh: set[MessageId] = set()
            for m in splice.inserted:
                if m.id in fresh or (m.id in self.ids and m.id not in leaving):
                    # Rare error path: recompute with the normative walk so the reported id matches.
                    state = self.state()
                    try:
                        apply(state, SessionEvent(SPLICED, seq, 0, _data_of(splice)))
                    except InvalidEvent as err:
                        raise err from None
                    raise AssertionError("fast and normative duplicate checks disagree")  # pragma: no cover
                fresh.add(m.id)
        taken = lane.splice(splice.start, splice.removed, splice.inserted)
        for m in taken:
            self.ids.discard(m.id)
        for m in splice.inserted:
            self.ids.add(m.id)
        return taken

    def feed(self, event: SessionEvent) -> None:
        if event.type == SPLICED:
            self.feed_splice(InboxSpliced.from_data(event.data, event.seq), event.seq)


def _data_of(splice: InboxSpliced) -> Frozen:
    return freeze(splice.to_json())


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
