"""Live, process-local notifications (spec area NOTIFY).

They are not durable: a log cannot show them, so rules about them are checked against the
model's own output or a recorded ``live.jsonl`` stream.  Inbox notifications carry no placement,
outcome or batch fields (NOTIFY-1): durable splices own those facts.
"""

from __future__ import annotations

from typing import Literal

import attrs

from loopspec.data import notification_kinds as kinds
from loopspec.data.json_value import Frozen, thaw
from loopspec.data.messages import UserMessage


@attrs.frozen
class Inserted:
    message: UserMessage
    type = kinds.INSERTED

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "message": self.message.to_json()}


@attrs.frozen
class Discarded:
    message: UserMessage
    type = kinds.DISCARDED

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "message": self.message.to_json()}


@attrs.frozen
class Claimed:
    message: UserMessage
    turn: int
    type = kinds.CLAIMED

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "message": self.message.to_json(), "turn": self.turn}


Status = Literal["idle", "running"]


@attrs.frozen
class StatusChanged:
    """``agent/status``: emitted only when the derived status actually changes (STATUS-1)."""

    status: Status
    type = kinds.AGENT_STATUS

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "status": self.status}


@attrs.frozen
class AgentError:
    """``agent/error {turn, step, error}``; precedes the durable ``turn/end {error}`` (END-2)."""

    turn: int
    step: int
    error: Frozen
    type = kinds.AGENT_ERROR

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "turn": self.turn, "step": self.step, "error": thaw(self.error)}


Notification = Inserted | Discarded | Claimed | StatusChanged | AgentError
