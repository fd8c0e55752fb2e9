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

TYPE_CHECKING = False  # not imported from typing: see loopspec.data.lean_typing
if TYPE_CHECKING:
    from loopspec.data.json_value import Thawed

SYNTHETIC_RESULT = "interrupted-tool-result-"  # REPAIR-1: how the ids of crash repair's results begin
# CANCEL-5: the code of an aborted step's skipped calls.  The real constant is *named*
# TOOL_ABORTED_BEFORE_DISPATCH (dsh-tools); its value, the one written, is this.
SKIPPED_CODE = "ABORTED_BEFORE_DISPATCH"
REPAIR_CODES = frozenset({"TOOL_OUTCOME_UNKNOWN", "TOOL_NOT_STARTED"})  # REPAIR-1: crash repair's codes
TOOL_ERROR_NAMES = {
    "TOOL_OUTCOME_UNKNOWN": "ToolOutcomeUnknownError",
    "TOOL_NOT_STARTED": "ToolNotStartedError",
    SKIPPED_CODE: "AbortError",
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
}


def tool_error(code: str) -> dict[str, Thawed]:
    """``data.error`` of a synthetic ``tool/result`` with ``code``, as the real writer writes it."""
    return {"name": TOOL_ERROR_NAMES[code], "code": code}


def error_fields(data: object) -> tuple[object, object] | None:
    """``(name, code)`` of a ``tool/result``'s ``data.error``; None when it has no error object."""
    error = data.get("error") if isinstance(data, dict) else None
    return (error.get("name"), error.get("code")) if isinstance(error, dict) else None
