"""Turn and step boundaries in the log: ``turn/start``, ``turn/end``, ``step/start``, ``step/end``,
``session/end-seed`` (spec areas TURN, STEP, DECIDE, RESULT, CHAIN, REPAIR, END, VARIANT, LOG-8).

Each handler first checks (so a violation reports the state *before* the event), then moves the
state as the log says, which re-synchronises the checker after a violation under ``--all``.
"""

from __future__ import annotations

from loopspec.check import outcome
from loopspec.check.state import AFTER_STEP, CLAIM_DUE, DECIDING, STEPPING, CheckState
from loopspec.check.turn_end_reason import cause_kind, turn_end_kind
from loopspec.data.message_shape import shown
from loopspec.log.end_reasons import (
    ABORTED,
    BLOCKED,
    COMPLETED,
    ERROR,
    INTERRUPTED,
    MAX_TOKENS,
    NORMAL_ENDS,
    REPAIR_ENDS,
)
from loopspec.log.envelope import MAX_SAFE_INTEGER
from loopspec.log.kinds import END_SEED, STEP_END, STEP_START, TURN_END, TURN_START

TURN_KEYS, STEP_KEYS, END_KEYS = frozenset({"turn"}), frozenset({"turn", "step"}), frozenset({"turn", "reason"})
NUMBERS = ("turn", "step")


def _shape(st: CheckState, etype: str, data: object, keys: frozenset[str], numbers: tuple[str, ...]) -> list[int]:
    """LOG-8: exactly ``keys``; the ``numbers`` among them positive safe integers (else -1)."""
    exact = type(data) is dict and data.keys() == keys
    if exact:  # the writer's case, one or two numbers, decided without the loop below (every boundary)
        first = data[numbers[0]]  # type: ignore[index]
        if type(first) is int and 1 <= first <= MAX_SAFE_INTEGER:
            if len(numbers) == 1:
                return [first]
            second = data[numbers[1]]  # type: ignore[index]
            if len(numbers) == 2 and type(second) is int and 1 <= second <= MAX_SAFE_INTEGER:
                return [first, second]
    if not exact:
        st.violate("LOG-8", f"{etype} data must be exactly {{{', '.join(sorted(keys))}}}, got {_keys(data)}")
    out: list[int] = []
    for key in numbers:
        value = data.get(key) if isinstance(data, dict) else None
        if type(value) is int and 1 <= value <= MAX_SAFE_INTEGER:  # an integer token: not 1.0 (decisions.md G3)
            out.append(value)
        else:
            if exact:
                st.violate("LOG-8", f"{etype} {key} must be a positive safe integer, got {shown(value)}")
            out.append(-1)
    return out


def _keys(data: object) -> str:
    return "{" + ", ".join(sorted(data)) + "}" if isinstance(data, dict) else type(data).__name__


def _why_no_start(st: CheckState) -> str:
    """The facts of a TURN-5 case: what came last that could have started a turn, and that no send followed."""
    if st.last_end == END_SEED:
        return "the last boundary is a restart's session/end-seed, and no send-shaped insertion came after it"
    if st.last_end is None:
        return "no send-shaped insertion (one message appended at the end of a list) precedes it in the log"
    return f"the previous turn ended {st.last_end}, and no send-shaped insertion came since"


def on_turn_start(st: CheckState, event: dict[str, object], data: object, seq: int) -> None:
    (turn,) = _shape(st, TURN_START, data, TURN_KEYS, ("turn",))
    if turn < 0:
        turn = st.last_turn + 1
    if st.turn is not None:
        st.violate("TURN-2", f"turn/start {turn} while turn {st.turn} is open")
    if turn != st.last_turn + 1:
        st.violate("TURN-1", f"turn/start {turn}, but the next turn number is {st.last_turn + 1}",
                   f"the last turn/start was {st.last_turn}")
    # TURN-5 (the report shows no wake field, so the latch moves before the violation is named).
    bare_latch = st.wake.latched_without_input()
    cause = st.wake.turn_started(st.nt_len() + st.ns_len() > 0)
    if cause is None and bare_latch:
        st.violate("TURN-5", f"turn/start {turn} replays a wake latched after the aborted turn, but no input was "
                             "pending at any point since that turn's end")
    elif cause is None:
        st.violate("TURN-5", f"turn/start {turn} with nothing that may start a turn", _why_no_start(st))
    st.last_turn = st.turn = turn
    st.step = None
    st.this_step.turn_closed()
    st.steps_in_turn = 0
    st.last_step.turn_changed()
    # TURN-4, CLAIM-1: the first boundary owes all of next-step, then one next-turn message.
    # The next phase is the table's (check.phase_table: claim-owed).
    st.claim.turn_opened(st.ns_len() > 0, st.nt_len() > 0)


def on_turn_end(st: CheckState, event: dict[str, object], data: object, seq: int) -> None:
    (turn,) = _shape(st, TURN_END, data, END_KEYS, ("turn",))
    kind = turn_end_kind(st, data)
    if st.turn is None:
        st.violate("TURN-3", f"turn/end {turn} while no turn is open")
    else:
        if turn >= 0 and turn != st.turn:
            st.violate("TURN-3", f"turn/end {turn}, but the open turn is {st.turn}")
        if st.step is not None:
            st.violate("TURN-3", f"turn/end while step {st.turn}.{st.step} is open")
        elif kind in REPAIR_ENDS:
            outcome.before_end(st, kind)
            _check_closer_time(st, event, "turn/end " + kind)
        elif kind and not outcome.before_end(st, kind):
            _check_end_at_phase(st, kind)
    _close_turn(st, kind, disposed=cause_kind(data) == "disposed")


def _check_end_at_phase(st: CheckState, kind: str) -> None:
    first = st.steps_in_turn == 0
    if st.phase == CLAIM_DUE and st.claim.batch:
        # CLAIM-2: one synchronous call writes a claim's records; only a crash (interrupted) cuts it.
        st.violate("CLAIM-2", f"turn/end {kind} between the records of one claim",
                   f"the boundary's claim took {len(st.claim.batch)} message(s) so far and still owes its "
                   "next-turn part")
    elif st.phase == CLAIM_DUE:
        if kind == ABORTED or (kind == ERROR and not first):
            return
        if kind in NORMAL_ENDS and not first:
            st.violate("RESULT-5", f"turn/end {kind} right after step/end while next-step holds messages",
                       f"when the step ended the inbox held {st.pending_text()}")
            return
        where = TURN_START if first else STEP_END
        st.violate("CLAIM-6", f"turn/end {kind} before the boundary's claim",
                   f"after {where} the inbox held {st.pending_text()}")
    elif st.phase == DECIDING and kind == MAX_TOKENS and first:
        st.violate("DECIDE-6", "turn/end max-tokens in a turn that opened no step")
    elif st.phase == AFTER_STEP and kind in NORMAL_ENDS and st.ns_len() > 0:
        st.violate("RESULT-5", f"turn/end {kind} after step/end with no claim while next-step holds messages",
                   f"the inbox holds {st.pending_text()}")


def _check_closer_time(st: CheckState, event: dict[str, object], what: str) -> None:
    time = event.get("time")
    if st.prev_time is not None and time != st.prev_time:
        st.violate("REPAIR-3", f"{what} has time {time}, but the event before it has time {st.prev_time}")


# The ends besides an aborted one after which a wake may have latched: each may follow a cancel that
# wrote nothing (CANCEL-4 with keepInbox).
LATCHING_ENDS = (ERROR, BLOCKED, *NORMAL_ENDS)


def _close_turn(st: CheckState, kind: str, disposed: bool = False) -> None:
    if st.turn is None:
        st.expect_end_seed = kind in REPAIR_ENDS
        return
    pending = st.nt_len() + st.ns_len() > 0
    # CHAIN-1; CANCEL-4: a waking send into the aborted turn latches a wake, unless the abort is a
    # disposal.  Other ends may hide an abort that wrote nothing (a keepInbox cancel): an
    # agent/error listener's cancel leaves the end an error (END-3, decisions G18), and a cancel
    # after the pre-step returned leaves a reject blocked and an empty entry's end completed
    # (spec/loop-grain.md row 6, decisions G22); a follow-up after it latches.
    st.wake.turn_closed(kind in NORMAL_ENDS and st.steps_in_turn >= 1 and pending,
                        (kind == ABORTED and not disposed) or kind in LATCHING_ENDS, pending)
    st.last_end = kind or "with an unreadable reason"
    if kind == ABORTED and disposed:
        st.last_end = "aborted by a disposal (cause disposed), which latches no wake"
    if kind == COMPLETED and st.steps_in_turn == 0:
        st.last_end = "completed with no step (an empty first entry)"
    elif kind in NORMAL_ENDS and not pending:
        st.last_end = f"{kind} with nothing pending"
    st.turn = st.step = None
    st.this_step.turn_closed()
    st.last_step.turn_changed()
    st.claim.turn_closed()
    st.expect_end_seed = kind in REPAIR_ENDS  # REPAIR-2


def on_step_start(st: CheckState, event: dict[str, object], data: object, seq: int) -> None:
    turn, step = _shape(st, STEP_START, data, STEP_KEYS, NUMBERS)
    if st.turn is None:
        st.violate("STEP-1", f"step/start {turn}.{step} while no turn is open")
        # Re-synchronise (--all): the log behaves as if the turn had started.
        st.last_turn = st.turn = turn if turn > 0 else st.last_turn + 1
        st.steps_in_turn = 0
        st.phase = DECIDING
    expected = st.steps_in_turn + 1
    if turn >= 0 and turn != st.turn:
        st.violate("STEP-1", f"step/start names turn {turn}, but the open turn is {st.turn}")
    if st.step is not None:
        st.violate("STEP-1", f"step/start {turn}.{step} while step {st.turn}.{st.step} is open")
    elif step >= 0 and step != expected:
        st.violate("STEP-1", f"step/start {turn}.{step}, but the next step of turn {st.turn} is {expected}")
    outcome.before_step(st, turn, step)
    if st.phase == CLAIM_DUE:
        st.violate("CLAIM-6", f"step/start {turn}.{step} before the boundary's claim",
                   f"the inbox held {st.pending_text()} at this boundary")
    # TURN-5, CANCEL-4: the loop checks for an abort right before writing step/start, so a send
    # before it came before the abort and latched nothing.
    st.wake.abort_checked()
    open_step(st, step if step >= 0 else expected)


def resync_step(st: CheckState, step: int) -> None:
    """Re-synchronise (``--all``) where a ``step/start`` is missing: step ``step`` is open."""
    open_step(st, step)
    st.phase = STEPPING


def open_step(st: CheckState, step: int) -> None:
    """Step ``step`` of the open turn is open and at its entry block (the phase is the table's)."""
    outcome.open_entry(st, step)
    st.step = st.steps_in_turn = step
    st.claim.left()


def on_step_end(st: CheckState, event: dict[str, object], data: object, seq: int) -> None:
    turn, step = _shape(st, STEP_END, data, STEP_KEYS, NUMBERS)
    if st.step is None:
        st.violate("STEP-2", f"step/end {turn}.{step} while no step is open")
        return
    if (turn >= 0 and turn != st.turn) or (step >= 0 and step != st.step):
        st.violate("STEP-2", f"step/end {turn}.{step}, but the open step is {st.turn}.{st.step}")
    outcome.close_step(st)
    st.step = None
    st.this_step.closed()
    # CLAIM-6: with next-step non-empty the next boundary's claim is due at once, unless the step
    # was aborted or failed (RESULT-7, CANCEL-5): then its turn/end comes next.
    st.claim.step_closed(st.ns_len() > 0 and not st.last_step.ends_at_once)
    st.wake.step_closed()  # TURN-5


def on_end_seed(st: CheckState, event: dict[str, object], data: object, seq: int) -> None:
    if st.turn is not None:
        st.violate("REPAIR-2", f"session/end-seed while turn {st.turn} is open")
    if st.after_end_seed:
        st.violate("REPAIR-2", "two session/end-seed markers in a row")
    if not (isinstance(data, dict) and (not data or (len(data) == 1 and data.get("inherited") is True))):
        st.violate("VARIANT-3", f"session/end-seed data must be {{}} or {{inherited: true}}, got {shown(data)}")
    if st.turn is not None:
        _close_turn(st, INTERRUPTED)
    st.wake.restarted()  # REPAIR-4: nothing runs until a waking send
    st.last_end = END_SEED
    st.expect_end_seed = False

