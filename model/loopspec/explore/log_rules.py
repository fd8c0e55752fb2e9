"""The log checker run along every explored path, one forked checker per state.

Every state carries the checker that has read its log so far (:class:`LogChecker` over the
checker's own fast fold :class:`LeanInbox`, copied with the rest).  A transition forks it and
feeds the new events, so each event of each explored log is judged once, in the checker's own
streaming order, and the first violation stops the exploration.

The checker's state decides its verdict on every later event, so its relevant part is in the
search key (:func:`checker_key`): every slot of :class:`CheckState` and of its trackers, except the ones that only
report or number (file, line, seq, time, the context kept for reports, the violations so far, the
live-check bookkeeping) and the inbox (the exploration checks at every state that it equals the
model's).  Slots are read generically, so a slot added to the checker is keyed without a change
here; the turn counter becomes "is a turn open" (numbering, as in :mod:`loopspec.statespace.canon`),
tool-call ids lose their turn number, and the last ``tool/call``'s seq becomes whether it is the
event right before the next one (all CANCEL-5 reads).  Numbers left in the key would split states
that behave alike, and which of them a search met would depend on the order it tried commands in
(tests/explore/test_key_order.py).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable

from loopspec.check.inbox_track import LeanInbox
from loopspec.check.machine import LogChecker
from loopspec.check.state import StopCheck
from loopspec.check.tracker import Tracker
from loopspec.check.verdict import CheckOptions, Violation
from loopspec.inbox.lane import Lane
from loopspec.inbox.pending import NEXT_STEP, NEXT_TURN
from loopspec.log.events import SessionEvent
from loopspec.statespace.canon import Renaming

NAME = "explored.events.jsonl"
# Slots that only report, number or serve the live checks: never read by a later verdict.
UNKEYED = frozenset({
    "file", "options", "line", "seq", "event", "events", "next_seq", "prev_time", "context", "violations",
    "repeats", "keys", "last_end", "last_effect", "torn_tail", "inbox", "last_turn",
})  # a tracker's own KEYED says which of its fields are keyed (check.tracker.Tracker)
_SLOTS = tuple(dict.fromkeys(s for cls in LogChecker.__mro__ for s in getattr(cls, "__slots__", ())))
_COPIED = (list, set, dict, deque)
# The checker's slots holding the open step's tool-call ids (sets, or lists in call order).
CALL_SLOTS = frozenset({"calls", "announced", "answer_calls", "unanswered", "unstarted", "after_calls"})


def fresh() -> LogChecker:
    return LogChecker(NAME, CheckOptions(), inbox=LeanInbox())


_KEYED = tuple(s for s in _SLOTS if s not in UNKEYED)
_PLAIN = (bool, int, str, type(None))
_CONTAINERS = (set, frozenset, list, tuple, deque, dict)


def fork(checker: LogChecker) -> LogChecker:
    """An independent copy: containers copied, immutable values and the fold's state shared."""
    new = LogChecker.__new__(LogChecker)
    for slot in _SLOTS:
        value = getattr(checker, slot)
        kind = type(value)
        if kind in _COPIED:
            value = value.copy()
        elif kind is LeanInbox:
            value = _fork_inbox(value)
        elif isinstance(value, Tracker):
            value = value.copy()
        setattr(new, slot, value)
    return new


def _fork_inbox(inbox: LeanInbox) -> LeanInbox:
    new = LeanInbox.__new__(LeanInbox)
    new.id_of = inbox.id_of
    new.lanes = {target: _fork_lane(lane) for target, lane in inbox.lanes.items()}
    new.pending = inbox.pending.copy()
    return new


def _fork_lane(lane: Lane[dict[str, object]]) -> Lane[dict[str, object]]:
    new: Lane[dict[str, object]] = Lane(lane.view())
    return new


def pending_ids(checker: LogChecker) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The ids the checker's fold holds pending, next-turn then next-step."""
    return (tuple(checker.inbox.ids(NEXT_TURN)), tuple(checker.inbox.ids(NEXT_STEP)))


def feed(checker: LogChecker, events: Iterable[SessionEvent]) -> Violation | None:
    """Feed events in log order; the first violation, if any."""
    try:
        for event in events:
            checker.feed_event(event.to_json(), event.seq + 1)
    except StopCheck:
        pass
    return checker.violations[0] if checker.violations else None


def checker_key(checker: LogChecker, names: Renaming) -> Hashable:
    """The part of the checker's state that later verdicts read (see the module docstring)."""
    out: list[Hashable] = []
    for slot in _KEYED:
        value = getattr(checker, slot)
        if type(value) in _PLAIN and slot != "turn":
            out.append(value)
        elif isinstance(value, Tracker):
            # A tracker's keyed fields in its order, flat: how many there are is fixed per tracker.
            for name in value.KEYED:
                field = getattr(value, name)
                kind = type(field)
                if kind in _PLAIN:
                    out.append(field)
                elif not field and kind in _CONTAINERS:
                    # What _value makes of any empty container, without its two calls: most of the
                    # open step's sets and lists are empty, and this runs at every explored state.
                    out.append(())
                else:
                    out.append(_slot_key(checker, name, field, names))
        else:
            out.append(_slot_key(checker, slot, value, names))
    return tuple(out)


def _slot_key(checker: LogChecker, slot: str, value: object, names: Renaming) -> Hashable:
    """One slot's part of the key, when it is not a plain value; a tracker's fields are keyed by the
    same rules, by name."""
    if slot == "started_at" and isinstance(value, tuple):
        # CANCEL-5 reads only whether the last tool/call is the event right before the next one,
        # never its seq: keyed by number, states equal but for numbering stayed apart.
        seq, call = value
        return (seq == checker.next_seq - 1, _call_number(call))
    return _value(slot, value, names)


def _call_number(call: object) -> str:
    """A model call id ``call-T.S.N`` without its turn T: numbering, as turns are (the key has "is a
    turn open", not its number); S.N stays, so calls of two steps of one turn stay apart."""
    return str(call).split(".", 1)[-1]


def _value(slot: str, value: object, names: Renaming) -> Hashable:
    if slot == "turn":
        return value is not None
    if slot in CALL_SLOTS and isinstance(value, set | list | tuple):
        # Tool-call ids are the model's call-T.S.N: T is numbering (see _call_number).
        numbers = [_call_number(v) for v in value]
        return tuple(sorted(numbers)) if isinstance(value, set) else tuple(numbers)
    if isinstance(value, set | frozenset):
        return tuple(sorted(_value("", v, names) for v in value))  # type: ignore[type-var]
    if isinstance(value, list | tuple | deque):
        return tuple(_value("", v, names) for v in value)
    if isinstance(value, dict):
        mid = value.get("id")
        if isinstance(mid, str):  # a message as JSON
            return (names.id(mid), repr(value.get("content")))
        return tuple(sorted((k, _value("", v, names)) for k, v in value.items()))
    assert isinstance(value, Hashable)
    return value
