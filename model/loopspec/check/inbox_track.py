"""Inbox tracking for the checker: a lean fold and the normative one behind one interface (FOLD-1 … FOLD-3).

:class:`LeanInbox` folds ``agent/inbox/spliced`` data straight from the parsed JSON (plain dicts
and lists, no freezing) with lanes whose front removals and end appends cost O(1) amortized, so
the checker's per-event cost stays flat however many messages are pending.  :class:`ModelInbox`
does the same through :func:`loopspec.inbox.fold.apply` on frozen events.  Both raise
:class:`InvalidEvent` with the same rule, in the same order of checks, as
:meth:`loopspec.log.events.InboxSpliced.from_data` and :func:`loopspec.inbox.fold.apply`; the test suite
drives both over random logs and mutations and requires identical verdicts.
"""

from __future__ import annotations

from loopspec.data.errors import InvalidEvent
from loopspec.data.lean_typing import NamedTuple
from loopspec.inbox.lane import Lane
from loopspec.log.envelope import MAX_SAFE_INTEGER, SPLICE_FIELDS, is_safe_integer

TYPE_CHECKING = False  # not imported from typing: see loopspec.data.lean_typing
if TYPE_CHECKING:
    from typing import Protocol

    from loopspec.data.messages import InboxState
else:
    Protocol = object  # the interface below is for the type checker; at run time a plain base

NEXT_TURN = "next-turn"
NEXT_STEP = "next-step"


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
    def commit(self, effect: SpliceEffect) -> None: ...
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


class LeanInbox:
    """The checker's fast inbox fold over parsed JSON; same verdicts as :func:`loopspec.inbox.fold.apply`."""

    __slots__ = ("lanes", "pending")

    def __init__(self) -> None:
        self.lanes: dict[str, Lane[dict[str, object]]] = {NEXT_TURN: Lane(), NEXT_STEP: Lane()}
        self.pending: set[object] = set()  # ids are strings once DATA-2 holds

    def length(self, target: str) -> int:
        lane = self.lanes[target]
        return len(lane.items) - lane.head

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
            if not is_safe_integer(raw_removed):
                raise InvalidEvent("FOLD-2", f"'removedCount' must be a safe integer, got {raw_removed!r}", seq)
            assert isinstance(raw_removed, int)
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
        lane = self.lanes[target]
        length = len(lane)
        removed = removed_count or 0
        # FOLD-2: 0 <= start <= len, removedCount >= 0, start + removedCount <= len.
        if not (0 <= start <= length and removed >= 0 and start + removed <= length):
            raise InvalidEvent(
                "FOLD-2",
                f"invalid inbox splice: start {start}, removedCount {removed} do not fit {target} of length {length}",
                seq,
            )
        if inserted and not (removed == 0 and len(inserted) == 1 and inserted[0]["id"] not in self.pending):
            self._check_unique(target, start, removed, inserted, seq)
        at = lane.head + start
        return SpliceEffect(
            target, start, removed_count, "canceled" if outcome == "canceled" else None, length,
            tuple(lane.items[at : at + removed]), tuple(inserted), removed,
        )

    def commit(self, effect: SpliceEffect) -> None:
        taken = self.lanes[effect.target].splice(effect.start, effect.removed_n, effect.inserted)
        for m in taken:
            self.pending.discard(m["id"])
        for m in effect.inserted:
            self.pending.add(m["id"])

    def _check_unique(
        self, target: str, start: int, removed: int, inserted: list[dict[str, object]], seq: int
    ) -> None:
        """FOLD-3 with a set; on a clash, the normative walk names the first repeated id."""
        lane = self.lanes[target]
        leaving = {m["id"] for m in lane.items[lane.head + start : lane.head + start + removed]}
        fresh: set[object] = set()
        clash = False
        for m in inserted:
            mid = m["id"]
            if mid in fresh or (mid in self.pending and mid not in leaving):
                clash = True
                break
            fresh.add(mid)
        if not clash:
            return
        items = lane.view()
        candidate = items[:start] + inserted + items[start + removed :]
        other = self.lanes[NEXT_STEP if target == NEXT_TURN else NEXT_TURN].view()
        walk = candidate + other if target == NEXT_TURN else other + candidate
        seen: set[object] = set()
        for m in walk:
            if m["id"] in seen:
                raise InvalidEvent("FOLD-3", f'message "{m["id"]}" is already pending after this splice', seq)
            seen.add(m["id"])
        raise AssertionError("set-based and walk-based duplicate checks disagree")  # pragma: no cover


class ModelInbox:
    """The same interface over the normative fold (:func:`loopspec.inbox.fold.apply`), for cross-checking.

    The model is imported when one is made: ``loopspec check`` itself never folds through it.
    """

    def __init__(self) -> None:
        from loopspec.data.messages import EMPTY_INBOX

        self.state: InboxState = EMPTY_INBOX
        self.planned: InboxState = EMPTY_INBOX

    def length(self, target: str) -> int:
        from loopspec.data.messages import InboxTarget

        return len(self.state.lane(InboxTarget(target)))

    def ids(self, target: str) -> list[str]:
        from loopspec.data.messages import InboxTarget

        return [m.id.value for m in self.state.lane(InboxTarget(target))]

    def splice(self, data: object, seq: int) -> SpliceEffect:
        from loopspec.data.json_value import freeze
        from loopspec.inbox.fold import apply
        from loopspec.log.events import InboxSpliced, SessionEvent
        from loopspec.log.kinds import SPLICED

        frozen = freeze(data)
        new = apply(self.state, SessionEvent(SPLICED, seq, 0, frozen))
        record = InboxSpliced.from_data(frozen, seq)
        lane = self.state.lane(record.target)
        taken = lane[record.start : record.start + record.removed]
        self.planned = new
        return SpliceEffect(
            record.target.value, record.start, record.removed_count, record.outcome, len(lane),
            tuple(m.to_json() for m in taken), tuple(m.to_json() for m in record.inserted), record.removed,
        )

    def commit(self, effect: SpliceEffect) -> None:
        self.state = self.planned
