"""The lifecycle model: ``step(agent, command) -> AgentTransition`` driven by the table.

:func:`step` classifies the command into an input of :mod:`loopspec.loop.table`, fires the
first row whose guard holds, runs its effects (:mod:`loopspec.loop.effects`) and follows the
choice points ``boundary`` and ``turn-ended`` until the agent rests at an await point.  The
whole thing is a pure function: a refused command raises :class:`CommandRefused` before the
caller sees any new value, so state, log and notifications are unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

import attrs

from loopspec.data.errors import CommandRefused
from loopspec.data.messages import InboxTarget
from loopspec.loop import commands as cmd
from loopspec.loop.effects import EFFECTS
from loopspec.loop.guards import GUARDS
from loopspec.loop.pre_step import PreStepPayload, run_chain
from loopspec.loop.state import Agent, AgentTransition, RunningTurn
from loopspec.loop.table import CHOICES, IDLE, Row, rows_for
from loopspec.loop.work import Work, run_actions

# The table input each kind of command is; a send's input depends on whether it wakes the loop.
_INPUT_OF_TYPE: dict[type, str] = {
    cmd.Cancel: "cancel",
    cmd.Decide: "decide",
    cmd.StepResult: "step-result",
    cmd.TurnStopping: "turn-stopping",
    cmd.Restart: "restart",
}


def classify(command: cmd.Command) -> str:
    """The table input a command is (INPUT-4 names it when refusing); public edits are ``edit``."""
    if isinstance(command, cmd.Send):
        return "send-wake" if command.wake else "send"
    return _INPUT_OF_TYPE.get(type(command), "edit")


def _decide(work: Work, command: cmd.Command, run: RunningTurn) -> None:
    assert isinstance(command, cmd.Decide)
    # DECIDE-3: the chain runs over the claimed batch; its side actions go through the table too.
    # DECIDE-1: the listeners see the batch, the turn and the number the step would get.
    chain = run_chain(run.batch, command.listeners, PreStepPayload(run.turn, run.step + 1))
    work.decision = chain.decision
    work.raised = chain.raised
    refused = run_actions(work, chain.actions, step)
    if refused is not None:  # an action the model refuses is the listener throwing there
        work.decision, work.raised = None, refused


def _step_result(work: Work, command: cmd.Command, _: RunningTurn) -> None:
    assert isinstance(command, cmd.StepResult)
    work.result = command
    if command.kind == "fail" or (command.kind == "request-error" and not command.retry):
        work.raised = command.error
        work.code = command.code
    elif command.kind == "tool-calls":
        # RESULT-2: the tool phase commits each result and then splices that tool's context into
        # next-step (real runGroup: appendToolResult, then acceptContext), so the calls still
        # pending are answered first and the context follows, one public splice per message; a
        # refused one is the tool throwing, after the earlier ones were written.
        EFFECTS["answer-calls"](work, "")
        actions = tuple(cmd.Append(InboxTarget.NEXT_STEP, m) for m in command.context)
        work.raised = run_actions(work, actions, step)


def _turn_stopping(work: Work, command: cmd.Command, _: RunningTurn) -> None:
    assert isinstance(command, cmd.TurnStopping)
    refused = run_actions(work, command.actions, step)
    work.raised = refused if refused is not None else command.raises


PRELUDES: Mapping[str, Callable[[Work, cmd.Command, RunningTurn], None]] = MappingProxyType({
    "decide": _decide, "step-result": _step_result, "turn-stopping": _turn_stopping,
})
"""What an await point's answer (a table input) does before the table's guards are read: it runs
the listeners or tools whose outcome the guards read.  An aborted turn's answer runs nothing."""


def _prelude(work: Work, command: cmd.Command) -> None:
    run = work.agent.running
    prelude = PRELUDES.get(classify(command))
    if prelude is not None and run is not None and run.aborted is None:
        prelude(work, command, run)


def _rows_or_refuse(phase: str, input_name: str) -> tuple[Row, ...]:
    """The rows of ``(phase, input)``; an input with no row is refused (INPUT-4)."""
    candidates = rows_for(phase, input_name)
    if not candidates:
        raise CommandRefused("INPUT-4", f"input '{input_name}' has no transition while the agent is {phase}")
    return candidates


def _fire(work: Work, phase: str, input_name: str) -> None:
    candidates = _rows_or_refuse(phase, input_name)
    row: Row | None = next((r for r in candidates if GUARDS[r.guard](work)), None)
    assert row is not None, f"no guard holds for {phase}/{input_name}"
    work.fired.append(row.key)
    for effect in row.effects:
        name, _, arg = effect.partition(":")
        EFFECTS[name](work, arg)
    # An idle agent has no running turn: the driver's phase is gone with it.
    running = None if row.next == IDLE else work.agent.running
    work.agent = attrs.evolve(work.agent, phase=row.next, running=running)
    if row.next in CHOICES:
        work.reset_answers()
        _fire(work, row.next, "auto")


def step(agent: Agent, command: cmd.Command) -> AgentTransition:
    """Apply one command (the model's transition function)."""
    work = Work(agent, command)
    input_name = classify(command)
    _rows_or_refuse(agent.phase, input_name)  # before the prelude: a refused input runs no listener
    _prelude(work, command)
    _fire(work, work.agent.phase, input_name)
    return AgentTransition(
        work.agent, tuple(work.events), tuple(work.notes), work.value, tuple(work.fired), tuple(work.trace)
    )


def run(agent: Agent, *commands: cmd.Command) -> tuple[Agent, list[AgentTransition]]:
    """Apply commands in order; convenience for scenarios and tests."""
    out: list[AgentTransition] = []
    for command in commands:
        transition = step(agent, command)
        out.append(transition)
        agent = transition.agent
    return agent, out
