"""The lifecycle model reproduces the eight logs recorded from the real system when given the same inputs.

Each ``NAME.live.jsonl`` is translated into model commands, in its own order:

* ``op-begin`` of ``followup``/``steer``/``inject``/``cancel``/``inbox.*`` → the same command (the message
  bodies come from the ``agent/inbox/inserted`` records the op emitted; a refused or missing-id
  ``replace`` gets a fresh message with the new id); its ``op-end`` result or error must match;
* ``agent/pre-step`` ``invoked`` → the model's claimed batch, turn and proposed step must match;
  ``decided`` → ``Decide``: ``reject`` as ``Veto(Reject())``, an ``enter`` of the claimed ids as the
  bare default (no trace decides anything else);
* the ``durable`` marker of a ``step/end`` while the model's step is open → ``StepResult`` of the kind the
  events file shows for that step (a ``tool/call`` → tool-calls, else the ``finish`` chunk), then
  ``TurnStopping()`` when turn stopping is due (no trace has turn-stopping listeners);
* the crash note → ``Restart``.  The records after it up to the next note are the dead process 1
  being disposed (its in-memory clear, never persisted: the README and ``final.json`` show the
  inbox rebuilt with both messages) and are skipped; process 2's crash-repair closers and
  ``session/end-seed`` were written before its live recording began, so they have no markers.

Compared: the durable events of the model's types (``agent/inbox/spliced``, ``turn/*``, ``step/*``,
``user/message``, ``session/end-seed``) in order, type and data; the inbox/status/error notifications
in order; both interleaved as the live file shows them (NOTIFY-4, CLAIM-4, INPUT-2); the final inbox
and status of ``NAME.final.json``, and for the resume scenario the inbox before and after the restart.
Every scenario is reproduced in full.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import attrs
import pytest

from conftest import REAL_TRACES
from loopspec.data.errors import CommandRefused
from loopspec.data.json_value import freeze, thaw
from loopspec.data.messages import InboxState, InboxTarget, MessageId, UserMessage
from loopspec.inbox.normalize import JsNumber
from loopspec.log.events import SPLICED, SessionEvent
from loopspec.log.reader import read_events
from loopspec.loop import agent as lifecycle
from loopspec.loop import commands as cmd
from loopspec.loop.pre_step import Reject, Veto
from loopspec.loop.records import END_SEED, STEP_END, STEP_START, TURN_END, TURN_START, USER_MESSAGE
from loopspec.loop.state import Agent, AgentTransition
from loopspec.loop.table import STEPPING, STOPPING

SCENARIOS = sorted(p.name.removesuffix(".events.jsonl") for p in REAL_TRACES.glob("*.events.jsonl"))
MODEL_TYPES = frozenset({SPLICED, TURN_START, TURN_END, STEP_START, STEP_END, USER_MESSAGE, END_SEED})
NOTIFICATIONS = frozenset(
    {"agent/inbox/inserted", "agent/inbox/discarded", "agent/inbox/claimed", "agent/status", "agent/error"}
)
Json = dict[str, Any]


def _lines(path: str) -> list[Json]:
    return [json.loads(line) for line in (REAL_TRACES / path).read_text(encoding="utf-8").splitlines()]


def _ids(inbox: InboxState) -> dict[str, list[str]]:
    return {"nextTurn": [m.id.value for m in inbox.next_turn], "nextStep": [m.id.value for m in inbox.next_step]}


def _number(raw: object) -> JsNumber:
    """Splice arguments: non-finite or fractional numbers are written as strings ("NaN", "-1.5")."""
    value = float(raw) if isinstance(raw, str) else raw
    assert isinstance(value, int | float)
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _live(record: Json) -> Json:
    return {k: v for k, v in record.items() if k not in ("kind", "nextSeq")}


@attrs.define
class Replay:
    """The model driven through one live file, and what it produced."""

    name: str
    events: list[SessionEvent]
    live: list[Json]
    agent: Agent = attrs.Factory(Agent)
    produced: list[Json] = attrs.Factory(list)  # the model's trace, except the restart's own writes
    expected: list[Json] = attrs.Factory(list)  # the live file's markers and notifications, same shape
    before_restart: dict[str, list[str]] | None = None
    after_restart: dict[str, list[str]] | None = None

    def apply(self, command: cmd.Command) -> AgentTransition:
        tr = lifecycle.step(self.agent, command)
        self.agent = tr.agent
        if not isinstance(command, cmd.Restart):  # process 2 wrote its closers before recording began
            self.produced += [
                {"type": x.type, "data": thaw(x.data)} if isinstance(x, SessionEvent) else x.to_json()
                for x in tr.trace
                if not isinstance(x, SessionEvent) or x.type in MODEL_TYPES
            ]
        return tr

    def run(self) -> None:
        records: Iterator[tuple[int, Json]] = iter(enumerate(self.live))
        dead = False
        for index, record in records:
            kind, rtype = record["kind"], record.get("type")
            if kind == "note":
                if record.get("crash"):
                    self.before_restart = _ids(self.agent.inbox)
                    self.apply(cmd.Restart())
                    self.after_restart = _ids(self.agent.inbox)
                dead = bool(record.get("crash"))  # process 1's disposal records run up to the next note
            elif dead:
                continue
            elif kind == "op-begin":
                self._op(index, record)
            elif kind == "durable":
                if rtype == STEP_END and self.agent.phase == STEPPING:
                    self._finish_step(record["seq"])
                if rtype in MODEL_TYPES:
                    real = self.events[record["seq"]]
                    self.expected.append({"type": real.type, "data": thaw(real.data)})
            elif rtype in NOTIFICATIONS:
                self.expected.append(_live(record))
            elif rtype == "agent/pre-step":
                self._pre_step(record)

    def _inserted(self, index: int, mid: str) -> UserMessage:
        """The message an op inserted, from its ``agent/inbox/inserted`` record before its ``op-end``."""
        for record in self.live[index + 1 :]:
            if record["kind"] == "op-end":
                break
            if record.get("type") == "agent/inbox/inserted" and record["message"]["id"] == mid:
                return UserMessage.from_json(record["message"])
        return UserMessage.create(mid)  # refused or not found: the op inserted nothing

    def _op(self, index: int, record: Json) -> None:
        op, args = record["op"], record["args"]
        end = next(r for r in self.live[index + 1 :] if r["kind"] == "op-end")
        command: cmd.Command
        if op in ("followup", "steer", "inject"):
            command = getattr(cmd, op)(self._inserted(index, args["id"]))
        elif op == "cancel":
            command = cmd.Cancel(freeze(args["cause"]), bool(args.get("keepInbox", False)))
        elif op == "inbox.append":
            command = cmd.Append(InboxTarget.parse(args["target"]), self._inserted(index, args["id"]))
        elif op == "inbox.replace":
            command = cmd.Replace(MessageId(args["messageId"]), self._inserted(index, args["newId"]))
        elif op == "inbox.splice":
            inserted = tuple(self._inserted(index, mid) for mid in args["inserted"])
            start, count = _number(args["start"]), _number(args["deleteCount"])
            command = cmd.Splice(InboxTarget.parse(args["target"]), start, count, inserted)
        else:
            raise AssertionError(f"{self.name}: op {op} has no translation")
        if "threw" in end:
            with pytest.raises(CommandRefused) as refused:
                self.apply(command)
            assert f"Error: {refused.value.message}" == end["threw"]
            return
        value = self.apply(command).value
        if isinstance(value, tuple):
            assert [{"id": m.id.value} for m in value] == end["result"]  # what splice returned
        else:
            assert value == end["result"]  # true/false of replace and remove, null of the rest

    def _pre_step(self, record: Json) -> None:
        run = self.agent.running
        assert run is not None, "a pre-step while the model is idle"
        batch = [m.id.value for m in run.batch]
        if record["phase"] == "invoked":  # DECIDE-1: the claimed batch, the turn, the proposed step
            assert (batch, run.turn, run.step + 1) == (record["messageIds"], record["turn"], record["step"])
            return
        decision = record["decision"]
        if decision["kind"] == "reject":
            self.apply(cmd.Decide((Veto(Reject()),)))
        else:
            assert decision["messageIds"] == batch, "only the default decision occurs in the traces"
            self.apply(cmd.Decide())

    def _finish_step(self, seq: int) -> None:
        """The step that the ``step/end`` at ``seq`` closes ends as the events file shows."""
        inside = [e for e in self.events if _turn_step(e) == _turn_step(self.events[seq])]
        finishes = [_finish_kind(e) for e in inside]
        if any(e.type == "tool/call" for e in inside):
            self.apply(cmd.StepResult("tool-calls"))  # no trace's tool produces inbox context
        else:
            self.apply(cmd.StepResult("max-tokens" if "max-tokens" in finishes else "stop"))
        if self.agent.phase == STOPPING:
            self.apply(cmd.TurnStopping())


def _turn_step(event: SessionEvent) -> tuple[object, object] | None:
    data = thaw(event.data)
    return (data.get("turn"), data.get("step")) if isinstance(data, dict) else None


def _finish_kind(event: SessionEvent) -> object:
    data = thaw(event.data)
    chunk = data.get("chunk") if isinstance(data, dict) else None
    if event.type != "assistant/chunk" or not isinstance(chunk, dict) or chunk.get("type") != "finish":
        return None
    reason = chunk.get("reason")
    return reason.get("kind") if isinstance(reason, dict) else None


@pytest.fixture(scope="module", params=SCENARIOS)
def replay(request: pytest.FixtureRequest) -> Replay:
    name = request.param
    played = Replay(name, list(read_events(REAL_TRACES / f"{name}.events.jsonl")), _lines(f"{name}.live.jsonl"))
    played.run()
    return played


def test_eight_real_traces() -> None:
    assert len(SCENARIOS) == 8


@pytest.mark.rule("FOLD-5", "CLAIM-1", "CLAIM-2", "DECIDE-5", "DECIDE-8", "CANCEL-1", "CANCEL-3", "REPAIR-1")
def test_durable_events_of_the_model_types_match(replay: Replay) -> None:
    model = [(e.type, thaw(e.data)) for e in replay.agent.log.events if e.type in MODEL_TYPES]
    real = [(e.type, thaw(e.data)) for e in replay.events if e.type in MODEL_TYPES]
    assert model == real


@pytest.mark.rule("NOTIFY-1", "NOTIFY-2", "NOTIFY-4", "CLAIM-4", "INPUT-2", "STATUS-1", "END-2", "CHAIN-1")
def test_notifications_and_their_interleaving_match(replay: Replay) -> None:
    notes = [x for x in replay.produced if x["type"] in NOTIFICATIONS]
    assert notes == [x for x in replay.expected if x["type"] in NOTIFICATIONS]
    assert replay.produced == replay.expected


@pytest.mark.rule("FOLD-5", "REPAIR-4", "CLAIM-5", "CHAIN-2")
def test_final_inbox_and_status_match(replay: Replay) -> None:
    final = json.loads((REAL_TRACES / f"{replay.name}.final.json").read_text(encoding="utf-8"))
    assert _ids(replay.agent.inbox) == {"nextTurn": final["nextTurn"], "nextStep": final["nextStep"]}
    assert replay.agent.status == final["status"]
    if "beforeRestart" in final:
        for when in ("beforeRestart", "reconstructedAfterResume"):
            assert {k: final[when][k] for k in ("nextTurn", "nextStep")} == (
                replay.before_restart if when == "beforeRestart" else replay.after_restart
            )
