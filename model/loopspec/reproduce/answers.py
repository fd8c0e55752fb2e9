"""The environment's answers at the loop's await points, read from the recorded log.

A recording holds the public calls and the pre-step decisions, but not in so many words how a
step's model call ended, what the ``agent/turn-stopping`` listeners did, or what a listener or a
tool did to the inbox outside a public call.  The log shows each of them, and these functions read
them back as model commands:

* **a step's result** (RESULT-1 … RESULT-3) — from the step's model-side events: a ``tool/call``
  means tool calls; otherwise the last ``assistant/chunk`` ``finish`` says ``stop`` or
  ``max-tokens``.  When the ``turn/end`` after the step's ``step/end`` is an ``error`` and the step
  did not finish normally (a request error, or a finish reporting an error), the step failed with
  that error's message and code.  A tool step directly followed by a normal ``turn/end``
  (``completed`` or ``max-tokens``) had a tool conclude the turn, and so had one after which the
  live stream calls the turn-stopping listeners (they may steer the turn on); one followed by
  ``blocked`` went on to the next boundary, whose pre-step rejected.  A tool step that finished
  normally and is directly followed by an ``error`` end had a tool's deferred context refused
  (RESULT-2, SPLICE-3): the log keeps nothing of that message, so the model is asked which pending
  message, deferred again, fails the step with exactly the recorded error
  (:func:`with_refused_context`).  An aborted turn's step ends the turn
  ``aborted`` whatever it returned (CANCEL-3), so its events are not read;
* **turn stopping** (RESULT-4) — the listeners threw when the next lifecycle event is an
  ``error`` ``turn/end``; what they inserted shows as edits outside any call (below);
* **an edit outside any call** — an ``agent/inbox/spliced`` that is not a claim, written while
  the loop runs but outside every public call, is a listener's or a tool's action on the inbox
  (DECIDE-3, RESULT-2, RESULT-4): the model performs the same splice at that point.

When the log does not say (no finish, no tool call, no error end), the recording is unusable:
the engine never guesses.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from loopspec.data.errors import CommandRefused
from loopspec.data.json_value import Frozen, JsonObject
from loopspec.data.messages import UserMessage
from loopspec.log.events import InboxSpliced, SessionEvent
from loopspec.log.kinds import SPLICED, STEP_END, STEP_START, TURN_END, TURN_START
from loopspec.log.step_summary import summarize
from loopspec.loop import commands as cmd
from loopspec.loop import lifecycle
from loopspec.loop import records as rec
from loopspec.loop.state import Agent, RunningTurn

NORMAL_FINISHES = {"stop": "stop", "max-tokens": "max-tokens", "tool-calls": "tool-calls"}
_LIFECYCLE = frozenset({TURN_START, TURN_END, STEP_START})


class CannotTell(Exception):
    """The log does not say how an await point was answered."""


def _get(data: Frozen, key: str) -> Frozen:
    return data.get(key) if isinstance(data, JsonObject) else None


def _after_step_end(events: Sequence[SessionEvent], turn: int, step: int, claims: bool = True
                    ) -> SessionEvent | None:
    """The first lifecycle event (or, with ``claims``, claim) after the ``step/end`` of ``turn.step``,
    if the log has it."""
    ends = [e.seq for e in events if e.type == STEP_END and (_get(e.data, "turn"), _get(e.data, "step")) ==
            (turn, step)]
    for event in events[ends[0] + 1:] if ends else ():
        if event.type in _LIFECYCLE or (claims and event.type == SPLICED and
                                        InboxSpliced.from_data(event.data).is_claim):
            return event
    return None


def _normal_end(event: SessionEvent | None) -> bool:
    """``event`` is a ``turn/end`` that a step's own end set (``completed``, or a sticky ``max-tokens``)."""
    return event is not None and event.type == TURN_END and (
        rec.reason_kind(_get(event.data, "reason")) in (rec.COMPLETED, rec.MAX_TOKENS))


def error_end(event: SessionEvent | None) -> tuple[str, str] | None:
    """``(message, code)`` when ``event`` is a ``turn/end`` with reason ``error``."""
    if event is None or event.type != TURN_END:
        return None
    reason = _get(event.data, "reason")
    if rec.reason_kind(reason) != rec.ERROR:
        return None
    error = _get(reason, "error")
    message, code = _get(error, "message"), _get(error, "code")
    return (message if isinstance(message, str) else "", code if isinstance(code, str) else "UNKNOWN")


def step_result(events: Sequence[SessionEvent], run: RunningTurn, stopping_next: bool = False) -> cmd.StepResult:
    """How the open step ``run.turn``.``run.step`` ended, as the log shows it.

    ``stopping_next``: the live stream calls the turn-stopping listeners next, which only a step
    that set the turn's end is followed by (a concluding tool, when they steer the turn on).
    """
    if run.aborted is not None:
        return cmd.Stop()  # CANCEL-3: the aborted row fires whatever the step returned
    inside = summarize(e.to_json() for e in events
                       if (_get(e.data, "turn"), _get(e.data, "step")) == (run.turn, run.step)
                       and e.type not in (STEP_START, STEP_END))
    finish = inside.finish
    after = _after_step_end(events, run.turn, run.step)
    failure = error_end(after)
    if failure is not None and finish not in NORMAL_FINISHES:
        return cmd.Fail(error=failure[0], code=failure[1])
    if inside.calls_tools or finish == "tool-calls":
        # A concluding tool sets the turn's end, so only a normal end (completed, or max-tokens
        # when sticky, RESULT-1) right after the step shows it; a blocked one is the next
        # boundary's pre-step rejecting (DECIDE-5), which concluded nothing.  With input waiting
        # in next-step the turn goes on to claim it, and the end it set shows only if the next
        # pre-step then enters nothing: the turn ends there, a normal end with no step/start
        # between (DECIDE-6), where an end not set would open an empty step.
        concluded = stopping_next or _normal_end(after) or (
            after is not None and after.type == SPLICED and _normal_end(
                _after_step_end(events, run.turn, run.step, claims=False)))
        return cmd.ToolCalls(conclude=concluded)
    if finish in ("stop", "max-tokens"):
        return cmd.STEP_RESULTS[finish]()
    said = f"its finish reason is {finish!r}" if finish else "it has no finish chunk and no tool call"
    raise CannotTell(f"cannot tell how step {run.turn}.{run.step} ended: {said}, and no error turn/end follows")


def with_refused_context(events: Sequence[SessionEvent], agent: Agent, result: cmd.StepResult,
                         listeners_next: bool = False) -> cmd.StepResult:
    """``result``, or for a tool step whose ``step/end`` is followed by an ``error`` end, the same
    answer deferring the one pending message whose refusal the model words as that error; not when
    the live stream calls listeners of this turn next (``listeners_next``): the turn-stopping ones
    (the step set the turn's end) or the next step's pre-step (the turn went on), so the tool phase
    did not throw, and the error is theirs.

    The log shows a tool's accepted context (its splices) but not a refused one: the real tool
    phase throws at the refused message, after its ``step/end``, and the turn ends ``error``
    (RESULT-2, SPLICE-3).  Trying each pending id through the model finds the message without
    reading the error's text; none matching leaves ``result`` as it was, and the recorded error
    is then a difference."""
    run = agent.running
    if not isinstance(result, cmd.ToolCalls) or result.context or run is None or listeners_next:
        return result
    failure = error_end(_after_step_end(events, run.turn, run.step))
    if failure is None:
        return result
    for mid in agent.inbox.ids():
        candidate = attrs.evolve(result, context=(UserMessage.create(mid.value),))
        try:
            moved = lifecycle.step(agent, candidate)
        except CommandRefused:
            continue
        if any(isinstance(item, SessionEvent) and error_end(item) == failure for item in moved.trace):
            return candidate
    return result


def turn_stopping(events: Sequence[SessionEvent], position: int) -> cmd.TurnStopping:
    """The ``agent/turn-stopping`` listeners' effect, from the next lifecycle event of the log."""
    following = next((e for e in events[position:] if e.type in _LIFECYCLE or e.type == SPLICED), None)
    failure = error_end(following)
    return cmd.TurnStopping() if failure is None else cmd.TurnStopping(raises=failure[0])


def outside_edit(event: SessionEvent) -> cmd.Splice | None:
    """The public splice a listener or a tool made, or ``None`` for a claim (only the loop claims)."""
    spliced = InboxSpliced.from_data(event.data, event.seq)
    if spliced.is_claim:
        return None
    return cmd.Splice(spliced.target, spliced.start, spliced.removed, spliced.inserted)
