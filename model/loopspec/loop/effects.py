"""The named effects of the lifecycle table, and the work-in-progress they act on.

Each effect is a small function ``(work, arg)``; the table lists them in the order they happen,
so the order of durable events and notifications is the table's, not this module's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

import attrs

from loopspec.data.json_value import Frozen, JsonObject
from loopspec.data.messages import InboxState, InboxTarget
from loopspec.data.notifications import AgentError, Status, StatusChanged
from loopspec.inbox import operations as ops
from loopspec.inbox.fold import replay
from loopspec.log.kinds import END_SEED, STEP_START, TOOL_CALL
from loopspec.log.session import Record
from loopspec.loop import commands as cmd
from loopspec.loop import records as rec
from loopspec.loop.pre_step import Enter
from loopspec.loop.projection import project
from loopspec.loop.repair import interrupted_turn_closers
from loopspec.loop.state import Agent, CallInProgress, HeldAnswer, RunningTurn
from loopspec.loop.work import Work


def _edit(work: Work, _: str) -> None:
    c, inbox = work.command, work.agent.inbox
    if isinstance(c, cmd.Append):
        out = ops.append(inbox, c.target, c.message)
    elif isinstance(c, cmd.Prepend):
        out = ops.prepend(inbox, c.target, c.message)
    elif isinstance(c, cmd.Splice):
        out = ops.splice(inbox, c.target, c.start, c.delete_count, c.inserted)
        work.value = out.removed
    elif isinstance(c, cmd.Replace):
        out = ops.replace(inbox, c.message_id, c.message)
        work.value = out.found
    elif isinstance(c, cmd.Remove):
        out = ops.remove(inbox, c.message_id)
        work.value = out.found
    else:
        assert isinstance(c, cmd.Clear)
        out = ops.clear(inbox)
    work.commit(out)


def _insert(work: Work, _: str) -> None:
    assert isinstance(work.command, cmd.Send)
    work.commit(ops.send_insert(work.agent.inbox, work.command.target, work.command.message))


def _insert_redirected(work: Work, _: str) -> None:
    # CANCEL-4: a waking send after the abort belongs to a new turn.
    assert isinstance(work.command, cmd.Send)
    work.commit(ops.send_insert(work.agent.inbox, InboxTarget.NEXT_TURN, work.command.message))


def _latch(work: Work, _: str) -> None:
    cause = work.run.aborted
    disposed = isinstance(cause, JsonObject) and cause.get("kind") == "disposed"
    if not disposed:  # CANCEL-4: a disposed agent never replays a wake
        work.run = attrs.evolve(work.run, wake_requested=True)


def _clear_unless_keep(work: Work, _: str) -> None:
    assert isinstance(work.command, cmd.Cancel)
    if work.command.keep_inbox:
        return
    work.commit(ops.clear(work.agent.inbox))  # CANCEL-1: clear (next-step first) before the abort
    if work.agent.running is not None:
        work.run = attrs.evolve(work.run, wake_requested=False)


def _interrupt(work: Work, _: str) -> None:
    # Row 22: the call stops inside itself, where its discarded listeners act; the agent stands in
    # the phase the call came in, and the call's rest runs when the loop goes on from the point.
    cancel = work.command if isinstance(work.command, cmd.Cancel) else None
    work.agent = attrs.evolve(work.agent, call=CallInProgress(work.agent.phase, cancel))


def _clear_lane(work: Work, target: str) -> None:
    # SPLICE-8, CANCEL-1: one list of a clear, as it stands when the clear reaches it (a listener of
    # the first list's discards may have changed the second): the inbox's clear of that list alone,
    # so that the clear's records and notifications have one home (inbox.operations.clear).
    inbox = work.agent.inbox
    if InboxTarget(target) is InboxTarget.NEXT_STEP:
        out = ops.clear(InboxState(next_step=inbox.next_step))
        work.commit(attrs.evolve(out, state=attrs.evolve(out.state, next_turn=inbox.next_turn)))
    else:
        out = ops.clear(InboxState(next_turn=inbox.next_turn))
        work.commit(attrs.evolve(out, state=attrs.evolve(out.state, next_step=inbox.next_step)))


def _end_cancel(work: Work, _: str) -> None:
    # CANCEL-1: after its clear a cancel disarms the latch and aborts the driver running by then
    # (the real cancel reads the phase again: a listener of its discards may have started one).
    call = work.agent.call
    assert call is not None
    assert call.cancel is not None
    if work.agent.running is not None:
        work.run = attrs.evolve(work.run, wake_requested=False)
        _abort_with(work, call.cancel.cause)


def _call_pre_step(work: Work, _: str) -> None:
    # Row 4 -> 5: the system prompt is in, the pre-step's listeners are called: an await point again.
    work.run = attrs.evolve(work.run, prompting=False)


def _abort(work: Work, _: str) -> None:
    assert isinstance(work.command, cmd.Cancel)
    _abort_with(work, work.command.cause)


def _abort_with(work: Work, cause: Frozen) -> None:
    if work.run.aborted is None:  # the first cause wins for a turn's signal
        work.run = attrs.evolve(work.run, aborted=cause)


def _status(status: Status) -> Callable[[Work, str], None]:
    def effect(work: Work, _: str) -> None:
        work.notify(StatusChanged(status))

    return effect


def _start_driver(work: Work, _: str) -> None:
    # INPUT-2, CANCEL-4: the driver's running phase and its abort signal exist before its turn does
    # (its running status is emitted, and its listeners act, before turn/start: loop-grain row 2).
    work.agent = attrs.evolve(work.agent, running=RunningTurn(work.agent.last_turn))


def _go_on(work: Work, _: str) -> None:
    # INPUT-2: the call goes on through the hop it landed at, as the loop would (loop-grain row 1).
    work.goes_on = True


def _turn_start(work: Work, _: str) -> None:
    turn = work.agent.last_turn + 1  # TURN-1: session-global numbering
    work.agent = attrs.evolve(work.agent, last_turn=turn, running=RunningTurn(turn))
    work.write(rec.turn_start(turn))


def _claim(target: InboxTarget) -> Callable[[Work, str], None]:
    def effect(work: Work, _: str) -> None:
        out = ops.claim(work.agent.inbox, target, work.run.turn)  # CLAIM-1, CLAIM-2, CLAIM-4
        work.commit(out)
        work.run = attrs.evolve(work.run, batch=out.removed)

    return effect


def _failure(work: Work) -> Frozen:
    # Held across the hop between agent/error and turn/end (FAILING), where a later command goes on.
    if work.run.failure is not None:
        return work.run.failure
    return rec.error_failure(work.raised or "", work.code)


def _finished_reason(work: Work) -> Frozen:
    # A turn that ran out of steps ends with the reason its last step settled (RESULT-1).
    assert work.run.turn_ends is not None
    return rec.reason(work.run.turn_ends)


# The reasons ``end-turn:KIND`` writes (END-1), by the argument the table gives the effect.
END_REASONS: Mapping[str, Callable[[Work], Frozen]] = MappingProxyType({
    rec.ABORTED: lambda work: rec.aborted_reason(work.run.aborted),
    rec.ERROR: lambda work: rec.error_reason(_failure(work)),
    "finished": _finished_reason,
    rec.COMPLETED: lambda _: rec.reason(rec.COMPLETED),
    rec.BLOCKED: lambda _: rec.reason(rec.BLOCKED),
})


def _end_turn(work: Work, kind: str) -> None:
    work.write(rec.turn_end(work.run.turn, END_REASONS[kind](work)))
    work.run = attrs.evolve(work.run, normal_exit=kind == "finished", batch=(), held=None, failure=None,
                            prompting=False)


def _hold_answer(work: Work, _: str) -> None:
    # The waterfall settled: the turn acts on its outcome a few microtasks later (loop-grain row 6).
    work.run = attrs.evolve(work.run, held=HeldAnswer(work.decision, work.raised))


def _rearm(work: Work, _: str) -> None:
    # CHAIN-1: a chaining turn installs a fresh abort signal and drops its latch before it hops to
    # the next turn (loop-grain row 19), so only a cancel landing there stops that turn.
    work.run = attrs.evolve(work.run, aborted=None, wake_requested=False)


def _agent_error(work: Work, _: str) -> None:
    # END-2: live agent/error with the last opened step, before the durable error turn/end.
    failure = _failure(work)
    work.notify(AgentError(work.run.turn, work.run.step, failure))
    work.run = attrs.evolve(work.run, failure=failure)  # its listeners act before the turn/end (FAILING)


def _step_start(work: Work, _: str) -> None:
    step = work.run.step + 1
    work.run = attrs.evolve(work.run, step=step, step_open=True, batch=(), held=None)
    work.write(rec.step_start(work.run.turn, step))


def _enter_messages(work: Work, _: str) -> None:
    decision = work.decision
    assert isinstance(decision, Enter)
    work.write(*(rec.user_message(m) for m in decision.messages))  # DECIDE-8, VARIANT-1 (v0.1.1 placement)


def _step_end(work: Work, _: str) -> None:
    work.write(rec.step_end(work.run.turn, work.run.step))
    work.run = attrs.evolve(work.run, step_open=False, calls=(), announced=0)


def _call_tool(work: Work, _: str) -> None:
    # RESULT-2: the step's model answer announces a call, and a tool may start; the step stays open.
    result, run = work.result, work.run
    assert isinstance(result, cmd.ToolCall)
    call = rec.call_id(run.turn, run.step, run.announced + 1)  # numbered over the whole step, answered or not
    work.write(rec.tool_announcement(run.turn, run.step, call), surface_op=rec.SURFACE_APPEND)
    work.run = attrs.evolve(work.run, calls=(*run.calls, (call, False)), announced=run.announced + 1)
    if result.started:  # LOG-11: what starts is the oldest call not started yet, this one when none is older
        _start_call(work, "")


def _answer(work: Work, calls: tuple[tuple[str, bool], ...]) -> None:
    run = work.run
    # CANCEL-5: after the abort a started tool's answer is the runtime's aborted result (code ABORTED).
    result = rec.tool_result if run.aborted is None else rec.aborted_tool_result
    for call, started in calls:
        if not started:
            work.write(rec.tool_call(run.turn, run.step, call))
        write_tool_result(work, result(run.turn, run.step, call), call)


def write_tool_result(work: Work, result: Record, call: str) -> None:
    """Write ``call``'s ``tool/result`` citing its ``tool/call`` in ``sourceEventSeqs`` (decisions H3),
    as the real appendToolResult does with the seq appendToolCall returned.  Calls start in call
    order (LOG-11), so the step's n-th ``tool/call`` is its n-th call's."""
    starts: list[int] = []
    for event in reversed(work.agent.log.events):
        if event.type == STEP_START:
            break
        if event.type == TOOL_CALL:
            starts.append(event.seq)
    call_seq = starts[len(starts) - rec.call_number(call)]
    work.write(result, surface_op=rec.SURFACE_APPEND, source_event_seqs=(call_seq,))


def _start_call(work: Work, _: str) -> None:
    # LOG-11: the oldest announced call not started yet starts (REPAIR-1 then owes TOOL_OUTCOME_UNKNOWN).
    run = work.run
    waiting = [i for i, (_, started) in enumerate(run.calls) if not started]
    if waiting:
        call = run.calls[waiting[0]][0]
        work.write(rec.tool_call(run.turn, run.step, call))
        calls = list(run.calls)
        calls[waiting[0]] = (call, True)
        work.run = attrs.evolve(work.run, calls=tuple(calls))


def _answer_call(work: Work, _: str) -> None:
    # One tool finished: the oldest pending call is started (if it had not been) and answered (LOG-4, LOG-11).
    calls = work.run.calls
    _answer(work, calls[:1])
    work.run = attrs.evolve(work.run, calls=calls[1:])


def _answer_calls(work: Work, _: str) -> None:
    # A finishing step's tools have run: each pending call is started (if it had not) and answered (LOG-4, LOG-11).
    _answer(work, work.run.calls)
    work.run = attrs.evolve(work.run, calls=())


def _drain_calls(work: Work, _: str) -> None:
    # CANCEL-5: an aborted step starts no tool, but the tools already started finish and are
    # answered, in call order (LOG-11); starts go in call order, so they are the oldest pending.
    calls = work.run.calls
    started = tuple(c for c in calls if c[1])
    _answer(work, started)
    work.run = attrs.evolve(work.run, calls=calls[len(started):])


def _skip_calls(work: Work, _: str) -> None:
    # CANCEL-5: each announced call whose tool never started gets its tool/call and, right after it,
    # an error tool/result (ABORTED_BEFORE_DISPATCH), in call order, before the step/end.
    run = work.run
    for call, started in run.calls:
        assert not started, "drain-calls answers the started calls first"
        work.write(rec.tool_call(run.turn, run.step, call))
        write_tool_result(work, rec.skipped_tool_result(run.turn, run.step, call), call)
    work.run = attrs.evolve(work.run, calls=())


def _set_turn_ends(work: Work, _: str) -> None:
    result = work.result
    assert result is not None
    ends = {cmd.Stop: rec.COMPLETED, cmd.MaxTokens: rec.MAX_TOKENS}.get(type(result))
    if isinstance(result, cmd.ToolCalls) and result.conclude:
        ends = rec.COMPLETED
    if work.run.turn_ends == rec.MAX_TOKENS:  # RESULT-1: max-tokens is sticky within the turn
        ends = rec.MAX_TOKENS
    work.run = attrs.evolve(work.run, turn_ends=ends)


def _repair(work: Work, _: str) -> None:
    closers = interrupted_turn_closers(work.agent.log.events)  # REPAIR-1, REPAIR-3
    work.agent = attrs.evolve(work.agent, log=work.agent.log.append_events(closers))
    work.events.extend(closers)
    work.trace.extend(closers)


def _end_seed(work: Work, _: str) -> None:
    events = work.agent.log.events
    if not events or events[-1].type != END_SEED:  # REPAIR-2: never two markers in a row
        work.write(rec.end_seed())


def _reload(work: Work, _: str) -> None:
    # REPAIR-4: the new process knows only the log: the inbox is its fold, numbering continues.
    log = work.agent.log
    view = project(log.events)
    work.agent = Agent(inbox=replay(log.events), log=log, last_turn=view.last_turn)


# Read-only: the table names effects, this maps names to code.
EFFECTS: Mapping[str, Callable[[Work, str], None]] = MappingProxyType({
    "edit": _edit,
    "insert": _insert,
    "insert-redirected": _insert_redirected,
    "latch": _latch,
    "clear-unless-keep": _clear_unless_keep,
    "abort": _abort,
    "interrupt": _interrupt,
    "clear": _clear_lane,
    "end-cancel": _end_cancel,
    "call-pre-step": _call_pre_step,
    "start-driver": _start_driver,
    "go-on": _go_on,
    "status-running": _status("running"),
    "status-idle": _status("idle"),
    "turn-start": _turn_start,
    "claim-turn": _claim(InboxTarget.NEXT_TURN),
    "claim-step": _claim(InboxTarget.NEXT_STEP),
    "end-turn": _end_turn,
    "hold-answer": _hold_answer,
    "rearm": _rearm,
    "agent-error": _agent_error,
    "step-start": _step_start,
    "enter-messages": _enter_messages,
    "step-end": _step_end,
    "call-tool": _call_tool,
    "start-call": _start_call,
    "answer-call": _answer_call,
    "answer-calls": _answer_calls,
    "drain-calls": _drain_calls,
    "skip-calls": _skip_calls,
    "set-turn-ends": _set_turn_ends,
    "repair": _repair,
    "end-seed": _end_seed,
    "reload": _reload,
})

# The arguments an effect takes after ``:`` in a table row; an effect not listed takes none.
EFFECT_ARGUMENTS: Mapping[str, frozenset[str]] = MappingProxyType({
    "end-turn": frozenset(END_REASONS),
    "clear": frozenset(lane.value for lane in InboxTarget),
})
