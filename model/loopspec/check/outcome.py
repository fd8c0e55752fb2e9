"""What a closed step's own events say about how its turn may go on (RESULT-6, RESULT-7, STEP-4,
DECIDE-5, DECIDE-6, REPAIR-1, CANCEL-5, END-3).

A crash can fall between any two appends (a kill is not an await), so a step the live loop closed
with a call open, right before its error ``turn/end``, may be followed by crash repair's
``interrupted`` instead; only a step that shows repair's synthetic results is known to be repair's.

A real step shows its outcome in the log: the model's answer is its last ``assistant/message``
(tool-call blocks or none), tool work is ``tool/call`` / ``tool/result`` inside the step, and a
step the loop aborted or that failed before its model call shows neither entries nor model
side.  At ``step/end`` :func:`close_step` reads the step's summary of those events
(:class:`loopspec.log.step_summary.StepSummary`, the fold the judge and reproduce read too) and
the checker's own CANCEL-5 and REPAIR-1 bookkeeping into :class:`~loopspec.check.step_outcome.StepOutcome`:

* a text answer (the last ``assistant/message`` calls no tool, no ``tool/call``) set the turn's
  end: with next-step empty the loop runs turn-stopping and ends the turn; only input steered in
  meanwhile makes another boundary, whose claim comes first (RESULT-6, and no decision — so no
  ``blocked`` — without that claim, DECIDE-5);
* a tool call left unanswered means a failure (an abort answers every call, CANCEL-5): its
  ``turn/end`` ``error`` comes next (RESULT-7); a call skipped before dispatch (or a started one
  the abort reached before its tool body ran: the same error) means an abort: its ``turn/end``
  ``aborted`` comes next (CANCEL-5); a step that had to enter something and entered
  nothing and made no model call was aborted or failed: its ``turn/end`` (aborted or error) comes
  next (STEP-4, DECIDE-6) — in each case or crash repair's ``interrupted`` when a crash fell
  between the two appends; crash repair that answered some open calls before closing the step
  must have answered all (REPAIR-1);
* anything else (tool calls all answered: the turn continues, or a tool concluded it; no model
  side at all, as the model's own logs write steps) leaves what follows to the phase — except that
  a claim after a ``step/end`` that left next-step empty shows turn-stopping ran, so the step set
  the turn's end after all (:func:`claim_after_stopping`, DECIDE-6).

Between a failed step's ``step/end`` and its ``turn/end error`` the loop emits ``agent/error``,
whose listeners run at once and may edit the inbox (END-3).  So a public edit right after a
``step/end`` that may have failed (an unanswered call, an empty entry, or any step whose boundary
owes its claim at once, CLAIM-6: a failed stream shows only in a chunk the checker's fast paths
pass over) stands until the turn shows whether it failed: a ``turn/end error`` (or crash
repair's closer) accepts it, anything else breaks the rule the edit would otherwise have broken.
"""

from __future__ import annotations

from types import MappingProxyType

from loopspec.check.state import AFTER_STEP, CheckState
from loopspec.check.step_outcome import ANY, NO_ENTRY, SKIPPED, TEXT_ANSWER, UNANSWERED
from loopspec.log.end_reasons import ABORTED, BLOCKED, ERROR, REPAIR_ENDS
from loopspec.log.tool_errors import SKIPPED_CODE

# The ends that may follow each kind of step that ends its turn at once (besides crash repair's).
ENDS_AFTER = MappingProxyType({UNANSWERED: frozenset({ERROR}), SKIPPED: frozenset({ABORTED}),
                               NO_ENTRY: frozenset({ABORTED, ERROR})})


def open_entry(st: CheckState, step: int) -> None:
    """A new step: it must enter a message when it is the first, or follows a text answer."""
    st.this_step.opened(needs_entry=step == 1 or st.last_step.turn_ends)
    st.last_step.settled()


def close_step(st: CheckState) -> None:
    """At ``step/end``: classify the step from its summary (before the step's calls are forgotten)."""
    step, summary = st.this_step, st.this_step.summary
    pending = summary.pending
    if pending and step.repairing:
        st.violate("REPAIR-1", f"crash repair closes step {st.turn}.{st.step} with tool call(s) {sorted(pending)} "
                   "unanswered")
        st.last_step.closed(ANY)
    elif step.skipping or step.abort_reached:
        if step.unanswered:
            st.violate("CANCEL-5", f"step/end {st.turn}.{st.step} with tool call(s) {step.unanswered} unanswered after "
                       f"a skipped call (a tool/result with code {SKIPPED_CODE} shows the step was aborted)")
        st.last_step.closed(SKIPPED)
    elif pending:
        st.last_step.closed(UNANSWERED, tuple(sorted(pending)))
    elif step.needs_entry and summary.silent:
        st.last_step.closed(NO_ENTRY)
    elif summary.text_answer:
        st.last_step.closed(TEXT_ANSWER)
    else:
        st.last_step.closed(ANY)


def entry_rule(st: CheckState) -> str:
    """STEP-4 for a turn's first step, DECIDE-6 for a step after a text answer."""
    return "STEP-4" if st.steps_in_turn <= 1 else "DECIDE-6"


def _early_problem(st: CheckState, what: str) -> tuple[str, str]:
    """The rule and the words for ``what`` following a step that was aborted or failed, whose turn/end comes next."""
    step, last = f"{st.turn}.{st.steps_in_turn}", st.last_step
    if last.after == UNANSWERED:
        return "RESULT-7", f"{what} after step {step} closed with tool call(s) {list(last.after_calls)} unanswered"
    if last.after == SKIPPED:
        return "CANCEL-5", (f"{what} after step {step}, which was aborted (a tool/result with code {SKIPPED_CODE} "
                            "shows it) and ended")
    return entry_rule(st), f"{what} after step {step}, which entered no message and made no model call"


def _ended_early(st: CheckState, what: str) -> None:
    """``what`` follows a step that was aborted or failed: only its turn/end may."""
    st.violate(*_early_problem(st, what))
    st.last_step.settled()  # re-synchronise (--all)


def before_edit(st: CheckState, what: str = "a public edit") -> None:
    """A model request after a step/end: none after an aborted or failed step, whose turn/end is written at once."""
    if st.step is None and st.last_step.ends_at_once:
        _ended_early(st, what)


def before_public_edit(st: CheckState, seq: int) -> None:
    """A public edit after an aborted or failed step's step/end.  Only a failure's ``agent/error``
    listeners run before its turn/end (END-3): an aborted step's end follows at once, a step that may
    have failed lets the edit stand until the turn/end shows whether it did."""
    if st.step is not None or not st.last_step.ends_at_once:
        return
    if st.last_step.after == SKIPPED:
        _ended_early(st, f"a public edit at seq {seq}")
    else:
        st.last_step.edited_by_listener(seq, *_early_problem(st, f"a public edit at seq {seq}"))


def edit_at_boundary(st: CheckState, seq: int, detail: str) -> None:
    """A public edit at seq ``seq`` after a ``step/end`` whose boundary owes its claim at once (CLAIM-6).
    If the step failed, its turn/end comes next and an ``agent/error`` listener made the edit (END-3);
    a claim, a step or a turn/end other than ``error`` shows it did not, and then the edit broke CLAIM-6."""
    st.last_step.edited_by_listener(seq, "CLAIM-6", detail)


def _listener_edit_refuted(st: CheckState, what: str) -> bool:
    """``what`` (a claim or a step) shows the step an edit followed did not fail (END-3): the edit broke
    the rule it would have broken where it stands."""
    edit = st.last_step.listener_edit
    if edit is None:
        return False
    _, rule, detail = edit
    st.violate(rule, detail, f"{what} came next, so the step had not failed and no agent/error listener made the "
               "edit (END-3)")
    st.last_step.settled()
    return True


def _listener_edit_before_end(st: CheckState, kind: str) -> bool:
    """A ``turn/end`` other than ``error`` after an edit that only a failure's listener makes there (END-3)."""
    edit = st.last_step.listener_edit
    if edit is None or kind == ERROR or kind in REPAIR_ENDS:
        return False
    seq = edit[0]
    st.violate("END-3", f"turn/end {kind} after a public edit at seq {seq} that followed step/end "
               f"{st.turn}.{st.steps_in_turn}", f"the edit at seq {seq} is the first record after that step/end")
    return True


def before_claim(st: CheckState, seq: int) -> None:
    """A claim record after a step/end (RESULT-7, STEP-4, DECIDE-6, CANCEL-5, and END-3 after an edit)."""
    if not _listener_edit_refuted(st, f"a claim at seq {seq}") and st.last_step.ends_at_once:
        _ended_early(st, "a claim")


def claim_after_stopping(st: CheckState) -> None:
    """A claim after a ``step/end`` at which next-step was empty: the step settled the turn's end (DECIDE-6).

    After a step that asks to continue the loop claims at once, in the same synchronous run as its
    ``step/end`` (CLAIM-6), and with next-step empty that claim writes nothing; input inserted later
    (by a pre-step listener) waits for the boundary after the next step.  So input inserted after the
    ``step/end`` and claimed before any step opens was steered in while turn-stopping awaited, which
    runs only after a step that set the turn's end: as after a text answer, the next step must enter
    something.  This is what shows the settled end in a log with no ``assistant/message``, as the
    model writes steps.
    """
    st.last_step.stopping_ran()


def before_step(st: CheckState, turn: int, step: int) -> None:
    """``step/start`` after a step/end: RESULT-6 after a text answer with no claim since."""
    if _listener_edit_refuted(st, f"step/start {turn}.{step}"):
        return
    if st.last_step.ends_at_once:
        _ended_early(st, f"step/start {turn}.{step}")
    elif st.last_step.after == TEXT_ANSWER and st.phase == AFTER_STEP:
        st.violate("RESULT-6", f"step/start {turn}.{step} right after step {st.turn}.{st.steps_in_turn} answered "
                   "with text, with no claim in between")
        st.last_step.settled()


def before_end(st: CheckState, kind: str) -> bool:
    """``turn/end`` after a step/end; True when it broke a rule of the step's outcome."""
    after = st.last_step.after
    if after == TEXT_ANSWER and kind == BLOCKED and st.phase == AFTER_STEP:
        st.violate("DECIDE-5", f"turn/end blocked right after step {st.turn}.{st.steps_in_turn} answered with "
                   "text, with no claim in between")
    elif st.last_step.ends_at_once and kind and kind not in (*ENDS_AFTER[after], *REPAIR_ENDS):
        _ended_early(st, f"turn/end {kind}")
    elif not _listener_edit_before_end(st, kind):
        return False
    st.last_step.settled()
    return True
