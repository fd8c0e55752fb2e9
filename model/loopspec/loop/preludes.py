"""The preludes the lifecycle table names: what an await point's answer does before its guards are read.

Each prelude is ``(work, command, run) -> actions``: it records the answer's outcome on the work in
progress (the decision, the step's result, what was raised) and returns the side actions the
listeners or tools performed, which the driver (:mod:`loopspec.loop.lifecycle`) then performs
through the table, in order; a refused one is the listener or tool throwing there.  Returning
them, rather than performing them here, keeps the driver the only place a command enters the
table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from loopspec.data.messages import InboxTarget
from loopspec.loop import commands as cmd
from loopspec.loop.effects import EFFECTS
from loopspec.loop.pre_step import PreStepPayload, run_chain
from loopspec.loop.state import RunningTurn
from loopspec.loop.work import Work

Actions = tuple[cmd.ListenerActionT, ...]
PreludeFunction = Callable[[Work, cmd.Command, RunningTurn], Actions]


def run_pre_step(work: Work, command: cmd.Command, run: RunningTurn) -> Actions:
    assert isinstance(command, cmd.Decide)
    # DECIDE-3: the chain runs over the claimed batch; its side actions go through the table too.
    # DECIDE-1: the listeners see the batch, the turn and the number the step would get.
    chain = run_chain(run.batch, command.listeners, PreStepPayload(run.turn, run.step + 1))
    work.decision = chain.decision
    work.raised = chain.raised
    return chain.actions


def take_result(work: Work, command: cmd.Command, _: RunningTurn) -> Actions:
    assert isinstance(command, cmd.StepResult)
    work.result = command
    if isinstance(command, cmd.Fail) or (isinstance(command, cmd.RequestError) and not command.retry):
        work.raised = command.error
        work.code = command.code
    elif isinstance(command, cmd.ToolCalls):
        # RESULT-2: the tool phase commits each result and then splices that tool's context into
        # next-step (real runGroup: appendToolResult, then acceptContext), so the calls still
        # pending are answered first and the context follows, one public splice per message.
        EFFECTS["answer-calls"](work, "")
        return tuple(cmd.Append(InboxTarget.NEXT_STEP, m) for m in command.context)
    return ()


def take_drained_result(work: Work, command: cmd.Command, run: RunningTurn) -> Actions:
    """An aborted step's answer (CANCEL-5): the started calls are drained, and the context their
    tools deferred still goes into next-step after their results (decisions G28, finding F18).

    The real tool runtime keeps a drained result's deferred context on the aborted result it
    commits, and the tool phase accepts each committed result's context whatever the signal says.
    A step none of whose calls had started ran no tool, so nothing could defer context: the answer
    then carries none (the model's stream was what the abort cut)."""
    assert isinstance(command, cmd.StepResult)
    if not isinstance(command, cmd.ToolCalls) or not any(started for _, started in run.calls):
        return ()
    EFFECTS["drain-calls"](work, "")  # the row's drain-calls then finds no started call pending
    return tuple(cmd.Append(InboxTarget.NEXT_STEP, m) for m in command.context)


def run_turn_stopping(work: Work, command: cmd.Command, _: RunningTurn) -> Actions:
    assert isinstance(command, cmd.TurnStopping)
    work.raised = command.raises  # a refused action, if any, is what the listeners threw instead
    return command.actions


# Read-only: the table names preludes, this maps names to code.
PRELUDES: Mapping[str, PreludeFunction] = MappingProxyType({
    "run-pre-step": run_pre_step,
    "take-result": take_result,
    "take-drained-result": take_drained_result,
    "run-turn-stopping": run_turn_stopping,
})
