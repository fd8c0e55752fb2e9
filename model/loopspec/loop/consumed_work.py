"""Consumed-work accounting from the log alone (spec area WORK).

:func:`fold_consumed_work` is the real ``foldConsumedWork`` (real-behaviour §7): which turn last
*accounted* for work, and whether queued work was dropped unrun after it.  :func:`message_fates`
goes further and gives every inserted message its one fate — pending, claimed (by which turn,
entered into a step or dropped by the decision) or canceled — which WORK-2's conservation
invariant is stated over.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import attrs

from loopspec.data.json_value import JsonObject
from loopspec.data.messages import MessageId
from loopspec.inbox.fold import InboxProjector
from loopspec.log.events import InboxSpliced, SessionEvent
from loopspec.log.kinds import SPLICED, STEP_START, TURN_END, TURN_START, USER_MESSAGE
from loopspec.loop.records import COMPLETED, reason_kind


@attrs.frozen
class ConsumedWork:
    """``{end?, droppedUnrun}``: the last accounting ``turn/end`` event, and whether work was dropped after it."""

    end: SessionEvent | None = None
    dropped_unrun: bool = False


def _int_field(event: SessionEvent, key: str) -> int | None:
    value = event.data.get(key) if isinstance(event.data, JsonObject) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def fold_consumed_work(events: Iterable[SessionEvent]) -> ConsumedWork:
    """WORK-1: a turn accounts iff it opened a step, or it claimed and did not end ``completed``.

    Contracts (checked by CrossHair, see docs/contracts.md; they read ``events`` as a sequence):
    ``end`` is one of the given ``turn/end`` events, and there is none without one; the last
    event being the accounting ``turn/end`` means nothing was dropped after it; work is dropped
    only through a canceled splice; a ``completed`` end accounts only through a step of its turn;
    events of other types (``step/end``, messages, tools) change nothing.

    post: __return__.end is None or (__return__.end.type == TURN_END and any(e is __return__.end for e in events))
    post: any(e.type == TURN_END for e in events) or __return__.end is None
    post: len(events) == 0 or __return__.end is not events[-1] or not __return__.dropped_unrun
    post: not __return__.dropped_unrun or any(e.type == SPLICED and isinstance(e.data, JsonObject) and e.data.get("outcome") == "canceled" for e in events)
    post: __return__.end is None or reason_kind(__return__.end.data.get("reason")) != COMPLETED or any(e.type == STEP_START and _int_field(e, "turn") == _int_field(__return__.end, "turn") for e in events)
    post: __return__ == fold_consumed_work(e for e in events if e.type in (TURN_START, STEP_START, SPLICED, TURN_END))
    """  # noqa: E501 (PEP 316 conditions are one line each)
    stepped: set[int] = set()
    claimed: set[int] = set()
    open_turn: int | None = None
    end: SessionEvent | None = None
    dropped = False
    # A chain over event types, not a registry: CrossHair checks the contracts above by executing
    # this loop symbolically (scripts/crosshair.sh), and a branch per type keeps each path one
    # comparison on the symbolic type; a registry's lookup and a state record would multiply its work.
    for event in events:
        if event.type == TURN_START:
            open_turn = _int_field(event, "turn")
        elif event.type == STEP_START:
            turn = _int_field(event, "turn")
            if turn is not None:
                stepped.add(turn)
        elif event.type == SPLICED:
            data = event.data if isinstance(event.data, JsonObject) else JsonObject(())
            if "removedCount" not in data:
                continue  # a pure insertion consumes nothing
            if data.get("outcome") == "canceled":
                inserted = data.get("inserted")
                dropped = dropped or not inserted  # a replacement is not a drop
            elif open_turn is not None:
                claimed.add(open_turn)  # a claim with no open turn is credited to nobody
        elif event.type == TURN_END:
            open_turn = None
            turn = _int_field(event, "turn")
            kind = reason_kind(event.data.get("reason") if isinstance(event.data, JsonObject) else None)
            # The real code short-circuits: a stepped turn does not remove its entry from `claimed`.
            accounts = turn in stepped
            if accounts:
                stepped.discard(turn)
            elif turn in claimed:
                claimed.discard(turn)
                accounts = kind != COMPLETED
            if accounts:
                end, dropped = event, False
    return ConsumedWork(end, dropped)


Fate = Literal["pending", "claimed", "canceled"]


@attrs.frozen
class MessageFate:
    """The fate of one insertion of a message (an id may be inserted again after it left)."""

    id: MessageId
    inserted_seq: int
    fate: Fate = "pending"
    left_seq: int | None = None
    turn: int | None = None
    entered: bool = False


def message_fates(events: Iterable[SessionEvent]) -> tuple[MessageFate, ...]:
    """WORK-2: every insertion's single fate, in insertion order, from the log alone.

    A claimed message is *entered* when its turn writes a ``user/message`` with its id after the
    claim, and *dropped* otherwise (the decision rewrote it away, rejected, or failed).

    Contracts (checked by CrossHair, see docs/contracts.md), for a log whose ``seq`` is the index
    (LOG-2) and whose splices fold (FOLD-1 … FOLD-3; otherwise ``InvalidEvent``): one fate per
    inserted message, in insertion order, with the inserting splice's seq; the pending fates are
    exactly the messages the fold leaves pending; a fate has left (``left_seq``) unless pending,
    after it was inserted, and is ``canceled`` exactly when the splice that took it was canceled;
    only a claimed fate has a turn or is entered, and an entered one has a later ``user/message``.

    pre: all(e.seq == i for i, e in enumerate(events))
    pre: all(p.feed(e) is None for p in [InboxProjector()] for e in events)
    post: [f.id for f in __return__] == [MessageId(m["id"]) for e in events if e.type == SPLICED for m in e.data["inserted"]]
    post: [f.inserted_seq for f in __return__] == [e.seq for e in events if e.type == SPLICED for _ in e.data["inserted"]]
    post: sorted(f.id for f in __return__ if f.fate == "pending") == sorted(__import__("loopspec.inbox.fold").inbox.fold.replay(events).ids())
    post: all((f.fate == "pending") == (f.left_seq is None) for f in __return__)
    post: all(f.left_seq is None or f.left_seq > f.inserted_seq for f in __return__)
    post: all(f.left_seq is None or (events[f.left_seq].data.get("outcome") == "canceled") == (f.fate == "canceled") for f in __return__)
    post: all(f.fate == "claimed" or (f.turn is None and not f.entered) for f in __return__)
    post: all(not f.entered or any(e.type == USER_MESSAGE and e.seq > f.left_seq and isinstance(e.data, JsonObject) and e.data.get("id") == f.id.value for e in events) for f in __return__)
    """  # noqa: E501 (PEP 316 conditions are one line each)
    projector = InboxProjector()
    ledger = FateLedger()
    for event in events:  # a chain for CrossHair, as in fold_consumed_work
        if event.type == TURN_START:
            ledger.turn_started(_int_field(event, "turn"))
        elif event.type == TURN_END:
            ledger.turn_ended()
        elif event.type == USER_MESSAGE and isinstance(event.data, JsonObject):
            ledger.entered(str(event.data.get("id")))
        elif event.type == SPLICED:
            splice = InboxSpliced.from_data(event.data, event.seq)
            taken = projector.feed_splice(splice, event.seq)
            ledger.moved([m.id.value for m in taken], [m.id.value for m in splice.inserted], event.seq,
                         canceled=splice.outcome == "canceled")
    return ledger.result()


# A fate while a fold runs: [id, inserted seq, fate, left seq, turn, entered] (MessageFate's fields).
_Open = list[object]


class FateLedger:
    """The one fate fold (WORK-2), fed what a log says one event at a time.

    :func:`message_fates` feeds it from frozen events, :class:`loopspec.render.fates.FateFold`
    from parsed JSON; either tells it each turn's start and end, each ``user/message`` (``entered``)
    and, for each splice its inbox fold accepted, the ids it removed and inserted (``moved``).  A
    fate is a mutable list until :meth:`result`: a pass over a long log pays for each splice.
    """

    __slots__ = ("claimed_in_turn", "fates", "inserted_at", "open_turn")

    def __init__(self) -> None:
        self.fates: dict[tuple[str, int], _Open] = {}
        self.inserted_at: dict[str, int] = {}
        self.claimed_in_turn: dict[str, _Open] = {}
        self.open_turn: int | None = None

    def turn_started(self, turn: int | None) -> None:
        self.open_turn, self.claimed_in_turn = turn, {}

    def turn_ended(self) -> None:
        self.open_turn, self.claimed_in_turn = None, {}

    def entered(self, mid: str) -> None:
        """A ``user/message`` with id ``mid``: a message claimed in this turn is entered."""
        fate = self.claimed_in_turn.pop(mid, None)
        if fate is not None:
            fate[5] = True

    def moved(self, removed: Iterable[str], inserted: Iterable[str], seq: int, *, canceled: bool) -> None:
        """The splice at ``seq`` took ``removed`` (claimed, or canceled) and inserted ``inserted``."""
        fates, inserted_at = self.fates, self.inserted_at
        for mid in removed:
            fate = fates[(mid, inserted_at.pop(mid))]
            fate[3] = seq
            if canceled:
                fate[2] = "canceled"
            else:
                fate[2], fate[4] = "claimed", self.open_turn
                self.claimed_in_turn[mid] = fate
        for mid in inserted:
            inserted_at[mid] = seq
            fates[(mid, seq)] = [mid, seq, "pending", None, None, False]

    def result(self) -> tuple[MessageFate, ...]:
        return tuple(_fate(*fate) for fate in self.fates.values())


def _fate(mid: object, inserted: object, fate: object, left: object, turn: object, entered: object) -> MessageFate:
    assert isinstance(mid, str)
    assert isinstance(inserted, int)
    assert left is None or isinstance(left, int)
    assert turn is None or isinstance(turn, int)
    name: Fate = "claimed" if fate == "claimed" else "canceled" if fate == "canceled" else "pending"
    return MessageFate(MessageId(mid), inserted, name, left, turn, entered is True)
