"""The inbox operations as pure functions of :class:`InboxState` (spec areas SPLICE, NOTIFY, CLAIM).

Every public edit funnels into :func:`mutate`, as in the real ``ReactLoopInbox``: normalize,
elide no-ops, validate the candidate against both lists, and only then produce the durable
record and the notifications.  A refused edit raises :class:`CommandRefused` and produces
nothing, so callers never see a half-applied edit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import attrs

from loopspec.data.errors import CommandRefused
from loopspec.data.messages import InboxState, InboxTarget, MessageId, Messages, UserMessage
from loopspec.data.notifications import Claimed, Discarded, Inserted, Notification
from loopspec.inbox.normalize import JsNumber, normalize
from loopspec.log.events import InboxSpliced
from loopspec.log.kinds import SPLICED


@attrs.frozen
class InboxOutcome:
    """What one inbox operation did: new state, durable records in order, notifications in order.

    ``removed`` is the operation's return value for ``splice``/``claim`` (the messages taken
    out); ``found`` is the boolean that ``replace``/``remove`` return.
    """

    state: InboxState
    records: tuple[InboxSpliced, ...] = ()
    notifications: tuple[Notification, ...] = ()
    removed: Messages = ()
    found: bool = True
    trace: tuple[InboxSpliced | Notification, ...] = ()
    """Records and notifications interleaved in emission order (NOTIFY-4): each public record's
    notifications follow it before the next record; a claim's follow all of its records."""

    def then(self, later: InboxOutcome) -> InboxOutcome:
        """Sequence two outcomes; ``later`` must have been computed from ``self.state``."""
        return InboxOutcome(
            later.state,
            self.records + later.records,
            self.notifications + later.notifications,
            self.removed + later.removed,
            self.found and later.found,
            self.trace + later.trace,
        )


def first_duplicate(messages: Iterable[UserMessage]) -> MessageId | None:
    """The first id seen twice walking ``messages`` in order, else None (DATA-5)."""
    seen: set[MessageId] = set()
    for m in messages:
        if m.id in seen:
            return m.id
        seen.add(m.id)
    return None


def mutate(
    state: InboxState,
    target: InboxTarget,
    start: JsNumber,
    delete_count: JsNumber,
    inserted: Messages,
    *,
    canceled: bool,
) -> InboxOutcome:
    """The one write path.  ``canceled`` is true for public edits and false for claims.

    Contracts (checked by CrossHair, see docs/contracts.md): at most one record; no record means
    nothing changed (SPLICE-2); a refusal raises instead; removedCount only when positive (SPLICE-4);
    outcome exactly on public removals (SPLICE-6); the lane's length changes by inserted minus
    removed and the other lane is untouched; ids stay unique (DATA-5).

    raises: CommandRefused
    post: len(__return__.records) <= 1
    post: len(__return__.records) > 0 or (__return__.state == state and len(__return__.notifications) == 0)
    post: all(r.removed_count is None or r.removed_count > 0 for r in __return__.records)
    post: all((r.outcome == "canceled") == (canceled and r.removed > 0) for r in __return__.records)
    post: __return__.state.with_lane(target, state.lane(target)) == state
    post: all(r.inserted == inserted and r.removed == len(__return__.removed) for r in __return__.records)
    post: len(__return__.state.ids()) == len(state.ids()) + sum(len(r.inserted) - r.removed for r in __return__.records)
    post: len(set(state.ids())) < len(state.ids()) or len(set(__return__.state.ids())) == len(__return__.state.ids())
    """
    lane = state.lane(target)
    where = normalize(start, delete_count, len(lane))
    # SPLICE-2: an edit that removes nothing and inserts nothing is not written at all.
    if where.delete_count == 0 and not inserted:
        return InboxOutcome(state, removed=())
    end = where.start + where.delete_count
    candidate = lane[: where.start] + inserted + lane[end:]
    # SPLICE-3: ids must stay unique over the candidate plus the other list, checked before
    # writing; this also catches duplicates inside `inserted` and re-inserting a pending id.
    other = state.lane(InboxTarget.NEXT_STEP if target is InboxTarget.NEXT_TURN else InboxTarget.NEXT_TURN)
    walk = candidate + other if target is InboxTarget.NEXT_TURN else other + candidate
    dup = first_duplicate(walk)
    if dup is not None:
        raise CommandRefused("SPLICE-3", f'message "{dup}" is already pending')
    # NORM-5: JavaScript computes start -0 here; the session refuses -0 as JSON inside
    # `append`, which the real call reaches only after the duplicate walk above, so a -0
    # edit that also repeats an id fails with SPLICE-3.  Either way nothing is written.
    if where.negative_zero_start:
        # The real session's own text (real trace recordings: the refused call's error).
        raise CommandRefused("NORM-5", f'session event "{SPLICED}" carries non-JSON-serializable data')
    removed = lane[where.start : end]
    record = InboxSpliced(
        target=target,
        start=where.start,
        inserted=inserted,
        # SPLICE-4: removedCount is written only when something is removed.
        removed_count=where.delete_count or None,
        # SPLICE-6: outcome "canceled" marks exactly the public edits that removed something.
        outcome="canceled" if canceled and where.delete_count > 0 else None,
    )
    # NOTIFY-2: after the durable append, discarded (public edits only) then inserted, in list order.
    notes: tuple[Notification, ...] = tuple(Discarded(m) for m in removed) if canceled else ()
    notes += tuple(Inserted(m) for m in inserted)
    return InboxOutcome(state.with_lane(target, candidate), (record,), notes, removed, trace=(record, *notes))


def splice(
    state: InboxState, target: InboxTarget, start: JsNumber, delete_count: JsNumber, inserted: Messages = ()
) -> InboxOutcome:
    """Public ``splice``; returns the removed messages in ``removed`` (SPLICE-1)."""
    return mutate(state, target, start, delete_count, inserted, canceled=True)


def append(state: InboxState, target: InboxTarget, message: UserMessage) -> InboxOutcome:
    """``append(target, m)`` = ``splice(target, len, 0, [m])`` (SPLICE-1)."""
    return splice(state, target, len(state.lane(target)), 0, (message,))


def send_insert(state: InboxState, target: InboxTarget, message: UserMessage) -> InboxOutcome:
    """The insertion ``send`` performs: ``splice(target, +Infinity, 0, [m])`` (INPUT-1)."""
    return splice(state, target, math.inf, 0, (message,))


def prepend(state: InboxState, target: InboxTarget, message: UserMessage) -> InboxOutcome:
    """``prepend(target, m)`` = ``splice(target, 0, 0, [m])`` (SPLICE-1)."""
    return splice(state, target, 0, 0, (message,))


def locate(state: InboxState, message_id: MessageId) -> tuple[InboxTarget, int] | None:
    """Where a pending id sits, searching next-turn before next-step (SPLICE-7)."""
    for target in (InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP):
        for index, message in enumerate(state.lane(target)):
            if message.id == message_id:
                return target, index
    return None


def replace(state: InboxState, message_id: MessageId, new: UserMessage) -> InboxOutcome:
    """Replace a pending message; not pending → ``found=False``, no record (SPLICE-7).

    The identity may change, and the same id is allowed because the old message leaves the
    candidate before the duplicate walk (SPLICE-9).  As one splice of one message, it notifies
    ``discarded`` for the old message and then ``inserted`` for the new one (NOTIFY-3).
    """
    where = locate(state, message_id)
    if where is None:
        return InboxOutcome(state, found=False)
    return splice(state, where[0], where[1], 1, (new,))


def remove(state: InboxState, message_id: MessageId) -> InboxOutcome:
    """Remove a pending message as canceled; not pending → ``found=False``, no record."""
    where = locate(state, message_id)
    if where is None:
        return InboxOutcome(state, found=False)
    return splice(state, where[0], where[1], 1)


def clear(state: InboxState) -> InboxOutcome:
    """Cancel everything pending: next-step first, then next-turn (SPLICE-8).

    pre: len(set(state.ids())) == len(state.ids())
    post: len(__return__.state.ids()) == 0
    post: len(__return__.records) == (len(state.next_step) > 0) + (len(state.next_turn) > 0)
    post: len(state.next_step) == 0 or __return__.records[0].target is InboxTarget.NEXT_STEP
    post: len(state.next_turn) == 0 or __return__.records[-1].target is InboxTarget.NEXT_TURN
    """
    first = splice(state, InboxTarget.NEXT_STEP, 0, len(state.next_step))
    return first.then(splice(first.state, InboxTarget.NEXT_TURN, 0, len(first.state.next_turn)))


def claim(state: InboxState, target: InboxTarget, turn: int) -> InboxOutcome:
    """The loop's atomic ownership transfer of one boundary's batch (CLAIM-1 … CLAIM-4).

    All of next-step, then — only when ``target`` is next-turn, i.e. at a turn's first
    boundary — the first next-turn message.  Pure deletions without outcome; no discarded
    notification; one ``claimed`` per message after both records, in batch order.

    pre: len(set(state.ids())) == len(state.ids())
    post: len(__return__.state.next_step) == 0
    post: len(__return__.removed) == len(state.next_step) + min(len(state.next_turn), target is InboxTarget.NEXT_TURN)
    post: __return__.removed == state.next_step + (state.next_turn[:1] if target == InboxTarget.NEXT_TURN else ())
    post: __return__.state.next_turn == (state.next_turn[1:] if target == InboxTarget.NEXT_TURN else state.next_turn)
    post: all(r.start == 0 and r.outcome is None and len(r.inserted) == 0 for r in __return__.records)
    post: tuple(n.message for n in __return__.notifications) == __return__.removed
    """
    taken = mutate(state, InboxTarget.NEXT_STEP, 0, len(state.next_step), (), canceled=False)
    if target is InboxTarget.NEXT_TURN:
        taken = taken.then(mutate(taken.state, InboxTarget.NEXT_TURN, 0, 1, (), canceled=False))
    # CLAIM-4: claimed notifications come after every claim record, one per message, batch order.
    notes = tuple(Claimed(m, turn) for m in taken.removed)
    return InboxOutcome(taken.state, taken.records, notes, taken.removed, trace=taken.records + notes)
