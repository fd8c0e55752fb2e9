"""The model's inputs (spec areas INPUT, CANCEL, DECIDE, RESULT, REPAIR).

Every stimulus the agent reacts to is one of these frozen values: public inbox edits, the
agent-level sends and cancel, and the environment's answers at the loop's await points (the
pre-step listener chain, a step's result, the turn-stopping listeners) plus a crash-and-restart.
Making the environment explicit is what keeps a run pure and replayable.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar

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
    "STEP_KINDS", "STEP_RESULTS", "USER_CAUSE", "Advance", "Append", "Cancel", "Clear", "Command", "Decide", "Fail",
    "InboxEdit", "ListenerActionT", "LoopCommand", "MaxTokens", "Prepend", "Remove", "Replace", "RequestError",
    "Restart", "Send", "Splice", "StepResult", "Stop", "Stopping", "ToolCall", "ToolCalls", "ToolResult", "ToolStart",
    "TurnStopping", "followup", "inject", "steer",
]

# ---- the environment's answers at await points ----


@attrs.frozen
class Decide:
    """Resolve the pending ``agent/pre-step`` with this listener chain, outermost first (DECIDE-3).

    An empty chain is the bare default: enter the claimed batch.
    """

    listeners: tuple[Listener, ...] = ()


# ---- how the running step's model call and tools ended (RESULT-1 … RESULT-3) ----
# One frozen class per kind, each with exactly the fields that kind carries; ``kind`` is its name
# on the wire (vectors, adapters, recordings), the key of :data:`STEP_RESULTS`.


@attrs.frozen
class Stop:
    """A final answer (RESULT-1)."""

    kind: ClassVar[str] = "stop"


@attrs.frozen
class MaxTokens:
    """A final answer that hit the output ceiling (RESULT-1: sticky within the turn)."""

    kind: ClassVar[str] = "max-tokens"


@attrs.frozen
class ToolCalls:
    """Tools ran: ``context`` is tool-produced context for next-step, ``conclude`` that a tool
    concluded the turn (RESULT-2)."""

    kind: ClassVar[str] = "tool-calls"
    context: Messages = ()
    conclude: bool = False


@attrs.frozen
class ToolCall:
    """Not the step's end but a point inside it: the model's answer announced one more tool call
    and, when ``started``, its tool began; the step stays open, so a crash here leaves the call
    unanswered for crash repair (REPAIR-1).  The step's finishing result answers every pending
    call (RESULT-2)."""

    kind: ClassVar[str] = "tool-call"
    started: bool = True


@attrs.frozen
class ToolStart:
    """A point inside the step: the oldest announced call whose tool had not started starts
    (``tool/call``); none such, nothing written."""

    kind: ClassVar[str] = "tool-start"


@attrs.frozen
class ToolResult:
    """A point inside the step: the oldest pending call's tool finished (it is started first if it
    had not been) and its ``tool/result`` is written; nothing pending, nothing written."""

    kind: ClassVar[str] = "tool-result"


@attrs.frozen
class RequestError:
    """The request failed; ``retry`` is the handler's answer, ``error``/``code`` what a failure
    not retried reports (RESULT-3)."""

    kind: ClassVar[str] = "request-error"
    retry: bool = False
    error: str = "step failed"
    code: str = "UNKNOWN"


@attrs.frozen
class Fail:
    """Any other failure inside the step (RESULT-3)."""

    kind: ClassVar[str] = "fail"
    error: str = "step failed"
    code: str = "UNKNOWN"


StepResult = Stop | MaxTokens | ToolCalls | ToolCall | ToolStart | ToolResult | RequestError | Fail
"""How the running step's model call and tools ended (RESULT-1 … RESULT-3)."""

# Read-only: each kind of step result by its wire name, in the order the spec lists them.
STEP_RESULTS: Mapping[str, type[StepResult]] = MappingProxyType({
    c.kind: c for c in (Stop, MaxTokens, ToolCalls, ToolCall, ToolStart, ToolResult, RequestError, Fail)
})
STEP_KINDS = tuple(STEP_RESULTS)


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


# ---- where the loop stops: its hops (spec/loop-grain.md) ----


@attrs.frozen
class Stopping:
    """A command whose run stops at the first hop named ``hop`` that it passes, so that the next
    command lands there; one that passes none runs on as usual (command language, ``stop``)."""

    command: Command
    hop: str


@attrs.frozen
class Advance:
    """The loop goes on by itself from the hop it stopped at, to its next await point or to the next
    hop named ``stop`` (command language, ``advance``); anywhere but at a hop INPUT-4 refuses it."""

    stop: str | None = None


LoopCommand = Command | Stopping | Advance
"""Everything that moves the agent: a command, one stopping at a hop, or the loop going on from one."""
