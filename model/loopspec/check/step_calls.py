"""A step's tool calls: they pair one to one (LOG-10), start and are answered in announcement order
(LOG-11), and an aborted step answers the calls it never started with a skipped pair (CANCEL-5).

The handlers of :mod:`loopspec.check.step_body` call these for each announcement, start and
answer of a call; what a step that closes with a call still open says about how its turn goes on
is RESULT-7's, judged by :mod:`loopspec.check.outcome`.  What a step's calls have done so far is
:class:`loopspec.check.open_step.OpenStep`'s.

The tool phase starts a step's calls one by one in the order the model announced them and
commits their results through a contiguous index, so the call a ``tool/call`` starts is always
the oldest announced call not started yet, and the call a ``tool/result`` answers is always the
oldest one not answered yet — crash repair's synthetic results (REPAIR-1) and an aborted step's
skipped calls included.  An abort starts nothing more: the tools already started finish and are
answered (sends and cancels may come in between), then each call never started gets a
``tool/call`` and right after it an error ``tool/result`` with code ``ABORTED_BEFORE_DISPATCH``,
one pair after another; before the step closes only inbox records may come (calls landing while
the tool phase unwinds, decisions G29).  A started call that the abort reached
before its tool body ran is answered with that same error (the real tool runtime's), so only a
result right after its own ``tool/call`` is read as a skipped call.  A send that an announcement or a
dispatched start follows came before the abort, so it latched no wake (TURN-5).
"""

from __future__ import annotations

from loopspec.check.state import CheckState
from loopspec.log.tool_errors import SKIPPED_CODE, TOOL_ERROR_NAMES, skipped_shape


def announce(st: CheckState, calls: tuple[str, ...], queued: tuple[str, ...]) -> None:
    """An ``assistant/message`` announcing ``calls``: ``queued``, the ones not pending yet, queue to start
    and to be answered (LOG-11)."""
    if queued:
        st.wake.calls_announced()  # TURN-5
    st.this_step.answer_announced(calls, queued)


def start(st: CheckState, call: str, seq: int) -> None:
    """A ``tool/call`` starting ``call``: the oldest announced call not started yet (LOG-11)."""
    landed = st.this_step.landed
    if st.this_step.skipping and landed is not None:
        st.violate("CANCEL-5", f"tool/call {call!r} after the inbox record at seq {landed} that followed step "
                   f"{st.turn}.{st.step}'s skipped call: the loop writes an aborted step's skipped calls one "
                   "after another, with nothing between")
    unstarted = st.this_step.unstarted
    if call in unstarted and unstarted[0] != call:
        st.violate("LOG-11", f"tool/call starts call {call!r} before call {unstarted[0]!r}, announced earlier")
    st.this_step.call_started(call, seq)
    st.wake.call_started()  # TURN-5


def answer(st: CheckState, ids: list[str], seq: int, code: object, synthetic: bool, name: object,
           data: object) -> None:
    """A ``tool/result`` answering ``ids``: the oldest calls not answered yet (LOG-11); an aborted
    step's skipped call right after its ``tool/call`` and, once one is skipped, only more (CANCEL-5)."""
    step = st.this_step
    for call in ids:
        if call in step.unanswered and step.unanswered[0] != call:
            st.violate("LOG-11", f"tool/result answers call {call!r} before call {step.unanswered[0]!r}, "
                       "announced or started earlier")
        step.call_answered(call, synthetic)
    if code == SKIPPED_CODE and not synthetic:
        if len(ids) == 1 and step.started_at == (seq - 1, ids[0]):
            st.wake.skipped_call()  # TURN-5
            step.skipped()
            problem = skipped_shape(data)
            if problem is not None:
                st.violate("CANCEL-5", f"skipped call {ids[0]!r}'s tool/result: {problem}")
        # else a drained call the abort reached before its tool body ran: the same error, an
        # ordinary answer (the real runtime's toolAbortedBeforeDispatchResult), but the step was
        # aborted all the same, so its turn ends aborted (outcome.close_step).
        step.aborted()
        if name != TOOL_ERROR_NAMES[SKIPPED_CODE]:
            st.violate("CANCEL-5", f"tool/result with code {SKIPPED_CODE} and error.name {name!r}, owed "
                       f"{TOOL_ERROR_NAMES[SKIPPED_CODE]}")
    elif step.skipping and not synthetic:
        st.violate("CANCEL-5", f"tool/result for {ids} after a skipped call (the tool/result with code {SKIPPED_CODE} "
                   "before it shows the step was aborted)")


def after_skipping(st: CheckState, what: str) -> None:
    """``what`` (a model-side event) inside a step whose abort already skipped a call."""
    if st.this_step.skipping and st.step is not None:
        # Named by what the log shows: the abort itself is no event, the skipped call's result is.
        st.violate("CANCEL-5", f"{what} after step {st.turn}.{st.step}'s skipped call (its tool/result with code "
                   f"{SKIPPED_CODE} shows the step was aborted)")
        st.this_step.resynchronised()  # re-synchronise (--all)
