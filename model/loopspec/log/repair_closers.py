"""Which log events crash repair writes (REPAIR-1, REPAIR-2): read where nothing recorded them.

A live recording leaves repair's closers unmarked, since the next process writes them while it
loads the log; the live checker needs to tell them from a process's own writes.
"""

from __future__ import annotations

from loopspec.log.tool_errors import SYNTHETIC_RESULT


def is_repair_closer(event: object) -> bool:
    """Whether a parsed log event is one crash repair writes: a synthetic result, a step/end, an interrupted end."""
    if not isinstance(event, dict):
        return False
    data = event.get("data")
    data = data if isinstance(data, dict) else {}
    kind = event.get("type")
    if kind == "step/end":
        return True
    if kind == "turn/end":
        reason = data.get("reason")
        return isinstance(reason, dict) and reason.get("kind") == "interrupted"
    message = data.get("message")
    mid = message.get("id") if isinstance(message, dict) else None
    return kind == "tool/result" and isinstance(mid, str) and mid.startswith(SYNTHETIC_RESULT)
