"""The lifecycle: its transition relation as one table, and the one driver that executes it.

Spec areas INPUT, DECIDE, RESULT, CHAIN, CANCEL.  ``(phase, input, guard) -> (effects, next
phase)``: :func:`step` classifies a command into an *input*, runs the input's prelude (table data
too: :data:`PRELUDE_TABLE`), fires the one row of ``(phase, input)`` whose guard holds, runs its
effects in order and moves the agent to ``next``; through the choice points ``boundary`` and
``turn-ended`` it goes on within the same command (input ``auto``) until the agent rests at an
await point.  The guards of one ``(phase, input)`` are mutually exclusive, so no row's place in
the table decides anything (``tests/loop/test_guard_exclusion.py``).  An input with no row for
the current phase is refused with ``INPUT-4``.  The whole thing is a pure function: a refused
command raises :class:`CommandRefused` before the caller sees any new value, so state, log and
notifications are unchanged.

Phases and inputs are named in :mod:`loopspec.loop.phases`; guards, effects and preludes are
named here and implemented in the registries :data:`loopspec.loop.guards.GUARDS`,
:data:`loopspec.loop.effects.EFFECTS` (an effect's argument after ``:`` is looked up in
:data:`loopspec.loop.effects.EFFECT_ARGUMENTS`) and :data:`loopspec.loop.preludes.PRELUDES`;
``tests/loop/test_registries.py`` fails on a name without a function or a function no row uses.

Where the sources disagree the table follows the decision record (the reasons are in
``spec/decisions.md``):

* a ``reject`` closes the turn ``blocked`` and parks the rest (DECIDE-5, CHAIN-2) — the decision
  record over the walk-through's "try the next pre-step";
* a claim is final: no row ever re-inserts a claimed message, not on reject, failure, cancel or
  restart (CLAIM-5) — the decision record over the walk-through's re-enqueue;
* a claim takes all of next-step and one next-turn message only at a turn's first boundary
  (``claim-turn`` vs ``claim-step``, CLAIM-1) — the code over the walk-through's sketch;
* the public status is ``idle`` | ``running``; maintenance jobs are outside the model;
* crash repair writes ``turn/end {interrupted}`` without any recovery flag (REPAIR-1);
* version differences: the model writes v0.1.1's placement of a step's ``user/message`` events
  (right after ``step/start``) and the whole cancel cause (v0.1.1/v0.1.5); the checker also
  accepts v0.1.5's placement and v0.1.7's kind-only cause (VARIANT-1, VARIANT-2).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import attrs

from loopspec.data.errors import CommandRefused
from loopspec.loop import commands as cmd
from loopspec.loop.effects import EFFECTS
from loopspec.loop.guards import GUARDS
from loopspec.loop.phases import (
    AUTO,
    BOUNDARY,
    CANCELING,
    CHAINING,
    CHOICES,
    CLEARING,
    DECIDED,
    DECIDING,
    DECISION_RETURNED,
    ENDING,
    FAILING,
    HOPS,
    IDLE,
    IDLE_PHASES,
    INPUTS,
    PHASES,
    PROMPTING,
    REPLAYING,
    RESUME,
    RUNNING,
    STARTING,
    STEPPING,
    STOPPING,
    TURN_ENDED,
    WAKING,
    Prelude,
    Row,
)
from loopspec.loop.preludes import PRELUDES, Actions
from loopspec.loop.state import Agent, AgentTransition
from loopspec.loop.work import Work


def _edit_rows(phase: str) -> tuple[Row, ...]:
    # SPLICE-8: a clear that discards next-step stops between its lists (loop-grain row 22).
    return (Row(phase, "edit", "clear-splits", ("interrupt", "clear:next-step"), CLEARING, ("SPLICE-8",)),
            Row(phase, "edit", "whole", ("edit",), phase, ("SPLICE-1",)))


def _cancel_splits(phase: str) -> tuple[Row, ...]:
    # CANCEL-1: a cancel's clear stops after each list's discards, whose listeners act there, before
    # the rest of the clear and before the abort (loop-grain row 22).
    return (Row(phase, "cancel", "clears-next-step", ("interrupt", "clear:next-step"), CLEARING, ("CANCEL-1",)),
            Row(phase, "cancel", "clears-next-turn", ("interrupt", "clear:next-turn"), CANCELING, ("CANCEL-1",)))


def _running_rows() -> tuple[Row, ...]:
    rows: list[Row] = []
    for phase in RUNNING:
        rows += [
            *_edit_rows(phase),
            Row(phase, "send", "always", ("insert",), phase, ("INPUT-1",)),
            # CANCEL-4: decided before the insertion, so a cancel from an inserted-listener cannot reclassify it.
            Row(phase, "send-wake", "aborted", ("insert-redirected", "latch"), phase, ("CANCEL-4",)),
            # A live, non-aborted driver sees the input at its next boundary or turn: no latch.
            Row(phase, "send-wake", "not-aborted", ("insert",), phase, ("INPUT-1",)),
            *_cancel_splits(phase),
            Row(phase, "cancel", "whole", ("clear-unless-keep", "abort"), phase, ("CANCEL-1",)),
            Row(phase, "restart", "always", ("repair", "end-seed", "reload"), IDLE,
                ("REPAIR-1", "REPAIR-2", "REPAIR-4")),
        ]
    return tuple(rows)


TABLE: tuple[Row, ...] = (
    *_edit_rows(IDLE),
    Row(IDLE, "send", "always", ("insert",), IDLE, ("INPUT-1",)),
    # INPUT-1, INPUT-2: the send inserts its message, whose inserted listeners act while the agent
    # is still idle (the hop waking); then the driver starts and its status is emitted, whose
    # listeners act too (the hop starting); then turn/start and the first claim, with no await.
    Row(IDLE, "send-wake", "always", ("insert",), WAKING, ("INPUT-1", "INPUT-2")),
    *_cancel_splits(IDLE),
    Row(IDLE, "cancel", "whole", ("clear-unless-keep",), IDLE, ("CANCEL-2",)),
    Row(IDLE, "restart", "always", ("repair", "end-seed", "reload"), IDLE, ("REPAIR-2", "REPAIR-4")),
    *_running_rows(),
    # ---- the pre-step decision: the listeners ran; the turn acts on their outcome two hops later ----
    Row(DECIDING, "decide", "always", ("hold-answer",), DECIDED, ("DECIDE-1", "DECIDE-3")),
    # The pre-step checks for an abort as the waterfall settles; a throw goes to the turn's catch,
    # which checks too.
    Row(DECIDED, AUTO, "aborted", ("end-turn:aborted",), TURN_ENDED, ("CANCEL-3",)),
    Row(DECIDED, AUTO, "raised", ("agent-error",), FAILING, ("DECIDE-7", "END-2")),
    Row(DECIDED, AUTO, "settled", (), DECISION_RETURNED, ("DECIDE-1",)),
    # The turn acts on a reject or an empty entry without another abort check; an entry checks first.
    Row(DECISION_RETURNED, AUTO, "reject", ("end-turn:blocked",), TURN_ENDED, ("DECIDE-5",)),
    Row(DECISION_RETURNED, AUTO, "empty-first-entry", ("end-turn:completed",), TURN_ENDED, ("DECIDE-6",)),
    Row(DECISION_RETURNED, AUTO, "empty-after-finished", ("end-turn:finished",), TURN_ENDED,
        ("DECIDE-6",)),
    Row(DECISION_RETURNED, AUTO, "enter-aborted", ("end-turn:aborted",), TURN_ENDED, ("CANCEL-3",)),
    Row(DECISION_RETURNED, AUTO, "enter", ("step-start", "enter-messages"), STEPPING,
        ("DECIDE-8", "STEP-1", "STEP-3")),
    # ---- a step's result ----
    # CANCEL-5: an abort starts no tool, but the started ones finish and are answered (the drain);
    # sends and cancels may come in between.  Any other answer closes the step, the last started
    # call's included (the scheduler stops when nothing it started is in flight, finding F9): the
    # rest of the drain, a tool/call and error tool/result per call never started, step/end, the
    # aborted end.
    Row(STEPPING, "step-result", "draining", ("answer-call",), STEPPING, ("CANCEL-5", "LOG-11")),
    Row(STEPPING, "step-result", "aborted", ("drain-calls", "skip-calls", "step-end", "end-turn:aborted"),
        TURN_ENDED, ("CANCEL-3", "CANCEL-5", "STEP-2")),
    Row(STEPPING, "step-result", "retry", (), STEPPING, ("RESULT-3",)),
    # A point inside the step: the model announced a tool call (and its tool may have started).
    Row(STEPPING, "step-result", "tool-call", ("call-tool",), STEPPING, ("RESULT-2", "REPAIR-1")),
    Row(STEPPING, "step-result", "tool-start", ("start-call",), STEPPING, ("RESULT-2", "REPAIR-1")),
    Row(STEPPING, "step-result", "tool-result", ("answer-call",), STEPPING, ("RESULT-2", "LOG-4")),
    Row(STEPPING, "step-result", "failed", ("step-end", "agent-error"), FAILING, ("RESULT-3", "STEP-2", "END-2")),
    # A tool-calls answer's prelude already answered the pending calls and inserted the tools'
    # context after them (RESULT-2), so answer-calls finds nothing pending then.
    Row(STEPPING, "step-result", "finished", ("answer-calls", "step-end", "set-turn-ends"), BOUNDARY,
        ("RESULT-1", "RESULT-2", "STEP-2")),
    # ---- after a step: stop, or the next boundary ----
    Row(BOUNDARY, "auto", "stopping-due", (), STOPPING, ("RESULT-4",)),
    Row(BOUNDARY, "auto", "next-boundary", ("claim-step",), DECIDING, ("CLAIM-1", "CLAIM-6")),
    Row(STOPPING, "turn-stopping", "aborted", ("end-turn:aborted",), TURN_ENDED, ("CANCEL-3",)),
    Row(STOPPING, "turn-stopping", "raised", ("agent-error",), FAILING, ("END-2",)),
    # agent/error's listeners ran inside the emit; the turn/end follows with no await, and whatever
    # they did (a cancel included) leaves the end an error (spec/loop-grain.md row 18, END-3).
    Row(FAILING, AUTO, "always", ("end-turn:error",), TURN_ENDED, ("END-2", "END-3")),
    Row(STOPPING, "turn-stopping", "finished", ("end-turn:finished",), TURN_ENDED, ("RESULT-4", "RESULT-5")),
    Row(STOPPING, "turn-stopping", "extended", ("claim-step",), DECIDING, ("RESULT-4", "CLAIM-1")),
    # ---- after turn/end: the turn decides at once whether it chains, then hops ----
    Row(TURN_ENDED, "auto", "chain", ("rearm",), CHAINING, ("CHAIN-1",)),
    Row(TURN_ENDED, "auto", "no-chain", (), ENDING, ("CHAIN-2",)),
    # The next turn checks for an abort before its turn/start: only a cancel landing here stops it.
    Row(CHAINING, AUTO, "not-aborted", ("turn-start", "claim-turn"), DECIDING, ("CHAIN-1", "TURN-1")),
    Row(CHAINING, AUTO, "aborted", (), ENDING, ("CHAIN-1", "CANCEL-3")),
    # The driver goes idle; one that latched a wake after an abort replays it once the idle status's
    # listeners have acted (the hop replaying, loop-grain row 21), if input is pending by then.
    Row(ENDING, AUTO, "latched", ("status-idle",), REPLAYING, ("CANCEL-4", "STATUS-1")),
    Row(ENDING, AUTO, "park", ("status-idle",), IDLE, ("CHAIN-2", "STATUS-1")),
    # At replaying the agent is idle: a call there is an idle one, and a waking send starts a driver
    # itself (the replay then finds it running and does nothing).
    *_edit_rows(REPLAYING),
    Row(REPLAYING, "send", "always", ("insert",), REPLAYING, ("INPUT-1",)),
    Row(REPLAYING, "send-wake", "always", ("insert",), WAKING, ("INPUT-1", "INPUT-2")),
    *_cancel_splits(REPLAYING),
    Row(REPLAYING, "cancel", "whole", ("clear-unless-keep",), REPLAYING, ("CANCEL-2",)),
    Row(REPLAYING, "restart", "always", ("repair", "end-seed", "reload"), IDLE, ("REPAIR-2", "REPAIR-4")),
    Row(REPLAYING, AUTO, "pending", ("start-driver", "status-running"), STARTING, ("CANCEL-4", "STATUS-1")),
    Row(REPLAYING, AUTO, "nothing-pending", (), IDLE, ("CANCEL-4", "CHAIN-2")),
    # At waking the agent is idle: an edit, a send or a cancel is an idle one, and a waking send
    # starts the driver itself (the first send's wake then finds it running and does nothing).
    *_edit_rows(WAKING),
    Row(WAKING, "send", "always", ("insert",), WAKING, ("INPUT-1",)),
    # A waking send there wakes the driver itself: its own inserted listeners act first, the agent
    # still idle (a hop of its own, passed unless the send stops there), then the driver starts.
    Row(WAKING, "send-wake", "always", ("insert", "go-on"), WAKING, ("INPUT-2",)),
    *_cancel_splits(WAKING),
    Row(WAKING, "cancel", "whole", ("clear-unless-keep",), WAKING, ("CANCEL-2",)),
    Row(WAKING, "restart", "always", ("repair", "end-seed", "reload"), IDLE, ("REPAIR-2", "REPAIR-4")),
    # A wake sent while idle always starts the driver, even when its message is gone by then.
    Row(WAKING, AUTO, "always", ("start-driver", "status-running"), STARTING, ("INPUT-2",)),
    # A started driver's turn checks for an abort before its turn/start: a cancel by a listener of
    # its running status (or landing there) ends it with no turn (loop-grain row 2).
    Row(STARTING, AUTO, "not-aborted", ("turn-start", "claim-turn"), DECIDING, ("INPUT-2", "TURN-4", "CLAIM-1")),
    Row(STARTING, AUTO, "aborted", (), ENDING, ("CANCEL-3", "STATUS-1")),
    # ---- points inside a call (loop-grain row 22): a call landing there runs in the phase the call
    # came in; the call's rest then takes the agent back to that phase, as those calls left it ----
    Row(CLEARING, AUTO, "cancel-goes-on", ("clear:next-turn",), CANCELING, ("CANCEL-1", "SPLICE-8")),
    Row(CLEARING, AUTO, "cancel-ends", ("end-cancel",), RESUME, ("CANCEL-1",)),
    Row(CLEARING, AUTO, "clear-ends", ("clear:next-turn",), RESUME, ("SPLICE-8",)),
    Row(CANCELING, AUTO, "always", ("end-cancel",), RESUME, ("CANCEL-1",)),
    # A driver started by a call made at such a point awaits its system prompt when the outer call
    # returns (the hop prompting, row 4): the pre-step checks for an abort before it calls any
    # listener (the outer cancel's, or one the caller made there).
    Row(PROMPTING, AUTO, "aborted", ("end-turn:aborted",), TURN_ENDED, ("CANCEL-3",)),
    Row(PROMPTING, AUTO, "not-aborted", ("call-pre-step",), DECIDING, ("DECIDE-1",)),
)


# The inputs that answer an await point, and the prelude each runs before its rows' guards are read.
PRELUDE_TABLE: tuple[Prelude, ...] = (
    Prelude("decide", "run-pre-step", ("DECIDE-1", "DECIDE-3")),
    # An aborted step's answer still commits what its started tools drained (CANCEL-5).
    Prelude("step-result", "take-result", ("RESULT-2", "RESULT-3"), aborted="take-drained-result"),
    Prelude("turn-stopping", "run-turn-stopping", ("RESULT-4",)),
)


def _index(table: tuple[Row, ...]) -> Mapping[tuple[str, str], tuple[Row, ...]]:
    index: dict[tuple[str, str], tuple[Row, ...]] = {}
    for row in table:
        index[(row.phase, row.input)] = (*index.get((row.phase, row.input), ()), row)
    return MappingProxyType(index)


# Read-only: the table's rows by (phase, input) (every command looks its input up).
_ROWS = _index(TABLE)
# Read-only: the prelude name of each answer input.
_PRELUDE_OF: Mapping[str, Prelude] = MappingProxyType({p.input: p for p in PRELUDE_TABLE})


def rows_for(phase: str, input_name: str) -> tuple[Row, ...]:
    """The candidate rows of ``(phase, input)``; empty means INPUT-4 refuses."""
    return _ROWS.get((phase, input_name), ())


# The inputs that answer an await point: none can come at a point inside a call, which is no await.
_ANSWERS = ("decide", "step-result", "turn-stopping")


def rows_at(agent: Agent, input_name: str) -> tuple[Row, ...]:
    """The candidate rows of an input where ``agent`` stands: at a point inside a call, those of the
    phase underneath, but no answer's (no await is pending there, loop-grain row 22)."""
    if agent.call is None:
        return rows_for(agent.phase, input_name)
    return () if input_name in _ANSWERS else rows_for(agent.call.phase, input_name)


def to_json() -> dict[str, object]:
    """The table as data, for ``spec/lifecycle-table.json`` and the state diagrams."""
    return {
        "phases": list(PHASES),
        "choices": list(CHOICES),
        "inputs": list(INPUTS),
        "preludes": [{"input": p.input, "prelude": p.name, "rules": list(p.rules),
                      **({"aborted": p.aborted} if p.aborted is not None else {})} for p in PRELUDE_TABLE],
        "rows": [
            {
                "phase": r.phase,
                "input": r.input,
                "guard": r.guard,
                "effects": list(r.effects),
                "next": r.next,
                "rules": list(r.rules),
            }
            for r in TABLE
        ],
    }


# ---- the driver ----

# The table input each kind of command is; a send's input depends on whether it wakes the loop.
_INPUT_OF_TYPE: dict[type, str] = {
    cmd.Cancel: "cancel",
    cmd.Decide: "decide",
    **dict.fromkeys(cmd.STEP_RESULTS.values(), "step-result"),
    cmd.TurnStopping: "turn-stopping",
    cmd.Restart: "restart",
}


def classify(command: cmd.Command) -> str:
    """The table input a command is (INPUT-4 names it when refusing); public edits are ``edit``."""
    if isinstance(command, cmd.Send):
        return "send-wake" if command.wake else "send"
    return _INPUT_OF_TYPE.get(type(command), "edit")


def _rows_or_refuse(phase: str, input_name: str) -> tuple[Row, ...]:
    """The rows of ``(phase, input)``; an input with no row is refused (INPUT-4)."""
    candidates = rows_for(phase, input_name)
    if not candidates:
        raise CommandRefused("INPUT-4", f"input '{input_name}' has no transition while the agent is {phase}")
    return candidates


def choose_row(work: Work, phase: str, input_name: str) -> Row:
    """The row of ``(phase, input)`` whose guard holds; INPUT-4 refuses an input with no row.

    The guards of one ``(phase, input)`` are exclusive, so the first that holds is the only one
    and the search stops there; the rows' order is no tie-break."""
    row = next((r for r in _rows_or_refuse(phase, input_name) if GUARDS[r.guard](work)), None)
    assert row is not None, f"no guard holds for {phase}/{input_name}"
    return row


def _fire(work: Work, input_name: str, fine: bool = False, stop: str | None = None) -> bool:
    """Fire the row whose guard holds, then each choice point's, until the agent rests: at an await
    point, with ``fine`` at the first hop, or at the first hop named ``stop`` (a hop passed is noted
    in ``work.hops``).  True when it stopped at ``stop`` having passed into it."""
    phase = work.agent.phase
    while True:
        row = choose_row(work, phase, input_name)
        work.fired.append(row.key)
        for effect in row.effects:
            name, _, arg = effect.partition(":")
            EFFECTS[name](work, arg)
        call = work.agent.call
        if row.next == RESUME:  # the call is done: back in the phase it came in, where the move rests,
            assert call is not None  # unless a call made inside it started a driver, which goes on
            running = None if call.phase in IDLE_PHASES else work.agent.running
            if running is None or not running.prompting or call.phase not in GOES_ON_AFTER_CALL:
                work.agent = attrs.evolve(work.agent, phase=call.phase, running=running, call=None)
                return False
            # The call has returned and the driver it started is a microtask from going on: the hop
            # `prompting` (it awaits the system prompt, row 4) or `ending` (aborted at its start,
            # decisions G30), where the caller's next call lands before the driver goes on.
            next_phase = GOES_ON_AFTER_CALL[call.phase]
            if next_phase == ENDING:
                running = attrs.evolve(running, prompting=False)
            work.agent = attrs.evolve(work.agent, phase=next_phase, running=running, call=None)
        else:
            # An idle agent has no running turn: the driver's phase is gone with it.
            running = None if row.next in IDLE_PHASES else work.agent.running
            work.agent = attrs.evolve(work.agent, phase=row.next, running=running)
            next_phase = row.next
        if next_phase in HOPS:
            # A call that lands at a hop leaves the loop there: it goes on by itself (advance).
            if fine or (row.phase == next_phase and not work.goes_on):
                return False
            if next_phase == stop:
                return True
            work.goes_on = False
            work.hops.append((len(work.trace), work.agent))
        elif next_phase not in CHOICES:
            return False
        else:
            work.reset_answers()
        phase, input_name = next_phase, AUTO


def perform_actions(work: Work, actions: Actions) -> str | None:
    """Perform a prelude's actions through the table, each a command of its own, in order; the
    first refusal's message, if any (the actions after it are not performed).

    An action is an edit, a send or a cancel: inputs without a prelude, so this never nests."""
    for action in actions:
        inner = Work(work.agent, action)
        try:
            _fire(inner, classify(action))
        except CommandRefused as err:
            return err.message
        work.absorb(inner)
    return None


def _transition(work: Work) -> AgentTransition:
    return AgentTransition(work.agent, tuple(work.events), tuple(work.notes), work.value, tuple(work.fired),
                           tuple(work.trace), tuple(work.hops))


def step(agent: Agent, command: cmd.Command, *, fine: bool = False, stop: str | None = None) -> AgentTransition:
    """Apply one command (the model's transition function): the loop runs on to its next await
    point, or with ``fine`` stops at the first hop it reaches, or at the first hop named ``stop``
    when it passes one (spec/loop-grain.md; the command language's ``stop``)."""
    if agent.call is not None:
        return _within_call(agent, command, stop)
    work = Work(agent, command)
    input_name = classify(command)
    _rows_or_refuse(agent.phase, input_name)  # before the prelude: a refused input runs no listener
    prelude, run = _PRELUDE_OF.get(input_name), agent.running
    if prelude is not None and run is not None and run.aborted is None:
        refused = perform_actions(work, PRELUDES[prelude.name](work, command, run))
        if refused is not None:  # an action the model refuses is the listener or tool throwing there
            work.decision, work.raised = None, refused
    elif prelude is not None and prelude.aborted is not None and run is not None:
        # An aborted turn ends aborted whatever its answer says (CANCEL-3): a refused context
        # stops the rest of it and changes nothing else (decisions G28).
        perform_actions(work, PRELUDES[prelude.aborted](work, command, run))
    _fire(work, input_name, fine, stop)
    return _transition(work)


# The hops of a call made at a point inside a call where it can stop: a waking send's own (rows 1
# and 2), whose listeners call in turn there, two calls deep (decisions G30).  Any other hop its
# run reaches (a driver aborted at its start ending) lies after the send has returned.
INNER_HOPS = (WAKING, STARTING)
# Where the driver such a send started stands when the outer call returns → the hop it goes on from.
GOES_ON_AFTER_CALL = MappingProxyType({DECIDING: PROMPTING, ENDING: ENDING})


def _within_call(agent: Agent, command: cmd.Command | None, stop: str | None = None) -> AgentTransition:
    """A command at a point inside a call (spec/loop-grain.md row 22), or with no command the rest
    of a send held there (decisions G23, G30).  A listener of the call's discards, or a
    continuation queued before it, calls there: the call runs in the phase the outer call came in,
    and may stop at one of a waking send's own hops (:data:`INNER_HOPS`), where the send is held;
    a call made where a send is held runs whole (three calls deep: not modelled).  The point then
    holds the phase the run left, unless it was a crash, which ends the calls too."""
    call = agent.call
    assert call is not None
    input_name = AUTO if command is None else classify(command)
    if command is not None and not rows_at(agent, input_name):
        raise CommandRefused("INPUT-4", f"input '{input_name}' has no transition while the agent is {agent.phase}")
    work = Work(attrs.evolve(agent, phase=call.phase, call=None), command)
    work.nested = True
    if command is None:
        held = _held_send_goes_on(work, stop)
    else:
        held = _fire(work, input_name, stop=None if call.held or stop not in INNER_HOPS else stop) or (
            call.held and work.agent.phase == call.phase)
    inner = [] if call.held and command is not None else [(at, a) for at, a in work.hops if a.phase in INNER_HOPS]
    work.hops.clear()
    run = work.agent.running
    if work.agent.phase in GOES_ON_AFTER_CALL and call.phase != work.agent.phase and run is not None:
        # It started a driver, whose turn claimed and awaits the system prompt as the call returns
        # (row 4), or which a cancel at its start aborted (G30): the driver goes on only once the
        # outer call is done.
        work.run = attrs.evolve(run, prompting=True)
    if input_name != "restart":
        work.agent = attrs.evolve(work.agent, phase=agent.phase,
                                  call=attrs.evolve(call, phase=work.agent.phase, held=held))
        work.hops.extend((at, attrs.evolve(a, phase=agent.phase, call=attrs.evolve(call, phase=a.phase, held=True)))
                         for at, a in inner)
    return _transition(work)


def _held_send_goes_on(work: Work, stop: str | None) -> bool:
    """The rest of a send held at one of its hops: hop by hop, to the hop ``stop`` (True) or until
    the send returns (False), its driver awaiting the system prompt or, aborted at its start,
    ending a microtask later (the hop ``ending``, after the outer call is done)."""
    while True:
        _fire(work, AUTO, fine=True)
        if work.agent.phase not in INNER_HOPS:
            return False
        if work.agent.phase == stop:
            return True
        work.hops.append((len(work.trace), work.agent))


def advance(agent: Agent, *, fine: bool = False, stop: str | None = None) -> AgentTransition:
    """The loop goes on by itself from a hop (no command): to its next await point, with ``fine``
    to its next hop, or to the next hop named ``stop``.  Anywhere else there is nothing to go on
    from: INPUT-4 refuses.  Where a send made inside a call is held, its own rest goes on."""
    if agent.call is not None and agent.call.held:
        return _within_call(agent, None, stop)
    if agent.phase not in HOPS:
        raise CommandRefused("INPUT-4", f"the loop goes on by itself only from a hop, not while the agent is "
                                        f"{agent.phase}")
    work = Work(agent, None)
    held = agent.running.held if agent.running is not None else None
    if held is not None:  # what the pre-step's listeners answered, which the turn acts on now
        work.decision, work.raised = held.decision, held.raised
    _fire(work, AUTO, fine, stop)
    return _transition(work)


def run_command(agent: Agent, command: cmd.LoopCommand) -> AgentTransition:
    """One move of the command language: a command, one that stops at a hop, or ``advance``."""
    if isinstance(command, cmd.Stopping):
        return step(agent, command.command, stop=command.hop)
    if isinstance(command, cmd.Advance):
        return advance(agent, stop=command.stop)
    return step(agent, command)


def hops_passed(transition: AgentTransition) -> tuple[str, ...]:
    """The distinct hops a move's run passed, in the order it first passed each."""
    return tuple(dict.fromkeys(at.stop_name for _, at in transition.hops))


def stops_along(command: cmd.LoopCommand, transition: AgentTransition) -> tuple[cmd.LoopCommand, ...]:
    """The same move stopping at each distinct hop its run (``transition``) passed: the points where
    a call may land next (spec/loop-grain.md).  A move that already stops has none of its own."""
    if isinstance(command, cmd.Stopping) or (isinstance(command, cmd.Advance) and command.stop is not None):
        return ()
    if isinstance(command, cmd.Advance):
        return tuple(cmd.Advance(hop) for hop in hops_passed(transition))
    return tuple(cmd.Stopping(command, hop) for hop in hops_passed(transition))


def run(agent: Agent, *commands: cmd.Command) -> tuple[Agent, list[AgentTransition]]:
    """Apply commands in order; convenience for scenarios and tests."""
    out: list[AgentTransition] = []
    for command in commands:
        transition = step(agent, command)
        out.append(transition)
        agent = transition.agent
    return agent, out
