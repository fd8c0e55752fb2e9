"""The JSON Schemas of spec/schemas: well-formed, accepting every real record, rejecting bad ones.

The schemas are the machine-readable half of the record rules (LOG-1, LOG-7, LOG-8, SPLICE-2,
SPLICE-4, SPLICE-5, SPLICE-6, CLAIM-2, END-1, VARIANT-2, VARIANT-3, NOTIFY-1, DATA-2, DATA-3).
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any
from urllib.parse import urljoin

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from conftest import REAL_TRACES
from loopspec.data.errors import CommandRefused
from loopspec.data.messages import InboxTarget, MessageId, UserMessage
from loopspec.inbox.session import InboxSession, Transition
from loopspec.rules.catalogue import load_spec
from specdoc.schema_support import (
    all_schemas,
    event_schema_names,
    notification_schema_names,
    validate_event,
    validate_live_record,
    validate_notification,
)

BASE = "https://loopspec.invalid/schemas/"


def _lines(pattern: str) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for path in sorted(REAL_TRACES.glob(pattern)):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            out.append((f"{path.name}:{n}", json.loads(line)))
    return out


def _refs(node: object) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def test_schemas_are_well_formed_and_linked() -> None:
    """Meta check of the schema set: draft 2020-12, `$id` = base + file name, every `$ref`
    resolves, every `x-rules` entry is a defined rule ID, one schema per event/notification type."""
    schemas = all_schemas()
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values())
    defined = set(load_spec().ids())
    for name, schema in schemas.items():
        Draft202012Validator.check_schema(schema)
        assert schema["$id"] == BASE + name, name
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema", name
        resolver = registry.resolver(base_uri=schema["$id"])
        for ref in _refs(schema):
            resolver.lookup(urljoin(schema["$id"], ref))
        if "x-kind" not in schema:
            continue  # a schema of another part of the spec (e.g. the command language)
        assert schema.get("x-rules"), f"{name} names no rule"
        assert set(schema["x-rules"]) <= defined, f"{name}: undefined rule(s) {set(schema['x-rules']) - defined}"
    assert set(event_schema_names()) == {
        "agent/inbox/spliced",
        "turn/start",
        "turn/end",
        "step/start",
        "step/end",
        "user/message",
        "session/end-seed",
    }
    assert set(notification_schema_names()) == {
        "agent/inbox/inserted",
        "agent/inbox/discarded",
        "agent/inbox/claimed",
        "agent/status",
        "agent/error",
    }


REAL_EVENTS = _lines("*.events.jsonl")
REAL_LIVE = _lines("*.live.jsonl")


@pytest.mark.rule("LOG-1", "LOG-7", "LOG-8", "SPLICE-4", "SPLICE-5", "SPLICE-6", "CLAIM-2", "END-1", "VARIANT-3")
@pytest.mark.parametrize(("where", "event"), REAL_EVENTS, ids=[w for w, _ in REAL_EVENTS])
def test_real_events_validate(where: str, event: dict[str, Any]) -> None:
    validate_event(event)


@pytest.mark.rule("NOTIFY-1", "CLAIM-4", "STATUS-1")
@pytest.mark.parametrize(("where", "record"), REAL_LIVE, ids=[w for w, _ in REAL_LIVE])
def test_real_live_records_validate(where: str, record: dict[str, Any]) -> None:
    validate_live_record(record)


def test_real_traces_are_all_there() -> None:
    """Guards the two parametrized tests above against an empty glob (they would pass vacuously)."""
    assert len({w.split(":")[0] for w, _ in REAL_EVENTS}) == 8
    assert len({w.split(":")[0] for w, _ in REAL_LIVE}) == 8


def _msg(mid: str, **extra: Any) -> dict[str, Any]:
    return {"id": mid, "role": "user", "content": [{"type": "text", "text": mid}], "source": {"kind": "user"}, **extra}


def _ev(etype: str, data: Any, **envelope: Any) -> dict[str, Any]:
    return {"type": etype, "seq": 0, "time": 1, "data": data, **envelope}


GOOD_EVENTS = [
    _ev("agent/inbox/spliced", {"target": "next-turn", "start": 0, "inserted": [_msg("a", kept=True)]}),
    _ev(
        "agent/inbox/spliced",
        {"target": "next-step", "start": 2, "removedCount": 1, "inserted": [_msg("b")], "outcome": "canceled"},
    ),
    _ev("turn/end", {"turn": 3, "reason": {"kind": "aborted", "reason": {"kind": "hook", "reason": "r"}}}),
    _ev("turn/end", {"turn": 3, "reason": {"kind": "aborted", "reason": {"kind": "user", "detail": 1}}}),
    _ev("turn/end", {"turn": 1, "reason": {"kind": "error", "error": {"message": "boom", "code": "UNKNOWN"}}}),
    _ev("turn/end", {"turn": 1, "reason": {"kind": "max-tokens"}}),
    _ev("turn/end", {"turn": 2, "reason": {"kind": "forked"}}),
    _ev("session/end-seed", {"inherited": True}),
    _ev("request/header", {"anything": [1, 2]}, ignorable=True),
]


@pytest.mark.rule("DATA-2", "SPLICE-9", "END-1", "VARIANT-2", "VARIANT-3", "LOG-6")
@pytest.mark.parametrize("event", GOOD_EVENTS)
def test_schemas_accept_every_real_variant(event: dict[str, Any]) -> None:
    """Shapes the real system writes but the traces do not show: unknown message fields, a
    replacement, hook and whole causes, an error end, v0.1.7's forked closer, the v0.1.5
    end-seed, foreign types."""
    validate_event(event)


def _bad(rule: str, etype: str, data: Any, **envelope: Any) -> Any:
    return pytest.param(_ev(etype, data, **envelope), id=f"{rule}:{etype}")


SPL = "agent/inbox/spliced"
BAD_EVENTS = [
    _bad("LOG-1", "turn/start", {"turn": 1}, id="e1"),
    _bad("LOG-1", "turn/start", {"turn": 1}, ignorable=False),
    _bad("LOG-1", "x/y", {}, seq=-1),
    _bad("LOG-1", "x/y", {}, time=1.5),
    _bad("DATA-3", SPL, {"target": "next-thing", "start": 0, "inserted": [_msg("a")]}),
    _bad("DATA-2", SPL, {"target": "next-turn", "start": 0, "inserted": [{"id": "a", "role": "user"}]}),
    _bad("DATA-2", SPL, {"target": "next-turn", "start": 0, "inserted": [{**_msg("a"), "role": "assistant"}]}),
    _bad("SPLICE-2", SPL, {"target": "next-turn", "start": 0, "inserted": []}),
    _bad("SPLICE-4", SPL, {"target": "next-turn", "start": 0, "removedCount": 0, "inserted": [_msg("a")]}),
    _bad("SPLICE-5", SPL, {"target": "next-turn", "start": 0, "removedCount": 1}),
    _bad("SPLICE-6", SPL, {"target": "next-turn", "start": 0, "inserted": [_msg("a")], "outcome": "canceled"}),
    _bad("SPLICE-6", SPL, {"target": "next-turn", "start": 0, "removedCount": 1, "inserted": [], "outcome": "x"}),
    _bad("CLAIM-2", SPL, {"target": "next-turn", "start": 1, "removedCount": 1, "inserted": []}),
    _bad("CLAIM-2", SPL, {"target": "next-turn", "start": 0, "removedCount": 1, "inserted": [_msg("a")]}),
    _bad("FOLD-1", SPL, {"target": "next-turn", "start": 0, "inserted": [_msg("a")], "notification": {}}),
    _bad("FOLD-2", SPL, {"target": "next-turn", "start": 2**53, "inserted": [_msg("a")]}),
    _bad("FOLD-2", SPL, {"target": "next-turn", "start": 0.5, "inserted": [_msg("a")]}),
    _bad("LOG-8", "turn/start", {"turn": 1, "trigger": {"kind": "retry"}}),
    _bad("LOG-8", "turn/start", {"turn": 0}),
    _bad("LOG-8", "step/start", {"turn": 1}),
    _bad("LOG-8", "step/end", {"turn": 1, "step": True}),
    _bad("END-1", "turn/end", {"turn": 1, "reason": {"kind": "settled"}}),
    _bad("END-1", "turn/end", {"turn": 1, "reason": {"kind": "completed", "recovery": True}}),
    _bad("END-1", "turn/end", {"turn": 1, "reason": {"kind": "error"}}),
    _bad("VARIANT-2", "turn/end", {"turn": 1, "reason": {"kind": "aborted"}}),
    _bad("VARIANT-2", "turn/end", {"turn": 1, "reason": {"kind": "aborted", "reason": {"why": "user"}}}),
    _bad("VARIANT-3", "session/end-seed", {"inherited": False}),
    _bad("LOG-7", "user/message", _msg("a")),
    _bad("LOG-7", "user/message", _msg("a"), surfaceOp="append", sourceEventSeqs=[1]),
]


@pytest.mark.rule(
    "LOG-1",
    "LOG-7",
    "LOG-8",
    "DATA-2",
    "DATA-3",
    "SPLICE-2",
    "SPLICE-4",
    "SPLICE-5",
    "SPLICE-6",
    "CLAIM-2",
    "FOLD-1",
    "FOLD-2",
    "END-1",
    "VARIANT-2",
    "VARIANT-3",
)
@pytest.mark.parametrize("event", BAD_EVENTS)
def test_schemas_reject_records_no_real_writer_produces(event: dict[str, Any]) -> None:
    with pytest.raises(AssertionError):
        validate_event(event)


BAD_NOTIFICATIONS = [
    {"type": "agent/inbox/inserted", "message": _msg("a"), "outcome": "canceled"},
    {"type": "agent/inbox/discarded", "message": _msg("a"), "start": 0},
    {"type": "agent/inbox/claimed", "message": _msg("a")},
    {"type": "agent/inbox/claimed", "message": _msg("a"), "turn": 1, "batch": ["a"]},
    {"type": "agent/status", "status": "maintenance"},
    {"type": "agent/error", "turn": 1, "error": {"message": "x"}},
    {"type": "agent/settled", "turn": 1},
]


@pytest.mark.rule("NOTIFY-1", "CLAIM-4", "STATUS-1", "END-2")
@pytest.mark.parametrize("note", BAD_NOTIFICATIONS)
def test_notification_schemas_reject_extra_or_missing_fields(note: dict[str, Any]) -> None:
    """No placement, outcome or batch fields; claimed needs its turn; no maintenance status; no
    pre-0.1.0 agent/settled."""
    with pytest.raises(AssertionError):
        validate_notification(note)


def test_real_notification_with_agent_key_is_accepted() -> None:
    """The real dispatcher injects `agent`; the model omits it; both are the same notification."""
    validate_notification({"type": "agent/inbox/claimed", "message": _msg("a"), "turn": 2, "agent": {"id": "x"}})


def test_live_record_schema_rejects_unknown_shapes() -> None:
    good = {"kind": "live", "type": "agent/status", "nextSeq": 1, "status": "idle"}
    validate_live_record(good)
    for broken in (
        {**good, "kind": "spooky"},
        {**good, "outcome": "canceled"},
        {"kind": "durable", "seq": 1},
        {"kind": "op-end", "op": "x", "args": {}, "nextSeqBefore": 0, "nextSeqAfter": 0},
        {"kind": "live", "type": "agent/pre-step", "nextSeq": 0, "phase": "decided", "turn": 1, "step": 1},
    ):
        with pytest.raises(AssertionError):
            validate_live_record(copy.deepcopy(broken))


# --- every record the inbox model writes conforms ----------------------------------------------

IDS = ("a", "b", "c", "d", "e")
targets = st.sampled_from(tuple(InboxTarget))
numbers = st.one_of(
    st.integers(-4, 6),
    st.sampled_from([math.nan, math.inf, -math.inf, -0.5, 1.5, -1.5, -0.0]),
)


@st.composite
def messages(draw: st.DrawFn) -> UserMessage:
    mid = draw(st.sampled_from(IDS))
    extra = draw(st.sampled_from([{}, {"meta": {"n": 1}}]))
    return UserMessage.from_json(_msg(mid, **extra))


operations = st.one_of(
    st.tuples(st.just("append"), targets, messages()),
    st.tuples(st.just("prepend"), targets, messages()),
    st.tuples(st.just("splice"), targets, numbers, numbers, st.lists(messages(), max_size=3).map(tuple)),
    st.tuples(st.just("replace"), st.sampled_from(IDS).map(MessageId), messages()),
    st.tuples(st.just("remove"), st.sampled_from(IDS).map(MessageId)),
    st.tuples(st.just("clear")),
    st.tuples(st.just("claim"), targets, st.integers(1, 5)),
)


def _run(session: InboxSession, op: tuple[Any, ...]) -> Transition:
    name, *args = op
    method = getattr(session, name)
    result: Transition = method(*args)
    return result


@pytest.mark.rule(
    "LOG-1", "NORM-4", "SPLICE-2", "SPLICE-4", "SPLICE-5", "SPLICE-6", "CLAIM-2", "NOTIFY-1", "CLAIM-4", "DATA-2"
)
@given(st.lists(operations, min_size=1, max_size=25))
def test_every_inbox_session_record_and_notification_validates(ops: list[tuple[Any, ...]]) -> None:
    session = InboxSession()
    for op in ops:
        try:
            transition = _run(session, op)
        except CommandRefused:
            continue
        for event in transition.events:
            validate_event(event.to_json())
        for note in transition.notifications:
            validate_notification(note.to_json())
        session = transition.session
    assert [e.seq for e in session.log.events] == list(range(len(session.log.events)))
