"""The model's inputs (spec areas INPUT, CANCEL, DECIDE, RESULT, REPAIR).

Every stimulus the agent reacts to is one of these frozen values: public inbox edits, the
agent-level sends and cancel, and the environment's answers at the loop's await points (the
pre-step listener chain, a step's result, the turn-stopping listeners) plus a crash-and-restart.
Making the environment explicit is what keeps a run pure and replayable.
"""

from __future__ import annotations

import attrs

from loopspec.json_value import Frozen, JsonObject, freeze
from loopspec.listeners import Listener
from loopspec.normalize import JsNumber
from loopspec.values import InboxTarget, MessageId, Messages, UserMessage

# ---- public inbox edits (SPLICE-1, SPLICE-7, SPLICE-8) ----


@attrs.frozen
class Append:
    target: InboxTarget
    message: UserMessage


@attrs.frozen
class Prepend:
    target: InboxTarget
    message: UserMessage


@attrs.frozen
class Splice:
    target: InboxTarget
    start: JsNumber
    delete_count: JsNumber
    inserted: Messages = ()


@attrs.frozen
class Replace:
    message_id: MessageId
    message: UserMessage


@attrs.frozen
class Remove:
    message_id: MessageId


@attrs.frozen
class Clear:
    pass


InboxEdit = Append | Prepend | Splice | Replace | Remove | Clear

# ---- agent input (INPUT-1, CANCEL-1) ----


@attrs.frozen
class Send:
    """``send(message, target, wake)``; see :func:`followup`, :func:`steer`, :func:`inject`."""

    message: UserMessage
    target: InboxTarget
    wake: bool


def followup(message: UserMessage) -> Send:
    return Send(message, InboxTarget.NEXT_TURN, True)


def steer(message: UserMessage) -> Send:
    return Send(message, InboxTarget.NEXT_STEP, True)


def inject(message: UserMessage) -> Send:
    return Send(message, InboxTarget.NEXT_STEP, False)


USER_CAUSE: Frozen = freeze({"kind": "user"})


def _check_cause(_: object, __: object, cause: Frozen) -> None:
    # TurnEndCancelCause is an object with a string kind; a null cause would be
    # indistinguishable from "not aborted" (CANCEL-1).
    if not (isinstance(cause, JsonObject) and isinstance(cause.get("kind"), str)):
        raise ValueError(f"a cancel cause must be an object with a string 'kind', got {cause!r}")


@attrs.frozen
class Cancel:
    cause: Frozen = attrs.field(default=USER_CAUSE, validator=_check_cause)
    keep_inbox: bool = False


# ---- the environment's answers at await points ----


@attrs.frozen
class Decide:
    """Resolve the pending ``agent/pre-step`` with this listener chain, outermost first (DECIDE-3).

    An empty chain is the bare default: enter the claimed batch.
    """

    listeners: tuple[Listener, ...] = ()


STEP_KINDS = ("stop", "max-tokens", "tool-calls", "request-error", "fail")


@attrs.frozen
class StepResult:
    """How the running step's model call and tools ended (RESULT-1 … RESULT-3).

    * ``stop`` / ``max-tokens`` — a final answer (the latter hit the output ceiling);
    * ``tool-calls`` — tools ran; ``context`` is tool-produced context for next-step, and
      ``conclude`` is true when a tool concluded the turn;
    * ``request-error`` — the request failed; ``retry`` is the handler's answer;
    * ``fail`` — any other failure inside the step.
    """

    kind: str = attrs.field(validator=attrs.validators.in_(STEP_KINDS))
    context: Messages = ()
    conclude: bool = False
    retry: bool = False
    error: str = "step failed"
    code: str = "UNKNOWN"

    def __attrs_post_init__(self) -> None:
        # Each field belongs to one kind of result; elsewhere it would describe nothing real.
        if (self.context or self.conclude) and self.kind != "tool-calls":
            raise ValueError(f"context and conclude belong to a tool-calls result, not {self.kind!r}")
        if self.retry and self.kind != "request-error":
            raise ValueError(f"retry belongs to a request-error result, not {self.kind!r}")


@attrs.frozen
class TurnStopping:
    """The ``agent/turn-stopping`` listeners' effect: input they send, or a failure (RESULT-4)."""

    actions: tuple[ListenerActionT, ...] = ()
    raises: str | None = None


@attrs.frozen
class Restart:
    """The process crashed here (or stopped) and a new one loaded the log (REPAIR-1 … REPAIR-4)."""


ListenerActionT = Send | InboxEdit | Cancel
Command = InboxEdit | Send | Cancel | Decide | StepResult | TurnStopping | Restart
