"""Worked examples: seed002's three splices (``inbox-session-projection.txt``) and scenario S19.

seed002's example: ① a follow-up is sent with ``splice('next-turn', Infinity, 0, [m1])``;
② turn 1 claims it (the empty next-step part writes nothing); ③ a later cancel clears what is
pending with canceled records; after a restart the fold of the same log gives the same inbox.
seed002 writes the claim/cancel records without ``inserted``; the code writes ``inserted: []``
(real-behaviour §2.2, §11; SPLICE-5), which is what is asserted here.

S19 is real-behaviour.md §10 S19 (the v0.1.5 ``inbox.spec`` edits), bullet by bullet with the
exact data and notification order.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from loopspec.data.errors import CommandRefused
from loopspec.data.json_value import thaw
from loopspec.data.messages import InboxState, InboxTarget, MessageId, UserMessage
from loopspec.data.notifications import Notification
from loopspec.inbox import fold
from loopspec.inbox import operations as inbox
from loopspec.inbox.session import InboxSession, Transition
from loopspec.log.events import SessionEvent

NT = InboxTarget.NEXT_TURN
NS = InboxTarget.NEXT_STEP
Json = dict[str, object]


def msg(mid: str, text: str = "") -> UserMessage:
    return UserMessage.create(mid, text)


def data(tr: Transition) -> list[object]:
    return [thaw(e.data) for e in tr.events]


def notes(tr: Transition | tuple[Notification, ...]) -> list[tuple[str, str]]:
    """Notifications as (type, message id), plus the turn for claimed."""
    seq = tr.notifications if isinstance(tr, Transition) else tr
    out: list[tuple[str, str]] = []
    for n in seq:
        j = n.to_json()
        message = j["message"]
        assert isinstance(message, dict)
        out.append((str(j["type"]), str(message["id"]) + (f"@{j['turn']}" if "turn" in j else "")))
    return out


def ins(*messages: UserMessage) -> list[object]:
    return [m.to_json() for m in messages]


M1 = msg("m1", "hello")


# ------------------------------------------------------------------ seed002 ① ② ③


@pytest.mark.rule("INPUT-1", "NORM-2", "SPLICE-4", "SPLICE-5", "SPLICE-6", "NOTIFY-2")
def test_seed_1_send_inserts_at_infinity_as_start_0() -> None:
    """① ``splice('next-turn', Infinity, 0, [m1])`` on an empty list records start 0, no removedCount, no outcome."""
    tr = InboxSession().splice(NT, math.inf, 0, (M1,))
    assert data(tr) == [{"target": "next-turn", "start": 0, "inserted": ins(M1)}]
    assert notes(tr) == [("agent/inbox/inserted", "m1")]
    assert tr.value == ()
    # The model's own send path is the same splice.
    assert inbox.send_insert(InboxState(), NT, M1).records[0].to_json() == data(tr)[0]


@pytest.mark.rule("CLAIM-1", "CLAIM-2", "CLAIM-4", "SPLICE-2")
def test_seed_2_claim_writes_one_pure_deletion() -> None:
    """② ``claim('next-turn', 1)``: the empty next-step part is not written; next-turn loses its head."""
    queued = InboxSession().splice(NT, math.inf, 0, (M1,)).session
    tr = queued.claim(NT, 1)
    assert data(tr) == [{"target": "next-turn", "start": 0, "removedCount": 1, "inserted": []}]
    assert notes(tr) == [("agent/inbox/claimed", "m1@1")]  # no discarded: a claim is not a cancellation
    assert tr.value == (M1,)
    assert tr.session.inbox == InboxState()


@pytest.mark.rule("CLAIM-1", "CLAIM-2", "CLAIM-4", "SPLICE-2")
def test_seed_2_noop_next_step_claim_is_not_written() -> None:
    """A later boundary's claim (target next-step) with nothing pending writes and emits nothing."""
    queued = InboxSession().splice(NT, math.inf, 0, (M1,)).session
    tr = queued.claim(NS, 1)
    assert tr.events == ()
    assert tr.notifications == ()
    assert tr.value == ()
    assert tr.session == queued


@pytest.mark.rule("CLAIM-1", "CLAIM-2", "CLAIM-4")
def test_seed_2_claim_takes_next_step_first_then_one_next_turn() -> None:
    s1, s2, m2 = msg("s1"), msg("s2"), msg("m2")
    session = InboxSession()
    for target, m in ((NT, M1), (NT, m2), (NS, s1), (NS, s2)):
        session = session.append(target, m).session
    tr = session.claim(NT, 3)
    assert data(tr) == [
        {"target": "next-step", "start": 0, "removedCount": 2, "inserted": []},
        {"target": "next-turn", "start": 0, "removedCount": 1, "inserted": []},
    ]
    claimed = "agent/inbox/claimed"
    assert notes(tr) == [(claimed, "s1@3"), (claimed, "s2@3"), (claimed, "m1@3")]
    assert tr.value == (s1, s2, M1)
    assert tr.session.inbox == InboxState(next_turn=(m2,))


@pytest.mark.rule("SPLICE-6", "SPLICE-8", "NOTIFY-2")
def test_seed_3_clear_writes_canceled_records() -> None:
    """③ cancel → ``clear()``: each non-empty list gives one canceled record (next-step first)."""
    queued = InboxSession().splice(NT, math.inf, 0, (M1,)).session
    tr = queued.clear()
    assert data(tr) == [{"target": "next-turn", "start": 0, "removedCount": 1, "inserted": [], "outcome": "canceled"}]
    assert notes(tr) == [("agent/inbox/discarded", "m1")]
    assert tr.session.inbox == InboxState()


@pytest.mark.rule("FOLD-5", "CLAIM-5")
def test_seed_restart_refolds_the_log() -> None:
    """After a restart the fold replays the claim (m1 stays consumed) and an unfolded insertion comes back."""
    m2 = msg("m2")
    session = InboxSession().splice(NT, math.inf, 0, (M1,)).session
    session = session.claim(NT, 1).session
    session = session.splice(NT, math.inf, 0, (m2,)).session
    assert fold.replay(session.log.events) == session.inbox == InboxState(next_turn=(m2,))


# ------------------------------------------------------------------ S19


A, B, P = msg("A"), msg("B"), msg("P")


def _s19_prefix() -> tuple[InboxSession, list[Transition]]:
    steps: list[Transition] = []
    ops: tuple[Callable[[InboxSession], Transition], ...] = (
        lambda s: s.splice(NT, math.nan, math.nan, (A, B)),
        lambda s: s.splice(NT, -1, 1, ()),
        lambda s: s.prepend(NT, P),
    )
    session = InboxSession()
    for op in ops:
        tr = op(session)
        steps.append(tr)
        session = tr.session
    return session, steps


@pytest.mark.rule("NORM-1", "NORM-3", "SPLICE-1", "SPLICE-4", "SPLICE-5", "NOTIFY-2")
def test_s19_splice_nan_nan_inserts_at_0() -> None:
    tr = _s19_prefix()[1][0]
    assert data(tr) == [{"target": "next-turn", "start": 0, "inserted": ins(A, B)}]
    assert notes(tr) == [("agent/inbox/inserted", "A"), ("agent/inbox/inserted", "B")]
    assert tr.value == ()


@pytest.mark.rule("NORM-2", "SPLICE-1", "SPLICE-6", "NOTIFY-2")
def test_s19_splice_minus_1_removes_the_last() -> None:
    tr = _s19_prefix()[1][1]
    assert data(tr) == [{"target": "next-turn", "start": 1, "removedCount": 1, "inserted": [], "outcome": "canceled"}]
    assert notes(tr) == [("agent/inbox/discarded", "B")]
    assert tr.value == (B,)


@pytest.mark.rule("SPLICE-1")
def test_s19_prepend() -> None:
    session, steps = _s19_prefix()
    assert data(steps[2]) == [{"target": "next-turn", "start": 0, "inserted": ins(P)}]
    assert notes(steps[2]) == [("agent/inbox/inserted", "P")]
    assert session.inbox == InboxState(next_turn=(P, A))


@pytest.mark.rule("SPLICE-7")
def test_s19_remove_missing_is_false_and_silent() -> None:
    session, _ = _s19_prefix()
    tr = session.remove(MessageId("B"))
    assert tr.value is False
    assert tr.events == ()
    assert tr.notifications == ()
    assert tr.session == session


@pytest.mark.rule("SPLICE-3")
def test_s19_append_pending_id_elsewhere_throws() -> None:
    session, _ = _s19_prefix()
    with pytest.raises(CommandRefused) as err:
        session.append(NS, A)
    assert (err.value.rule, err.value.message) == ("SPLICE-3", 'message "A" is already pending')


@pytest.mark.rule("SPLICE-7", "SPLICE-6", "NOTIFY-3")
def test_s19_replace_writes_one_canceled_splice_then_discarded_then_inserted() -> None:
    session, _ = _s19_prefix()  # NT = [P, A]; X = A at index 1
    y = msg("Y")
    tr = session.replace(MessageId("A"), y)
    assert data(tr) == [
        {"target": "next-turn", "start": 1, "removedCount": 1, "inserted": ins(y), "outcome": "canceled"}
    ]
    assert notes(tr) == [("agent/inbox/discarded", "A"), ("agent/inbox/inserted", "Y")]
    assert tr.value is True
    assert tr.session.inbox == InboxState(next_turn=(P, y))


@pytest.mark.rule("SPLICE-9", "NOTIFY-3")
def test_s19_replace_with_same_id_is_allowed() -> None:
    session, _ = _s19_prefix()
    edited = msg("A", "edited")
    tr = session.replace(MessageId("A"), edited)
    assert data(tr) == [
        {"target": "next-turn", "start": 1, "removedCount": 1, "inserted": ins(edited), "outcome": "canceled"}
    ]
    assert [n.to_json() for n in tr.notifications] == [
        {"type": "agent/inbox/discarded", "message": A.to_json()},
        {"type": "agent/inbox/inserted", "message": edited.to_json()},
    ]
    assert tr.session.inbox == InboxState(next_turn=(P, edited))


@pytest.mark.rule("SPLICE-9", "SPLICE-3")
@pytest.mark.parametrize("elsewhere", [NT, NS])
def test_s19_replace_into_an_id_pending_elsewhere_throws(elsewhere: InboxTarget) -> None:
    session, _ = _s19_prefix()
    session = session.append(NS, msg("S")).session
    taken = "P" if elsewhere is NT else "S"  # P pending in the same list, S in the other one
    with pytest.raises(CommandRefused) as err:
        session.replace(MessageId("A"), msg(taken, "new body"))
    assert (err.value.rule, err.value.message) == ("SPLICE-3", f'message "{taken}" is already pending')


@pytest.mark.rule("SPLICE-8", "SPLICE-6", "SPLICE-2", "NOTIFY-2", "NOTIFY-4")
def test_s19_clear_next_step_first_then_nothing() -> None:
    t, s = msg("t"), msg("s")
    session = InboxSession().append(NT, t).session.append(NS, s).session
    tr = session.clear()
    assert data(tr) == [
        {"target": "next-step", "start": 0, "removedCount": 1, "inserted": [], "outcome": "canceled"},
        {"target": "next-turn", "start": 0, "removedCount": 1, "inserted": [], "outcome": "canceled"},
    ]
    assert notes(tr) == [("agent/inbox/discarded", "s"), ("agent/inbox/discarded", "t")]
    assert [e.seq for e in tr.events] == [2, 3]
    # NOTIFY-4: each list's discarded follows its own record (as in the cancel_with_pending_inbox trace).
    assert [f"SPL {i.seq}" if isinstance(i, SessionEvent) else notes((i,))[0][0] + " " + notes((i,))[0][1]
            for i in tr.trace] == [
        "SPL 2", "agent/inbox/discarded s", "SPL 3", "agent/inbox/discarded t",
    ]
    again = tr.session.clear()
    assert again.events == ()
    assert again.notifications == ()
    assert again.session == tr.session
