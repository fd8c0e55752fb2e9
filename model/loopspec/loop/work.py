"""One command's work in progress: the agent as the effects leave it, and what they emitted.

A :class:`Work` lives for a single :func:`loopspec.loop.agent.step` call.  Guards
(:mod:`loopspec.loop.guards`) read it and effects (:mod:`loopspec.loop.effects`) change it; the
agent turns it into an :class:`~loopspec.loop.state.AgentTransition` at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from loopspec.data.errors import CommandRefused
from loopspec.data.json_value import freeze
from loopspec.data.messages import Messages
from loopspec.data.notifications import Notification
from loopspec.inbox.operations import InboxOutcome
from loopspec.log.events import InboxSpliced, SessionEvent
from loopspec.log.kinds import SPLICED
from loopspec.log.session import Record
from loopspec.loop import commands as cmd
from loopspec.loop.pre_step import PreStepDecision
from loopspec.loop.state import Agent, AgentTransition, RunningTurn


class Work:
    """Accumulates one command's effects; private to a single :func:`loopspec.loop.agent.step` call."""

    def __init__(self, agent: Agent, command: cmd.Command) -> None:
        self.agent = agent
        self.command = command
        self.events: list[SessionEvent] = []
        self.notes: list[Notification] = []
        self.trace: list[SessionEvent | Notification] = []  # both, interleaved in emission order
        self.fired: list[str] = []
        self.value: Messages | bool | None = None
        self.decision: PreStepDecision | None = None
        self.raised: str | None = None
        self.code = "UNKNOWN"
        self.result: cmd.StepResult | None = None

    def reset_answers(self) -> None:
        self.decision, self.raised, self.result = None, None, None

    @property
    def run(self) -> RunningTurn:
        assert self.agent.running is not None, "effect needs a running turn"
        return self.agent.running

    def set_run(self, **changes: Any) -> None:
        self.agent = attrs.evolve(self.agent, running=attrs.evolve(self.run, **changes))

    def write(self, *records: Record, surface_op: str | None = None,
              source_event_seqs: tuple[int, ...] | None = None) -> None:
        log, events = self.agent.log.append(records, surface_op=surface_op, source_event_seqs=source_event_seqs)
        self.agent = attrs.evolve(self.agent, log=log)
        self.events.extend(events)
        self.trace.extend(events)

    def notify(self, *notes: Notification) -> None:
        self.notes.extend(notes)
        self.trace.extend(notes)

    def commit(self, outcome: InboxOutcome) -> None:
        """Write an inbox outcome's records and notifications in its own order (NOTIFY-4, CLAIM-4)."""
        for item in outcome.trace:
            if isinstance(item, InboxSpliced):
                self.write((SPLICED, freeze(item.to_json())))
            else:
                self.notify(item)
        self.agent = attrs.evolve(self.agent, inbox=outcome.state)


def run_actions(
    work: Work,
    actions: tuple[cmd.ListenerActionT, ...],
    step: Callable[[Agent, cmd.Command], AgentTransition],
) -> str | None:
    """Perform listeners' actions through the table; the first refusal's message, if any."""
    for action in actions:
        try:
            transition = step(work.agent, action)
        except CommandRefused as err:
            return err.message
        work.agent = transition.agent
        work.events.extend(transition.events)
        work.notes.extend(transition.notifications)
        work.trace.extend(transition.trace)
        work.fired.extend(transition.fired)
    return None
