"""The agent's state: inbox, log, lifecycle phase and the running turn (spec areas TURN, STEP, STATUS).

Everything is a frozen value; :mod:`loopspec.loop.lifecycle` maps ``(Agent, command)`` to the next one.
"""

from __future__ import annotations

import attrs

from loopspec.data.json_value import Frozen
from loopspec.data.messages import EMPTY_INBOX, InboxState, Messages
from loopspec.data.notifications import Notification, Status
from loopspec.log.events import SessionEvent
from loopspec.log.session import SessionLog
from loopspec.loop import commands as cmd
from loopspec.loop.phases import CHAINING, ENDING, IDLE, IDLE_PHASES, STARTING
from loopspec.loop.pre_step import PreStepDecision

# The hops where the driver runs with no turn open: after a turn/end, or started and before its turn/start.
NO_TURN_HOPS = (CHAINING, ENDING, STARTING)


@attrs.frozen
class RunningTurn:
    """The open turn of a running driver.

    * ``step`` — the last opened step's number (0 before the first, STEP-1);
    * ``step_open`` — a step is open (between ``step/start`` and ``step/end``);
    * ``aborted`` — the cancel cause once the turn's signal is aborted (first cause wins);
    * ``wake_requested`` — the latch of a waking send that landed after the abort (CANCEL-4);
    * ``turn_ends`` — the reason the last step set (``completed``/``max-tokens``; sticky max-tokens);
    * ``batch`` — the claimed batch awaiting its pre-step decision;
    * ``calls`` — the open step's tool calls awaiting their ``tool/result``: ``(call id, started)``;
    * ``announced`` — how many tool calls the open step has announced (the next call's number);
    * ``normal_exit`` — the just-written ``turn/end`` was a normal end (``finished``), read by the
      ``turn-ended`` choice (CHAIN-1);
    * ``held`` — at a hop after the pre-step, what the listeners answered and the loop has not
      acted on yet: the decision, or what they threw (spec/loop-grain.md row 6);
    * ``failure`` — at the hop after ``agent/error``, the failure its ``turn/end error`` carries
      (spec/loop-grain.md row 18);
    * ``prompting`` — the driver was started by a call made inside another call (a point of row
      22) and awaits the system prompt: its pre-step listeners are not called yet (row 4); once
      that call has returned the loop stands at the hop ``prompting`` (decisions G25); or, a
      cancel having aborted it at its start, it ends a microtask after that call returns, from the
      hop ``ending`` (decisions G30).
    """

    turn: int
    step: int = 0
    step_open: bool = False
    aborted: Frozen = None
    wake_requested: bool = False
    turn_ends: str | None = None
    batch: Messages = ()
    calls: tuple[tuple[str, bool], ...] = ()
    announced: int = 0
    normal_exit: bool = False
    held: HeldAnswer | None = None
    failure: Frozen = None
    prompting: bool = False


@attrs.frozen
class HeldAnswer:
    """The pre-step's outcome between the waterfall and the turn acting on it: a decision, or the
    text a listener threw (then ``decision`` is None)."""

    decision: PreStepDecision | None
    raised: str | None = None


@attrs.frozen
class CallInProgress:
    """At a point inside a call (the hops ``clearing`` and ``canceling``, spec/loop-grain.md row 22):
    the phase the agent stands in underneath (where the call came in, as the calls landing at the
    point leave it), and the cancel whose rest is still to run (None for a clear).

    ``held``: a waking send made at the point is itself stopped at one of its own hops, ``phase``
    (``waking`` or ``starting``), where its listeners call in turn, two calls deep (decisions G30);
    the send's rest runs before the outer call's."""

    phase: str
    cancel: cmd.Cancel | None = None
    held: bool = False


@attrs.frozen
class LifecycleView:
    """What the log alone says about the lifecycle (FOLD-5's lifecycle half, REPAIR-4)."""

    last_turn: int = 0
    open_turn: int | None = None
    open_step: int | None = None
    steps_in_turn: int = 0


@attrs.frozen
class Agent:
    phase: str = IDLE
    inbox: InboxState = EMPTY_INBOX
    log: SessionLog = attrs.field(factory=SessionLog)
    last_turn: int = 0
    running: RunningTurn | None = None
    call: CallInProgress | None = None  # at a point inside a call: what it interrupted and still owes

    @property
    def loop_phase(self) -> str:
        """The loop's own phase: at a point inside a call, the phase the call came in."""
        return self.phase if self.call is None else self.call.phase

    @property
    def stop_name(self) -> str:
        """Where the agent stands, as a command's ``stop`` names it: the hop a send made inside a
        call is held at (decisions G30), else the phase."""
        return self.call.phase if self.call is not None and self.call.held else self.phase

    @property
    def status(self) -> Status:
        """STATUS-1: ``running`` exactly while a driver runs."""
        return "idle" if self.loop_phase in IDLE_PHASES else "running"

    def lifecycle_view(self) -> LifecycleView:
        run = self.running
        if run is None or self.loop_phase in NO_TURN_HOPS:  # the driver runs, but no turn is open
            return LifecycleView(self.last_turn)
        return LifecycleView(self.last_turn, run.turn, run.step if run.step_open else None, run.step)


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
    hops: tuple[tuple[int, Agent], ...] = ()
    """Each hop the loop passed on its way (spec/loop-grain.md): how much of ``trace`` it had
    emitted there, and the agent as it stood, where a call could have landed."""
