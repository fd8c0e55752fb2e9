"""Value classes of the inbox half of the model (spec area DATA).

Everything here is a frozen attrs class (or an alias of one): the model's state is made only
of these, tuples and frozen JSON, so a state can be compared, hashed and replayed structurally.
"""

from __future__ import annotations

from enum import StrEnum

import attrs

from loopspec.data.json_value import Frozen, JsonObject, freeze, thaw


def shown(value: object) -> str:
    """``repr`` for error messages, of the JSON as read: a frozen array or object is shown thawed.

    Both ways of reading a log (frozen events, and the checker's and the picture's parsed JSON)
    must word a refusal alike, so ``[]`` reads ``[]`` and never the frozen ``()``.  Python refuses
    to print ints past 4300 digits.
    """
    if isinstance(value, (tuple, JsonObject)):
        value = thaw(value)
    try:
        return repr(value)
    except ValueError:
        return f"a {type(value).__name__} too large to print"


# The type names a refusal uses: those of the frozen model, whichever way the JSON was read.
_TYPE_NAMES: dict[type, str] = {dict: "JsonObject", list: "tuple"}


def object_fields(value: object) -> dict[str, object] | None:
    """A JSON object's members as a dict, parsed (a dict) or frozen (a :class:`JsonObject`, a
    repeated key read as its first member, as the object looks keys up); None for any other value."""
    if type(value) is dict:
        return value
    if isinstance(value, JsonObject):
        return dict(reversed(value.items_))
    return None


def message_problem(raw: object) -> str | None:
    """What keeps a JSON value from being a stored user message (DATA-2), else None.

    The one test of a message's shape, for both ways of reading a log: parsed JSON (the checker,
    the pictures) and frozen JSON (the model's events, :meth:`UserMessage.from_frozen`).  An array
    is a list or a tuple, an object a dict or a :class:`JsonObject`; the words are the same.
    """
    fields = raw if type(raw) is dict else object_fields(raw)  # the checker asks for every entry
    if fields is None:
        return f"a message must be a JSON object, got {_TYPE_NAMES.get(type(raw), type(raw).__name__)}"
    mid = fields.get("id")
    if not isinstance(mid, str):
        return f"a message needs a string id, got {shown(mid)}"
    if fields.get("role") != "user":
        return f"message {mid!r}: role must be 'user', got {shown(fields.get('role'))}"
    if type(fields.get("content")) not in (list, tuple):
        return f"message {mid!r}: content must be an array"
    source = fields.get("source")
    if type(source) is not dict and not isinstance(source, JsonObject):
        return f"message {mid!r}: source must be an object"
    return None


@attrs.frozen(order=True)
class MessageId:
    """The sole address of a pending message (DATA-1): an opaque string, compared exactly."""

    value: str

    def __str__(self) -> str:
        return self.value


class InboxTarget(StrEnum):
    """Which of the two pending lists an edit addresses (DATA-3)."""

    NEXT_TURN = "next-turn"
    NEXT_STEP = "next-step"

    @classmethod
    def parse(cls, raw: object) -> InboxTarget:
        """The target named by a raw JSON value; ``ValueError`` when it names neither list."""
        if raw == "next-turn":
            return cls.NEXT_TURN
        if raw == "next-step":
            return cls.NEXT_STEP
        raise ValueError(f"unknown inbox target {shown(raw)}")


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
