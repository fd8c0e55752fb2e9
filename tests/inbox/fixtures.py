"""Shared helpers of the inbox tests: an independent statement of the projection fold, as an oracle.

The model folds every splice through :class:`loopspec.inbox.pending.PendingLists` (a list with a
moving head and a set of pending ids), whether one event at a time (:func:`fold.apply`) or a whole
log (:func:`fold.replay`).  :func:`reference_apply` states the same fold the plainest way — tuple
slices and a walk for duplicate ids — so the tests compare the one fold against something that
shares none of its code.
"""

from __future__ import annotations

from loopspec.data.errors import InvalidEvent
from loopspec.data.messages import InboxState, InboxTarget
from loopspec.inbox.operations import first_duplicate
from loopspec.log.events import SPLICED, InboxSpliced, SessionEvent


def reference_apply(state: InboxState, event: SessionEvent) -> InboxState:
    """FOLD-1 … FOLD-4 on tuples: what :func:`loopspec.inbox.fold.apply` must give, or raise."""
    if event.type != SPLICED:
        return state
    splice = InboxSpliced.from_data(event.data, event.seq)
    lane = state.lane(splice.target)
    start, removed = splice.start, splice.removed
    if not (0 <= start <= len(lane) and removed >= 0 and start + removed <= len(lane)):
        raise InvalidEvent(
            "FOLD-2",
            f"invalid inbox splice: start {start}, removedCount {removed} "
            f"do not fit {splice.target.value} of length {len(lane)}",
            event.seq,
        )
    candidate = lane[:start] + splice.inserted + lane[start + removed :]
    walk = candidate + state.next_step if splice.target is InboxTarget.NEXT_TURN else state.next_turn + candidate
    dup = first_duplicate(walk)
    if dup is not None:
        raise InvalidEvent("FOLD-3", f'message "{dup}" is already pending after this splice', event.seq)
    return state.with_lane(splice.target, candidate)
