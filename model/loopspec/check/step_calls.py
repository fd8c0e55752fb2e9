"""LOG-10: a step's tool calls pair one to one.

The handlers of :mod:`loopspec.check.step_body` judge each announcement, start and answer of a
call; what a step that closes with a call still open says about how its turn goes on is
RESULT-7's, judged by :mod:`loopspec.check.outcome`.
"""

from __future__ import annotations

LOG_10_WHY = ("A step's model answer announces each tool call once (assistant/message), its tool starts it once "
              "(tool/call) and answers it once (tool/result).")
