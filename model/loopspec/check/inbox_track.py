"""Inbox tracking for the checker: the projection fold over parsed JSON (FOLD-1 … FOLD-3).

:class:`LeanInbox` decodes ``agent/inbox/spliced`` data straight from the parsed JSON (plain dicts
and lists, no freezing) and folds it with the model's own fold,
:class:`loopspec.inbox.pending.PendingLists`, whose front removals and end appends cost O(1)
amortized, so the checker's per-event cost stays flat however many messages are pending.  Its
decoder raises :class:`InvalidEvent` with the same rule, in the same order of checks, as
:meth:`loopspec.log.events.InboxSpliced.from_data`; the test suite drives it and the frozen fold
(:func:`loopspec.inbox.fold.apply`, behind the same interface in ``tests/check/fixtures.py``) over
random logs and mutations and requires identical verdicts.
"""

from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING, NamedTuple

from loopspec.data.errors import InvalidEvent
from loopspec.inbox.pending import NEXT_STEP, NEXT_TURN, PendingLists
from loopspec.log.envelope import MAX_SAFE_INTEGER, SPLICE_FIELDS

if TYPE_CHECKING:
    from typing import Protocol

else:
    Protocol = object  # the interface below is for the type checker; at run time a plain base



class SpliceEffect(NamedTuple):
    """What one valid splice record does, in the record's own terms (an immutable value).

    ``removed_count`` is ``None`` when the key is absent (SPLICE-4 tells that from a written 0);
    ``removed`` and ``inserted`` are the messages as JSON objects, for reports and live checks.
    A named tuple rather than a frozen attrs class: one is built per splice on the hot path.
    """

    target: str
    start: int
    removed_count: int | None
    outcome: str | None
    length_before: int
    removed: tuple[dict[str, object], ...]
    inserted: tuple[dict[str, object], ...]
    removed_n: int  # removed_count, 0 when absent


class InboxTracker(Protocol):
    """Two-phase folding: :meth:`splice` validates and describes a record, :meth:`commit` applies it.

    Splitting the two lets the checker report a violation with the inbox as it was *before*
    the offending record, without copying the inbox for every record.
    """

    def splice(self, data: object, seq: int) -> SpliceEffect: ...
    def commit(self, effect: SpliceEffect) -> object: ...
    def length(self, target: str) -> int: ...
    def ids(self, target: str) -> list[str]: ...


def message_problem(raw: object) -> str | None:
    """The defect :meth:`UserMessage.from_frozen` names for a non-message, else None (DATA-2)."""
    if not isinstance(raw, dict):
        return f"a message must be a JSON object, got {_js_type(raw)}"
    mid = raw.get("id")
    if not isinstance(mid, str):
        return f"a message needs a string id, got {mid!r}"
    if raw.get("role") != "user":
        return f"message {mid!r}: role must be 'user', got {raw.get('role')!r}"
    if not isinstance(raw.get("content"), list):
        return f"message {mid!r}: content must be an array"
    if not isinstance(raw.get("source"), dict):
        return f"message {mid!r}: source must be an object"
    return None


def _js_type(raw: object) -> str:
    names: dict[type, str] = {dict: "JsonObject", list: "tuple"}  # the names the frozen model reports
    return names.get(type(raw), type(raw).__name__)


class LeanInbox(PendingLists[dict[str, object]]):
    """The checker's decoder over parsed JSON in front of the one fold (:class:`PendingLists`)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(itemgetter("id"))  # C-level: the fold calls it per message

    def ids(self, target: str) -> list[str]:
        return [str(m["id"]) for m in self.lanes[target].view()]

    def splice(self, data: object, seq: int) -> SpliceEffect:
        # FOLD-1, FOLD-2, DATA-2 in InboxSpliced.from_data's order, so the first defect named is the same.
        if not isinstance(data, dict):
            raise InvalidEvent("FOLD-1", "splice data must be an object", seq)
        target = data.get("target")
        if target != NEXT_TURN and target != NEXT_STEP:
            raise InvalidEvent("FOLD-1", f"unknown inbox target {target!r}", seq)
        inserted = data.get("inserted")
        if not isinstance(inserted, list):
            raise InvalidEvent("FOLD-1", "'inserted' must be present and an array", seq)
        start = data.get("start")
        if type(start) is not int or not -MAX_SAFE_INTEGER <= start <= MAX_SAFE_INTEGER:  # not 1.0 (decisions.md G3)
            raise InvalidEvent("FOLD-2", f"'start' must be a safe integer, got {start!r}", seq)
        removed_count: int | None = None
        if "removedCount" in data:
            raw_removed = data["removedCount"]
            # is_safe_integer spelled out, as for start: a claim record pays for each call
            if type(raw_removed) is not int or not -MAX_SAFE_INTEGER <= raw_removed <= MAX_SAFE_INTEGER:
                raise InvalidEvent("FOLD-2", f"'removedCount' must be a safe integer, got {raw_removed!r}", seq)
            removed_count = raw_removed
        outcome = data.get("outcome")
        if "outcome" in data and outcome != "canceled":
            raise InvalidEvent("FOLD-1", f"'outcome' may only be 'canceled', got {outcome!r}", seq)
        if len(data) > 3 and not data.keys() <= SPLICE_FIELDS:
            raise InvalidEvent("FOLD-1", f"unknown splice field(s) {sorted(set(data) - SPLICE_FIELDS)}", seq)
        for m in inserted:
            if not (
                type(m) is dict
                and type(m.get("id")) is str
                and m.get("role") == "user"
                and type(m.get("content")) is list
                and type(m.get("source")) is dict
            ):
                raise InvalidEvent("DATA-2", f"inserted message: {message_problem(m)}", seq)
        removed = removed_count or 0
        length = self.check_splice(target, start, removed, inserted, seq)  # FOLD-2 (in range), FOLD-3
        lane = self.lanes[target]
        at = lane.head + start
        # A splice the loop writes either inserts or removes: the other side is the empty tuple, unbuilt.
        return SpliceEffect(
            target, start, removed_count, "canceled" if outcome == "canceled" else None, length,
            tuple(lane.items[at : at + removed]) if removed else (), tuple(inserted) if inserted else (), removed,
        )

    # The fold applies the effect itself (a SpliceEffect is a Placement): no frame in between on the hot path.
    commit = PendingLists.apply_splice


