"""The lifecycle model: ``step(agent, command) -> AgentTransition`` driven by the table.

:func:`step` classifies the command into an input of :mod:`loopspec.lifecycle_table`, fires the
first row whose guard holds, runs its effects (:mod:`loopspec.agent_effects`) and follows the
choice points ``boundary`` and ``turn-ended`` until the agent rests at an await point.  The
whole thing is a pure function: a refused command raises :class:`CommandRefused` before the
caller sees any new value, so state, log and notifications are unchanged.
"""

from __future__ import annotations

import attrs

from loopspec import commands as cmd
from loopspec.agent_effects import EFFECTS, Work, run_actions
from loopspec.agent_state import Agent
from loopspec.errors import CommandRefused
from loopspec.events import SessionEvent
from loopspec.lifecycle_table import CHOICES, IDLE, Row, rows_for
from loopspec.listeners import Enter, Reject, run_chain
from loopspec.notifications import Notification
from loopspec.values import InboxTarget, Messages


@attrs.frozen
class AgentTransition:
    """One command's result: the new agent, durable events, notifications, value, rows fired."""

    agent: Agent
    events: tuple[SessionEvent, ...]
    notifications: tuple[Notification, ...]
    value: Messages | bool | None
    fired: tuple[str, ...]
    trace: tuple[SessionEvent | Notification, ...] = ()
    """Events and notifications interleaved in emission order, as a live stream shows them."""


def classify(command: cmd.Command) -> str:
    """The table input a command is (INPUT-4 names it when refusing)."""
    if isinstance(command, cmd.Send):
        return "send-wake" if command.wake else "send"
    if isinstance(command, cmd.Cancel):
        return "cancel"
    if isinstance(command, cmd.Decide):
        return "decide"
    if isinstance(command, cmd.StepResult):
        return "step-result"
    if isinstance(command, cmd.TurnStopping):
        return "turn-stopping"
    if isinstance(command, cmd.Restart):
        return "restart"
    return "edit"


def _guard(work: Work, name: str) -> bool:
    """Evaluate a named guard of the table against the work in progress."""
    agent, run = work.agent, work.agent.running
    if name == "always":
        return True
    if name in ("aborted", "not-aborted"):
        return (run is not None and run.aborted is not None) == (name == "aborted")
    if name == "raised":
        return work.raised is not None
    if name == "reject":
        return isinstance(work.decision, Reject)
    empty = isinstance(work.decision, Enter) and not work.decision.messages
    assert run is not None or name in ("park",), name
    if name == "empty-first-entry":
        return empty and run is not None and run.turn_ends is None and run.step == 0
    if name == "empty-after-finished":
        return empty and run is not None and run.turn_ends is not None
    if name == "enter":
        return isinstance(work.decision, Enter)
    if name == "retry":
        return work.result is not None and work.result.kind == "request-error" and work.result.retry
    if name == "failed":
        return work.raised is not None
    if name == "finished":
        ns_empty = not agent.inbox.next_step
        if work.result is not None:  # a step's result: everything that is neither retry nor failure
            return True
        return ns_empty  # turn-stopping: nothing steered in, so the turn ends
    if name == "extended":
        return bool(agent.inbox.next_step)
    if name == "stopping-due":
        return run is not None and run.turn_ends is not None and not agent.inbox.next_step
    if name == "next-boundary":
        return True
    if name == "chain":
        return run is not None and run.normal_exit and agent.inbox.has_pending
    if name == "latched":
        return run is not None and run.wake_requested and agent.inbox.has_pending
    if name == "park":
        return True
    raise AssertionError(f"unknown guard {name}")


def _prelude(work: Work, command: cmd.Command) -> None:
    """What an await point's answer does before the table's guards are read."""
    run = work.agent.running
    if isinstance(command, cmd.Decide) and run is not None and run.aborted is None:
        # DECIDE-3: the chain runs over the claimed batch; its side actions go through the table too.
        chain = run_chain(run.batch, command.listeners)
        work.decision = chain.decision
        work.raised = chain.raised
        refused = run_actions(work, chain.actions, step)
        if refused is not None:  # an action the model refuses is the listener throwing there
            work.decision, work.raised = None, refused
    elif isinstance(command, cmd.StepResult) and run is not None and run.aborted is None:
        work.result = command
        if command.kind == "fail" or (command.kind == "request-error" and not command.retry):
            work.raised = command.error
            work.code = command.code
        elif command.kind == "tool-calls":
            # RESULT-2: the tools insert their context while the step runs, one public splice per
            # message; a refused one is the tool throwing, after the earlier ones were written.
            actions = tuple(cmd.Append(InboxTarget.NEXT_STEP, m) for m in command.context)
            work.raised = run_actions(work, actions, step)
    elif isinstance(command, cmd.TurnStopping) and run is not None and run.aborted is None:
        refused = run_actions(work, command.actions, step)
        work.raised = refused if refused is not None else command.raises


def _rows_or_refuse(phase: str, input_name: str) -> tuple[Row, ...]:
    """The rows of ``(phase, input)``; an input with no row is refused (INPUT-4)."""
    candidates = rows_for(phase, input_name)
    if not candidates:
        raise CommandRefused("INPUT-4", f"input '{input_name}' has no transition while the agent is {phase}")
    return candidates


def _fire(work: Work, phase: str, input_name: str) -> None:
    candidates = _rows_or_refuse(phase, input_name)
    row: Row | None = next((r for r in candidates if _guard(work, r.guard)), None)
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
