"""What a client or a listener can do to the agent: inbox edits, sends and cancel (spec areas SPLICE, INPUT, CANCEL).

These are both commands (:mod:`loopspec.loop.commands`) and the side actions of the pre-step and
turn-stopping listeners (:mod:`loopspec.loop.pre_step`).  They live apart from the other commands
so that the listener language can name them without importing the commands that carry listeners.
"""

from __future__ import annotations

import attrs

from loopspec.data.json_value import Frozen, JsonObject, freeze
from loopspec.data.messages import InboxTarget, MessageId, Messages, UserMessage
from loopspec.inbox.normalize import JsNumber

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
# The cause a disposal of the agent cancels with (CANCEL-1): how a restart ends the process before it.
DISPOSED_CAUSE: Frozen = freeze({"kind": "disposed"})


def _check_cause(_: object, __: object, cause: Frozen) -> None:
    # TurnEndCancelCause is an object with a string kind; a null cause would be
    # indistinguishable from "not aborted" (CANCEL-1).
    if not (isinstance(cause, JsonObject) and isinstance(cause.get("kind"), str)):
        raise ValueError(f"a cancel cause must be an object with a string 'kind', got {cause!r}")


@attrs.frozen
class Cancel:
    cause: Frozen = attrs.field(default=USER_CAUSE, validator=_check_cause)
    keep_inbox: bool = False


ListenerActionT = Send | InboxEdit | Cancel
"""An action a listener performs through the agent, exactly as a client would."""
