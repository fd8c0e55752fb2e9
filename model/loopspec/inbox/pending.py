"""The one projection fold's arithmetic: two pending lists and the set of pending ids (FOLD-2, FOLD-3).

Every fold of ``agent/inbox/spliced`` records runs through :class:`PendingLists`: the model's
:func:`loopspec.inbox.fold.apply` and :func:`~loopspec.inbox.fold.replay` over
:class:`~loopspec.data.messages.UserMessage` values, and the checker's
:class:`loopspec.check.inbox_track.LeanInbox` over the parsed JSON objects.  The decoders in front
of it differ (frozen records or plain dicts); the range check, the duplicate check and the splice
itself are this module's, once.  The lists are :class:`~loopspec.inbox.lane.Lane`\\ s, so the
splices the loop writes cost O(removed + inserted), not O(pending).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Generic, Protocol, TypeVar

from loopspec.data.errors import InvalidEvent
from loopspec.inbox.lane import Lane

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Placement(Protocol[T_co]):
    """Where a checked splice goes: its list, start, how many it removes, what it inserts.

    Both decoders' records read this way (the checker's ``SpliceEffect``, the model's splice), so
    :meth:`PendingLists.apply_splice` takes the record itself and the checker needs no adapter.
    """

    @property
    def target(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def removed_n(self) -> int: ...
    @property
    def inserted(self) -> Sequence[T_co]: ...


NEXT_TURN = "next-turn"
NEXT_STEP = "next-step"


class PendingLists(Generic[T]):
    """Next-turn and next-step (keyed by their wire names) and the ids pending in either.

    ``id_of`` reads a message's id; :meth:`check_splice` refuses a splice that does not fit, :meth:`apply_splice`
    applies a checked one.  A private accumulator of one fold, never part of a value.
    """

    __slots__ = ("id_of", "lanes", "pending")

    def __init__(
        self, id_of: Callable[[T], Hashable], next_turn: Iterable[T] = (), next_step: Iterable[T] = ()
    ) -> None:
        self.id_of = id_of
        self.lanes: dict[str, Lane[T]] = {NEXT_TURN: Lane(next_turn), NEXT_STEP: Lane(next_step)}
        self.pending: set[Hashable] = {id_of(m) for lane in self.lanes.values() for m in lane.items}

    def length(self, target: str) -> int:
        lane = self.lanes[target]
        return len(lane.items) - lane.head

    def check_splice(self, target: str, start: int, removed: int, inserted: Sequence[T], seq: int) -> int:
        """FOLD-2 (the coordinates fit the list) and FOLD-3 (no id pending twice afterwards).

        Returns the target list's length before the splice (its callers report it).
        """
        lane = self.lanes[target]
        length = len(lane.items) - lane.head
        # FOLD-2: 0 <= start <= len, removedCount >= 0, start + removedCount <= len.
        if not (0 <= start <= length and removed >= 0 and start + removed <= length):
            raise InvalidEvent(
                "FOLD-2",
                f"invalid inbox splice: start {start}, removedCount {removed} do not fit {target} of length {length}",
                seq,
            )
        # The splices the loop writes insert one fresh message or none: a set lookup, no walk.
        if inserted and (removed or len(inserted) != 1 or self.id_of(inserted[0]) in self.pending):
            self._check_unique(target, start, removed, inserted, seq)
        return length

    def apply_splice(self, splice: Placement[T]) -> list[T]:
        """Apply a splice :meth:`check_splice` accepted; the messages it removed."""
        inserted = splice.inserted
        taken = self.lanes[splice.target].splice(splice.start, splice.removed_n, inserted)
        if taken:
            discard, id_of = self.pending.discard, self.id_of
            for m in taken:
                discard(id_of(m))
        if inserted:
            add, id_of = self.pending.add, self.id_of
            for m in inserted:
                add(id_of(m))
        return taken

    def _check_unique(self, target: str, start: int, removed: int, inserted: Sequence[T], seq: int) -> None:
        """FOLD-3 with a set; on a clash, the normative walk names the first repeated id."""
        lane, id_of = self.lanes[target], self.id_of
        leaving = {id_of(m) for m in lane.items[lane.head + start : lane.head + start + removed]}
        fresh: set[Hashable] = set()
        clash = False
        for m in inserted:
            mid = id_of(m)
            if mid in fresh or (mid in self.pending and mid not in leaving):
                clash = True
                break
            fresh.add(mid)
        if not clash:
            return
        items = lane.view()
        candidate = [*items[:start], *inserted, *items[start + removed :]]
        other = self.lanes[NEXT_STEP if target == NEXT_TURN else NEXT_TURN].view()
        # The same walk as SPLICE-3: next-turn first, then next-step.
        walk = candidate + other if target == NEXT_TURN else other + candidate
        seen: set[Hashable] = set()
        for m in walk:
            mid = id_of(m)
            if mid in seen:
                raise InvalidEvent("FOLD-3", f'message "{mid}" is already pending after this splice', seq)
            seen.add(mid)
        raise AssertionError("set-based and walk-based duplicate checks disagree")  # pragma: no cover
