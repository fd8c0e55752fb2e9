"""Crash repair: what a new process does with the log it loads (REPAIR-1 … REPAIR-4).

The new process knows only the log.  It closes the turn the old one left open, marks the seed,
and folds the inbox from the spliced records; the clock and the turn numbers continue.
"""

from __future__ import annotations

from inbox import Inbox, Session

# REPAIR-1: crash repair's text per code, fixed sentences of the real writer (wire values).
REPAIR_TEXTS = {
    "TOOL_OUTCOME_UNKNOWN": (
        "The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome "
        "is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only "
        "or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry "
        "blindly."
    ),
    "TOOL_NOT_STARTED": "The tool call was interrupted before the Harness recorded it as started. Retry it if it is "
                        "still needed.",
}


def reload(session: Session, inbox: Inbox) -> int:
    """Repair the log in place, fold the inbox from it; returns the last turn number it holds."""
    events = session.events
    last_turn = 0
    open_turn = open_step = None
    pending: dict[str, int | None] = {}  # call id -> its tool/call's seq, None if not started (REPAIR-1)
    for e in events:
        kind, data = e["type"], e["data"]
        if kind == "turn/start":
            open_turn, open_step, last_turn, pending = data["turn"], None, data["turn"], {}
        elif kind == "turn/end":
            open_turn, open_step, pending = None, None, {}
        elif kind == "step/start":
            open_step, pending = data["step"], {}
        elif kind == "step/end":
            open_step, pending = None, {}
        elif kind == "assistant/message":
            pending.update({b["id"]: None for b in data["message"]["content"] if b.get("type") == "tool-call"})
        elif kind == "tool/call":
            pending[data["callId"]] = e["seq"]
        elif kind == "tool/result":
            pending.pop(data["message"]["source"].get("callId"), None)
    if events:
        session.clock = max(session.clock, max(e["time"] for e in events))
    if open_turn is not None:
        close(session, open_turn, open_step, pending)
    if not events or events[-1]["type"] != "session/end-seed":
        session.append("session/end-seed", {})  # REPAIR-2
    inbox.fold(session.events)  # REPAIR-4, FOLD-5
    return last_turn


def close(session: Session, turn: int, step: int | None, pending: dict[str, int | None]) -> None:
    """REPAIR-1: a synthetic error result per pending call, step/end, turn/end interrupted."""
    events = session.events
    time = events[-1]["time"]  # REPAIR-3: the closers carry the last event's time
    for call, call_seq in pending.items():
        started = call_seq is not None
        code = "TOOL_OUTCOME_UNKNOWN" if started else "TOOL_NOT_STARTED"
        error = {"name": "ToolOutcomeUnknownError" if started else "ToolNotStartedError", "code": code}
        result = {"type": "tool-result", "toolCallId": call, "isError": True,
                  "content": [{"type": "text", "text": REPAIR_TEXTS[code]}]}
        message = {"id": f"interrupted-tool-result-{call}-{len(events)}", "role": "user",
                   "source": {"kind": "tool", "callId": call}, "content": [result]}
        # The real closer cites the call's tool/call only when it has one (decisions H3).
        session.append("tool/result", {"turn": turn, "step": step, "message": message, "error": error},
                       surface_op="append", time=time, source_event_seqs=None if call_seq is None else [call_seq])
    if step is not None:
        session.append("step/end", {"turn": turn, "step": step}, time=time)
    session.append("turn/end", {"turn": turn, "reason": {"kind": "interrupted"}}, time=time)
