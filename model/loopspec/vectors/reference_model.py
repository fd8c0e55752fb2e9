"""The model as the conformance tools run it: an agent, or an inbox without a loop.

The ``loop`` and ``full`` profiles are answered by the lifecycle model
(:func:`loopspec.loop.lifecycle.step` over an :class:`~loopspec.loop.state.Agent`).  The ``inbox``
profile is answered by an inbox-only :class:`~loopspec.inbox.session.InboxSession`: the six public
edits and the loop's claim as a command of its own (:class:`Claim`), so an implementation that has
an inbox but no loop yet can be tested on CLAIM-1, CLAIM-2 and CLAIM-4 alone.

:func:`apply` is the one entry point: ``(model, command) -> Applied`` (the next model, the
interleaved emission trace, the log length before, the return value and the lifecycle rows
fired), raising :class:`~loopspec.data.errors.CommandRefused` for a refusal and
:class:`Unsupported` for a command the model of that profile does not have.
"""

from __future__ import annotations

import attrs

from loopspec.data.messages import InboxTarget, Messages
from loopspec.data.notifications import Notification
from loopspec.inbox.session import InboxSession, Transition
from loopspec.log.events import SessionEvent
from loopspec.loop import commands as cmd
from loopspec.loop.lifecycle import run_command
from loopspec.loop.state import Agent
from loopspec.vectors.profiles import DEFAULT_PROFILE


@attrs.frozen
class Claim:
    """``claim(target, turn)``: the loop's atomic claim, as a command of the inbox profile.

    All of next-step, then — only when ``target`` is next-turn (a turn's first boundary) — the
    first next-turn message (CLAIM-1); one pure deletion per non-empty part, next-step first
    (CLAIM-2); one ``claimed {message, turn}`` per message after both records, in batch order
    (CLAIM-4).  Returns the claimed batch.  Outside a loop nothing checks that ``turn`` is open.
    """

    target: InboxTarget
    turn: int


VectorCommand = cmd.LoopCommand | Claim
"""Every command of the command language."""

Model = Agent | InboxSession
"""The model of one profile: an agent (loop, full) or an inbox-only session (inbox)."""


class Unsupported(Exception):
    """The command is not one of the model's for this profile (answered ``unsupported``)."""


@attrs.frozen
class Applied:
    """One accepted command: the next model and what it emitted, interleaved in emission order."""

    model: Model
    trace: tuple[SessionEvent | Notification, ...]
    next_seq: int
    """The log's length before the command: the seq its first event gets."""
    value: Messages | bool | None
    fired: tuple[str, ...] = ()


def initial(profile: str = DEFAULT_PROFILE) -> Model:
    """The model a fresh adapter of ``profile`` starts as (empty log, empty inbox, idle)."""
    return InboxSession() if profile == "inbox" else Agent()


def log_length(model: Model) -> int:
    return model.log.next_seq


def _inbox_transition(session: InboxSession, command: VectorCommand) -> Transition:
    """An inbox-only session's answer to an edit or a claim (the same write path as the agent's)."""
    if isinstance(command, cmd.Append):
        return session.append(command.target, command.message)
    if isinstance(command, cmd.Prepend):
        return session.prepend(command.target, command.message)
    if isinstance(command, cmd.Splice):
        return session.splice(command.target, command.start, command.delete_count, command.inserted)
    if isinstance(command, cmd.Replace):
        return session.replace(command.message_id, command.message)
    if isinstance(command, cmd.Remove):
        return session.remove(command.message_id)
    if isinstance(command, cmd.Clear):
        return session.clear()
    if isinstance(command, Claim):
        return session.claim(command.target, command.turn)  # CLAIM-1, CLAIM-2, CLAIM-4
    raise Unsupported(f"{type(command).__name__} needs the loop; the inbox profile has edits and claim only")


def apply(model: Model, command: VectorCommand) -> Applied:
    """Apply one command; raises ``CommandRefused`` (nothing changed) or :class:`Unsupported`."""
    before = log_length(model)
    if isinstance(model, InboxSession):
        t = _inbox_transition(model, command)
        return Applied(t.session, t.trace, before, t.value)
    if isinstance(command, Claim):  # CLAIM-7: an agent's claim is its loop's, never a command
        raise Unsupported("claim is a command of the inbox profile; an agent claims at its own boundaries")
    transition = run_command(model, command)
    return Applied(transition.agent, transition.trace, before, transition.value, transition.fired)
