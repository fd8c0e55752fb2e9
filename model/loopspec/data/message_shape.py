"""What a message and an inbox target look like on the wire, without the value classes (DATA-2, DATA-3).

:func:`message_problem` is the one test of a stored user message's shape and :class:`InboxTarget`
names the two pending lists; both read a log's JSON either way it is read (parsed, by the checker
and the pictures, or frozen, by the model's events).  They live apart from
:mod:`loopspec.data.messages` (which re-exports them) because that module's frozen attrs classes
cost ``loopspec check`` about 30 ms of start-up it never needs: a plain check reads parsed JSON
only, so the frozen JSON classes (:mod:`loopspec.data.json_value`, attrs) are imported only where a
frozen value can be met, and a frozen value exists only once that module is loaded.
"""

from __future__ import annotations

from enum import StrEnum

from loopspec.data.frozen_members import FrozenMembers


def shown(value: object) -> str:
    """``repr`` for error messages, of the JSON as read: a frozen array or object is shown thawed.

    Both ways of reading a log (frozen events, and the checker's and the picture's parsed JSON)
    must word a refusal alike, so ``[]`` reads ``[]`` and never the frozen ``()``; ``null``,
    ``true`` and ``false`` read as in JSON, never as Python's ``None``, and an integer of more than
    :data:`LONGEST_NUMBER` digits is named by its first digits and its length.
    """
    if value is None or isinstance(value, bool):
        return "null" if value is None else "true" if value else "false"  # as the JSON was written
    if isinstance(value, int) and not -10**LONGEST_NUMBER < value < 10**LONGEST_NUMBER:
        return _long_number(value)
    if isinstance(value, tuple | FrozenMembers):
        from loopspec.data.json_value import thaw

        value = thaw(value)  # type: ignore[arg-type]  # FrozenMembers' one subclass is JsonObject
    try:
        return repr(value)
    except ValueError:
        return f"a {type(value).__name__} too large to print"


LONGEST_NUMBER = 24
"""Digits of the longest integer a message writes out; a longer one is named by its length."""


def _long_number(value: int) -> str:
    try:
        digits = len(str(abs(value)))
    except ValueError:  # Python refuses to print ints past 4300 digits
        return "an integer too large to print"
    return f"{'-' if value < 0 else ''}{str(abs(value))[:6]}... (an integer of {digits} digits)"


# The type names a refusal uses: those of the frozen model, whichever way the JSON was read.
_TYPE_NAMES: dict[type, str] = {dict: "JsonObject", list: "tuple"}


def object_fields(value: object) -> dict[str, object] | None:
    """A JSON object's members as a dict, parsed (a dict) or frozen (a :class:`JsonObject`, a
    repeated key read as its first member, as the object looks keys up); None for any other value."""
    if type(value) is dict:
        return value
    if isinstance(value, FrozenMembers):
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
    if type(source) is not dict and not isinstance(source, FrozenMembers):
        return f"message {mid!r}: source must be an object"
    return None


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
