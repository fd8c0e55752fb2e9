"""The errors a synthetic ``tool/result`` carries (REPAIR-1, CANCEL-5), as the real writer writes them.

``data.error`` is ``{name, code}`` (repair.ts and tool-calls.ts, v0.1.5/v0.1.7; rc.8's
``interruptedTurnClosers`` and ``appendSkippedToolCall``), one name per code: crash repair's two
codes, and the code of an aborted step's skipped calls.  Each code has one fixed text in its
result's ``tool-result`` block (:data:`RESULT_TEXTS`), wire values copied from the real writer.
The model and the log generator write these (:func:`tool_error`) and the checker and the search
judge read them (:func:`error_fields`), so the table lives here, below all of them, and imports
nothing (the checker's start-up stays lean).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from loopspec.data.json_value import Thawed

SYNTHETIC_RESULT = "interrupted-tool-result-"  # REPAIR-1: how the ids of crash repair's results begin
# CANCEL-5: the code of an aborted step's skipped calls.  The real constant is *named*
# TOOL_ABORTED_BEFORE_DISPATCH (dsh-tools); its value, the one written, is this.
SKIPPED_CODE = "ABORTED_BEFORE_DISPATCH"
# CANCEL-5: the code of a started call's result when the abort came while its tool ran (dsh-tools
# TOOL_ABORTED): the real tool runtime answers it so, superseding what the tool returned.
ABORTED_CODE = "ABORTED"
REPAIR_CODES = frozenset({"TOOL_OUTCOME_UNKNOWN", "TOOL_NOT_STARTED"})  # REPAIR-1: crash repair's codes
TOOL_ERROR_NAMES = {
    "TOOL_OUTCOME_UNKNOWN": "ToolOutcomeUnknownError",
    "TOOL_NOT_STARTED": "ToolNotStartedError",
    SKIPPED_CODE: "AbortError",
    ABORTED_CODE: "AbortError",
}
# The text of each code's one ``tool-result`` block, as the real writer writes it (wire values).
RESULT_TEXTS = {
    "TOOL_OUTCOME_UNKNOWN": (
        "The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome "
        "is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only "
        "or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry "
        "blindly."
    ),
    "TOOL_NOT_STARTED": "The tool call was interrupted before the Harness recorded it as started. Retry it if it is "
                        "still needed.",
    SKIPPED_CODE: "Error: tool call aborted before dispatch",
    ABORTED_CODE: "Error: tool call aborted",
}


def tool_error(code: str) -> dict[str, Thawed]:
    """``data.error`` of a synthetic ``tool/result`` with ``code``, as the real writer writes it."""
    return {"name": TOOL_ERROR_NAMES[code], "code": code}


def error_fields(data: object) -> tuple[object, object] | None:
    """``(name, code)`` of a ``tool/result``'s ``data.error``; None when it has no error object."""
    error = data.get("error") if isinstance(data, dict) else None
    return (error.get("name"), error.get("code")) if isinstance(error, dict) else None


def result_block(data: object) -> tuple[object, object] | None:
    """``(isError, text)`` of a ``tool/result`` whose message holds exactly one ``tool-result`` block
    holding exactly one text block (the shape of every synthetic result); None for any other shape."""
    message = data.get("message") if isinstance(data, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list) or len(content) != 1 or not isinstance(content[0], dict):
        return None
    block = content[0]
    inner = block.get("content")
    if block.get("type") != "tool-result" or not isinstance(inner, list) or len(inner) != 1:
        return None
    text = inner[0]
    if not isinstance(text, dict) or text.get("type") != "text" or len(text) != 2:
        return None
    return block.get("isError"), text.get("text")


def citation(event: dict[str, object], call_seq: int | None) -> str | None:
    """How a ``tool/result``'s ``sourceEventSeqs`` differs from the real writer's, which cites the
    seq of the call's ``tool/call`` (``call_seq``; None when the call has none: then it cites
    nothing); None when it does not differ."""
    cited = event.get("sourceEventSeqs")
    if call_seq is None:
        return None if cited is None else f"sourceEventSeqs {cited!r}, though its call has no tool/call"
    if cited == [call_seq] and type(cited[0]) is int:
        return None
    return f"sourceEventSeqs {cited!r}, owed [{call_seq}] (its call's tool/call)"


def synthetic_shape(event: dict[str, object], call: str, code: str, call_seq: int | None) -> str | None:
    """How a crash-repair result for ``call`` with a known ``code`` differs from the one
    ``interruptedTurnClosers`` writes (id ending in its own seq, one error block with the code's
    sentence, ``sourceEventSeqs`` only for a started call); None when it does not."""
    data = event.get("data")
    message = data.get("message") if isinstance(data, dict) else None
    mid = message.get("id") if isinstance(message, dict) else None
    owed_id = f"{SYNTHETIC_RESULT}{call}-{event.get('seq')}"
    if mid != owed_id:
        return f"message id {mid!r}, owed {owed_id!r} (its own seq)"
    if result_block(data) != (True, RESULT_TEXTS[code]):
        return f"not one error tool-result block with {code}'s fixed text"
    return citation(event, call_seq)


def skipped_shape(data: object) -> str | None:
    """How a skipped call's result differs from ``appendSkippedToolCall``'s (one error block with
    the fixed text); None when it does not."""
    if result_block(data) != (True, RESULT_TEXTS[SKIPPED_CODE]):
        return f"not one error tool-result block with the text {RESULT_TEXTS[SKIPPED_CODE]!r}"
    return None
