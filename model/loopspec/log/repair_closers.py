"""Which log events crash repair writes (REPAIR-1, REPAIR-2): read where nothing recorded them.

A live recording leaves repair's closers unmarked, since the next process writes them while it
loads the log; the live checker needs to tell them from a process's own writes.
"""

from __future__ import annotations

from loopspec.log.end_reasons import INTERRUPTED
from loopspec.log.kinds import END_SEED, STEP_END, TOOL_RESULT, TURN_END
from loopspec.log.wire import end_kind, is_synthetic_result, record_data

# The kinds crash repair may write while it closes what a killed process left open: a synthetic
# answer for each unanswered call, the open step's end, the turn's interrupted end, the seed's end.
# A tuple: a log's raw ``type`` is tested against it, and a list there must not raise.
CLOSER_KINDS = (TOOL_RESULT, STEP_END, TURN_END, END_SEED)


def is_repair_closer(event: object) -> bool:
    """Whether a parsed log event is one crash repair writes: a synthetic result, a step/end, an interrupted end."""
    if not isinstance(event, dict):
        return False
    kind, data = event.get("type"), record_data(event)
    if kind == STEP_END:
        return True
    if kind == TURN_END:
        return end_kind(data) == INTERRUPTED
    return kind == TOOL_RESULT and is_synthetic_result(data)
