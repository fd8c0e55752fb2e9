"""The named guards of the lifecycle table (spec areas DECIDE, RESULT, CHAIN, CANCEL).

The table (:mod:`loopspec.loop.table`) names a guard per row; :data:`GUARDS` maps each name to a
predicate over the command's work in progress.  The agent fires the first row of ``(phase,
input)`` whose guard holds, so a guard only has to separate its row from the rows listed after
it.  A test checks that every name the table uses is here and every predicate here is used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from loopspec.loop import commands as cmd
from loopspec.loop.pre_step import Enter, Reject
from loopspec.loop.work import Work

Guard = Callable[[Work], bool]


def always(_: Work) -> bool:
    return True


def aborted(work: Work) -> bool:
    """The running turn's signal is aborted (CANCEL-3): await points end the turn ``aborted``."""
    run = work.agent.running
    return run is not None and run.aborted is not None


def draining(work: Work) -> bool:
    """CANCEL-5: in an aborted step, a tool that started before the abort finished while another
    started tool still runs: the two oldest pending calls (starts go in call order, LOG-11) are
    started, so the oldest one's answer is written and the step stays open for the rest."""
    run, answer = work.agent.running, work.command
    # An aborted turn's answer runs no prelude (work.result stays unset): the command itself says
    # which tool finished.
    finished_tool = isinstance(answer, cmd.StepResult) and answer.kind == "tool-result"
    # The last started call's answer is not a drain: the real scheduler closes the tool phase as
    # soon as nothing it started is in flight (finding F9), which is the `aborted` row's work.
    calls = run.calls if run is not None else ()
    return aborted(work) and finished_tool and len(calls) > 1 and calls[0][1] and calls[1][1]


def not_aborted(work: Work) -> bool:
    return not aborted(work)


def raised(work: Work) -> bool:
    """A listener, a tool or the step threw (DECIDE-7, RESULT-3, RESULT-4)."""
    return work.raised is not None


def reject(work: Work) -> bool:
    return isinstance(work.decision, Reject)


def _empty_entry(work: Work) -> bool:
    return isinstance(work.decision, Enter) and not work.decision.messages


def empty_first_entry(work: Work) -> bool:
    """DECIDE-6: an empty entry at the first boundary closes a balanced, step-less turn."""
    run = work.agent.running
    return _empty_entry(work) and run is not None and run.turn_ends is None and run.step == 0


def empty_after_finished(work: Work) -> bool:
    """DECIDE-6: an empty entry after a finishing step ends the turn with that step's reason."""
    run = work.agent.running
    return _empty_entry(work) and run is not None and run.turn_ends is not None


def enter(work: Work) -> bool:
    return isinstance(work.decision, Enter)


def retry(work: Work) -> bool:
    """RESULT-3: a request error the handler retries stays inside the same step."""
    return work.result is not None and work.result.kind == "request-error" and work.result.retry


def tool_call(work: Work) -> bool:
    """RESULT-2: the model announced a tool call; the step stays open while its tool runs."""
    return work.result is not None and work.result.kind == "tool-call"


def tool_start(work: Work) -> bool:
    """RESULT-2: an announced call's tool started; the step stays open while it runs."""
    return work.result is not None and work.result.kind == "tool-start"


def tool_result(work: Work) -> bool:
    """RESULT-2: one of the step's tools finished; the step stays open for the others."""
    return work.result is not None and work.result.kind == "tool-result"


def finished(work: Work) -> bool:
    """A step's result that is neither a retry nor a failure; at turn-stopping, nothing steered in."""
    if work.result is not None:
        return True
    return not work.agent.inbox.next_step


def extended(work: Work) -> bool:
    """RESULT-4: turn-stopping listeners steered input in, so the turn goes on."""
    return bool(work.agent.inbox.next_step)


def stopping_due(work: Work) -> bool:
    """RESULT-4: the step settled the turn's end and nothing waits in next-step."""
    run = work.agent.running
    return run is not None and run.turn_ends is not None and not work.agent.inbox.next_step


def chain(work: Work) -> bool:
    """CHAIN-1: a normally ended turn with input pending starts the next turn."""
    run = work.agent.running
    return run is not None and run.normal_exit and work.agent.inbox.has_pending


def latched(work: Work) -> bool:
    """CANCEL-4: a waking send latched after the abort replays once the aborted turn ended."""
    run = work.agent.running
    return run is not None and run.wake_requested and work.agent.inbox.has_pending


# Read-only: the table names guards, this maps names to code.
GUARDS: Mapping[str, Guard] = MappingProxyType({
    "always": always,
    "aborted": aborted,
    "draining": draining,
    "not-aborted": not_aborted,
    "raised": raised,
    "reject": reject,
    "empty-first-entry": empty_first_entry,
    "empty-after-finished": empty_after_finished,
    "enter": enter,
    "retry": retry,
    "tool-call": tool_call,
    "tool-start": tool_start,
    "tool-result": tool_result,
    "failed": raised,
    "finished": finished,
    "extended": extended,
    "stopping-due": stopping_due,
    "next-boundary": always,
    "chain": chain,
    "latched": latched,
    "park": always,
})
