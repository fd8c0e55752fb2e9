"""A step's tool calls and their records (RESULT-2, LOG-4, LOG-11, CANCEL-5; the command language's
table of tool events).

A call is `[call id, started, its tool/call's seq]`.  Calls start in announcement order (LOG-11), so
the oldest call not started is always the one that starts next, and the started ones are always the
oldest pending ones.
"""

from __future__ import annotations

from inbox import Session

TEXTS = {"ABORTED_BEFORE_DISPATCH": "Error: tool call aborted before dispatch", "ABORTED": "Error: tool call aborted",
         None: "done"}


def call_data(turn: int, step: int, call: str) -> dict:
    return {"turn": turn, "step": step, "callId": call, "name": "tool", "arguments": "{}"}


def announce(session: Session, turn: int, step: int, number: int) -> list:
    """The model's answer announces call `number` of the step: an assistant/message with its block."""
    call = f"call-{turn}.{step}.{number}"
    block = {"type": "tool-call", "id": call, "name": "tool", "arguments": "{}"}
    message = {"id": f"assistant-{call}", "role": "assistant", "content": [block], "source": {"kind": "model"}}
    session.append("assistant/message", {"turn": turn, "step": step, "message": message}, surface_op="append")
    return [call, False, None]


def start_next(session: Session, turn: int, step: int, calls: list[list]) -> None:
    """LOG-11: the oldest call not started yet starts (its tool/call), if there is one."""
    waiting = next((c for c in calls if not c[1]), None)
    if waiting is not None:
        waiting[2] = session.append("tool/call", call_data(turn, step, waiting[0]))["seq"]
        waiting[1] = True


def answer(session: Session, turn: int, step: int, calls: list[list], aborted: bool,
           skipped: list[list] | None = None) -> None:
    """Each call's tool/result, in call order (its tool/call first if it had not started).

    After an abort a started tool's result is the runtime's aborted one; a `skipped` call (an aborted
    step's, never started) gets an error result instead (CANCEL-5).
    """
    for (call, started, call_seq), skip in [(c, False) for c in calls] + [(c, True) for c in skipped or []]:
        if not started:
            call_seq = session.append("tool/call", call_data(turn, step, call))["seq"]
        code = "ABORTED_BEFORE_DISPATCH" if skip else "ABORTED" if aborted else None
        content = [{"type": "tool-result", "toolCallId": call, "content": [{"type": "text", "text": TEXTS[code]}],
                    "isError": code is not None}]
        message = {"id": f"tool-result-{call}", "role": "user", "source": {"kind": "tool", "callId": call},
                   "content": content}
        data = {"turn": turn, "step": step, "message": message}
        if code is not None:
            data["error"] = {"name": "AbortError", "code": code}
        # Every tool/result cites its call's tool/call (decisions H3).
        session.append("tool/result", data, surface_op="append", source_event_seqs=[call_seq])
