"""LOG-10: a step's tool calls pair one to one, and a step that goes on has answered them all.

The handlers of :mod:`loopspec.check.step_body` keep a step's announced and started calls that no
``tool/result`` answered yet; ``step/end`` hands what is left to :attr:`CheckState.unanswered`,
which the next event judges: only a failed, aborted or interrupted end may leave calls open (the
loop awaits every tool of a step before its next boundary), and such an end follows the step's
``step/end`` at once (the failure or abort propagates synchronously, with no await for an edit).
"""

from __future__ import annotations

from loopspec.check.state import CheckState

LOG_10_WHY = ("A step's model answer announces each tool call once (assistant/message), its tool starts it once "
              "(tool/call) and answers it once (tool/result); a step that goes on normally has answered every "
              "call it announced, since the loop awaits all of a step's tools before its next boundary.")


def calls_left_open(st: CheckState, what: str) -> None:
    """At a normal continuation after a ``step/end``: no call of the closed step left unanswered."""
    if st.unanswered:
        left, st.unanswered = list(st.unanswered), ()
        st.violate("LOG-10", f"{what} after a step that left tool call(s) {left} unanswered", LOG_10_WHY)
