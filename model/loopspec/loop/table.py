"""The lifecycle's transition relation as one table (spec areas INPUT, DECIDE, RESULT, CHAIN, CANCEL).

``(phase, input, guard) -> (effects, next phase)``.  The agent executes exactly this table: a
command is classified into an *input*, the first row of ``(phase, input)`` whose guard holds
fires, its effects run in order, and the agent moves to ``next``.  ``boundary`` and
``turn-ended`` are choice points the loop passes through within one command (input ``auto``).
An input with no row for the current phase is refused with ``INPUT-4``.

Phases are the loop's await points: ``idle``; ``deciding`` (the pre-step waterfall is pending);
``stepping`` (a step is open, its model call pending); ``stopping`` (``agent/turn-stopping``
pending).  Guards and effects are named here and implemented in the registries
:data:`loopspec.loop.guards.GUARDS` and :data:`loopspec.loop.effects.EFFECTS` (an effect's
argument after ``:`` is looked up in :data:`loopspec.loop.effects.EFFECT_ARGUMENTS`);
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

IDLE, DECIDING, STEPPING, STOPPING = "idle", "deciding", "stepping", "stopping"
BOUNDARY, TURN_ENDED = "boundary", "turn-ended"
PHASES = (IDLE, DECIDING, STEPPING, STOPPING)
CHOICES = (BOUNDARY, TURN_ENDED)
RUNNING = (DECIDING, STEPPING, STOPPING)

INPUTS = ("edit", "send", "send-wake", "cancel", "decide", "step-result", "turn-stopping", "restart", "auto")


@attrs.frozen
class Row:
    phase: str
    input: str
    guard: str
    effects: tuple[str, ...]
    next: str
    rules: tuple[str, ...]

    @property
    def key(self) -> str:
        return f"{self.phase}/{self.input}/{self.guard}"


def _running_rows() -> tuple[Row, ...]:
    rows: list[Row] = []
    for phase in RUNNING:
        rows += [
            Row(phase, "edit", "always", ("edit",), phase, ("SPLICE-1",)),
            Row(phase, "send", "always", ("insert",), phase, ("INPUT-1",)),
            # CANCEL-4: decided before the insertion, so a cancel from an inserted-listener cannot reclassify it.
            Row(phase, "send-wake", "aborted", ("insert-redirected", "latch"), phase, ("CANCEL-4",)),
            # A live, non-aborted driver sees the input at its next boundary or turn: no latch.
            Row(phase, "send-wake", "not-aborted", ("insert",), phase, ("INPUT-1",)),
            Row(phase, "cancel", "always", ("clear-unless-keep", "abort"), phase, ("CANCEL-1",)),
            Row(phase, "restart", "always", ("repair", "end-seed", "reload"), IDLE,
                ("REPAIR-1", "REPAIR-2", "REPAIR-4")),
        ]
    return tuple(rows)


TABLE: tuple[Row, ...] = (
    Row(IDLE, "edit", "always", ("edit",), IDLE, ("SPLICE-1",)),
    Row(IDLE, "send", "always", ("insert",), IDLE, ("INPUT-1",)),
    # INPUT-2, TURN-4: status, then turn/start, then the first boundary's claim, all in the send.
    Row(IDLE, "send-wake", "always", ("insert", "status-running", "turn-start", "claim-turn"), DECIDING,
        ("INPUT-2", "TURN-4", "CLAIM-1")),
    Row(IDLE, "cancel", "always", ("clear-unless-keep",), IDLE, ("CANCEL-2",)),
    Row(IDLE, "restart", "always", ("repair", "end-seed", "reload"), IDLE, ("REPAIR-2", "REPAIR-4")),
    *_running_rows(),
    # ---- the pre-step decision (guards are read after the listeners ran) ----
    Row(DECIDING, "decide", "aborted", ("end-turn:aborted",), TURN_ENDED, ("CANCEL-3",)),
    Row(DECIDING, "decide", "raised", ("agent-error", "end-turn:error"), TURN_ENDED, ("DECIDE-7", "END-2")),
    Row(DECIDING, "decide", "reject", ("end-turn:blocked",), TURN_ENDED, ("DECIDE-5",)),
    Row(DECIDING, "decide", "empty-first-entry", ("end-turn:completed",), TURN_ENDED, ("DECIDE-6",)),
    Row(DECIDING, "decide", "empty-after-finished", ("end-turn:finished",), TURN_ENDED, ("DECIDE-6",)),
    Row(DECIDING, "decide", "enter", ("step-start", "enter-messages"), STEPPING, ("DECIDE-8", "STEP-1", "STEP-3")),
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
    Row(STEPPING, "step-result", "failed", ("step-end", "agent-error", "end-turn:error"), TURN_ENDED,
        ("RESULT-3", "STEP-2", "END-2")),
    # A tool-calls answer's prelude already answered the pending calls and inserted the tools'
    # context after them (RESULT-2), so answer-calls finds nothing pending then.
    Row(STEPPING, "step-result", "finished", ("answer-calls", "step-end", "set-turn-ends"), BOUNDARY,
        ("RESULT-1", "RESULT-2", "STEP-2")),
    # ---- after a step: stop, or the next boundary ----
    Row(BOUNDARY, "auto", "stopping-due", (), STOPPING, ("RESULT-4",)),
    Row(BOUNDARY, "auto", "next-boundary", ("claim-step",), DECIDING, ("CLAIM-1", "CLAIM-6")),
    Row(STOPPING, "turn-stopping", "aborted", ("end-turn:aborted",), TURN_ENDED, ("CANCEL-3",)),
    Row(STOPPING, "turn-stopping", "raised", ("agent-error", "end-turn:error"), TURN_ENDED, ("END-2",)),
    Row(STOPPING, "turn-stopping", "finished", ("end-turn:finished",), TURN_ENDED, ("RESULT-4", "RESULT-5")),
    Row(STOPPING, "turn-stopping", "extended", ("claim-step",), DECIDING, ("RESULT-4", "CLAIM-1")),
    # ---- after turn/end: chain, replay a latched wake, or park ----
    Row(TURN_ENDED, "auto", "chain", ("turn-start", "claim-turn"), DECIDING, ("CHAIN-1", "TURN-1")),
    Row(TURN_ENDED, "auto", "latched", ("status-idle", "status-running", "turn-start", "claim-turn"), DECIDING,
        ("CANCEL-4", "STATUS-1")),
    Row(TURN_ENDED, "auto", "park", ("status-idle",), IDLE, ("CHAIN-2", "STATUS-1")),
)


def _index(table: tuple[Row, ...]) -> Mapping[tuple[str, str], tuple[Row, ...]]:
    index: dict[tuple[str, str], tuple[Row, ...]] = {}
    for row in table:
        index[(row.phase, row.input)] = (*index.get((row.phase, row.input), ()), row)
    return MappingProxyType(index)


# Read-only: the table's rows by (phase, input), in table order (every command looks its input up).
_ROWS = _index(TABLE)


def rows_for(phase: str, input_name: str) -> tuple[Row, ...]:
    """The candidate rows of ``(phase, input)`` in table order; empty means INPUT-4 refuses."""
    return _ROWS.get((phase, input_name), ())


def to_json() -> dict[str, object]:
    """The table as data, for ``spec/lifecycle-table.json`` and the state diagrams."""
    return {
        "phases": list(PHASES),
        "choices": list(CHOICES),
        "inputs": list(INPUTS),
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
