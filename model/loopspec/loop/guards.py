"""The named guards of the lifecycle table (spec areas DECIDE, RESULT, CHAIN, CANCEL).

The table (:mod:`loopspec.loop.lifecycle`) names a guard per row; :data:`GUARDS` maps each name to
a predicate over the command's work in progress.  The guards of one ``(phase, input)`` are
mutually exclusive and, where a row must fire, one of them holds: each guard states all of its
row's condition, not only what separates it from a row listed before it, so the table could list
its rows in any order (``tests/loop/test_guard_exclusion.py`` proves both over the explored
states).  At an await point the answers split first by the turn's signal (``aborted``), then by
whether the listeners, tools or step threw (``raised``), then by what they answered.  A test checks
that every name the table uses is here and every predicate here is used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from loopspec.loop import commands as cmd
from loopspec.loop.pre_step import Enter, Reject
from loopspec.loop.work import Work

Guard = Callable[[Work], bool]

# The step results that finish the step (RESULT-1, RESULT-2); the others keep it open or fail it.
FINISHING = (cmd.Stop, cmd.MaxTokens, cmd.ToolCalls)


def always(_: Work) -> bool:
    return True


def _signal_aborted(work: Work) -> bool:
    run = work.agent.running
    return run is not None and run.aborted is not None


def draining(work: Work) -> bool:
    """CANCEL-5: in an aborted step, a tool that started before the abort finished while another
    started tool still runs: the two oldest pending calls (starts go in call order, LOG-11) are
    started, so the oldest one's answer is written and the step stays open for the rest."""
    run, answer = work.agent.running, work.command
    # An aborted turn's answer runs no prelude (work.result stays unset): the command itself says
    # which tool finished.
    finished_tool = isinstance(answer, cmd.ToolResult)
    # The last started call's answer is not a drain: the real scheduler closes the tool phase as
    # soon as nothing it started is in flight (finding F9), which is the `aborted` row's work.
    calls = run.calls if run is not None else ()
    return _signal_aborted(work) and finished_tool and len(calls) > 1 and calls[0][1] and calls[1][1]


def aborted(work: Work) -> bool:
    """The running turn's signal is aborted (CANCEL-3): await points end the turn ``aborted`` —
    except a drained tool's answer, which keeps the aborted step open (CANCEL-5)."""
    return _signal_aborted(work) and not draining(work)


def not_aborted(work: Work) -> bool:
    return not _signal_aborted(work)


def raised(work: Work) -> bool:
    """A listener, a tool or the step threw (DECIDE-7, RESULT-3, RESULT-4) in a turn not aborted."""
    return not _signal_aborted(work) and work.raised is not None


def _answered(work: Work) -> bool:
    """The answer stands on its own: the turn is not aborted and nothing threw."""
    return not _signal_aborted(work) and work.raised is None


def _first_boundary(work: Work) -> bool:
    run = work.agent.running
    return run is not None and run.turn_ends is None and run.step == 0


def _after_finished(work: Work) -> bool:
    run = work.agent.running
    return run is not None and run.turn_ends is not None


def _result_is(work: Work, kind: type[cmd.StepResult]) -> bool:
    return _answered(work) and isinstance(work.result, kind)


def retry(work: Work) -> bool:
    """RESULT-3: a request error the handler retries stays inside the same step."""
    return _result_is(work, cmd.RequestError)  # a request error not retried is raised


def tool_call(work: Work) -> bool:
    """RESULT-2: the model announced a tool call; the step stays open while its tool runs."""
    return _result_is(work, cmd.ToolCall)


def tool_start(work: Work) -> bool:
    """RESULT-2: an announced call's tool started; the step stays open while it runs."""
    return _result_is(work, cmd.ToolStart)


def tool_result(work: Work) -> bool:
    """RESULT-2: one of the step's tools finished; the step stays open for the others."""
    return _result_is(work, cmd.ToolResult)


def finished(work: Work) -> bool:
    """A step's finishing result (RESULT-1, RESULT-2); at turn-stopping, nothing steered in (RESULT-4)."""
    if not _answered(work):
        return False
    if isinstance(work.command, cmd.StepResult):
        return isinstance(work.result, FINISHING)
    return not work.agent.inbox.next_step


def extended(work: Work) -> bool:
    """RESULT-4: turn-stopping listeners steered input in, so the turn goes on."""
    return _answered(work) and bool(work.agent.inbox.next_step)


def stopping_due(work: Work) -> bool:
    """RESULT-4: the step settled the turn's end and nothing waits in next-step."""
    run = work.agent.running
    return run is not None and run.turn_ends is not None and not work.agent.inbox.next_step


def next_boundary(work: Work) -> bool:
    """CLAIM-1: the turn goes on to its next boundary unless its stop is due."""
    return not stopping_due(work)


def chain(work: Work) -> bool:
    """CHAIN-1: a normally ended turn with input pending starts the next turn."""
    run = work.agent.running
    return run is not None and run.normal_exit and work.agent.inbox.has_pending


# ---- the hops (spec/loop-grain.md): the loop goes on by itself, reading what the hop holds ----


def no_chain(work: Work) -> bool:
    """CHAIN-2: the turn does not chain; the driver heads for idle (the latch is read there)."""
    return not chain(work)


def settled(work: Work) -> bool:
    """DECIDE-1: the waterfall settled with a decision and the pre-step's abort check passed."""
    return _answered(work)


def _returned(work: Work) -> bool:
    # After the pre-step returned, the turn acts on a reject or an empty entry without checking
    # for an abort; only an entry that opens a step checks first (spec/loop-grain.md row 6).
    return work.raised is None and work.decision is not None


def reject(work: Work) -> bool:
    """DECIDE-5: a reject closes the turn ``blocked``, even when a cancel landed after the pre-step returned."""
    return _returned(work) and isinstance(work.decision, Reject)


def _empty_entry(work: Work) -> bool:
    return _returned(work) and isinstance(work.decision, Enter) and not work.decision.messages


def empty_first_entry(work: Work) -> bool:
    """DECIDE-6: an empty entry at the first boundary closes a step-less turn ``completed``."""
    return _empty_entry(work) and _first_boundary(work)


def empty_after_finished(work: Work) -> bool:
    """DECIDE-6: an empty entry after a finishing step ends the turn with that step's reason."""
    return _empty_entry(work) and _after_finished(work)


def _entry(work: Work) -> bool:
    """An entry that opens a step (an empty one too where no DECIDE-6 end applies)."""
    if not (_returned(work) and isinstance(work.decision, Enter)):
        return False
    return bool(work.decision.messages) or not (_first_boundary(work) or _after_finished(work))


def enter(work: Work) -> bool:
    """DECIDE-8: the turn checks for an abort, then opens the step."""
    return _entry(work) and not _signal_aborted(work)


def enter_aborted(work: Work) -> bool:
    """CANCEL-3: a cancel that landed after the decision ends the turn before its ``step/start``."""
    return _entry(work) and _signal_aborted(work)


def latched(work: Work) -> bool:
    """CANCEL-4: the driver goes idle with a wake latched after an abort, to replay once the idle
    status's listeners have acted (loop-grain row 21)."""
    run = work.agent.running
    return run is not None and run.wake_requested


def park(work: Work) -> bool:
    """CHAIN-2: nothing latched: the agent goes idle."""
    return not latched(work)


def pending(work: Work) -> bool:
    """CANCEL-4: the latched wake is replayed only if input is pending by then."""
    return work.agent.inbox.has_pending


def nothing_pending(work: Work) -> bool:
    """CHAIN-2: nothing pending (the idle status's listeners cleared it, say): the agent stays idle."""
    return not pending(work)


# ---- a clear's points (spec/loop-grain.md row 22): a clear discards next-step, then next-turn ----
# A call made at such a point runs whole (``work.nested``): the model has no point inside it.


def clear_splits(work: Work) -> bool:
    """SPLICE-8: a clear that discards next-step stops between its two lists, where the discarded
    listeners act before next-turn is discarded."""
    return isinstance(work.command, cmd.Clear) and not work.nested and bool(work.agent.inbox.next_step)


def _cancel_clears(work: Work) -> bool:
    c = work.command
    return isinstance(c, cmd.Cancel) and not c.keep_inbox and not work.nested


def clears_next_step(work: Work) -> bool:
    """CANCEL-1: a cancel whose clear discards next-step stops after that list's discards."""
    return _cancel_clears(work) and bool(work.agent.inbox.next_step)


def clears_next_turn(work: Work) -> bool:
    """CANCEL-1: a cancel whose clear discards only next-turn stops after its discards, before the abort."""
    inbox = work.agent.inbox
    return _cancel_clears(work) and not inbox.next_step and bool(inbox.next_turn)


def whole(work: Work) -> bool:
    """An edit or a cancel with no point inside it: it discards nothing before its last act, or it
    was made at such a point."""
    return not (clear_splits(work) or clears_next_step(work) or clears_next_turn(work))


def _pending_cancel(work: Work) -> bool:
    call = work.agent.call
    return call is not None and call.cancel is not None


def cancel_goes_on(work: Work) -> bool:
    """CANCEL-1: the cancel's clear discards next-turn too: its listeners act before the abort."""
    return _pending_cancel(work) and bool(work.agent.inbox.next_turn)


def cancel_ends(work: Work) -> bool:
    """CANCEL-1: next-turn is empty by now: the cancel's abort follows at once."""
    return _pending_cancel(work) and not work.agent.inbox.next_turn


def clear_ends(work: Work) -> bool:
    """SPLICE-8: a clear's last act, next-turn's discards."""
    return not _pending_cancel(work)


# Read-only: the table names guards, this maps names to code.
GUARDS: Mapping[str, Guard] = MappingProxyType({
    "always": always,
    "aborted": aborted,
    "draining": draining,
    "not-aborted": not_aborted,
    "raised": raised,
    "retry": retry,
    "tool-call": tool_call,
    "tool-start": tool_start,
    "tool-result": tool_result,
    "failed": raised,
    "finished": finished,
    "extended": extended,
    "stopping-due": stopping_due,
    "next-boundary": next_boundary,
    "chain": chain,
    "no-chain": no_chain,
    "settled": settled,
    "reject": reject,
    "empty-first-entry": empty_first_entry,
    "empty-after-finished": empty_after_finished,
    "enter": enter,
    "enter-aborted": enter_aborted,
    "latched": latched,
    "park": park,
    "pending": pending,
    "nothing-pending": nothing_pending,
    "clear-splits": clear_splits,
    "clears-next-step": clears_next_step,
    "clears-next-turn": clears_next_turn,
    "whole": whole,
    "cancel-goes-on": cancel_goes_on,
    "cancel-ends": cancel_ends,
    "clear-ends": clear_ends,
})
