"""Bad durable input is part of the contract: exact InvalidEvent rule and seq, never a bare exception.

Covers malformed ``agent/inbox/spliced`` data (FOLD-1, DATA-2), bad coordinates (FOLD-2),
duplicates (FOLD-3), the two real-code fold tests cited in real-behaviour.md §5.2, pass-through of
other event types (FOLD-4), and malformed envelopes and lines (LOG-1).  Every case goes through
both folds: :func:`fold.apply` and the fast :func:`fold.replay`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loopspec.data.errors import InvalidEvent
from loopspec.data.json_value import freeze
from loopspec.data.messages import EMPTY_INBOX, InboxState, UserMessage
from loopspec.inbox import fold
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import SPLICED
from loopspec.log.reader import parse_line

SEQ = 7


def body(mid: str) -> dict[str, object]:
    return {"id": mid, "role": "user", "content": [{"type": "text", "text": mid}], "source": {"kind": "user"}}


X, Y = UserMessage.from_json(body("x")), UserMessage.from_json(body("y"))
STATE = InboxState(next_turn=(X,), next_step=(Y,))


def spliced(data: object, seq: int = SEQ) -> SessionEvent:
    return SessionEvent(SPLICED, seq, 0, freeze(data))


def _fold_both(state: InboxState, events: list[SessionEvent]) -> tuple[Any, Any]:
    """Result of each fold: the final state, or ``(rule, seq, message)`` of its InvalidEvent."""
    out: list[Any] = []
    runs: tuple[Callable[[], InboxState], ...] = (
        lambda: functools.reduce(fold.apply, events, state),
        lambda: _replay_from(state, events),
    )
    for run in runs:
        try:
            out.append(run())
        except InvalidEvent as err:
            out.append((err.rule, err.seq, str(err)))
    return out[0], out[1]


def _replay_from(state: InboxState, events: list[SessionEvent]) -> InboxState:
    """``fold.replay`` starts empty; prefix splices that rebuild ``state`` at negative-free seqs before ``events``."""
    prefix = [spliced({"target": "next-turn", "start": 0, "inserted": [m.to_json() for m in state.next_turn]}, 0),
              spliced({"target": "next-step", "start": 0, "inserted": [m.to_json() for m in state.next_step]}, 1)]
    return fold.replay(prefix + events)


def assert_invalid(data: object, rule: str, *, state: InboxState = STATE, seq: int = SEQ) -> InvalidEvent:
    with pytest.raises(InvalidEvent) as err:
        fold.apply(state, spliced(data, seq))
    assert (err.value.rule, err.value.seq) == (rule, seq)
    assert f"session seq {seq}: " in str(err.value)
    first, second = _fold_both(state, [spliced(data, seq)])
    assert first == second == (rule, seq, str(err.value))
    return err.value


VALID: dict[str, object] = {"target": "next-turn", "start": 1, "inserted": [body("z")]}


def with_(**changes: object) -> dict[str, object]:
    out = dict(VALID)
    for key, value in changes.items():
        if value is DROP:
            out.pop(key.replace("_", ""), None)
        else:
            out[key.replace("_", "")] = value
    return out


DROP = object()


def short(value: object) -> str:
    """A test id; ints past Python's 4300-digit str limit cannot be repr'd."""
    try:
        return repr(value)[:70]
    except ValueError:
        return "<huge int>"


def test_the_valid_baseline_folds() -> None:
    """Sanity: the records mutated below are valid without the mutation."""
    assert fold.apply(STATE, spliced(VALID)).next_turn == (X, UserMessage.from_json(body("z")))


@pytest.mark.rule("FOLD-1")
@pytest.mark.parametrize(
    "data",
    [
        None, 1, "x", [VALID], True,  # not an object
        with_(target="next"), with_(target=None), with_(target=DROP), with_(target=["next-turn"]),  # DATA-3
        with_(inserted=DROP), with_(inserted=None), with_(inserted={"0": body("z")}), with_(inserted="z"),
        with_(outcome="claimed"), with_(outcome=None), with_(outcome=True),
        with_(extra=1), with_(notification={"x": 1}),  # unknown fields
    ],
    ids=short,
)
def test_malformed_shape_is_fold_1(data: object) -> None:
    assert_invalid(data, "FOLD-1")


@pytest.mark.rule("FOLD-2")
@pytest.mark.parametrize(
    "data",
    [
        with_(start=DROP), with_(start=None), with_(start="1"), with_(start=True), with_(start=1.5),
        with_(start=-1), with_(start=2), with_(start=2**53), with_(start=-(2**53)), with_(start=10**400),
        with_(start=float(2**53)), with_(start=[1]),
        with_(removedCount=None), with_(removedCount="1"), with_(removedCount=False), with_(removedCount=0.5),
        with_(removedCount=-1), with_(removedCount=2), with_(removedCount=2**53), with_(removedCount=10**5000),
        with_(start=0, removedCount=2), with_(start=1, removedCount=1),
        {"target": "next-step", "start": 0, "removedCount": 2, "inserted": []},
    ],
    ids=short,
)
def test_bad_coordinates_are_fold_2(data: object) -> None:
    assert_invalid(data, "FOLD-2")


@pytest.mark.rule("FOLD-2", "LOG-1")
@pytest.mark.parametrize("data", [with_(start=1.0), with_(removedCount=1.0), with_(start=-0.0)])
def test_integral_floats_are_not_integers(data: object) -> None:
    """The real writer (JSON.stringify) writes every safe integer as plain digits, so a coordinate
    written 1.0 comes from a foreign writer and is refused, by the fold as by the checker
    (decisions.md G3)."""
    assert_invalid(data, "FOLD-2")


@pytest.mark.rule("FOLD-3")
@pytest.mark.parametrize(
    ("data", "dup"),
    [
        (with_(inserted=[body("x")]), "x"),  # pending in the same list
        (with_(inserted=[body("y")]), "y"),  # pending in the other list
        (with_(inserted=[body("z"), body("z")]), "z"),  # twice in one insertion
        ({"target": "next-step", "start": 0, "inserted": [body("x")]}, "x"),  # walk: next-turn first
        ({"target": "next-turn", "start": 0, "removedCount": 1, "inserted": [body("q"), body("y")]}, "y"),
    ],
)
def test_duplicates_are_fold_3(data: object, dup: str) -> None:
    err = assert_invalid(data, "FOLD-3")
    assert f'message "{dup}" is already pending' in err.detail


@pytest.mark.rule("FOLD-3", "SPLICE-9")
def test_replacing_a_message_by_its_own_id_is_valid() -> None:
    edited = {**body("x"), "content": [{"type": "text", "text": "edited"}]}
    data = {"target": "next-turn", "start": 0, "removedCount": 1, "inserted": [edited], "outcome": "canceled"}
    assert fold.apply(STATE, spliced(data)).next_turn == (UserMessage.from_json(edited),)


@pytest.mark.rule("DATA-2", "FOLD-1")
@pytest.mark.parametrize(
    "message",
    [
        None, "x", 1, [], {},
        {**body("z"), "id": 1}, {k: v for k, v in body("z").items() if k != "id"},
        {**body("z"), "role": "assistant"}, {k: v for k, v in body("z").items() if k != "role"},
        {**body("z"), "content": "text"}, {**body("z"), "source": "user"}, {**body("z"), "source": None},
    ],
    ids=short,
)
def test_bad_messages_are_data_2(message: object) -> None:
    assert_invalid(with_(inserted=[body("ok"), message]), "DATA-2")


@pytest.mark.rule("DATA-2")
def test_unknown_message_fields_are_kept() -> None:
    extra = {**body("z"), "meta": {"n": [1, 2.5, None]}}
    state = fold.apply(EMPTY_INBOX, spliced({"target": "next-step", "start": 0, "inserted": [extra]}))
    assert state.next_step[0].to_json() == extra


@pytest.mark.rule("FOLD-2")
def test_real_code_out_of_range_removal_at_seq_0() -> None:
    """real §5.2: an out-of-range removal at seq 0 fails naming seq 0 (cause: invalid inbox splice)."""
    events = [spliced({"target": "next-turn", "start": 0, "removedCount": 1, "inserted": []}, 0)]
    for run in (fold.replay, lambda evs: functools.reduce(fold.apply, evs, EMPTY_INBOX)):
        with pytest.raises(InvalidEvent) as err:
            run(events)
        assert (err.value.rule, err.value.seq) == ("FOLD-2", 0)
        assert str(err.value).startswith("[FOLD-2] session seq 0: invalid inbox splice")


@pytest.mark.rule("FOLD-3")
def test_real_code_same_id_next_turn_then_next_step_fails_at_seq_1() -> None:
    """real §5.2: the same id inserted into next-turn (seq 0) then next-step (seq 1) fails naming seq 1."""
    events = [
        spliced({"target": "next-turn", "start": 0, "inserted": [body("dup")]}, 0),
        spliced({"target": "next-step", "start": 0, "inserted": [body("dup")]}, 1),
    ]
    for run in (fold.replay, lambda evs: functools.reduce(fold.apply, evs, EMPTY_INBOX)):
        with pytest.raises(InvalidEvent) as err:
            run(events)
        assert (err.value.rule, err.value.seq) == ("FOLD-3", 1)
        assert 'message "dup" is already pending' in err.value.detail


# ------------------------------------------------------------------ random JSON never escapes as a bare error

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=12,
)
message_like = st.one_of(
    st.sampled_from(("x", "y", "z", "w")).map(body),
    st.fixed_dictionaries(
        {"id": st.sampled_from(("x", "z")) | json_values},
        optional={"role": st.just("user") | json_values, "content": st.just([]) | json_values,
                  "source": st.just({"kind": "user"}) | json_values},
    ),
    json_values,
)
splice_like = st.fixed_dictionaries(
    {},
    optional={
        "target": st.sampled_from(("next-turn", "next-step")) | json_values,
        "start": st.integers(-2, 3) | st.sampled_from((2**53, 1.0, 0.5, -0.0)) | json_values,
        "removedCount": st.integers(-1, 3) | json_values,
        "inserted": st.lists(message_like, max_size=3) | json_values,
        "outcome": st.just("canceled") | json_values,
        "extra": json_values,
    },
)


@pytest.mark.rule("FOLD-1", "FOLD-2", "FOLD-3", "DATA-2")
@given(data=st.one_of(json_values, splice_like), seq=st.integers(0, 2**53 - 1))
def test_random_splice_data_raises_only_invalid_event(data: object, seq: int) -> None:
    """Whatever the data, a splice folds or raises InvalidEvent with a fold rule and its seq.

    Any other exception propagates out of ``_fold_both`` and fails the test.
    """
    normative, fast = _fold_both(STATE, [spliced(data, seq)])
    assert normative == fast  # the fast projector agrees, error or not
    if isinstance(normative, InboxState):
        ids = normative.ids()
        assert len(ids) == len(set(ids))
    else:
        rule, at, _ = normative
        assert rule in ("FOLD-1", "FOLD-2", "FOLD-3", "DATA-2")
        assert at == seq


# ------------------------------------------------------------------ FOLD-4


@pytest.mark.rule("FOLD-4")
@given(
    etype=st.sampled_from(("turn/start", "step/end", "user/message", "agent/inbox/spliced ", "Agent/inbox/spliced",
                           "agent/inbox/inserted", "")) | st.text(max_size=20).filter(lambda t: t != SPLICED),
    data=json_values,
)
def test_other_event_types_return_the_same_state_object(etype: str, data: object) -> None:
    for state in (EMPTY_INBOX, STATE):
        assert fold.apply(state, SessionEvent(etype, 3, 0, freeze(data))) is state


@pytest.mark.rule("FOLD-4")
def test_foreign_events_do_not_disturb_replay() -> None:
    events = [
        SessionEvent("turn/start", 0, 0, freeze({"turn": 1})),
        spliced(VALID | {"start": 0}, 1),
        SessionEvent("user/message", 2, 0, freeze({"target": "next-turn", "start": 9, "inserted": 3})),
    ]
    assert fold.replay(events) == InboxState(next_turn=(UserMessage.from_json(body("z")),))


# ------------------------------------------------------------------ LOG-1: envelopes and lines

GOOD_ENVELOPE: dict[str, object] = {"type": "turn/start", "seq": 4, "time": 1700000000000, "data": {"turn": 1}}


@pytest.mark.rule("LOG-1")
@pytest.mark.parametrize(
    "raw",
    [
        None, [], "event", 3,
        {**GOOD_ENVELOPE, "id": "e1"},  # unknown envelope key
        {**GOOD_ENVELOPE, "type": 1}, {k: v for k, v in GOOD_ENVELOPE.items() if k != "type"},
        {**GOOD_ENVELOPE, "seq": -1}, {**GOOD_ENVELOPE, "seq": "4"}, {**GOOD_ENVELOPE, "seq": True},
        {**GOOD_ENVELOPE, "seq": 4.5}, {**GOOD_ENVELOPE, "seq": 2**53}, {**GOOD_ENVELOPE, "seq": 10**5000},
        {k: v for k, v in GOOD_ENVELOPE.items() if k != "seq"},
        {**GOOD_ENVELOPE, "time": None}, {**GOOD_ENVELOPE, "time": 1.5}, {**GOOD_ENVELOPE, "time": 10**5000},
        {k: v for k, v in GOOD_ENVELOPE.items() if k != "time"},
        {k: v for k, v in GOOD_ENVELOPE.items() if k != "data"},
        {**GOOD_ENVELOPE, "ignorable": False}, {**GOOD_ENVELOPE, "ignorable": None},
        {**GOOD_ENVELOPE, "sourceEventSeqs": [1, "2"]}, {**GOOD_ENVELOPE, "sourceEventSeqs": 3},
        {**GOOD_ENVELOPE, "sourceEventSeqs": [True]},
    ],
    ids=short,
)
def test_malformed_envelope_is_log_1(raw: object) -> None:
    with pytest.raises(InvalidEvent) as err:
        SessionEvent.from_json(raw)
    assert err.value.rule == "LOG-1"


@pytest.mark.rule("LOG-1")
def test_good_envelope_round_trips() -> None:
    raw = {**GOOD_ENVELOPE, "ignorable": True, "surfaceOp": "append", "sourceEventSeqs": [1, 2]}
    assert SessionEvent.from_json(raw).to_json() == raw


@pytest.mark.rule("LOG-1")
@pytest.mark.parametrize(
    "line",
    [
        "", "\n", "not json", "\ufeff{}",
        '{"type":"x","seq":0,"time":0,"data":NaN}',
        '{"type":"x","seq":0,"time":0,"data":Infinity}',
        '{"type":"x","seq":0,"time":0,"data":-Infinity}', '{"type":"x","seq":0,"time":0}', "[1]", "null",
        '{"type":"x","seq":0,"time":0,"data":' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"type":"x","seq":0,"time":0,"data":' + "[" * 3000 + "]" * 3000 + "}",
        '{"type":"x","seq":' + "9" * 5000 + ',"time":0,"data":0}',
    ],
    ids=short,
)
def test_malformed_line_is_log_1(line: str) -> None:
    with pytest.raises(InvalidEvent) as err:
        parse_line(line, 3)
    assert err.value.rule == "LOG-1"


@pytest.mark.rule("LOG-1")
@given(raw=st.dictionaries(st.sampled_from(("type", "seq", "time", "data", "ignorable", "surfaceOp",
                                            "sourceEventSeqs", "other")), json_values) | json_values)
def test_random_envelopes_raise_only_log_1(raw: object) -> None:
    try:
        parsed: object = SessionEvent.from_json(raw)
    except InvalidEvent as err:
        parsed = err.rule
    assert isinstance(parsed, SessionEvent) or parsed == "LOG-1"
