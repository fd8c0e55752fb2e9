"""Crash repair: closing a turn a crashed process left open (spec area REPAIR).

The closers are computed from the stored log alone, as the real ``interruptedTurnClosers`` does:
one synthetic error ``tool/result`` per tool call the model announced and nothing answered (with
the real writer's fixed sentence per code, and citing the call's ``tool/call`` when there is one),
``step/end`` if a step is open, then ``turn/end {kind: interrupted}``; every closer carries the
time of the last real event (REPAIR-3).  A log with no open turn gets none (REPAIR-1).
"""

from __future__ import annotations

from collections.abc import Sequence

from loopspec.data.json_value import Frozen, JsonObject, freeze, thaw
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import ASSISTANT_MESSAGE, STEP_END, STEP_START, TOOL_CALL, TOOL_RESULT, TURN_END, TURN_START
from loopspec.log.tool_errors import RESULT_TEXTS, tool_error
from loopspec.log.wire import announced_calls, answered_calls, started_call
from loopspec.loop.records import INTERRUPTED, reason


def _get(data: Frozen, key: str) -> Frozen:
    return data.get(key) if isinstance(data, JsonObject) else None


def _announced_calls(event: SessionEvent) -> list[str]:
    """Tool-call ids an ``assistant/message`` announces in its content blocks."""
    return list(announced_calls(thaw(event.data)))


def _answered_call(event: SessionEvent) -> str | None:
    """The call a ``tool/result`` answers (log.wire's one meaning; a model-written result answers one)."""
    answered = answered_calls(thaw(event.data))
    return answered[0] if answered else None


def interrupted_turn_closers(events: Sequence[SessionEvent]) -> tuple[SessionEvent, ...]:
    """The closers a reload appends to ``events`` (REPAIR-1, REPAIR-3).

    Contracts (checked by CrossHair, see docs/contracts.md): closers only for a log that ends
    inside a turn, and then the last is ``turn/end {kind: interrupted}`` of the last turn started;
    before it only synthetic ``tool/result`` events, each for a distinct call that an
    ``assistant/message`` announced or a ``tool/call`` started, then ``step/end`` only if the log
    ends inside a step; every closer carries the last event's time (REPAIR-3) and the closers
    continue the log's seq (LOG-2).

    post: len(__return__) == 0 or [e.type for e in events if e.type in (TURN_START, TURN_END)][-1] == TURN_START
    post: len(__return__) == 0 or (__return__[-1].type == TURN_END and __return__[-1].data.get("reason") == reason(INTERRUPTED))
    post: len(__return__) == 0 or __return__[-1].data.get("turn") == _get([e for e in events if e.type == TURN_START][-1].data, "turn")
    post: all(c.time == events[-1].time for c in __return__)
    post: [c.seq for c in __return__] == list(range(len(events), len(events) + len(__return__)))
    post: all(c.type == TOOL_RESULT or (c.type == STEP_END and i == len(__return__) - 2) for i, c in enumerate(__return__[:-1]))
    post: all(any(_answered_call(c) in _announced_calls(e) + [_get(e.data, "callId")] for e in events if e.type in (ASSISTANT_MESSAGE, TOOL_CALL)) for c in __return__[:-1] if c.type == TOOL_RESULT)
    post: len({_answered_call(c) for c in __return__ if c.type == TOOL_RESULT}) == sum(c.type == TOOL_RESULT for c in __return__)
    post: all(c.type != STEP_END for c in __return__) or [e.type for e in events if e.type in (STEP_START, STEP_END, TURN_START)][-1] == STEP_START
    """  # noqa: E501 (PEP 316 conditions are one line each)
    open_turn: int | None = None
    open_step: int | None = None
    pending: dict[str, int | None] = {}  # call id -> the seq of the tool/call that started it, if any
    # A chain over event types, not a registry: CrossHair executes this fold symbolically to check
    # the contracts above (scripts/crosshair.sh); each branch updates several locals together, which
    # a registry would turn into a state record rebuilt per event under the solver.
    for event in events:
        if event.type == TURN_START:
            open_turn, open_step, pending = _get(event.data, "turn"), None, {}  # type: ignore[assignment]
        elif event.type == TURN_END:
            open_turn, open_step, pending = None, None, {}
        elif event.type == STEP_START:
            open_step, pending = _get(event.data, "step"), {}  # type: ignore[assignment]
        elif event.type == STEP_END:
            open_step, pending = None, {}
        elif event.type == ASSISTANT_MESSAGE:
            pending.update(dict.fromkeys(_announced_calls(event)))
        elif event.type == TOOL_CALL and (started := started_call(thaw(event.data))) is not None:
            pending[started] = event.seq
        elif event.type == TOOL_RESULT:
            for call in answered_calls(thaw(event.data)):
                pending.pop(call, None)
    if open_turn is None:
        return ()
    seq, time = len(events), events[-1].time
    closers: list[SessionEvent] = []
    for call_id, call_seq in pending.items():
        code = "TOOL_NOT_STARTED" if call_seq is None else "TOOL_OUTCOME_UNKNOWN"
        message = {
            "id": f"interrupted-tool-result-{call_id}-{seq}",
            "role": "user",
            "source": {"kind": "tool", "callId": call_id},
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": call_id,
                    "content": [{"type": "text", "text": RESULT_TEXTS[code]}],
                    "isError": True,
                }
            ],
        }
        data = freeze({"turn": open_turn, "step": open_step, "message": message, "error": tool_error(code)})
        # The real closer cites the call's tool/call only when it read one (interruptedTurnClosers).
        cites = None if call_seq is None else (call_seq,)
        closers.append(SessionEvent(TOOL_RESULT, seq, time, data, surface_op="append", source_event_seqs=cites))
        seq += 1
    if open_step is not None:
        closers.append(SessionEvent(STEP_END, seq, time, freeze({"turn": open_turn, "step": open_step})))
        seq += 1
    closers.append(SessionEvent(TURN_END, seq, time, freeze({"turn": open_turn, "reason": reason(INTERRUPTED)})))
    return tuple(closers)
