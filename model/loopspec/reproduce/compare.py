"""Comparing what the model emits with what a recording holds, and naming the rule of a difference.

Durable events compare on every field but ``time`` (the recorder's clock means nothing beyond
order); notifications on their payload, except ``agent/error``, which compares by message: the
recording holds the real error text (``"LlmError: service down"``), whose class name the model
does not know.  A refused call compares by its full text, ``Error: <the model's message>``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

import attrs

from loopspec.data.json_value import JsonObject
from loopspec.data.notifications import AgentError, Notification
from loopspec.log.events import InboxSpliced, SessionEvent
from loopspec.log.kinds import (
    AGENT_ERROR,
    AGENT_STATUS,
    CLAIMED,
    DISCARDED,
    END_SEED,
    INSERTED,
    SPLICED,
    STEP_END,
    STEP_START,
    TOOL_RESULT,
    TURN_END,
    TURN_START,
    USER_MESSAGE,
)
from loopspec.reproduce.records import Notice

Output = SessionEvent | Notification
"""One thing the model emitted: a durable event or a live notification."""

# A JavaScript error's text is "<name>: <message>"; the name is an identifier.
_ERROR_TEXT = re.compile(r"([A-Za-z_$][\w$]*): (.*)", re.DOTALL)


@attrs.frozen
class Difference:
    """The first place where the model and the recording disagree."""

    file: Path
    line: int | None
    seq: int | None
    what: str
    # JSON values, shown as JSON; named for their side, not as "expected" and "got": an implementer
    # reads the recording as what their code did and the model as what the spec says.
    recording: object
    model: object
    rule: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"file": str(self.file), "line": self.line, "seq": self.seq, "what": self.what,
                "recording": self.recording, "model": self.model, "rule": self.rule}


class Different(Exception):
    """Raised to stop a run at its first difference."""

    def __init__(self, difference: Difference) -> None:
        super().__init__(difference.what)
        self.difference = difference


def error_message(text: str) -> str:
    """The message of a JavaScript error's text: ``"Error: boom"`` → ``"boom"``; other text stays whole."""
    match = _ERROR_TEXT.fullmatch(text)
    return match.group(2) if match else text


def refusal_text(message: str) -> str:
    """How the real system words a refused call: an ``Error`` carrying the model's message."""
    return f"Error: {message}"


def event_json(event: SessionEvent) -> dict[str, object]:
    """An event as compared: every envelope field but ``time``."""
    out = event.to_json()
    del out["time"]
    return out


def notification_json(note: Notification) -> dict[str, object]:
    if isinstance(note, AgentError):
        error = note.error
        message = error.get("message") if isinstance(error, JsonObject) else error
        return {"type": note.type, "turn": note.turn, "step": note.step, "message": message}
    return note.to_json()


def notice_json(notice: Notice) -> dict[str, object]:
    """A recorded notification in the shape of :func:`notification_json`."""
    out: dict[str, object] = {"type": notice.type}
    if notice.message is not None:
        out["message"] = notice.message.to_json()
    if notice.type == AGENT_ERROR:
        out.update(turn=notice.turn, step=notice.step, message=error_message(notice.error or ""))
    elif notice.turn is not None:
        out["turn"] = notice.turn
    if notice.status is not None:
        out["status"] = notice.status
    return out


def output_json(item: Output) -> dict[str, object]:
    return event_json(item) if isinstance(item, SessionEvent) else notification_json(item)


# The rule each kind of output follows: named in a difference about that output.
_RULE_OF_TYPE: Mapping[str, str] = MappingProxyType({
    TURN_START: "TURN-1",
    TURN_END: "END-1",
    STEP_START: "STEP-1",
    STEP_END: "STEP-2",
    USER_MESSAGE: "DECIDE-8",
    END_SEED: "REPAIR-2",
    TOOL_RESULT: "REPAIR-1",  # the model writes tool results only as crash repair's closers
    INSERTED: "NOTIFY-2",
    DISCARDED: "NOTIFY-2",
    CLAIMED: "CLAIM-4",
    AGENT_STATUS: "STATUS-1",
    AGENT_ERROR: "END-2",
})


def rule_of(item: Output | None) -> str | None:
    """The rule an output follows; a splice's depends on whether it is a claim (CLAIM-1) or an edit."""
    if item is None:
        return None
    if isinstance(item, SessionEvent) and item.type == SPLICED:
        return "CLAIM-1" if InboxSpliced.from_data(item.data).is_claim else "SPLICE-1"
    return _RULE_OF_TYPE.get(item.type, "LOG-6")


def rule_of_type(output_type: str) -> str | None:
    """The rule of an output known only by its type (a splice's needs its data: none)."""
    return _RULE_OF_TYPE.get(output_type)
