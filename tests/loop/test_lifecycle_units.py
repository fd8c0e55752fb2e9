"""Unit and property tests of the lifecycle half: listener chains, consumed work, crash repair, refusals.

* DECIDE-3/4/7: the waterfall runs outermost first, a veto stops everything after it, wraps keep,
  replace, drop or add, a throw ends the turn ``error``; listeners' actions happen in chain order and
  input they insert stays pending (DECIDE-4);
* WORK-1: the consumed-work oracle cases of real-behaviour §9.5 and §7;
* REPAIR-1..3: the closers for logs cut from the real trace ``steer_during_tool_call`` with an
  unstarted or a started pending tool call, an open step, or no open step; REPAIR-2: no doubled marker;
* INPUT-3: a refused send does nothing; INPUT-4: every (phase, input) without a table row is refused.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import REAL_TRACES
from loopspec.data.errors import CommandRefused
from loopspec.data.json_value import freeze, thaw
from loopspec.data.messages import InboxTarget, MessageId, UserMessage
from loopspec.data.notifications import AgentError
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import SPLICED
from loopspec.log.reader import read_events
from loopspec.log.session import SessionLog
from loopspec.log.tool_errors import RESULT_TEXTS, tool_error
from loopspec.loop import commands as cmd
from loopspec.loop import lifecycle as lifecycle
from loopspec.loop.consumed_work import fold_consumed_work
from loopspec.loop.lifecycle import rows_for
from loopspec.loop.phases import INPUTS, PHASES
from loopspec.loop.pre_step import Add, Drop, Enter, Keep, Reject, Replace, Throw, Veto, Wrap, run_chain
from loopspec.loop.state import Agent

NT, NS = InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP
A, B, C, X = (UserMessage.create(i) for i in ("A", "B", "C", "X"))
STOP = cmd.Stop()


steer = cmd.steer


# ---------------------------------------------------------------- DECIDE-3: the waterfall


@pytest.mark.rule("DECIDE-3")
def test_listeners_run_outermost_first_and_unwind_inside_out() -> None:
    a1, a2, a3, a4 = (steer(UserMessage.create(f"s{i}")) for i in range(4))
    chain = run_chain((A,), (Wrap(before=(a1,), after=(a4,)), Wrap(before=(a2,), after=(a3,))))
    assert chain.actions == (a1, a2, a3, a4)
    assert (chain.decision, chain.raised) == (Enter((A,)), None)  # the innermost default enters the batch


@pytest.mark.rule("DECIDE-3")
def test_a_veto_stops_later_listeners_and_the_default() -> None:
    before, later = steer(B), steer(C)
    chain = run_chain((A,), (Wrap(Add((X,))), Veto(Enter((B,)), before=(before,)), Throw("never", before=(later,))))
    assert chain == run_chain((A,), (Wrap(Add((X,))), Veto(Enter((B,)), before=(before,))))
    assert (chain.decision, chain.raised, chain.actions) == (Enter((B, X)), None, (before,))
    assert run_chain((A,), (Veto(Reject()), Wrap(Replace(Enter((B,)))))).decision == Reject()


@pytest.mark.rule("DECIDE-3")
@pytest.mark.parametrize(
    ("transform", "from_enter", "from_reject"),
    [
        (Keep(), Enter((A, B)), Reject()),
        (Replace(Enter((C,))), Enter((C,)), Enter((C,))),
        (Replace(Reject()), Reject(), Reject()),
        (Drop((MessageId("A"), MessageId("Z"))), Enter((B,)), Reject()),
        (Add((C,)), Enter((A, B, C)), Reject()),
    ],
)
def test_wrap_keeps_replaces_drops_or_adds(transform: Any, from_enter: Any, from_reject: Any) -> None:
    assert run_chain((A, B), (Wrap(transform),)).decision == from_enter
    assert run_chain((A, B), (Wrap(transform), Veto(Reject()))).decision == from_reject


@pytest.mark.rule("DECIDE-3")
@given(st.lists(st.sampled_from((Keep(), Add((C,)), Drop((MessageId("A"),)))), max_size=4))
def test_wrapping_preserves_downstream_changes(transforms: list[Any]) -> None:
    """Rewrites settle once: each wrap applies its transform to what the listeners inside it returned."""
    expected: tuple[UserMessage, ...] = (A, B)
    for t in reversed(transforms):
        dropped = t.ids if isinstance(t, Drop) else ()
        expected = expected + t.messages if isinstance(t, Add) else tuple(m for m in expected if m.id not in dropped)
    assert run_chain((A, B), tuple(Wrap(t) for t in transforms)).decision == Enter(expected)


@pytest.mark.rule("DECIDE-3", "DECIDE-7", "END-2", "CLAIM-5")
def test_a_throwing_listener_ends_the_turn_error_after_its_earlier_actions() -> None:
    agent, _ = lifecycle.run(Agent(), cmd.followup(A))
    chain = (Wrap(before=(steer(B),), after=(steer(X),)), Throw("hook broke", (steer(C),)))
    tr = lifecycle.step(agent, cmd.Decide(chain))
    types = [(e.type, thaw(e.data)) for e in tr.events]
    assert [t for t, _ in types] == [SPLICED, SPLICED, "turn/end"]  # B then C inserted; X (after next()) never
    failure = {"message": "hook broke", "code": "UNKNOWN"}
    assert types[-1][1] == {"turn": 1, "reason": {"kind": "error", "error": failure}}
    errors = [(i, n) for i, n in enumerate(tr.trace) if isinstance(n, AgentError)]
    assert [(n.turn, n.step) for _, n in errors] == [(1, 0)]
    assert tr.trace[errors[0][0] + 1] == tr.events[-1]  # END-2: agent/error right before the error end
    assert [m.id.value for m in tr.agent.inbox.next_step] == ["B", "C"]  # A stays claimed, the inserts stay


@pytest.mark.rule("DECIDE-7", "CLAIM-5")
def test_an_action_the_model_refuses_is_the_listener_throwing() -> None:
    agent, _ = lifecycle.run(Agent(), cmd.followup(A), cmd.inject(B))
    tr = lifecycle.step(agent, cmd.Decide((Wrap(before=(cmd.Append(NT, B),)),)))
    assert thaw(tr.events[-1].data)["reason"]["error"]["message"] == 'message "B" is already pending'  # type: ignore[index, call-overload]
    assert tr.agent.phase == "idle"


@pytest.mark.rule("DECIDE-4", "DECIDE-8", "DECIDE-6")
def test_input_inserted_during_the_decision_stays_pending_for_a_later_boundary() -> None:
    agent, _ = lifecycle.run(Agent(), cmd.followup(A))
    tr = lifecycle.step(agent, cmd.Decide((Wrap(Add((X,)), before=(steer(B), cmd.followup(C))),)))
    assert [(e.type, thaw(e.data).get("id")) for e in tr.events if e.type == "user/message"] == [  # type: ignore[union-attr]
        ("user/message", "A"),
        ("user/message", "X"),
    ]
    assert ([m.id.value for m in tr.agent.inbox.next_turn], [m.id.value for m in tr.agent.inbox.next_step]) == (
        ["C"],
        ["B"],
    )
    agent, _ = lifecycle.run(tr.agent, STOP)  # the next boundary claims next-step only (CLAIM-1)
    assert agent.running is not None
    assert [m.id.value for m in agent.running.batch] == ["B"]
    assert [m.id.value for m in agent.inbox.next_turn] == ["C"]  # the follow-up waits for its own turn


# ---------------------------------------------------------------- WORK-1: consumed-work oracle cases


def log(*records: tuple[str, dict[str, Any]]) -> tuple[SessionEvent, ...]:
    return tuple(SessionEvent(t, seq, seq, freeze(d)) for seq, (t, d) in enumerate(records))


def ins(mid: str) -> tuple[str, dict[str, Any]]:
    return (SPLICED, {"target": "next-turn", "start": 0, "inserted": [A.to_json() | {"id": mid}]})


def claim() -> tuple[str, dict[str, Any]]:
    return (SPLICED, {"target": "next-turn", "start": 0, "removedCount": 1, "inserted": []})


def cancel(replacement: str | None = None) -> tuple[str, dict[str, Any]]:
    inserted = [A.to_json() | {"id": replacement}] if replacement else []
    data = {"target": "next-turn", "start": 0, "removedCount": 1, "inserted": inserted, "outcome": "canceled"}
    return (SPLICED, data)


def turn(n: int, kind: str, *inner: tuple[str, dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [("turn/start", {"turn": n}), *inner, ("turn/end", {"turn": n, "reason": {"kind": kind}})]


def stepped(n: int) -> list[tuple[str, dict[str, Any]]]:
    return [("step/start", {"turn": n, "step": 1}), ("step/end", {"turn": n, "step": 1})]


def accounting(events: tuple[SessionEvent, ...]) -> tuple[int | None, bool]:
    work = fold_consumed_work(events)
    return (None if work.end is None else work.end.seq), work.dropped_unrun


@pytest.mark.rule("WORK-1")
def test_consumed_work_oracle_cases() -> None:
    assert accounting(()) == (None, False)  # empty
    two = log(ins("a"), *turn(1, "completed", claim(), *stepped(1)), ins("b"), *turn(2, "max-tokens", *stepped(2)))
    assert accounting(two) == (len(two) - 1, False)  # the latest stepped turn wins
    for kind in ("error", "aborted", "blocked", "interrupted", "some-future-kind"):  # claimed, not completed
        assert accounting(log(ins("a"), *turn(1, kind, claim()))) == (3, False), kind
        assert accounting(log(*turn(1, kind))) == (None, False), kind  # no claim, no step: nothing to account
    assert accounting(log(ins("a"), *turn(1, "completed", claim()))) == (None, False)  # rewritten to empty
    assert accounting(log(ins("a"), claim())) == (None, False)  # a claim with no open turn is nobody's
    done = [ins("a"), *turn(1, "completed", claim(), *stepped(1))]
    assert accounting(log(*done, ins("b"), cancel())) == (5, True)  # a cancel after the last turn drops
    assert accounting(log(*done, ins("b"), cancel("c"))) == (5, False)  # a replacement is not a drop
    again = log(*done, ins("b"), cancel(), ins("c"), *turn(2, "blocked", claim()))
    assert accounting(again) == (len(again) - 1, False)  # a later accounting turn resets droppedUnrun


@pytest.mark.rule("WORK-1")
def test_a_stepped_turn_keeps_its_claim_entry() -> None:
    """The real fold short-circuits: a stepped turn never removes its entry from ``claimed``.

    Visible only when a turn number comes back, as in a suffix owned by another writer: the second
    turn 1 claims nothing and opens no step, yet accounts through the first one's claim entry.
    """
    first = [ins("a"), *turn(1, "error", claim(), *stepped(1))]
    assert accounting(log(*first, *turn(1, "aborted"))) == (7, False)
    assert accounting(log(*first, *turn(1, "completed"))) == (5, False)


# ---------------------------------------------------------------- REPAIR-1..3: crash repair closers


def restarted(cut: int) -> tuple[tuple[SessionEvent, ...], tuple[SessionEvent, ...]]:
    """The real ``steer_during_tool_call`` log cut after ``cut`` events, loaded by a new process."""
    events = tuple(read_events(REAL_TRACES / "steer_during_tool_call.events.jsonl"))[:cut]
    tr = lifecycle.step(Agent(log=SessionLog(events, events[-1].time)), cmd.Restart())
    return events, tr.events


def synthetic(call: str, seq: int, code: str) -> dict[str, Any]:
    message = {
        "id": f"interrupted-tool-result-{call}-{seq}",
        "role": "user",
        "source": {"kind": "tool", "callId": call},
        "content": [
            {
                "type": "tool-result",
                "toolCallId": call,
                "content": [{"type": "text", "text": RESULT_TEXTS[code]}],
                "isError": True,
            }
        ],
    }
    return {"turn": 1, "step": 1, "message": message, "error": tool_error(code)}


@pytest.mark.rule("REPAIR-1", "REPAIR-2", "REPAIR-3")
@pytest.mark.parametrize(
    ("cut", "code"),
    [(14, "TOOL_NOT_STARTED"), (15, "TOOL_OUTCOME_UNKNOWN"), (16, "TOOL_OUTCOME_UNKNOWN"), (17, None)],
)
def test_closers_for_an_open_step(cut: int, code: str | None) -> None:
    """Cut after the announcing assistant/message, after tool/call, after the steer, after tool/result."""
    events, closers = restarted(cut)
    expected = [("tool/result", synthetic("c1", cut, code))] if code else []
    expected += [("step/end", {"turn": 1, "step": 1}), ("turn/end", {"turn": 1, "reason": {"kind": "interrupted"}})]
    assert [(e.type, thaw(e.data)) for e in closers] == [*expected, ("session/end-seed", {})]
    assert [e.seq for e in closers] == list(range(cut, cut + len(closers)))
    assert {e.time for e in closers[:-1]} == {events[-1].time}  # REPAIR-3
    assert closers[-1].time > events[-1].time  # the marker is the new process's own write


@pytest.mark.rule("REPAIR-1", "REPAIR-2", "REPAIR-4")
def test_closers_with_no_open_step_and_with_no_open_turn() -> None:
    _, closers = restarted(18)  # after step/end, before the next boundary's claim
    assert [(e.type, thaw(e.data)) for e in closers] == [
        ("turn/end", {"turn": 1, "reason": {"kind": "interrupted"}}),
        ("session/end-seed", {}),
    ]
    events, closers = restarted(39)  # the whole, balanced log: only the marker
    assert [e.type for e in closers] == ["session/end-seed"]
    agent = Agent(log=SessionLog(events + closers, closers[-1].time))
    assert lifecycle.step(agent, cmd.Restart()).events == ()  # REPAIR-2: never two markers in a row
    resumed = lifecycle.step(agent, cmd.Restart()).agent
    assert (resumed.last_turn, resumed.phase, resumed.inbox.has_pending) == (1, "idle", False)  # REPAIR-4


# ---------------------------------------------------------------- INPUT-3, INPUT-4: refusals


@pytest.mark.rule("INPUT-3", "SPLICE-3")
@pytest.mark.parametrize("send", [cmd.followup, cmd.steer, cmd.inject])
def test_a_refused_send_does_nothing(send: Any) -> None:
    idle, _ = lifecycle.run(Agent(), cmd.inject(A))
    with pytest.raises(CommandRefused, match='message "A" is already pending') as err:
        lifecycle.step(idle, send(A))  # no wake, no turn, no event: the call raises before any of it
    assert err.value.rule == "SPLICE-3"
    running, _ = lifecycle.run(Agent(), cmd.followup(B), cmd.Cancel(keep_inbox=True), cmd.inject(A))
    with pytest.raises(CommandRefused):
        lifecycle.step(running, send(A))  # not even the latch of a wake after the abort (CANCEL-4)
    assert running.running is not None
    assert not running.running.wake_requested


def agent_in(phase: str) -> Agent:
    opening = {"idle": (), "deciding": (cmd.followup(A),), "stepping": (cmd.followup(A), cmd.Decide())}
    agent, _ = lifecycle.run(Agent(), *opening.get(phase, (cmd.followup(A), cmd.Decide(), STOP)))
    assert agent.phase == phase
    return agent


INPUT_COMMANDS: dict[str, cmd.Command] = {
    "edit": cmd.Append(NS, UserMessage.create("Z")),
    "send": cmd.inject(UserMessage.create("Z")),
    "send-wake": cmd.followup(UserMessage.create("Z")),
    "cancel": cmd.Cancel(),
    "decide": cmd.Decide(),
    "step-result": STOP,
    "turn-stopping": cmd.TurnStopping(),
    "restart": cmd.Restart(),
}


@pytest.mark.rule("INPUT-4")
@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("input_name", [i for i in INPUTS if i != "auto"])
def test_inputs_without_a_row_are_refused(phase: str, input_name: str) -> None:
    agent, command = agent_in(phase), INPUT_COMMANDS[input_name]
    assert lifecycle.classify(command) == input_name
    if rows_for(phase, input_name):
        assert lifecycle.step(agent, command).fired[0].startswith(f"{phase}/{input_name}/")
        return
    with pytest.raises(CommandRefused) as err:
        lifecycle.step(agent, command)
    assert err.value.rule == "INPUT-4"
    assert f"input '{input_name}' has no transition while the agent is {phase}" in err.value.message
