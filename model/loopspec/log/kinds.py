"""Every event kind of the session log, spelled once (spec area LOG; docs/events.md).

A session log line's ``type`` names its kind.  Every module of the package names a kind through
these constants, never as a string of its own (tests/log/test_kinds.py holds the package to that),
so a renamed or misspelled kind is one edit and one import error, not a silent mismatch.  Plain
strings, no imports: ``loopspec check`` imports this on every run (docs/performance.md).
"""

from __future__ import annotations

# The inbox's one durable record (SPLICE).
SPLICED = "agent/inbox/spliced"

# The turn/step lifecycle (TURN, STEP, END, REPAIR).
TURN_START = "turn/start"
TURN_END = "turn/end"
STEP_START = "step/start"
STEP_END = "step/end"

# The session's own records (LOG, VARIANT-3).
SESSION_START = "session/start"
END_SEED = "session/end-seed"

# Conversation-surface records inside a step (DECIDE-8, VARIANT-1, LOG-4).
USER_MESSAGE = "user/message"
SYSTEM_MESSAGE = "system/message"
ASSISTANT_MESSAGE = "assistant/message"
TOOL_RESULT = "tool/result"

# The model side's other records (LOG-3): the request, the streamed answer, the tool's start.
REQUEST_HEADER = "request/header"
REQUEST_CONTEXT = "request/context"
ASSISTANT_CHUNK = "assistant/chunk"
ASSISTANT_ATTEMPT = "assistant/attempt"
TOOL_CALL = "tool/call"

# A live recording's records of the listener calls the loop made (check.live_shape).
PRE_STEP_HOOK = "agent/pre-step"
TURN_STOPPING_HOOK = "agent/turn-stopping"

# The live notifications (NOTIFY), re-exported: their strings live below this package.
from loopspec.data.notification_kinds import AGENT_ERROR as AGENT_ERROR  # noqa: E402
from loopspec.data.notification_kinds import AGENT_STATUS as AGENT_STATUS  # noqa: E402
from loopspec.data.notification_kinds import CLAIMED as CLAIMED  # noqa: E402
from loopspec.data.notification_kinds import DISCARDED as DISCARDED  # noqa: E402
from loopspec.data.notification_kinds import INSERTED as INSERTED  # noqa: E402

# The kinds whose envelope joins the conversation surface (LOG-1's surfaceOp).
SURFACE = frozenset({USER_MESSAGE, SYSTEM_MESSAGE, ASSISTANT_MESSAGE, TOOL_RESULT})
# The durable kinds the model itself writes (the loop's inbox and lifecycle records); a recording's
# other kinds come from the model side or from plugins (LOG-6).
MODEL_WRITTEN = frozenset({SPLICED, TURN_START, TURN_END, STEP_START, STEP_END, USER_MESSAGE, END_SEED})
# The tool traffic of a step: announcements, starts and answers of calls (LOG-10).
TOOL_TRAFFIC = frozenset({ASSISTANT_MESSAGE, TOOL_CALL, TOOL_RESULT})
