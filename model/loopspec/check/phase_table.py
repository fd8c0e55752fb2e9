"""The log checker's state machine as data: ``(checker phase, event kind) → (checks, next phase)``.

The checker reads a log in one of five phases (:mod:`loopspec.check.state`): between turns
(``idle``); at a boundary whose claim is still due (``claim-due``); after the claim, waiting for
the decision (``deciding``); inside a step (``stepping``); after a ``step/end`` that left
next-step empty (``after-step``: turn-stopping or a tool continuation may follow).  :data:`TABLE`
holds a row for every pair a log may show: the named checks (:data:`CHECKS`) that judge the event
in that phase, then the phase the log is in after it, fixed or chosen by a named chooser
(:data:`CHOOSERS`) from what the checks found.  Kinds the checker owns no rule of pass through in
any phase (LOG-6) and have no row.

A pair with no row is an event where the loop never writes it: :data:`OFF_TABLE` names, for each
kind, the rules that event breaks there and the row it is read by, whose checks report the
violation and re-synchronise the checker (``--all``) as the log says.  The test
``tests/check/test_phase_table.py`` holds the table against the model: every pair the model's
exploration meets is a row, and every row, and every answer of a row's chooser, is reached by the
model or by a named writer-variant log (a plugin through the session, decisions.md G12; a real
listener, F15, which the model writes only when a call lands at a hop).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import NamedTuple

from loopspec.check import lifecycle, splices, step_body
from loopspec.check.state import AFTER_STEP, CLAIM_DUE, DECIDING, IDLE, STEPPING, CheckState
from loopspec.log.kinds import (
    ASSISTANT_ATTEMPT,
    ASSISTANT_CHUNK,
    ASSISTANT_MESSAGE,
    END_SEED,
    REQUEST_CONTEXT,
    REQUEST_HEADER,
    SPLICED,
    STEP_END,
    STEP_START,
    SYSTEM_MESSAGE,
    TOOL_CALL,
    TOOL_RESULT,
    TURN_END,
    TURN_START,
    USER_MESSAGE,
)

PHASES = (IDLE, CLAIM_DUE, DECIDING, STEPPING, AFTER_STEP)

Check = Callable[[CheckState, dict[str, object], object, int], None]
Chooser = Callable[[CheckState], str]

# The checks, by name; each reads the state before the event, records what it breaks, and moves
# the state's bookkeeping as the log says (the phase is the table's).
CHECKS: Mapping[str, Check] = MappingProxyType({
    "splice": splices.on_splice,
    "turn-start": lifecycle.on_turn_start,
    "turn-end": lifecycle.on_turn_end,
    "step-start": lifecycle.on_step_start,
    "step-end": lifecycle.on_step_end,
    "end-seed": lifecycle.on_end_seed,
    "user-message": step_body.on_user_message,
    "system-message": step_body.on_system_message,
    "model-request": step_body.on_request,
    "model-answer": step_body.on_assistant,
    "tool-call": step_body.on_tool_call,
    "tool-result": step_body.on_tool_result,
})


def _claim_owed(st: CheckState) -> str:
    """After ``turn/start``: the first boundary owes all of next-step, then one next-turn message (TURN-4, CLAIM-1)."""
    claim = st.claim  # its fields read, not its property: a chooser runs at every turn/start
    return CLAIM_DUE if claim.due_ns or claim.due_nt else DECIDING


def _claim_complete(st: CheckState) -> str:
    """After an inbox record at a boundary: deciding once the boundary's claim is complete (CLAIM-1, CLAIM-2)."""
    return DECIDING if st.claim.chosen() else st.phase


def _step_closed(st: CheckState) -> str:
    """After ``step/end``: a claim is due at once when next-step holds input and the step ends no turn (CLAIM-6)."""
    return CLAIM_DUE if st.claim.due_ns else AFTER_STEP


def _as_resynchronised(st: CheckState) -> str:
    """Off the table: the phase the checks re-synchronised to (``--all``), or the one before."""
    return st.phase


CHOOSERS: Mapping[str, Chooser] = MappingProxyType({
    "claim-owed": _claim_owed,
    "claim-complete": _claim_complete,
    "step-closed": _step_closed,
    "as-resynchronised": _as_resynchronised,
})


class Row(NamedTuple):
    """One pair's checks and where the log goes next: a phase, or the name of a chooser."""

    checks: tuple[str, ...]
    next: str


class OffTable(NamedTuple):
    """A kind where it has no row: the rules it breaks there and the row that reports them."""

    rules: tuple[str, ...]
    row: Row


_KEEP = "as-resynchronised"


def _rows() -> dict[tuple[str, str], Row]:
    rows: dict[tuple[str, str], Row] = {
        (IDLE, SPLICED): Row(("splice",), IDLE),
        (IDLE, END_SEED): Row(("end-seed",), IDLE),
        (IDLE, TURN_START): Row(("turn-start",), "claim-owed"),
        (CLAIM_DUE, SPLICED): Row(("splice",), "claim-complete"),
        (CLAIM_DUE, TURN_END): Row(("turn-end",), IDLE),
        (DECIDING, SPLICED): Row(("splice",), DECIDING),
        (DECIDING, STEP_START): Row(("step-start",), STEPPING),
        (DECIDING, TURN_END): Row(("turn-end",), IDLE),
        (STEPPING, SPLICED): Row(("splice",), STEPPING),
        (STEPPING, USER_MESSAGE): Row(("user-message",), STEPPING),
        (STEPPING, SYSTEM_MESSAGE): Row(("system-message",), STEPPING),
        (STEPPING, ASSISTANT_CHUNK): Row(("model-answer",), STEPPING),
        (STEPPING, ASSISTANT_ATTEMPT): Row(("model-answer",), STEPPING),
        (STEPPING, ASSISTANT_MESSAGE): Row(("model-answer",), STEPPING),
        (STEPPING, TOOL_CALL): Row(("tool-call",), STEPPING),
        (STEPPING, STEP_END): Row(("step-end",), "step-closed"),
        (AFTER_STEP, SPLICED): Row(("splice",), "claim-complete"),
        (AFTER_STEP, STEP_START): Row(("step-start",), STEPPING),
        (AFTER_STEP, TURN_END): Row(("turn-end",), IDLE),
    }
    # LOG-3: a model request needs an open turn only, and so does a replacing tool/result
    # (LOG-4); inside a step a tool/result answers a call of it.  Outside a step only a plugin
    # writes either, from a hook the loop awaits: none runs while a claim is due (decisions.md G12).
    for phase in (DECIDING, STEPPING, AFTER_STEP):
        for kind in (REQUEST_HEADER, REQUEST_CONTEXT, TOOL_RESULT):
            check = "tool-result" if kind == TOOL_RESULT else "model-request"
            # A tool/result outside a step that replaces nothing breaks LOG-4 and re-synchronises.
            rows[phase, kind] = Row((check,), _KEEP if kind == TOOL_RESULT and phase != STEPPING else phase)
    return rows


TABLE: Mapping[tuple[str, str], Row] = MappingProxyType(_rows())

# Off the table a turn/start or turn/end still opens or closes the turn the log says, an end-seed
# closes an open turn, a step/start opens its step; the other kinds leave the phase to the
# checks' re-synchronisation.  A model request or a replacing tool/result at a boundary owing its
# claim breaks CLAIM-6, in an idle phase LOG-3 or LOG-4; a step/start likewise CLAIM-6 or STEP-1.
OFF_TABLE: Mapping[str, OffTable] = MappingProxyType({
    SPLICED: OffTable((), Row(("splice",), _KEEP)),  # every phase has its row
    TURN_START: OffTable(("TURN-2",), Row(("turn-start",), "claim-owed")),
    TURN_END: OffTable(("TURN-3",), Row(("turn-end",), IDLE)),
    STEP_START: OffTable(("STEP-1", "CLAIM-6"), Row(("step-start",), STEPPING)),
    STEP_END: OffTable(("STEP-2",), Row(("step-end",), _KEEP)),
    END_SEED: OffTable(("REPAIR-2",), Row(("end-seed",), IDLE)),
    USER_MESSAGE: OffTable(("STEP-3",), Row(("user-message",), _KEEP)),
    SYSTEM_MESSAGE: OffTable(("LOG-3",), Row(("system-message",), _KEEP)),
    REQUEST_HEADER: OffTable(("LOG-3", "CLAIM-6"), Row(("model-request",), _KEEP)),
    REQUEST_CONTEXT: OffTable(("LOG-3", "CLAIM-6"), Row(("model-request",), _KEEP)),
    ASSISTANT_CHUNK: OffTable(("LOG-3",), Row(("model-answer",), _KEEP)),
    ASSISTANT_ATTEMPT: OffTable(("LOG-3",), Row(("model-answer",), _KEEP)),
    ASSISTANT_MESSAGE: OffTable(("LOG-3",), Row(("model-answer",), _KEEP)),
    TOOL_CALL: OffTable(("LOG-3",), Row(("tool-call",), _KEEP)),
    TOOL_RESULT: OffTable(("LOG-4", "CLAIM-6"), Row(("tool-result",), _KEEP)),
})

# The streamed model output that runner.scan decides itself inside a step whose model side has
# begun (its hot path), by exactly these rows: the open step named, nothing else checked or moved.
STREAMED = (ASSISTANT_CHUNK, ASSISTANT_ATTEMPT)

Compiled = tuple[Check, str | None, Chooser | None]


def _all_of(checks: tuple[Check, ...]) -> Check:
    def run(st: CheckState, event: dict[str, object], data: object, seq: int) -> None:
        for check in checks:
            check(st, event, data, seq)

    return run


def _compiled(row: Row) -> Compiled:
    # A row of one check calls it directly: the per-event path builds no iterator.
    checks = tuple(CHECKS[name] for name in row.checks)
    check = checks[0] if len(checks) == 1 else _all_of(checks)
    if row.next in PHASES:
        return (check, row.next, None)
    return (check, None, CHOOSERS[row.next])


def dispatch() -> dict[str, dict[str, Compiled]]:
    """Phase → kind → the row's checks (one function), fixed next phase or chooser: what the machine runs.

    Nested by phase so the per-event lookup builds no key tuple; every owned kind is present in
    every phase (off-table pairs read by :data:`OFF_TABLE`'s row).
    """
    return {
        phase: {
            kind: _compiled(TABLE.get((phase, kind)) or off.row)
            for kind, off in OFF_TABLE.items()
        }
        for phase in PHASES
    }
