"""Durable records of the turn/step lifecycle (spec areas TURN, STEP, END, REPAIR).

Builders return :data:`~loopspec.log.session.Record` pairs ``(type, data)``; the session log
stamps seq and time.  Field names and shapes are the real ones (real-behaviour §2.3, §2.4).
"""

from __future__ import annotations

from loopspec.data.json_value import Frozen, JsonObject, freeze
from loopspec.data.messages import UserMessage

# END-1: the reasons the released loop and crash repair write (re-exported for the model's modules).
from loopspec.log.end_reasons import ABORTED as ABORTED
from loopspec.log.end_reasons import BLOCKED as BLOCKED
from loopspec.log.end_reasons import COMPLETED as COMPLETED
from loopspec.log.end_reasons import ERROR as ERROR
from loopspec.log.end_reasons import INTERRUPTED as INTERRUPTED
from loopspec.log.end_reasons import MAX_TOKENS as MAX_TOKENS
from loopspec.log.end_reasons import NORMAL_ENDS as NORMAL_ENDS
from loopspec.log.kinds import (
    ASSISTANT_MESSAGE,
    END_SEED,
    STEP_END,
    STEP_START,
    TOOL_CALL,
    TOOL_RESULT,
    TURN_END,
    TURN_START,
    USER_MESSAGE,
)
from loopspec.log.session import Record
from loopspec.log.tool_errors import ABORTED_CODE, RESULT_TEXTS, SKIPPED_CODE, tool_error

SURFACE_APPEND = "append"  # the envelope's surfaceOp of conversation-surface events (LOG-1)
TOOL_NAME = "tool"



def turn_start(turn: int) -> Record:
    return (TURN_START, freeze({"turn": turn}))


def step_start(turn: int, step: int) -> Record:
    return (STEP_START, freeze({"turn": turn, "step": step}))


def step_end(turn: int, step: int) -> Record:
    return (STEP_END, freeze({"turn": turn, "step": step}))


def user_message(message: UserMessage) -> Record:
    """DECIDE-8: the entered message itself is the event's data."""
    return (USER_MESSAGE, message.body)


def call_id(turn: int, step: int, n: int) -> str:
    """The id of a step's ``n``-th tool call; unique in the session (real ids are opaque strings)."""
    return f"call-{turn}.{step}.{n}"


def call_number(call: str) -> int:
    """``n`` of :func:`call_id`: where the call stands among its step's calls."""
    return int(call.rsplit(".", 1)[-1])


def tool_announcement(turn: int, step: int, call: str) -> Record:
    """The model's answer announcing one tool call: an ``assistant/message`` with a tool-call block.

    The shape is the real one (real-behaviour §2.3, recording ``steer_during_tool_call``) minus the
    streamed chunks the model does not write; crash repair reads the block's ``id`` (REPAIR-1).
    """
    block = {"type": "tool-call", "id": call, "name": TOOL_NAME, "arguments": "{}"}
    message = {"id": f"assistant-{call}", "role": "assistant", "content": [block], "source": {"kind": "model"}}
    return (ASSISTANT_MESSAGE, freeze({"turn": turn, "step": step, "message": message}))


def tool_call(turn: int, step: int, call: str) -> Record:
    """``tool/call``: the announced call's tool started (REPAIR-1 then owes TOOL_OUTCOME_UNKNOWN)."""
    return (TOOL_CALL, freeze({"turn": turn, "step": step, "callId": call, "name": TOOL_NAME, "arguments": "{}"}))


def tool_result(turn: int, step: int, call: str) -> Record:
    """``tool/result``: the tool's answer, a user-role message naming the call it answers (LOG-4)."""
    message = {
        "id": f"tool-result-{call}",
        "role": "user",
        "source": {"kind": "tool", "callId": call},
        "content": [{"type": "tool-result", "toolCallId": call, "content": [{"type": "text", "text": "done"}],
                     "isError": False}],
    }
    return (TOOL_RESULT, freeze({"turn": turn, "step": step, "message": message}))


def _error_tool_result(turn: int, step: int, call: str, code: str) -> Record:
    """An error ``tool/result`` the loop writes for ``call`` with ``code``'s text and ``data.error``."""
    message = {
        "id": f"tool-result-{call}",
        "role": "user",
        "source": {"kind": "tool", "callId": call},
        "content": [{"type": "tool-result", "toolCallId": call,
                     "content": [{"type": "text", "text": RESULT_TEXTS[code]}], "isError": True}],
    }
    return (TOOL_RESULT, freeze({"turn": turn, "step": step, "message": message, "error": tool_error(code)}))


def skipped_tool_result(turn: int, step: int, call: str) -> Record:
    """CANCEL-5: the error ``tool/result`` an aborted step writes, right after its ``tool/call``, for a
    call whose tool never started; shaped as crash repair's synthetic results are (REPAIR-1), with
    its own code and text, as the real ``appendSkippedToolCall`` writes them, and the answer's usual
    id (it is the loop's, not repair's)."""
    return _error_tool_result(turn, step, call, SKIPPED_CODE)


def aborted_tool_result(turn: int, step: int, call: str) -> Record:
    """CANCEL-5: the ``tool/result`` of a started call answered after the abort: the real tool runtime
    answers a tool that settles after its signal aborted with its canonical aborted result (code
    ``ABORTED``), whatever the tool returned (dsh-tools ``toolAbortedResult``, rc.8)."""
    return _error_tool_result(turn, step, call, ABORTED_CODE)


def turn_end(turn: int, reason: Frozen) -> Record:
    return (TURN_END, freeze({"turn": turn, "reason": reason}))


def reason(kind: str) -> Frozen:
    """A reason without extra fields (completed, max-tokens, blocked, interrupted)."""
    return freeze({"kind": kind})


def aborted_reason(cause: Frozen) -> Frozen:
    """VARIANT-2: the model writes the cancel cause whole, as v0.1.1 and v0.1.5 do."""
    return JsonObject((("kind", ABORTED), ("reason", cause)))


def error_failure(message: str, code: str = "UNKNOWN") -> Frozen:
    """DECIDE-7: a non-LLM error becomes ``{message, code: "UNKNOWN"}``."""
    return freeze({"message": message, "code": code})


def error_reason(failure: Frozen) -> Frozen:
    return JsonObject((("kind", ERROR), ("error", failure)))


def end_seed() -> Record:
    """VARIANT-3: the model writes the v0.1.1 marker ``{}``."""
    return (END_SEED, freeze({}))


def reason_kind(value: Frozen) -> str | None:
    if isinstance(value, JsonObject):
        kind = value.get("kind")
        return kind if isinstance(kind, str) else None
    return None
