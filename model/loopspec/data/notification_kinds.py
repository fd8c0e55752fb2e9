"""The live notifications' ``type`` strings (spec area NOTIFY), spelled once.

Here rather than in :mod:`loopspec.log.kinds` only because :mod:`loopspec.data.notifications`
sits below the log package and needs them; every other module names them through
:mod:`loopspec.log.kinds`, which re-exports them.  Plain strings: the live checker imports them.
"""

from __future__ import annotations

INSERTED = "agent/inbox/inserted"
DISCARDED = "agent/inbox/discarded"
CLAIMED = "agent/inbox/claimed"
AGENT_STATUS = "agent/status"
AGENT_ERROR = "agent/error"
