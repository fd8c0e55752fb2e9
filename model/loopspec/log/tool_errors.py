"""The errors a synthetic ``tool/result`` carries (REPAIR-1, CANCEL-5), as the real writer writes them.

``data.error`` is ``{name, code}`` (repair.ts and tool-calls.ts, v0.1.5/v0.1.7), one name per code:
crash repair's two codes, and the code of an aborted step's skipped calls.  The model writes these
and the checker and the search judge read them, so the table lives here, below all three, and
imports nothing (the checker's start-up stays lean).
"""

from __future__ import annotations

SYNTHETIC_RESULT = "interrupted-tool-result-"  # REPAIR-1: how the ids of crash repair's results begin
SKIPPED_CODE = "TOOL_ABORTED_BEFORE_DISPATCH"  # CANCEL-5: the code of an aborted step's skipped calls
REPAIR_CODES = frozenset({"TOOL_OUTCOME_UNKNOWN", "TOOL_NOT_STARTED"})  # REPAIR-1: crash repair's codes
TOOL_ERROR_NAMES = {
    "TOOL_OUTCOME_UNKNOWN": "ToolOutcomeUnknownError",
    "TOOL_NOT_STARTED": "ToolNotStartedError",
    SKIPPED_CODE: "AbortError",
}
