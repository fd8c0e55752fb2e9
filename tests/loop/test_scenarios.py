"""The scenarios of real-behaviour §10 played on the lifecycle model: exact durable events and emission order.

Each test drives :func:`loopspec.loop.lifecycle.run` with the scenario's inputs and the environment's answers
at the await points (``Decide`` for ``agent/pre-step``, ``StepResult`` for the model call,
``TurnStopping`` for ``agent/turn-stopping``, ``Restart`` for a crash and reload), then asserts the
whole durable log (seq, type, data) and the emission trace: durable seqs interleaved with the live
notifications (``+X`` inserted, ``-X`` discarded, ``claimed X@n``, ``running``/``idle``, ``error t.s``).
The model writes v0.1.1's placement of ``user/message`` (VARIANT-1) and no model-side events.

Out of scope (no faithful expression with the model's commands, so no test here):

* S7 — a cancel (or disposal) from the synchronous ``agent/status running`` listener aborts before
  ``turn/start``: the model runs status, ``turn/start`` and the claim as one command, with no point
  for code inside the status listener;
* S8 — a removal from that same listener before the claim (the empty completed turn): same reason;
* S18 — a cancel from a ``session/event`` observer of ``step/start``: the model has no observers
  of durable appends (its v0.1.1 durable result equals S17's cancel during a step without a tail);
* S20 — a failing durable append: the model's session log never fails (decisions.md B11); the
  nearest the model has, a refused send, is INPUT-3 in ``test_lifecycle_units``;
* S21 — a reentrant send from a ``session/event`` observer: no observers in the model;
* S24 — maintenance jobs and their latch: outside the model (decisions.md A5).
"""

from __future__ import annotations

import pytest

from loopspec.data.errors import CommandRefused
from loopspec.data.json_value import Thawed, thaw
from loopspec.data.messages import InboxState, InboxTarget, MessageId, UserMessage
from loopspec.data.notifications import AgentError, Claimed, Discarded, Inserted, Notification, StatusChanged
from loopspec.log.kinds import SPLICED
from loopspec.loop import commands as cmd
from loopspec.loop import lifecycle as lifecycle
from loopspec.loop.phases import DECIDING, IDLE, STEPPING
from loopspec.loop.pre_step import Drop, Enter, Reject, Throw, Veto, Wrap
from loopspec.loop.state import Agent

NT, NS = InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP
Shape = tuple[str, Thawed]
STOP, TOOLS = cmd.Stop(), cmd.ToolCalls()
ENTER_NOTHING = cmd.Decide((Veto(Enter()),))
USER: Thawed = {"kind": "user"}


def m(mid: str) -> UserMessage:
    return UserMessage.create(mid, f"text of {mid}")


def spl(target: InboxTarget, start: int, *inserted: UserMessage, removed: int = 0, canceled: bool = False) -> Shape:
    data: dict[str, Thawed] = {"target": target.value, "start": start}
    if removed:
        data["removedCount"] = removed
    data["inserted"] = [thaw(x.body) for x in inserted]
    if canceled:
        data["outcome"] = "canceled"
    return (SPLICED, data)


def ts(turn: int) -> Shape:
    return ("turn/start", {"turn": turn})


def te(turn: int, kind: str, **extra: Thawed) -> Shape:
    return ("turn/end", {"turn": turn, "reason": {"kind": kind, **extra}})


def ss(turn: int, step: int) -> Shape:
    return ("step/start", {"turn": turn, "step": step})


def se(turn: int, step: int) -> Shape:
    return ("step/end", {"turn": turn, "step": step})


def um(message: UserMessage) -> Shape:
    return ("user/message", thaw(message.body))


def token(item: object) -> object:
    """One emission: a durable event as its seq, a notification in the module's short notation."""
    if isinstance(item, Inserted | Discarded):
        return ("+" if isinstance(item, Inserted) else "-") + item.message.id.value
    if isinstance(item, Claimed):
        return f"claimed {item.message.id}@{item.turn}"
    if isinstance(item, StatusChanged):
        return item.status
    if isinstance(item, AgentError):
        return f"error {item.turn}.{item.step}"
    return getattr(item, "seq")  # noqa: B009 - a SessionEvent


class Play:
    """A scenario run: the agent after it and every emission in order."""

    def __init__(self, *commands: cmd.Command, agent: Agent | None = None) -> None:
        self.agent, self.transitions = lifecycle.run(agent or Agent(), *commands)

    def then(self, *commands: cmd.Command) -> Play:
        agent, more = lifecycle.run(self.agent, *commands)
        self.agent, self.transitions = agent, self.transitions + more
        return self

    def check(self, events: list[Shape], trace: list[object]) -> None:
        got = [(e.seq, e.type, thaw(e.data)) for e in self.agent.log.events]
        assert got == [(seq, t, d) for seq, (t, d) in enumerate(events)]
        assert [token(x) for tr in self.transitions for x in tr.trace] == trace

    def notes(self) -> list[Notification]:
        return [n for tr in self.transitions for n in tr.notifications]


def pending(agent: Agent) -> tuple[list[str], list[str]]:
    inbox: InboxState = agent.inbox
    return [x.id.value for x in inbox.next_turn], [x.id.value for x in inbox.next_step]


A, B = m("A"), m("B")


@pytest.mark.rule("INPUT-2", "TURN-4", "CLAIM-1", "CLAIM-4", "DECIDE-8", "RESULT-1", "RESULT-4", "STATUS-1")
def test_s1_single_followup() -> None:
    play = Play(cmd.followup(A))
    assert play.agent.running is not None
    assert play.agent.running.batch == (A,)  # pre-step{messages: [A], turn: 1, step: 1}
    play.then(cmd.Decide(), STOP, cmd.TurnStopping())
    play.check(
        [spl(NT, 0, A), ts(1), spl(NT, 0, removed=1), ss(1, 1), um(A), se(1, 1), te(1, "completed")],
        [0, "+A", "running", 1, 2, "claimed A@1", 3, 4, 5, 6, "idle"],
    )


@pytest.mark.rule("CHAIN-1", "CLAIM-1", "STATUS-1", "INPUT-1")
def test_s2_synchronous_burst_chains_one_followup_per_turn() -> None:
    play = Play(cmd.followup(A), cmd.followup(B), cmd.Decide(), STOP, cmd.TurnStopping(), cmd.Decide(), STOP)
    play.then(cmd.TurnStopping())
    play.check(
        [spl(NT, 0, A), ts(1), spl(NT, 0, removed=1), spl(NT, 0, B), ss(1, 1), um(A), se(1, 1), te(1, "completed"),
         ts(2), spl(NT, 0, removed=1), ss(2, 1), um(B), se(2, 1), te(2, "completed")],
        [0, "+A", "running", 1, 2, "claimed A@1", 3, "+B", 4, 5, 6, 7, 8, 9, "claimed B@2", 10, 11, 12, 13, "idle"],
    )


@pytest.mark.rule("DECIDE-5", "CLAIM-5", "CHAIN-2", "TURN-5", "DECIDE-4")
def test_s3_reject_first_prompt_parks_the_second() -> None:
    secret, safe, wake = m("secret"), m("safe"), m("wake")
    play = Play(cmd.followup(secret), cmd.followup(safe), cmd.Decide((Veto(Reject()),)))
    assert (play.agent.phase, pending(play.agent)) == (IDLE, (["safe"], []))  # secret stays claimed
    play.then(cmd.followup(wake), cmd.Decide(), STOP, cmd.TurnStopping(), cmd.Decide(), STOP, cmd.TurnStopping())
    play.check(
        [spl(NT, 0, secret), ts(1), spl(NT, 0, removed=1), spl(NT, 0, safe), te(1, "blocked"),
         spl(NT, 1, wake), ts(2), spl(NT, 0, removed=1), ss(2, 1), um(safe), se(2, 1), te(2, "completed"),
         ts(3), spl(NT, 0, removed=1), ss(3, 1), um(wake), se(3, 1), te(3, "completed")],
        [0, "+secret", "running", 1, 2, "claimed secret@1", 3, "+safe", 4, "idle",
         5, "+wake", "running", 6, 7, "claimed safe@2", 8, 9, 10, 11, 12, 13, "claimed wake@3", 14, 15, 16, 17, "idle"],
    )


@pytest.mark.rule("DECIDE-6", "CHAIN-2", "STEP-4")
def test_s4_empty_enter_at_the_first_boundary() -> None:
    play = Play(cmd.followup(A), cmd.followup(B), ENTER_NOTHING)
    play.check(
        [spl(NT, 0, A), ts(1), spl(NT, 0, removed=1), spl(NT, 0, B), te(1, "completed")],
        [0, "+A", "running", 1, 2, "claimed A@1", 3, "+B", 4, "idle"],
    )
    assert (play.agent.phase, pending(play.agent)) == (IDLE, (["B"], []))  # the driver exits with B pending


@pytest.mark.rule("DECIDE-7", "END-2", "CHAIN-2", "CLAIM-5")
def test_s5_throwing_prestep_listener() -> None:
    first, second = m("first"), m("second")
    play = Play(cmd.followup(first), cmd.followup(second), cmd.Decide((Throw("prompt hook broke"),)))
    failure: Thawed = {"message": "prompt hook broke", "code": "UNKNOWN"}
    play.check(
        [spl(NT, 0, first), ts(1), spl(NT, 0, removed=1), spl(NT, 0, second), te(1, "error", error=failure)],
        [0, "+first", "running", 1, 2, "claimed first@1", 3, "+second", "error 1.0", 4, "idle"],
    )
    errors = [n for n in play.notes() if isinstance(n, AgentError)]
    assert [thaw(n.error) for n in errors] == [failure]
    assert pending(play.agent) == (["second"], [])


@pytest.mark.rule("CANCEL-1", "CANCEL-3", "NOTIFY-2")
def test_s6_cancel_right_after_two_waking_sends() -> None:
    play = Play(cmd.followup(A), cmd.followup(B), cmd.Cancel(), cmd.Decide())
    play.check(
        [spl(NT, 0, A), ts(1), spl(NT, 0, removed=1), spl(NT, 0, B), spl(NT, 0, removed=1, canceled=True),
         te(1, "aborted", reason=USER)],
        [0, "+A", "running", 1, 2, "claimed A@1", 3, "+B", 4, "-B", 5, "idle"],
    )


@pytest.mark.rule("CLAIM-1", "CLAIM-2", "CLAIM-4", "DECIDE-8", "INPUT-1")
def test_s9_idle_inject_then_followup() -> None:
    c = m("C")
    play = Play(cmd.inject(c))
    assert (play.agent.phase, [token(x) for x in play.transitions[0].trace]) == (IDLE, [0, "+C"])  # no turn
    play.then(cmd.followup(A))
    assert play.agent.running is not None
    assert play.agent.running.batch == (c, A)  # pre-step{messages: [C, A], step: 1}
    play.then(cmd.Decide(), STOP, cmd.TurnStopping())
    play.check(
        [spl(NS, 0, c), spl(NT, 0, A), ts(1), spl(NS, 0, removed=1), spl(NT, 0, removed=1), ss(1, 1), um(c), um(A),
         se(1, 1), te(1, "completed")],
        [0, "+C", 1, "+A", "running", 2, 3, 4, "claimed C@1", "claimed A@1", 5, 6, 7, 8, 9, "idle"],
    )


@pytest.mark.rule("CLAIM-1", "CLAIM-6", "RESULT-4", "INPUT-1")
def test_s10_idle_steer_then_second_steer_while_running() -> None:
    s1, s2 = m("s1"), m("s2")
    play = Play(cmd.steer(s1), cmd.steer(s2), cmd.Decide(), STOP)
    assert play.agent.phase == DECIDING  # next-step was non-empty: no turn stopping, another boundary
    play.then(cmd.Decide(), STOP, cmd.TurnStopping())
    play.check(
        [spl(NS, 0, s1), ts(1), spl(NS, 0, removed=1), spl(NS, 0, s2), ss(1, 1), um(s1), se(1, 1),
         spl(NS, 0, removed=1), ss(1, 2), um(s2), se(1, 2), te(1, "completed")],
        [0, "+s1", "running", 1, 2, "claimed s1@1", 3, "+s2", 4, 5, 6, 7, "claimed s2@1", 8, 9, 10, 11, "idle"],
    )


@pytest.mark.rule("RESULT-2", "CLAIM-1", "STEP-4", "DECIDE-6")
def test_s11_steering_during_a_tool_step() -> None:
    steer = m("S")
    play = Play(cmd.followup(A), cmd.Decide(), cmd.steer(steer), TOOLS, cmd.Decide(), STOP, cmd.TurnStopping())
    play.check(
        [spl(NT, 0, A), ts(1), spl(NT, 0, removed=1), ss(1, 1), um(A), spl(NS, 0, steer), se(1, 1),
         spl(NS, 0, removed=1), ss(1, 2), um(steer), se(1, 2), te(1, "completed")],
        [0, "+A", "running", 1, 2, "claimed A@1", 3, 4, 5, "+S", 6, 7, "claimed S@1", 8, 9, 10, 11, "idle"],
    )
    # Without the steer the tool continuation still opens step 2, with no user/message.
    alone = Play(cmd.followup(A), cmd.Decide(), TOOLS, cmd.Decide(), STOP, cmd.TurnStopping())
    alone.check(
        [spl(NT, 0, A), ts(1), spl(NT, 0, removed=1), ss(1, 1), um(A), se(1, 1), ss(1, 2), se(1, 2),
         te(1, "completed")],
        [0, "+A", "running", 1, 2, "claimed A@1", 3, 4, 5, 6, 7, 8, "idle"],
    )


@pytest.mark.rule("RESULT-4", "CLAIM-1")
def test_s12_turn_stopping_steers_a_continuation() -> None:
    c = m("c")
    play = Play(cmd.followup(A), cmd.Decide(), STOP, cmd.TurnStopping((cmd.steer(c),)), cmd.Decide(), STOP)
    play.then(cmd.TurnStopping())
    play.check(
        [spl(NT, 0, A), ts(1), spl(NT, 0, removed=1), ss(1, 1), um(A), se(1, 1), spl(NS, 0, c),
         spl(NS, 0, removed=1), ss(1, 2), um(c), se(1, 2), te(1, "completed")],
        [0, "+A", "running", 1, 2, "claimed A@1", 3, 4, 5, 6, "+c", 7, "claimed c@1", 8, 9, 10, 11, "idle"],
    )


@pytest.mark.rule("DECIDE-6", "DECIDE-3", "RESULT-4")
def test_s13_continuation_rewritten_to_empty() -> None:
    c = m("C")
    play = Play(cmd.followup(A), cmd.Decide(), STOP, cmd.TurnStopping((cmd.inject(c),)))
    play.then(cmd.Decide((Wrap(Drop((MessageId("C"),))),)))
    play.check(
        [spl(NT, 0, A), ts(1), spl(NT, 0, removed=1), ss(1, 1), um(A), se(1, 1), spl(NS, 0, c),
         spl(NS, 0, removed=1), te(1, "completed")],
        [0, "+A", "running", 1, 2, "claimed A@1", 3, 4, 5, 6, "+C", 7, "claimed C@1", 8, "idle"],
    )


@pytest.mark.rule("DECIDE-5", "END-1")
def test_s14_rejection_at_a_later_boundary() -> None:
    x = m("x")
    play = Play(cmd.followup(A), cmd.Decide(), STOP, cmd.TurnStopping((cmd.inject(x),)), cmd.Decide((Veto(Reject()),)))
    play.check(
        [spl(NT, 0, A), ts(1), spl(NT, 0, removed=1), ss(1, 1), um(A), se(1, 1), spl(NS, 0, x),
         spl(NS, 0, removed=1), te(1, "blocked")],
        [0, "+A", "running", 1, 2, "claimed A@1", 3, 4, 5, 6, "+x", 7, "claimed x@1", 8, "idle"],
    )


@pytest.mark.rule("CANCEL-1", "CANCEL-3", "CANCEL-4", "CHAIN-2", "STATUS-1")
def test_s15_keep_inbox_cancel_with_a_latched_wake() -> None:
    play = Play(cmd.followup(A), cmd.Decide(), cmd.Cancel(keep_inbox=True), cmd.followup(B), STOP)
    play.then(cmd.Decide(), STOP, cmd.TurnStopping())
    play.check(
        [spl(NT, 0, A), ts(1), spl(NT, 0, removed=1), ss(1, 1), um(A), spl(NT, 0, B), se(1, 1),
         te(1, "aborted", reason=USER), ts(2), spl(NT, 0, removed=1), ss(2, 1), um(B), se(2, 1), te(2, "completed")],
        [0, "+A", "running", 1, 2, "claimed A@1", 3, 4, 5, "+B", 6, 7, "idle", "running", 8, 9, "claimed B@2",
         10, 11, 12, 13, "idle"],
    )


@pytest.mark.rule("CANCEL-1", "CANCEL-3", "CHAIN-2", "TURN-5", "CHAIN-1")
def test_s16_keep_inbox_cancel_parks_earlier_queued_work() -> None:
    p, w = m("P"), m("W")
    play = Play(cmd.followup(A), cmd.Decide(), cmd.followup(p), cmd.Cancel(keep_inbox=True), STOP)
    assert (play.agent.phase, pending(play.agent)) == (IDLE, (["P"], []))
    play.then(cmd.followup(w), cmd.Decide(), STOP, cmd.TurnStopping(), cmd.Decide(), STOP, cmd.TurnStopping())
    play.check(
        [spl(NT, 0, A), ts(1), spl(NT, 0, removed=1), ss(1, 1), um(A), spl(NT, 0, p), se(1, 1),
         te(1, "aborted", reason=USER), spl(NT, 1, w), ts(2), spl(NT, 0, removed=1), ss(2, 1), um(p), se(2, 1),
         te(2, "completed"), ts(3), spl(NT, 0, removed=1), ss(3, 1), um(w), se(3, 1), te(3, "completed")],
        [0, "+A", "running", 1, 2, "claimed A@1", 3, 4, 5, "+P", 6, 7, "idle", 8, "+W", "running", 9, 10,
         "claimed P@2", 11, 12, 13, 14, 15, 16, "claimed W@3", 17, 18, 19, 20, "idle"],
    )


@pytest.mark.rule("CANCEL-1", "CANCEL-3", "STEP-2")
def test_s17_cancel_mid_step_drops_the_queued_tail() -> None:
    go, tail = m("go"), m("tail")
    play = Play(cmd.followup(go), cmd.Decide(), cmd.followup(tail), cmd.Cancel(), STOP)
    play.check(
        [spl(NT, 0, go), ts(1), spl(NT, 0, removed=1), ss(1, 1), um(go), spl(NT, 0, tail),
         spl(NT, 0, removed=1, canceled=True), se(1, 1), te(1, "aborted", reason=USER)],
        [0, "+go", "running", 1, 2, "claimed go@1", 3, 4, 5, "+tail", 6, "-tail", 7, 8, "idle"],
    )


@pytest.mark.rule("NORM-1", "NORM-2", "SPLICE-1", "SPLICE-3", "SPLICE-7", "SPLICE-8", "NOTIFY-3", "NOTIFY-4")
def test_s19_inbox_edits() -> None:
    p, x, y, t, s = m("P"), m("X"), m("Y"), m("t"), m("s")
    nan = float("nan")
    play = Play(cmd.Splice(NT, nan, nan, (A, B)))
    assert play.then(cmd.Splice(NT, -1, 1)).transitions[-1].value == (B,)
    assert play.then(cmd.Prepend(NT, p), cmd.Remove(MessageId("B"))).transitions[-1].value is False
    with pytest.raises(CommandRefused, match='message "A" is already pending'):
        lifecycle.step(play.agent, cmd.Append(NS, A))
    edited = UserMessage.create("Y", "edited")  # same id, new content: allowed
    play.then(cmd.Append(NT, x), cmd.Replace(MessageId("X"), y), cmd.Replace(MessageId("Y"), edited))
    with pytest.raises(CommandRefused, match='message "A" is already pending'):
        lifecycle.step(play.agent, cmd.Replace(MessageId("Y"), A))
    play.then(cmd.Clear(), cmd.Append(NT, t), cmd.Append(NS, s), cmd.Clear(), cmd.Clear())
    play.check(
        [spl(NT, 0, A, B), spl(NT, 1, removed=1, canceled=True), spl(NT, 0, p), spl(NT, 2, x),
         spl(NT, 2, y, removed=1, canceled=True), spl(NT, 2, edited, removed=1, canceled=True),
         spl(NT, 0, removed=3, canceled=True), spl(NT, 0, t), spl(NS, 0, s),
         spl(NS, 0, removed=1, canceled=True), spl(NT, 0, removed=1, canceled=True)],
        [0, "+A", "+B", 1, "-B", 2, "+P", 3, "+X", 4, "-X", "+Y", 5, "-Y", "+Y", 6, "-P", "-A", "-Y",
         7, "+t", 8, "+s", 9, "-s", 10, "-t"],
    )
    assert (play.agent.phase, play.agent.inbox) == (IDLE, InboxState())


@pytest.mark.rule("RESULT-3", "CANCEL-3", "END-2", "STATUS-1")
def test_s22_request_error_retry_stays_in_the_step() -> None:
    retry = cmd.RequestError(retry=True)
    play = Play(cmd.followup(A), cmd.Decide(), retry, retry)
    assert (play.agent.phase, play.agent.last_turn) == (STEPPING, 1)  # one turn, the same step
    play.then(STOP, cmd.TurnStopping())
    play.check(
        [spl(NT, 0, A), ts(1), spl(NT, 0, removed=1), ss(1, 1), um(A), se(1, 1), te(1, "completed")],
        [0, "+A", "running", 1, 2, "claimed A@1", 3, 4, 5, 6, "idle"],
    )
    # A cancel inside the request-error listener wins over its retry; a throwing one ends the turn error.
    head = [spl(NT, 0, A), ts(1), spl(NT, 0, removed=1), ss(1, 1), um(A), se(1, 1)]
    Play(cmd.followup(A), cmd.Decide(), cmd.Cancel(), retry).check(
        [*head, te(1, "aborted", reason=USER)], [0, "+A", "running", 1, 2, "claimed A@1", 3, 4, 5, 6, "idle"]
    )
    broke = cmd.RequestError(error="listener broke")
    Play(cmd.followup(A), cmd.Decide(), broke).check(
        [*head, te(1, "error", error={"message": "listener broke", "code": "UNKNOWN"})],
        [0, "+A", "running", 1, 2, "claimed A@1", 3, 4, 5, "error 1.1", 6, "idle"],
    )


@pytest.mark.rule("REPAIR-1", "REPAIR-2", "REPAIR-3", "REPAIR-4", "CLAIM-5", "TURN-1", "FOLD-5")
def test_s23_crash_recovery() -> None:
    c = m("C")
    play = Play(cmd.followup(A), cmd.followup(B), cmd.Decide(), cmd.Restart())
    log = play.agent.log.events
    assert log[6].time == log[7].time == log[5].time  # REPAIR-3: closers carry the crash's time
    assert (play.agent.phase, play.agent.last_turn, pending(play.agent)) == (IDLE, 1, (["B"], []))
    assert play.transitions[-1].notifications == ()  # the new process starts idle, silently
    play.then(cmd.followup(c))
    play.check(
        [spl(NT, 0, A), ts(1), spl(NT, 0, removed=1), spl(NT, 0, B), ss(1, 1), um(A), se(1, 1),
         te(1, "interrupted"), ("session/end-seed", {}), spl(NT, 1, c), ts(2), spl(NT, 0, removed=1)],
        [0, "+A", "running", 1, 2, "claimed A@1", 3, "+B", 4, 5, 6, 7, 8, 9, "+C", "running", 10, 11,
         "claimed B@2"],
    )
    # A balanced stored log gets only the marker, and not even that when it already ends with one.
    balanced = Play(cmd.inject(A), cmd.Restart(), cmd.Restart())
    assert [e.type for e in balanced.agent.log.events] == [SPLICED, "session/end-seed"]
    assert pending(balanced.agent) == ([], ["A"])
