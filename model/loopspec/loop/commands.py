"""The model's inputs (spec areas INPUT, CANCEL, DECIDE, RESULT, REPAIR).

Every stimulus the agent reacts to is one of these frozen values: public inbox edits, the
agent-level sends and cancel, and the environment's answers at the loop's await points (the
pre-step listener chain, a step's result, the turn-stopping listeners) plus a crash-and-restart.
Making the environment explicit is what keeps a run pure and replayable.
"""

from __future__ import annotations

import attrs

from loopspec.data.messages import Messages
from loopspec.loop.actions import (
    USER_CAUSE,
    Append,
    Cancel,
    Clear,
    InboxEdit,
    ListenerActionT,
    Prepend,
    Remove,
    Replace,
    Send,
    Splice,
    followup,
    inject,
    steer,
)
from loopspec.loop.pre_step import Listener

# The edits, sends and cancel are defined with the listener actions; they are commands too.
__all__ = [
    "STEP_KINDS", "USER_CAUSE", "Append", "Cancel", "Clear", "Command", "Decide", "InboxEdit", "ListenerActionT",
    "Prepend", "Remove", "Replace", "Restart", "Send", "Splice", "StepResult", "TurnStopping", "followup", "inject",
    "steer",
]

# ---- the environment's answers at await points ----


@attrs.frozen
class Decide:
    """Resolve the pending ``agent/pre-step`` with this listener chain, outermost first (DECIDE-3).

    An empty chain is the bare default: enter the claimed batch.
    """

    listeners: tuple[Listener, ...] = ()


STEP_KINDS = ("stop", "max-tokens", "tool-calls", "tool-call", "tool-start", "tool-result", "request-error", "fail")


@attrs.frozen
class StepResult:
    """How the running step's model call and tools ended (RESULT-1 … RESULT-3).

    * ``stop`` / ``max-tokens`` — a final answer (the latter hit the output ceiling);
    * ``tool-calls`` — tools ran; ``context`` is tool-produced context for next-step, and
      ``conclude`` is true when a tool concluded the turn;
    * ``tool-call`` — not the step's end but a point inside it: the model's answer announced one
      more tool call and, when ``started``, its tool began; the step stays open, so a crash here
      leaves the call unanswered for crash repair (REPAIR-1).  The step's finishing result answers
      every pending call (RESULT-2);
    * ``tool-start`` — a point inside the step: the oldest announced call whose tool had not
      started starts (``tool/call``); none such, nothing written;
    * ``tool-result`` — also a point inside the step: the oldest pending call's tool finished (it
      is started first if it had not been) and its ``tool/result`` is written; nothing pending,
      nothing written;
    * ``request-error`` — the request failed; ``retry`` is the handler's answer;
    * ``fail`` — any other failure inside the step.
    """

    kind: str = attrs.field(validator=attrs.validators.in_(STEP_KINDS))
    context: Messages = ()
    conclude: bool = False
    retry: bool = False
    error: str = "step failed"
    code: str = "UNKNOWN"
    started: bool = True

    def __attrs_post_init__(self) -> None:
        # Each field belongs to one kind of result; elsewhere it would describe nothing real.
        if (self.context or self.conclude) and self.kind != "tool-calls":
            raise ValueError(f"context and conclude belong to a tool-calls result, not {self.kind!r}")
        if self.retry and self.kind != "request-error":
            raise ValueError(f"retry belongs to a request-error result, not {self.kind!r}")
        if not self.started and self.kind != "tool-call":
            raise ValueError(f"started belongs to a tool-call result, not {self.kind!r}")


@attrs.frozen
class TurnStopping:
    """The ``agent/turn-stopping`` listeners' effect: input they send, or a failure (RESULT-4)."""

    actions: tuple[ListenerActionT, ...] = ()
    raises: str | None = None


@attrs.frozen
class Restart:
    """The process crashed here (or stopped) and a new one loaded the log (REPAIR-1 … REPAIR-4)."""


# No claim among them: only the loop claims, at its own boundaries (CLAIM-7).
Command = InboxEdit | Send | Cancel | Decide | StepResult | TurnStopping | Restart
