"""Value classes of the inbox half of the model (spec area DATA).

Everything here is a frozen attrs class (or an alias of one): the model's state is made only
of these, tuples and frozen JSON, so a state can be compared, hashed and replayed structurally.
"""

from __future__ import annotations

import attrs

from loopspec.data.json_value import Frozen, JsonObject, freeze, thaw
from loopspec.data.message_shape import InboxTarget as InboxTarget
from loopspec.data.message_shape import message_problem as message_problem
from loopspec.data.message_shape import object_fields as object_fields
from loopspec.data.message_shape import shown as shown


@attrs.frozen(order=True)
class MessageId:
    """The sole address of a pending message (DATA-1): an opaque string, compared exactly."""

    value: str

    def __str__(self) -> str:
        return self.value


@attrs.frozen
class UserMessage:
    """A user-role message as the real system stores it (DATA-2).

    ``body`` keeps every field of the JSON object (``id``, ``role``, ``content``, ``source`` and
    any field the model does not know), so a message read from a log is written back equal in
    meaning.  ``id`` is duplicated out of ``body`` because it is what the inbox addresses.
    """

    id: MessageId
    body: JsonObject

    @classmethod
    def create(
        cls, id: str, text: str = "", *, source: dict[str, object] | None = None
    ) -> UserMessage:
        """A message shaped like ``createUserMessage``: one text block, source ``{kind: user}``."""
        return cls.from_json(
            {
                "id": id,
                "role": "user",
                "content": [{"type": "text", "text": text or id}],
                "source": source if source is not None else {"kind": "user"},
            }
        )

    @classmethod
    def from_json(cls, raw: object) -> UserMessage:
        """Parse a message object; ``ValueError`` naming the defect when it is not one (DATA-2)."""
        if not isinstance(raw, dict):
            raise ValueError(f"a message must be a JSON object, got {type(raw).__name__}")
        return cls.from_frozen(freeze(raw))

    @classmethod
    def from_frozen(cls, body: Frozen) -> UserMessage:
        """Like :meth:`from_json` over an already frozen value (no copy of the body)."""
        problem = message_problem(body)
        if problem is not None:
            raise ValueError(problem)
        assert isinstance(body, JsonObject)
        return cls.checked(body)

    @classmethod
    def checked(cls, body: JsonObject) -> UserMessage:
        """A message from a frozen object :func:`message_problem` has passed (no second check)."""
        return cls(MessageId(str(body["id"])), body)

    def to_json(self) -> dict[str, object]:
        out = thaw(self.body)
        assert isinstance(out, dict)
        return dict(out)

    @property
    def text(self) -> str:
        """Concatenated text blocks, for reports and docs."""
        content = self.body["content"]
        parts: list[str] = []
        if isinstance(content, tuple):
            for block in content:
                if isinstance(block, JsonObject) and isinstance(block.get("text"), str):
                    parts.append(str(block["text"]))
        return "".join(parts)


Messages = tuple[UserMessage, ...]


@attrs.frozen
class InboxState:
    """The two pending lists (DATA-4); no id appears twice across both (DATA-5)."""

    next_turn: Messages = ()
    next_step: Messages = ()

    def lane(self, target: InboxTarget) -> Messages:
        return self.next_turn if target is InboxTarget.NEXT_TURN else self.next_step

    def with_lane(self, target: InboxTarget, messages: Messages) -> InboxState:
        if target is InboxTarget.NEXT_TURN:
            return InboxState(messages, self.next_step)
        return InboxState(self.next_turn, messages)

    @property
    def has_pending(self) -> bool:
        return bool(self.next_turn or self.next_step)

    def ids(self) -> tuple[MessageId, ...]:
        return tuple(m.id for m in self.next_turn + self.next_step)

    def to_json(self) -> dict[str, list[dict[str, object]]]:
        return {
            "next-turn": [m.to_json() for m in self.next_turn],
            "next-step": [m.to_json() for m in self.next_step],
        }


EMPTY_INBOX = InboxState()

__all__ = [
    "EMPTY_INBOX",
    "Frozen",
    "InboxState",
    "InboxTarget",
    "MessageId",
    "Messages",
    "UserMessage",
]
