"""The errors a synthetic ``tool/result`` carries (REPAIR-1, CANCEL-5), as the real writer writes them.

``data.error`` is ``{name, code}`` (repair.ts and tool-calls.ts, v0.1.5/v0.1.7), one name per code:
crash repair's two codes, and the code of an aborted step's skipped calls.  The model and the log
generator write these (:func:`tool_error`) and the checker and the search judge read them
(:func:`error_fields`), so the table lives here, below all of them, and imports nothing (the
checker's start-up stays lean).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not imported from typing: see loopspec.data.lean_typing
if TYPE_CHECKING:
    from loopspec.data.json_value import Thawed

SYNTHETIC_RESULT = "interrupted-tool-result-"  # REPAIR-1: how the ids of crash repair's results begin
SKIPPED_CODE = "TOOL_ABORTED_BEFORE_DISPATCH"  # CANCEL-5: the code of an aborted step's skipped calls
REPAIR_CODES = frozenset({"TOOL_OUTCOME_UNKNOWN", "TOOL_NOT_STARTED"})  # REPAIR-1: crash repair's codes
TOOL_ERROR_NAMES = {
    "TOOL_OUTCOME_UNKNOWN": "ToolOutcomeUnknownError",
    "TOOL_NOT_STARTED": "ToolNotStartedError",
    SKIPPED_CODE: "AbortError",
}


def tool_error(code: str) -> dict[str, Thawed]:
    """``data.error`` of a synthetic ``tool/result`` with ``code``, as the real writer writes it."""
    return {"name": TOOL_ERROR_NAMES[code], "code": code}


def error_fields(data: object) -> tuple[object, object] | None:
    """``(name, code)`` of a ``tool/result``'s ``data.error``; None when it has no error object."""
    error = data.get("error") if isinstance(data, dict) else None
    return (error.get("name"), error.get("code")) if isinstance(error, dict) else None
