"""Hypothesis state machine over :class:`InboxSession`: every inbox operation, checked against a reference.

The reference is deliberately simple and separate from the model: Python lists, the ECMAScript
splice steps transcribed in ``test_normalize`` for coordinates (plus the real code's ``-0`` flag),
and the duplicate walk of SPLICE-3 written out.  Each step computes what the operation must
write (exact durable data) or which refusal it must raise; the notifications are derived a second
way, from the records actually written and the lists they were applied to (NOTIFY-2, CLAIM-4).

Ids come from a pool of six (the empty string and a quote included, DATA-1) so duplicates,
same-id replacements and misses are frequent; coordinates range over small and huge ints,
fractions, NaN, ±Infinity, -0.0, 2**60 and 10**400.

Rules proven: DATA-1, DATA-2, DATA-5, NORM-1…NORM-5, SPLICE-1…SPLICE-9, NOTIFY-1, NOTIFY-2,
NOTIFY-3, NOTIFY-4, CLAIM-1, CLAIM-2, CLAIM-4, FOLD-2, FOLD-5.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

import attrs
import pytest
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from inbox.fixtures import dsh_start_is_minus_zero, ecma_splice_bounds
from loopspec.data.errors import CommandRefused
from loopspec.data.json_value import thaw
from loopspec.data.messages import EMPTY_INBOX, InboxState, InboxTarget, MessageId, UserMessage
from loopspec.inbox import fold
from loopspec.inbox.normalize import JsNumber
from loopspec.inbox.session import InboxSession, Transition
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import SPLICED

NT = InboxTarget.NEXT_TURN
NS = InboxTarget.NEXT_STEP
POOL = ("a", "b", "c", "d", "", 'q"1')

Lanes = dict[InboxTarget, list[UserMessage]]
Json = dict[str, object]


def _message(mid: str, text: str, extra: bool) -> UserMessage:
    body: dict[str, object] = {
        "id": mid,
        "role": "user",
        "content": [{"type": "text", "text": text}],
        "source": {"kind": "user"},
    }
    if extra:
        body["meta"] = {"kept": [1, None, True]}  # DATA-2: unknown fields travel losslessly
    return UserMessage.from_json(body)


messages = st.builds(_message, st.sampled_from(POOL), st.sampled_from(("x", "y")), st.booleans())
targets = st.sampled_from((NT, NS))
numbers: st.SearchStrategy[JsNumber] = st.one_of(
    st.integers(-6, 6),
    st.sampled_from(
        (math.nan, math.inf, -math.inf, -0.0, 0.0, -0.5, 0.5, -1.5, 2.5, 2**60, -(2**60), 10**400, -(10**400))
    ),
    st.floats(-7, 7),
    st.integers(),
)


@attrs.frozen
class Expected:
    """What the reference says one operation must do."""

    lanes: Lanes = attrs.field(factory=dict)
    records: tuple[Json, ...] = ()
    value: tuple[UserMessage, ...] | bool | None = None
    refused: tuple[str, str] | None = None


def _copy(lanes: Lanes) -> Lanes:
    return {NT: list(lanes[NT]), NS: list(lanes[NS])}


def _first_repeat(messages: list[UserMessage]) -> str | None:
    seen: set[str] = set()
    for m in messages:
        if m.id.value in seen:
            return m.id.value
        seen.add(m.id.value)
    return None


def ref_splice(
    lanes: Lanes,
    target: InboxTarget,
    start: JsNumber,
    delete_count: JsNumber,
    inserted: list[UserMessage],
    *,
    public: bool,
) -> Expected:
    """One ``mutate`` by the reference: ECMAScript coordinates, no-op elision, dup walk, -0 refusal, record."""
    lane = lanes[target]
    s, d = ecma_splice_bounds(start, delete_count, len(lane))
    if d == 0 and not inserted:
        return Expected(_copy(lanes), (), ())
    candidate = lane[:s] + inserted + lane[s + d :]
    walk = candidate + lanes[NS] if target is NT else lanes[NT] + candidate
    dup = _first_repeat(walk)
    if dup is not None:
        return Expected(refused=("SPLICE-3", f'message "{dup}" is already pending'))
    if dsh_start_is_minus_zero(start, delete_count, len(lane)):
        return Expected(refused=("NORM-5", 'session event "agent/inbox/spliced" carries non-JSON-serializable data'))
    record: Json = {"target": target.value, "start": s}
    if d:
        record["removedCount"] = d
    record["inserted"] = [m.to_json() for m in inserted]
    if public and d:
        record["outcome"] = "canceled"
    after = _copy(lanes)
    after[target] = candidate
    return Expected(after, (record,), tuple(lane[s : s + d]))


def ref_then(first: Expected, later: Callable[[Lanes], Expected]) -> Expected:
    if first.refused is not None:
        return first
    second = later(first.lanes)
    if second.refused is not None:
        return second
    assert isinstance(first.value, tuple)
    assert isinstance(second.value, tuple)
    return Expected(second.lanes, first.records + second.records, first.value + second.value)


def ref_locate(lanes: Lanes, mid: str) -> tuple[InboxTarget, int] | None:
    for target in (NT, NS):  # SPLICE-7: next-turn is searched first
        for index, m in enumerate(lanes[target]):
            if m.id.value == mid:
                return target, index
    return None


def _splice_lane(lane: list[UserMessage], record: Json) -> tuple[list[UserMessage], list[UserMessage]]:
    start = record["start"]
    count = record.get("removedCount", 0)
    assert isinstance(start, int)
    assert isinstance(count, int)
    inserted = [UserMessage.from_json(m) for m in record["inserted"]]  # type: ignore[attr-defined]
    return lane[:start] + inserted + lane[start + count :], lane[start : start + count]


class InboxMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.session = InboxSession()
        self.lanes: Lanes = {NT: [], NS: []}

    # ------------------------------------------------------------ driving one operation

    def _run(self, expected: Expected, action: Callable[[], Transition], *, claim_turn: int | None = None) -> None:
        before = self.session
        if expected.refused is not None:
            # SPLICE-3 / NORM-5: the refusal names the rule; there is no Transition, so nothing
            # was appended or emitted, and the session we keep is the one from before the call.
            with pytest.raises(CommandRefused) as err:
                action()
            assert (err.value.rule, err.value.message) == expected.refused
            event(f"refused {expected.refused[0]}")
            return
        tr = action()
        event(f"{len(tr.events)} record(s), value {type(tr.value).__name__}")
        written = [thaw(e.data) for e in tr.events]
        assert written == list(expected.records)
        assert all(e.type == SPLICED and e.surface_op is None for e in tr.events)
        assert [e.seq for e in tr.events] == list(range(len(before.log), len(before.log) + len(tr.events)))
        assert tr.session.log.events == before.log.events + tr.events
        assert tr.value == expected.value
        assert tr.session.inbox == InboxState(tuple(expected.lanes[NT]), tuple(expected.lanes[NS]))
        self._check_records(written, claim_turn, tr)
        self.session = tr.session
        self.lanes = expected.lanes

    def _check_records(self, written: Sequence[object], claim_turn: int | None, tr: Transition) -> None:
        """Shape of each durable splice against the list it was applied to, and its notifications."""
        lanes = _copy(self.lanes)
        notes: list[Json] = []
        trace: list[object] = []
        claimed: list[UserMessage] = []
        for stamped, record in zip(tr.events, written, strict=True):
            assert isinstance(record, dict)
            assert set(record) <= {"target", "start", "removedCount", "inserted", "outcome"}
            target = InboxTarget.parse(record["target"])
            lane = lanes[target]
            start, count = record["start"], record.get("removedCount", 0)
            # NORM-4 / FOLD-2: normalized, in range for the list at write time.
            assert type(start) is int
            assert type(count) is int
            assert 0 <= start <= len(lane)
            assert start + count <= len(lane)
            # SPLICE-4: removedCount iff > 0; SPLICE-5: inserted always; SPLICE-2: never empty.
            assert ("removedCount" in record) == (count > 0)
            assert isinstance(record["inserted"], list)
            assert count > 0 or record["inserted"]
            if claim_turn is None:
                # SPLICE-6: outcome exactly on public edits that removed something.
                assert record.get("outcome", None) == ("canceled" if count else None)
            else:
                # CLAIM-2: pure deletions at the front, no outcome.
                assert "outcome" not in record
                assert record["inserted"] == []
                assert start == 0
                assert count > 0
            lanes[target], removed = _splice_lane(lane, record)
            trace.append(("record", stamped.seq))
            if claim_turn is None:
                # NOTIFY-2: after each record, discarded per removed message then inserted per inserted;
                # NOTIFY-4: all of them before the next record is written.
                mine: list[Json] = [{"type": "agent/inbox/discarded", "message": m.to_json()} for m in removed]
                mine += [{"type": "agent/inbox/inserted", "message": m} for m in record["inserted"]]
                notes += mine
                trace += mine
            else:
                claimed += removed
        # CLAIM-4: one claimed per message after all records, in batch order (next-step, then next-turn).
        last: list[Json] = [
            {"type": "agent/inbox/claimed", "message": m.to_json(), "turn": claim_turn} for m in claimed
        ]
        notes += last
        trace += last
        assert [n.to_json() for n in tr.notifications] == notes
        assert [("record", i.seq) if isinstance(i, SessionEvent) else i.to_json() for i in tr.trace] == trace
        if claim_turn is not None:
            # CLAIM-2: at most one record per part, next-step first.
            order = [r["target"] for r in written if isinstance(r, dict)]
            assert order in ([], ["next-step"], ["next-turn"], ["next-step", "next-turn"])

    # ------------------------------------------------------------ rules

    @rule(lane=targets, message=messages)
    def append(self, lane: InboxTarget, message: UserMessage) -> None:
        target = lane
        expected = ref_splice(self.lanes, target, len(self.lanes[target]), 0, [message], public=True)
        self._run(attrs.evolve(expected, value=None), lambda: self.session.append(target, message))

    @rule(lane=targets, message=messages)
    def prepend(self, lane: InboxTarget, message: UserMessage) -> None:
        target = lane
        expected = ref_splice(self.lanes, target, 0, 0, [message], public=True)
        self._run(attrs.evolve(expected, value=None), lambda: self.session.prepend(target, message))

    @rule(
        lane=targets,
        start=numbers,
        delete_count=numbers,
        inserted=st.lists(messages, max_size=3),
    )
    def splice(self, lane: InboxTarget, start: JsNumber, delete_count: JsNumber, inserted: list[UserMessage]) -> None:
        target = lane
        expected = ref_splice(self.lanes, target, start, delete_count, inserted, public=True)
        self._run(expected, lambda: self.session.splice(target, start, delete_count, tuple(inserted)))

    @rule(mid=st.sampled_from(POOL), message=messages)
    def replace(self, mid: str, message: UserMessage) -> None:
        where = ref_locate(self.lanes, mid)
        if where is None:
            # SPLICE-7: a missing id answers False and writes nothing.
            expected = Expected(_copy(self.lanes), (), False)
        else:
            expected = attrs.evolve(ref_splice(self.lanes, where[0], where[1], 1, [message], public=True), value=True)
        self._run(expected, lambda: self.session.replace(MessageId(mid), message))

    @rule(mid=st.sampled_from(POOL))
    def remove(self, mid: str) -> None:
        where = ref_locate(self.lanes, mid)
        if where is None:
            expected = Expected(_copy(self.lanes), (), False)
        else:
            expected = attrs.evolve(ref_splice(self.lanes, where[0], where[1], 1, [], public=True), value=True)
        self._run(expected, lambda: self.session.remove(MessageId(mid)))

    @rule()
    def clear(self) -> None:
        # SPLICE-8: next-step first, then next-turn.
        expected = ref_then(
            ref_splice(self.lanes, NS, 0, len(self.lanes[NS]), [], public=True),
            lambda lanes: ref_splice(lanes, NT, 0, len(lanes[NT]), [], public=True),
        )
        self._run(attrs.evolve(expected, value=None), self.session.clear)

    @rule(lane=targets, turn=st.integers(1, 9))
    def claim(self, lane: InboxTarget, turn: int) -> None:
        target = lane
        # CLAIM-1: all of next-step, then the first next-turn message only when target is next-turn.
        expected = ref_splice(self.lanes, NS, 0, len(self.lanes[NS]), [], public=False)
        if target is NT:
            expected = ref_then(expected, lambda lanes: ref_splice(lanes, NT, 0, 1, [], public=False))
        self._run(expected, lambda: self.session.claim(target, turn), claim_turn=turn)

    # ------------------------------------------------------------ invariants (after every step)

    @invariant()
    def ids_are_unique_across_both_lists(self) -> None:
        ids = self.session.inbox.ids()
        assert len(ids) == len(set(ids))  # DATA-5

    @invariant()
    def live_inbox_matches_the_reference(self) -> None:
        assert self.session.inbox == InboxState(tuple(self.lanes[NT]), tuple(self.lanes[NS]))

    @invariant()
    def replay_equals_live_inbox(self) -> None:
        events = self.session.log.events
        assert [e.seq for e in events] == list(range(len(events)))
        # FOLD-5, both folds: the fast projector and the normative one-event fold.
        assert fold.replay(events) == self.session.inbox
        assert functools.reduce(fold.apply, events, EMPTY_INBOX) == self.session.inbox


TestInboxMachine = pytest.mark.rule(
    "DATA-1", "DATA-2", "DATA-5", "NORM-1", "NORM-2", "NORM-3", "NORM-4", "NORM-5",
    "SPLICE-1", "SPLICE-2", "SPLICE-3", "SPLICE-4", "SPLICE-5", "SPLICE-6", "SPLICE-7", "SPLICE-8", "SPLICE-9",
    "NOTIFY-1", "NOTIFY-2", "NOTIFY-3", "NOTIFY-4", "CLAIM-1", "CLAIM-2", "CLAIM-4", "FOLD-2", "FOLD-5",
)(InboxMachine.TestCase)
