"""Logs the lifecycle model writes are logs the checker accepts, and synthetic logs too.

The model (:func:`loopspec.loop.agent.step`) is driven by random commands — sends of every kind,
public edits, cancels, restarts, and the environment's answers at each await point (pre-step
listener chains, step results, turn-stopping listeners) — and its durable log is checked.  Two
independent descriptions of the real loop, the model's table and the checker's log state
machine, must agree that every such history is legal.  The model's interleaved emission trace
also gives a live stream (a restart becomes a crash note and a resume note, or while idle a
graceful disposal: cancel with cause disposed, a note with crash false and the next process's
note), which must pass ``check --live`` against the log.  The synthetic generator used by the other checker tests is
held to the same standard.

Rules: TURN-1 … TURN-5, STEP-1 … STEP-4, CLAIM-1 … CLAIM-3, CLAIM-6, DECIDE-5 … DECIDE-8,
RESULT-5, CHAIN-1, CHAIN-2, CANCEL-3, CANCEL-4, REPAIR-1 … REPAIR-4, LOG-2, LOG-7, LOG-8.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from check.log_mutations import Log, check_log, dumps, valid_logs
from loopspec.check import CheckOptions, check_file
from loopspec.data.errors import CommandRefused
from loopspec.data.json_value import freeze
from loopspec.data.messages import InboxTarget, MessageId, UserMessage
from loopspec.data.notifications import Notification
from loopspec.log.events import SessionEvent
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as lsn
from loopspec.loop.agent import step
from loopspec.loop.state import Agent
from loopspec.loop.table import DECIDING, IDLE, STEPPING, STOPPING

NT, NS = InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP
Record = dict[str, object]
SLOW = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
POOL = ("a", "b", "c", "d", "e")

messages = st.builds(UserMessage.create, st.sampled_from(POOL), st.sampled_from(("x", "y")))
targets = st.sampled_from((NT, NS))
sends = st.builds(cmd.Send, messages, targets, st.booleans())
cancels = st.builds(cmd.Cancel, st.sampled_from(({"kind": "user"}, {"kind": "disposed"})).map(freeze), st.booleans())
edits = st.one_of(
    st.builds(cmd.Append, targets, messages),
    st.builds(cmd.Splice, targets, st.integers(-2, 3), st.integers(-1, 2), st.lists(messages, max_size=2).map(tuple)),
    st.builds(cmd.Remove, st.sampled_from(POOL).map(MessageId)),
    st.just(cmd.Clear()),
)
actions = st.lists(st.one_of(sends, cancels), max_size=2).map(tuple)
decisions = st.one_of(st.just(lsn.Reject()), st.lists(messages, max_size=2).map(lambda ms: lsn.Enter(tuple(ms))))
listeners = st.lists(
    st.one_of(
        st.builds(lsn.Wrap, st.just(lsn.Keep()), actions, actions),
        st.builds(lsn.Wrap, st.builds(lsn.Replace, decisions)),
        st.builds(lsn.Veto, decisions, actions),
        st.builds(lsn.Throw, st.just("prompt hook broke"), actions),
    ),
    max_size=2,
).map(tuple)
answers: dict[str, st.SearchStrategy[cmd.Command]] = {
    DECIDING: st.one_of(st.just(cmd.Decide()), st.just(cmd.Decide()), st.builds(cmd.Decide, listeners)),
    STEPPING: st.one_of(
        st.sampled_from((cmd.StepResult("stop"), cmd.StepResult("max-tokens"), cmd.StepResult("fail"),
                         cmd.StepResult("request-error", retry=True), cmd.StepResult("request-error"))),
        st.builds(cmd.StepResult, st.just("tool-calls"), st.lists(messages, max_size=1).map(tuple), st.booleans()),
        st.builds(cmd.StepResult, st.just("tool-call"), started=st.booleans()),
        st.sampled_from((cmd.StepResult("tool-start"), cmd.StepResult("tool-result"))),
    ),
    STOPPING: st.builds(cmd.TurnStopping, st.lists(st.builds(cmd.Send, messages, st.just(NS), st.booleans()),
                                                   max_size=1).map(tuple)),
}


def _events(agent: Agent) -> Log:
    return [e.to_json() for e in agent.log.events]


def _run(data: st.DataObject) -> tuple[Agent, list[Record]]:
    """Random commands through the model; its log and a live stream of what it emitted."""
    agent = Agent()
    live: list[Record] = []
    for _ in range(data.draw(st.integers(1, 60))):
        # Mostly the environment's answer at the current await point, so turns run to their end;
        # input, edits, cancels and restarts in between.
        roll = data.draw(st.integers(0, 99))
        phase_answer = answers.get(agent.phase)
        command: cmd.Command
        if phase_answer is not None and roll < 70:
            command = data.draw(phase_answer)
        elif roll < 90:
            command = data.draw(st.one_of(sends, sends, edits))
        elif roll < 97:
            command = data.draw(cancels)
        else:
            command = cmd.Restart()
        try:
            transition = step(agent, command)
        except CommandRefused:
            continue
        if isinstance(command, cmd.Restart) and agent.phase == IDLE and roll % 2:
            # A graceful disposal while idle: cancel with cause disposed (its clear is recorded), then
            # the successor loads the log and appends the end-seed while nothing records.
            disposal = step(agent, cmd.Cancel(freeze({"kind": "disposed"}), False))
            live += _live_records(disposal.trace, len(agent.log))
            transition = step(disposal.agent, command)
            live += [{"kind": "note", "text": "disposed", "crash": False}, {"kind": "note", "text": "loaded"}]
        elif isinstance(command, cmd.Restart):
            # The process died here; its successor records again after repair and end-seed.
            live += [{"kind": "note", "text": "killed", "crash": True}, {"kind": "note", "text": "resumed"}]
        else:
            live += _live_records(transition.trace, len(agent.log))
        agent = transition.agent
    return agent, live


def _live_records(trace: tuple[SessionEvent | Notification, ...], next_seq: int) -> list[Record]:
    """The live.jsonl form (examples/recordings/README.md) of one transition's interleaved trace."""
    out: list[Record] = []
    for item in trace:
        if isinstance(item, SessionEvent):
            out.append({"kind": "durable", "seq": item.seq, "type": item.type})
            next_seq = item.seq + 1
        else:
            out.append({"kind": "live", "nextSeq": next_seq, **item.to_json()})
    return out


@pytest.mark.rule("TURN-5", "CLAIM-6", "RESULT-5", "CANCEL-4", "REPAIR-2", "REPAIR-3", "LOG-7")
@SLOW
@given(data=st.data())
def test_the_model_writes_logs_the_checker_accepts(tmp_path: Path, data: st.DataObject) -> None:
    agent, _ = _run(data)
    result = check_log(_events(agent), tmp_path)
    assert result.status == "valid", (result.violations[0].rule, result.violations[0].message)


@pytest.mark.rule("NOTIFY-1", "NOTIFY-2", "NOTIFY-4", "CLAIM-4", "STATUS-1", "END-2", "LOG-5")
@SLOW
@given(data=st.data())
def test_the_models_live_stream_matches_its_log(tmp_path: Path, data: st.DataObject) -> None:
    """The model's notifications, in emission order, pass ``check --live`` against its log."""
    agent, live = _run(data)
    log = tmp_path / "m.events.jsonl"
    log.write_bytes(dumps(_events(agent)))
    stream = tmp_path / "m.live.jsonl"
    stream.write_text("".join(json.dumps(r) + "\n" for r in live), encoding="utf-8")
    result = check_file(log, CheckOptions(all=True), live=stream)
    assert result.status == "valid", [(v.rule, v.message) for v in result.violations]


@pytest.mark.rule("TURN-1", "STEP-1", "STEP-4", "CLAIM-1", "CLAIM-2", "LOG-3", "LOG-4")
@SLOW
@given(valid_logs(max_events=400))
def test_synthetic_logs_are_valid(tmp_path: Path, log: Log) -> None:
    result = check_log(log, tmp_path)
    assert result.status == "valid", (result.violations[0].rule, result.violations[0].message)
