"""The one reader of an ``agent/inbox/spliced`` record's data (FOLD-1, FOLD-2, DATA-2).

A splice's data is read in two representations: parsed JSON, by the checker and the pictures,
which fold straight from the parser's dicts and lists; and frozen JSON, by the model's own
events (:meth:`loopspec.log.events.InboxSpliced.from_data`).  Both come here, so both refuse the
same records with the same rule and words, in the same order of checks: the data is an object,
the target names a list, ``inserted`` is an array, ``start`` and ``removedCount`` are safe integers,
``outcome`` is ``canceled``, no unknown field, then each inserted message
(:func:`loopspec.data.messages.message_problem`).  Whether the coordinates fit the lists is the
fold's (:class:`loopspec.inbox.pending.PendingLists`, FOLD-2, FOLD-3).

The checker calls this for every splice of a log, so the common case, parsed JSON, runs without
a conversion, and a message passes on a few type tests before :func:`message_problem` is asked
for the words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, TypeAlias

from loopspec.data.errors import InvalidEvent
from loopspec.data.message_shape import InboxTarget, message_problem, object_fields, shown
from loopspec.log.envelope import MAX_SAFE_INTEGER, MIN_SAFE_INTEGER, SPLICE_FIELDS

CANCELED: Final = "canceled"  # the one outcome a splice may carry (FOLD-1)
# The targets as plain strings: comparing with an enum member costs the checker a call per splice.
_NEXT_TURN, _NEXT_STEP = InboxTarget.NEXT_TURN.value, InboxTarget.NEXT_STEP.value


# What read_splice returns: (target, start, removedCount, outcome, inserted).  ``removedCount`` and
# ``outcome`` are None when the key is absent (SPLICE-4 tells an omitted count from a written 0);
# ``outcome`` is otherwise CANCELED; the messages are as read: dicts from parsed JSON, JsonObjects
# from frozen (each caller knows which).  A plain tuple, not a named one: building a named tuple
# cost the checker 0.2 us of its 1.6 us per splice.
SpliceData: TypeAlias = "tuple[str, int, int | None, str | None, Sequence[Any]]"


def read_splice(data: object, seq: int | None) -> SpliceData:
    """Read ``data`` of an ``agent/inbox/spliced`` record, parsed or frozen JSON.

    raises: InvalidEvent naming FOLD-1, FOLD-2 or DATA-2 and ``seq`` at the first defect.  In a
    frozen object a repeated key reads as its first member, as :class:`JsonObject` looks keys up.
    """
    fields = data if type(data) is dict else object_fields(data)
    if fields is None:
        raise InvalidEvent("FOLD-1", "splice data must be an object", seq)
    target = fields.get("target")
    if target != _NEXT_TURN and target != _NEXT_STEP:
        try:  # the words are InboxTarget.parse's, asked only for a record it refuses
            InboxTarget.parse(target)
        except ValueError as err:
            raise InvalidEvent("FOLD-1", str(err), seq) from None
    inserted = fields.get("inserted")
    if type(inserted) is not list and type(inserted) is not tuple:  # also when absent
        raise InvalidEvent("FOLD-1", "'inserted' must be present and an array", seq)
    start = fields.get("start")
    # log.envelope.is_safe_integer spelled out (a call per field costs the checker): an integer
    # token only, 1.0 is refused (decisions.md G3).
    if type(start) is not int or not MIN_SAFE_INTEGER <= start <= MAX_SAFE_INTEGER:
        raise InvalidEvent("FOLD-2", f"'start' must be a safe integer, got {shown(start)}", seq)
    removed_count = fields.get("removedCount")
    if "removedCount" in fields and (
        type(removed_count) is not int or not MIN_SAFE_INTEGER <= removed_count <= MAX_SAFE_INTEGER
    ):
        raise InvalidEvent("FOLD-2", f"'removedCount' must be a safe integer, got {shown(removed_count)}", seq)
    outcome = fields.get("outcome")
    if "outcome" in fields and outcome != CANCELED:
        raise InvalidEvent("FOLD-1", f"'outcome' may only be 'canceled', got {shown(outcome)}", seq)
    # target, inserted and start are present by now: only a fourth key can be unknown.
    if len(fields) > 3 and not fields.keys() <= SPLICE_FIELDS:
        raise InvalidEvent("FOLD-1", f"unknown splice field(s) {sorted(fields.keys() - SPLICE_FIELDS)}", seq)
    for message in inserted:
        # Parsed JSON passes on type tests alone; anything else asks the one message test.
        if not (
            type(message) is dict
            and type(message.get("id")) is str
            and message.get("role") == "user"
            and type(message.get("content")) is list
            and type(message.get("source")) is dict
        ) and (problem := message_problem(message)) is not None:
            raise InvalidEvent("DATA-2", f"inserted message: {problem}", seq)
    return target, start, removed_count, outcome, inserted  # type: ignore[return-value]
