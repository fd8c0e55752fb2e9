"""The inbox half of the model against the eight logs recorded from the real system.

1. Replaying each ``NAME.events.jsonl`` gives the pending ids of ``NAME.final.json`` (FOLD-5),
   with both folds; ``resume_crash_mid_turn`` also before the crash and right after the resume.
2. The public ``inbox.*`` calls recorded in ``NAME.live.jsonl`` (``op-begin`` … ``op-end``), replayed
   as :class:`InboxSession` operations, write the same durable splices at the same seqs, emit the
   same notifications in the same order, and return or throw the same (SPLICE-*, NOTIFY-*).

Part 2 runs only on scenarios whose every op is ``inbox.*`` (``inbox_replace`` and
``splice_negative_start``): the others drive the lifecycle (``followup``, ``steer``, ``inject``,
``cancel``), which interleaves turn and step events this inbox-only replay does not produce.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import pytest

from conftest import REAL_TRACES
from loopspec.data.errors import CommandRefused
from loopspec.data.json_value import thaw
from loopspec.data.messages import EMPTY_INBOX, InboxState, InboxTarget, MessageId, UserMessage
from loopspec.inbox import fold
from loopspec.inbox.normalize import JsNumber
from loopspec.inbox.session import InboxSession, Transition
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import SPLICED
from loopspec.log.reader import read_events

SCENARIOS = sorted(p.name.removesuffix(".events.jsonl") for p in REAL_TRACES.glob("*.events.jsonl"))
Json = dict[str, object]


def _events(name: str) -> list[SessionEvent]:
    return list(read_events(REAL_TRACES / f"{name}.events.jsonl"))


def _json_lines(path: Path) -> list[Json]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _final(name: str) -> Json:
    out = json.loads((REAL_TRACES / f"{name}.final.json").read_text(encoding="utf-8"))
    assert isinstance(out, dict)
    return out


def _ids(state: InboxState) -> dict[str, list[str]]:
    return {"nextTurn": [m.id.value for m in state.next_turn], "nextStep": [m.id.value for m in state.next_step]}


def _both_folds(events: list[SessionEvent]) -> InboxState:
    fast = fold.replay(events)
    assert functools.reduce(fold.apply, events, EMPTY_INBOX) == fast
    return fast


def test_all_eight_traces_are_present() -> None:
    assert len(SCENARIOS) == 8


@pytest.mark.rule("FOLD-5", "LOG-1")
@pytest.mark.parametrize("name", SCENARIOS)
def test_replay_gives_the_final_inbox(name: str) -> None:
    events = _events(name)
    final = _final(name)
    assert len(events) == final["eventCount"]
    assert _ids(_both_folds(events)) == {"nextTurn": final["nextTurn"], "nextStep": final["nextStep"]}


@pytest.mark.rule("FOLD-5", "CLAIM-5")
@pytest.mark.parametrize(("key", "count"), [("beforeRestart", 11), ("reconstructedAfterResume", 14)])
def test_resume_rebuilds_the_inbox_exactly(key: str, count: int) -> None:
    """The crash leaves u2 and i1 pending; the repair closers and end-seed change nothing; u1 stays claimed."""
    final = _final("resume_crash_mid_turn")
    expected = final[key]
    assert isinstance(expected, dict)
    assert expected["eventCount"] == count
    state = _both_folds(_events("resume_crash_mid_turn")[:count])
    assert _ids(state) == {"nextTurn": expected["nextTurn"], "nextStep": expected["nextStep"]}


# ------------------------------------------------------------------ op replay


def _ops(name: str) -> list[list[Json]]:
    """The live records grouped per public call: each group runs from op-begin to its op-end."""
    groups: list[list[Json]] = []
    current: list[Json] | None = None
    for record in _json_lines(REAL_TRACES / f"{name}.live.jsonl"):
        if record["kind"] == "op-begin":
            assert current is None, "ops do not nest in these traces"
            current = [record]
        elif current is not None:
            current.append(record)
            if record["kind"] == "op-end":
                groups.append(current)
                current = None
    assert current is None
    return groups


PURE_INBOX = [name for name in SCENARIOS if all(str(g[0]["op"]).startswith("inbox.") for g in _ops(name))]


def test_pure_inbox_scenarios_are_the_expected_two() -> None:
    """Guards the skip in part 2: if a trace changes, this says which scenarios the op replay covers."""
    assert PURE_INBOX == ["inbox_replace", "splice_negative_start"]


def _number(raw: object) -> JsNumber:
    """A recorded splice argument: a JSON number, or a string for non-finite or fractional values."""
    if isinstance(raw, str):
        value = float(raw)  # accepts "NaN", "Infinity", "-Infinity", "-1.5", "-0"
        assert raw in ("NaN", "Infinity", "-Infinity") or math.isfinite(value)
        return value
    assert isinstance(raw, int | float)
    assert not isinstance(raw, bool)
    return raw


def _bodies(group: list[Json], durable: list[SessionEvent]) -> dict[str, UserMessage]:
    """Messages this call inserted, by id: from its durable splices, else its live ``inserted`` records."""
    found: dict[str, UserMessage] = {}
    for record in group:
        if record.get("type") == "agent/inbox/inserted":
            m = UserMessage.from_json(record["message"])
            found[m.id.value] = m
    for event in durable:
        data = thaw(event.data)
        assert isinstance(data, dict)
        assert isinstance(data["inserted"], list)
        for raw in data["inserted"]:
            m = UserMessage.from_json(raw)
            found[m.id.value] = m
    return found


def _call(session: InboxSession, op: str, args: Json, bodies: dict[str, UserMessage]) -> Transition:
    def message(mid: object) -> UserMessage:
        assert isinstance(mid, str)
        # A refused call wrote nothing, so its body was never recorded; the refusal does not read it.
        return bodies.get(mid) or UserMessage.create(mid)

    if op == "inbox.append":
        return session.append(InboxTarget.parse(args["target"]), message(args["id"]))
    if op == "inbox.prepend":
        return session.prepend(InboxTarget.parse(args["target"]), message(args["id"]))
    if op == "inbox.replace":
        return session.replace(MessageId(str(args["messageId"])), message(args["newId"]))
    if op == "inbox.remove":
        return session.remove(MessageId(str(args["messageId"])))
    if op == "inbox.splice":
        inserted = args["inserted"]
        assert isinstance(inserted, list)
        return session.splice(
            InboxTarget.parse(args["target"]),
            _number(args["start"]),
            _number(args["deleteCount"]),
            tuple(message(mid) for mid in inserted),
        )
    raise AssertionError(f"not an inbox op: {op}")


def _result_json(op: str, value: object) -> object:
    """The model's return value in the trace's notation (splice results list only the ids)."""
    if op == "inbox.splice":
        assert isinstance(value, tuple)
        return [{"id": m.id.value} for m in value]
    return value


@pytest.mark.rule(
    "SPLICE-1", "SPLICE-2", "SPLICE-3", "SPLICE-4", "SPLICE-5", "SPLICE-6", "SPLICE-7", "SPLICE-9",
    "NORM-2", "NORM-4", "NOTIFY-1", "NOTIFY-2", "NOTIFY-3", "NOTIFY-4", "FOLD-5",
)
@pytest.mark.parametrize("name", PURE_INBOX)
def test_recorded_inbox_calls_replay_identically(name: str) -> None:
    real = _events(name)
    session = InboxSession()
    for group in _ops(name):
        begin, end = group[0], group[-1]
        op, args = str(begin["op"]), begin["args"]
        assert isinstance(args, dict)
        before, after = end["nextSeqBefore"], end["nextSeqAfter"]
        assert isinstance(before, int)
        assert isinstance(after, int)
        assert before == len(session.log)
        durable_seqs = [r["seq"] for r in group if r["kind"] == "durable"]
        live = [r for r in group if r["kind"] == "live"]
        bodies = _bodies(group, real[before:after])

        if "threw" in end:
            with pytest.raises(CommandRefused) as err:
                _call(session, op, args, bodies)
            assert f"Error: {err.value.message}" == end["threw"]
            assert err.value.rule == "SPLICE-3"
            assert durable_seqs == []
            assert live == []
            assert after == before
            continue

        tr = _call(session, op, args, bodies)
        # Same durable splices at the same seqs (SPLICE-4/5/6, NORM-4).
        assert [e.seq for e in tr.events] == durable_seqs == list(range(before, after))
        assert [(e.type, thaw(e.data)) for e in tr.events] == [(e.type, thaw(e.data)) for e in real[before:after]]
        # Same notifications in the same order (NOTIFY-1/2/3), each after the durable append.
        recorded = [{k: v for k, v in r.items() if k not in ("kind", "nextSeq")} for r in live]
        assert [n.to_json() for n in tr.notifications] == recorded
        # NOTIFY-4: the interleaving of records and notifications is the recorded one.
        interleaved = [("durable", r["seq"]) if r["kind"] == "durable" else r["type"] for r in group[1:-1]]
        assert [("durable", i.seq) if isinstance(i, SessionEvent) else i.type for i in tr.trace] == interleaved
        assert all(r["nextSeq"] == after for r in live)
        assert _result_json(op, tr.value) == end["result"]
        session = tr.session

    final = _final(name)
    assert _ids(session.inbox) == {"nextTurn": final["nextTurn"], "nextStep": final["nextStep"]}
    assert [(e.type, e.seq, e.data) for e in session.log.events] == [(e.type, e.seq, e.data) for e in real]
    assert all(e.type == SPLICED for e in real)
