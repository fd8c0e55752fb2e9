"""Events inside a step: entered messages and the model side (spec rules STEP-3, STEP-4, LOG-3,
LOG-4, LOG-7, VARIANT-1, REPAIR-3 for synthetic tool results; the order of a step's tool calls and
an aborted step's skipped ones, LOG-11 and CANCEL-5, in :mod:`loopspec.check.step_calls`).

The model side (``request/*``, ``assistant/*``, ``tool/*``) is outside the model's scope except
for where it may sit; these handlers check only that, plus the tool call/result pairing.
"""

from __future__ import annotations

from loopspec.check import outcome, step_calls
from loopspec.check.lifecycle import resync_step
from loopspec.check.state import CLAIM_DUE, CheckState
from loopspec.check.step_calls import after_skipping
from loopspec.data.message_shape import message_problem, shown
from loopspec.log.kinds import ASSISTANT_MESSAGE, SYSTEM_MESSAGE, TOOL_CALL, TOOL_RESULT
from loopspec.log.tool_errors import (
    REPAIR_CODES,
    TOOL_ERROR_NAMES,
    citation,
    error_fields,
    synthetic_shape,
)
from loopspec.log.wire import announced_calls, answered_calls, is_synthetic_result, position


def _names_open_step(st: CheckState, etype: str, data: object, rule: str = "LOG-3") -> bool:
    """LOG-3 (LOG-4 for tool/result): ``data.turn``/``data.step`` name the open step."""
    turn, step = position(data)
    if st.step is None:
        st.violate(rule, f"{etype} while no step is open",
                   key=(rule, "no step", st.turn, st.steps_in_turn, turn, step))
        if st.turn is not None and turn == st.turn and step == st.steps_in_turn + 1 and type(step) is int:
            # Re-synchronise (--all): a step/start is missing; the event belongs to the step it names.
            resync_step(st, st.steps_in_turn + 1)
            st.this_step.model_side()
            return True
        return False
    if turn != st.turn or step != st.step or type(turn) is not int or type(step) is not int:  # not 1.0 or true
        st.violate(rule, f"{etype} names {shown(turn)}.{shown(step)}, but the open step is {st.turn}.{st.step}",
                   key=(rule, "other step", st.turn, st.step, turn, step))
        return False
    return True


def _model_side(st: CheckState, etype: str) -> None:
    """The first model-side event of a step closes its entry block (STEP-3) and needs input where an
    entry was due: in a turn's first step (STEP-4) and after a text answer (DECIDE-6)."""
    step = st.this_step
    if st.step is None or step.model_started:
        return
    if step.needs_entry and step.entered == 0:
        if st.step == 1:
            st.violate("STEP-4", f"{etype} in step {st.turn}.1, which entered no message")
        else:
            st.violate("DECIDE-6", f"{etype} in step {st.turn}.{st.step}, which entered no message after a step "
                       "that set the turn's end")
    step.model_side()


def on_user_message(st: CheckState, event: dict[str, object], data: object, seq: int) -> None:
    problem = message_problem(data)
    if problem is not None:
        st.violate("LOG-7", f"user/message data is not a message: {problem}")
    elif event.get("surfaceOp") != "append" or "sourceEventSeqs" in event:
        st.violate("LOG-7", "user/message envelope must have surfaceOp 'append' and no sourceEventSeqs")
    if st.step is None:
        st.violate("STEP-3", "user/message while no step is open")
        if st.turn is not None:
            resync_step(st, st.steps_in_turn + 1)
    elif st.this_step.model_started:
        st.violate("STEP-3", f"user/message after the model side of step {st.turn}.{st.step} began")
    st.this_step.entry()


def on_system_message(st: CheckState, event: dict[str, object], data: object, seq: int) -> None:
    if not _names_open_step(st, SYSTEM_MESSAGE, data):
        return
    step = st.this_step
    if step.entered and not step.model_started:  # VARIANT-1: v0.1.5 commits system messages before the entries
        st.violate("VARIANT-1", f"system/message after the user/message(s) of step {st.turn}.{st.step}, before its "
                   "model call")


def on_request(st: CheckState, event: dict[str, object], data: object, seq: int) -> None:
    etype = str(event.get("type"))
    if st.turn is None:
        st.violate("LOG-3", f"{etype} while no turn is open",
                   key=("LOG-3", etype, "no turn", st.last_turn))
        return
    if st.step is None:
        _between_records(st, etype)
    after_skipping(st, etype)  # CANCEL-5: an aborted step's closing writes nothing else
    _model_side(st, etype)


def _between_records(st: CheckState, etype: str) -> None:
    """A model request outside a step, where the loop writes its next records with no await (CLAIM-6, RESULT-7)."""
    if st.phase == CLAIM_DUE:
        st.violate("CLAIM-6", f"{etype} before the boundary's claim",
                   f"the inbox held {st.pending_text()} at this boundary")
    else:
        outcome.before_edit(st, etype)  # RESULT-7, STEP-4, DECIDE-6: that step's turn/end comes next


def on_assistant(st: CheckState, event: dict[str, object], data: object, seq: int) -> None:
    etype = str(event.get("type"))
    if not _names_open_step(st, etype, data):
        return
    after_skipping(st, etype)  # CANCEL-5: an aborted step's closing writes nothing else
    _model_side(st, etype)
    if etype == ASSISTANT_MESSAGE:
        calls = announced_calls(data)
        for call in calls:
            if st.this_step.announced_again(call):  # LOG-10: one announcement per call
                st.violate("LOG-10", f"assistant/message announces call {call!r} again")
        unanswered = st.this_step.unanswered
        step_calls.announce(st, calls, tuple(c for c in dict.fromkeys(calls) if c not in unanswered))  # LOG-11


def on_tool_call(st: CheckState, event: dict[str, object], data: object, seq: int) -> None:
    if not _names_open_step(st, TOOL_CALL, data):
        return
    _model_side(st, TOOL_CALL)
    call = data.get("callId") if isinstance(data, dict) else None
    if not isinstance(call, str):
        st.violate("LOG-10", f"tool/call names no call: callId {shown(call)}")
    else:
        step = st.this_step
        if call not in step.announced or call in step.calls:  # LOG-10: a call starts once, after its announcement
            what = "again" if call in step.calls else "though no assistant/message of the step announced it"
            st.violate("LOG-10", f"tool/call starts call {call!r} {what}")
        step_calls.start(st, call, seq)  # LOG-11, CANCEL-5


def on_tool_result(st: CheckState, event: dict[str, object], data: object, seq: int) -> None:
    surface = event.get("surfaceOp")
    if surface is not None and surface != "append":
        # A replacing tool/result rewrites an earlier one: it needs only an open turn (real §9.1 inv. 9).
        if st.turn is None:
            st.violate("LOG-4", "a replacing tool/result while no turn is open")
        elif st.step is None:  # a plugin's rewrite, from a hook the loop awaits (decisions.md G12)
            _between_records(st, "a replacing tool/result")
        return
    if not _names_open_step(st, TOOL_RESULT, data, "LOG-4"):
        return
    _model_side(st, TOOL_RESULT)
    synthetic = is_synthetic_result(data)
    ids = answered_calls(data)
    if not ids:
        st.violate("LOG-4", "tool/result names no tool call")
        return
    step = st.this_step
    step.results_came(ids, synthetic)
    known = step.calls | step.announced if synthetic else step.calls
    missing = [i for i in ids if i not in known]
    if missing:
        st.violate("LOG-4", f"tool/result answers {missing}, which no tool/call of step {st.turn}.{st.step} made")
    name, code = error_fields(data) or (None, None)
    if synthetic and code not in REPAIR_CODES:
        st.violate("REPAIR-1", f"synthetic tool/result with error.code {code!r}")
    elif synthetic and name != TOOL_ERROR_NAMES[str(code)]:
        st.violate("REPAIR-1", f"synthetic tool/result with error.code {code!r} and error.name {name!r}, "
                   f"owed {TOOL_ERROR_NAMES[str(code)]}")
    elif synthetic and len(ids) == 1 and not missing:
        # Repair names what it knows: a call whose tool/call it read ran with an unknown outcome,
        # one it only saw announced never started (repair.ts, v0.1.5/v0.1.7).
        owed = "TOOL_NOT_STARTED" if ids[0] in step.unstarted else "TOOL_OUTCOME_UNKNOWN"
        problem = synthetic_shape(event, ids[0], owed, step.call_seqs.get(ids[0]))
        if code != owed:
            st.violate("REPAIR-1", f"synthetic tool/result for call {ids[0]!r} with error.code {code!r}, owed {owed}")
        elif problem is not None:
            st.violate("REPAIR-1", f"synthetic tool/result for call {ids[0]!r}: {problem}")
    elif not synthetic and len(ids) == 1 and ids[0] in step.call_seqs:
        problem = citation(event, step.call_seqs[ids[0]])
        if problem is not None:
            st.violate("LOG-4", f"tool/result for call {ids[0]!r}: {problem}")
    if synthetic and st.prev_time is not None and event.get("time") != st.prev_time:
        st.violate("REPAIR-3", f"synthetic tool/result has time {event.get('time')}, the event before it "
                   f"{st.prev_time}")
    step_calls.answer(st, ids, seq, code, synthetic, name, data)  # LOG-11, CANCEL-5
    step.results_done(ids)  # LOG-10: answered once; a second result answers nothing


