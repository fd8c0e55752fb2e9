"""``agent/inbox/spliced`` in the log: fold, record shape, and where claims may sit.

Rules: FOLD-1 … FOLD-3 and DATA-2 (via the inbox tracker), SPLICE-2, SPLICE-4, SPLICE-6 (the
writer's exact record shapes), CLAIM-1, CLAIM-2, CLAIM-3, CLAIM-6 (claims), the TURN-5
bookkeeping of send-shaped insertions, and none between an aborted step's skipped calls (CANCEL-5).
"""

from __future__ import annotations

from loopspec.check import outcome
from loopspec.check.inbox_track import SpliceEffect
from loopspec.check.state import AFTER_STEP, CLAIM_DUE, DECIDING, IDLE, STEPPING, CheckState
from loopspec.data.errors import InvalidEvent
from loopspec.inbox.pending import NEXT_STEP, NEXT_TURN
from loopspec.log.kinds import TURN_START


def on_splice(st: CheckState, event: dict[str, object], data: object, seq: int) -> None:
    try:
        effect = st.inbox.splice(data, seq)
    except InvalidEvent as err:
        # The record is skipped, as the real live projection keeps its previous state.
        st.violate(err.rule, err.detail)
        return
    st.last_effect = effect
    # An inbox record after a skipped call is no CANCEL-5 matter by itself: the tool phase unwinds
    # through awaits to the step's end, so a public call lands there (fresh real runs, seeds
    # 406127 and 406517, decisions G29).  Another skipped pair after it is (step_calls.start).
    if st.this_step.skipping and st.this_step.landed is None:
        st.this_step.landed = seq
    # The fields read once (a named tuple's field is a descriptor call, these are many per splice).
    _, _, removed_count, outcome, _, _, inserted, removed = effect
    if removed_count == 0:
        st.violate("SPLICE-4", "removedCount is written as 0")
    elif outcome is not None and removed == 0:
        st.violate("SPLICE-6", "outcome 'canceled' on a record that removes nothing")
    elif removed == 0 and not inserted:
        st.violate("SPLICE-2", "a no-op splice record (removes nothing, inserts nothing)")
    elif removed > 0 and outcome is None and inserted:
        st.violate("SPLICE-6", "a replacement without outcome 'canceled'")
    if removed > 0 and outcome is None and not inserted:
        _on_claim(st, effect, seq)
    else:
        _on_public_edit(st, effect, seq)


def _on_public_edit(st: CheckState, effect: SpliceEffect, seq: int) -> None:
    if st.last_step.ends_at_once:
        # CANCEL-5: an aborted step's turn/end comes next; RESULT-7, STEP-4, DECIDE-6: a failed
        # one's too, with only its agent/error listeners' edits before it (END-3).
        outcome.before_public_edit(st, seq)
    # TURN-5, CANCEL-4: a send appends one message at the end (the report shows no wake field, so the
    # latch moves before the violations below: one call for the edit and the send it may be).
    target, start, removed_count, _, length_before, _, inserted, _ = effect
    send_shaped = removed_count is None and len(inserted) == 1 and start == length_before
    st.wake.public_edit(st.step is not None, send_shaped, st.turn is not None, target == NEXT_TURN,
                        st.nt_len() + st.ns_len() > 0)
    broke_boundary = st.phase == CLAIM_DUE
    if broke_boundary and st.steps_in_turn > 0:
        # END-3: the step may have failed, and its agent/error listener edited before its turn/end.
        outcome.edit_at_boundary(st, seq, f"a public edit at seq {seq} before the boundary's claim "
                                 f"(after step/end {st.turn}.{st.steps_in_turn} the inbox held {st.pending_text()})")
        broke_boundary = False
    elif broke_boundary:
        st.violate("CLAIM-6", f"a public edit at seq {seq} before the boundary's claim",
                   f"after {TURN_START} the inbox held {st.pending_text()}")
    st.inbox.commit(effect)
    if broke_boundary:
        _resync_due(st)


def _resync_due(st: CheckState) -> None:
    """After a broken boundary, owe what the inbox holds now (or nothing)."""
    st.claim.resynchronised(st.ns_len() > 0, st.steps_in_turn == 0 and st.nt_len() > 0)
    if not st.claim.owed:
        st.claim.complete()
        _claim_complete(st)


def _claim_complete(st: CheckState) -> None:
    """The claim completed (the table's chooser, check.phase_table: claim-complete, moves to deciding):
    a new boundary, so what the last step said is settled (RESULT-6)."""
    st.last_step.settled()


def _on_claim(st: CheckState, effect: SpliceEffect, seq: int) -> None:
    first = st.steps_in_turn == 0
    target, start, _, _, length_before, taken, _, removed = effect
    phase = st.phase
    if phase in (CLAIM_DUE, AFTER_STEP) and (st.last_step.ends_at_once or st.last_step.listener_edit):
        # RESULT-7, STEP-4, DECIDE-6: an aborted or failed step claims nothing; END-3: after an edit
        # only a failed step's listener makes, the claim shows the step did not fail.
        outcome.before_claim(st, seq)
    if phase == AFTER_STEP:
        outcome.claim_after_stopping(st)  # DECIDE-6: only turn-stopping lets input in before this claim
    # TURN-5, CANCEL-4: the loop checks for an abort before every claim; a send before it latched nothing.
    st.wake.abort_checked()
    if phase == CLAIM_DUE:
        if st.claim.due_ns and target == NEXT_TURN:
            if first:
                st.violate("CLAIM-2", f"{_claimed(effect)} while the next-step part is still due",
                           f"at the first boundary of turn {st.turn} the inbox held {st.pending_text()}")
            else:
                _nt_later(st, effect)
        elif start != 0:
            st.violate("CLAIM-2", f"{_claimed(effect)}: a claim starts at 0")
        elif target == NEXT_STEP and removed != length_before:
            st.violate("CLAIM-1", f"{_claimed(effect)}, but next-step held {length_before}")
        elif target == NEXT_TURN and removed != 1:
            st.violate("CLAIM-1", f"{_claimed(effect)}, but a claim takes exactly one next-turn message",
                       f"this is the first boundary of turn {st.turn}")
        st.inbox.commit(effect)
        if st.claim.took(taken, next_step=target == NEXT_STEP):
            _claim_complete(st)
        return
    if phase == AFTER_STEP:
        if target == NEXT_TURN:
            _nt_later(st, effect)
        elif start != 0:
            st.violate("CLAIM-2", f"{_claimed(effect)}: a claim starts at 0")
        elif removed != length_before:
            st.violate("CLAIM-1", f"{_claimed(effect)}, but next-step held {length_before}")
        st.inbox.commit(effect)
        st.claim.took(taken, completes=True)  # a later boundary's claim is one record
        _claim_complete(st)
        return
    if phase == IDLE:
        st.violate("CLAIM-3", f"{_claimed(effect)} while no turn is open")
    elif phase == STEPPING:
        st.violate("CLAIM-3", f"{_claimed(effect)} inside step {st.turn}.{st.step}")
    elif phase == DECIDING:
        st.violate("CLAIM-3", f"{_claimed(effect)} after this boundary's claim")
    st.inbox.commit(effect)  # the log says these messages left the inbox, whoever removed them


def _claimed(effect: SpliceEffect) -> str:
    """A claim record in a violation's words; written only when one is found (claims are frequent)."""
    return f"a claim (pure deletion without outcome) of {effect.removed_n} from {effect.target} at start {effect.start}"


def _nt_later(st: CheckState, effect: SpliceEffect) -> None:
    st.violate("CLAIM-1", f"{_claimed(effect)} at a later boundary of turn {st.turn}",
               f"turn {st.turn} already opened {st.steps_in_turn} step(s)")

