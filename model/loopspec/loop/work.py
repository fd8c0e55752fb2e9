"""One command's work in progress: the agent as the effects leave it, and what they emitted.

A :class:`Work` lives for a single command run by :func:`loopspec.loop.lifecycle.step`.  Guards
(:mod:`loopspec.loop.guards`) read it, preludes (:mod:`loopspec.loop.preludes`) and effects
(:mod:`loopspec.loop.effects`) change it; the driver turns it into an
:class:`~loopspec.loop.state.AgentTransition` at the end.
"""

from __future__ import annotations

import attrs

from loopspec.data.json_value import freeze
from loopspec.data.messages import Messages
from loopspec.data.notifications import Notification
from loopspec.inbox.operations import InboxOutcome
from loopspec.log.events import InboxSpliced, SessionEvent
from loopspec.log.kinds import SPLICED
from loopspec.log.session import Record
from loopspec.loop import commands as cmd
from loopspec.loop.pre_step import PreStepDecision
from loopspec.loop.state import Agent, RunningTurn


class Work:
    """Accumulates one command's effects; private to the driver's run of that command."""

    def __init__(self, agent: Agent, command: cmd.Command | None) -> None:
        self.agent = agent
        self.command = command  # None when the loop goes on from a hop by itself
        self.hops: list[tuple[int, Agent]] = []  # each hop passed: the trace's length there, the agent
        self.events: list[SessionEvent] = []
        self.notes: list[Notification] = []
        self.trace: list[SessionEvent | Notification] = []  # both, interleaved in emission order
        self.fired: list[str] = []
        self.value: Messages | bool | None = None
        self.decision: PreStepDecision | None = None
        self.raised: str | None = None
        self.code = "UNKNOWN"
        self.result: cmd.StepResult | None = None
        # A call that lands at a hop and takes the loop on from there itself (a waking send at the
        # hop after a waking send's splice wakes the driver in its own call): the go-on effect.
        self.goes_on = False
        # A call made at a point inside another call (spec/loop-grain.md row 22) runs whole.
        self.nested = False

    def reset_answers(self) -> None:
        self.decision, self.raised, self.result = None, None, None

    @property
    def run(self) -> RunningTurn:
        assert self.agent.running is not None, "effect needs a running turn"
        return self.agent.running

    @run.setter
    def run(self, run: RunningTurn) -> None:
        # Effects change the running turn with typed ``attrs.evolve(work.run, field=...)`` calls.
        self.agent = attrs.evolve(self.agent, running=run)

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

    def absorb(self, inner: Work) -> None:
        """Take over what a command run inside this one (a listener's action) did, after it."""
        self.agent = inner.agent
        self.events.extend(inner.events)
        self.notes.extend(inner.notes)
        self.trace.extend(inner.trace)
        self.fired.extend(inner.fired)

