"""Inbox tracking for the checker: the projection fold over parsed JSON (FOLD-1 … FOLD-3).

:class:`LeanInbox` decodes ``agent/inbox/spliced`` data straight from the parsed JSON (plain dicts
and lists, no freezing) and folds it with the model's own fold,
:class:`loopspec.inbox.pending.PendingLists`, whose front removals and end appends cost O(1)
amortized, so the checker's per-event cost stays flat however many messages are pending.  The
record is read by :func:`loopspec.log.splice_data.read_splice`, the one reader of a splice's data,
which :meth:`loopspec.log.events.InboxSpliced.from_data` runs over the model's frozen events; the
test suite still drives this tracker and the frozen fold (:func:`loopspec.inbox.fold.apply`,
behind the same interface in ``tests/check/fixtures.py``) over random logs and mutations and
requires identical verdicts.
"""

from __future__ import annotations

from operator import itemgetter
from typing import NamedTuple, Protocol

from loopspec.inbox.pending import PendingLists
from loopspec.log.splice_data import read_splice


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


_new_effect = tuple.__new__


class InboxTracker(Protocol):
    """Two-phase folding: :meth:`splice` validates and describes a record, :meth:`commit` applies it.

    Splitting the two lets the checker report a violation with the inbox as it was *before*
    the offending record, without copying the inbox for every record.
    """

    def splice(self, data: object, seq: int) -> SpliceEffect: ...
    def commit(self, effect: SpliceEffect) -> object: ...
    def length(self, target: str) -> int: ...
    def ids(self, target: str) -> list[str]: ...


class LeanInbox(PendingLists[dict[str, object]]):
    """The checker's inbox: the one fold (:class:`PendingLists`) over parsed JSON messages, each record
    read by the one splice reader and described as a :class:`SpliceEffect`."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(itemgetter("id"))  # C-level: the fold calls it per message

    def ids(self, target: str) -> list[str]:
        return [str(m["id"]) for m in self.lanes[target].view()]

    def splice(self, data: object, seq: int) -> SpliceEffect:
        # FOLD-1, FOLD-2, DATA-2: the one reader of a splice's data, the model's events' too.
        target, start, removed_count, outcome, inserted = read_splice(data, seq)
        removed = removed_count or 0
        length = self.check_splice(target, start, removed, inserted, seq)  # FOLD-2 (in range), FOLD-3
        lane = self.lanes[target]
        at = lane.head + start
        # A splice the loop writes either inserts or removes: the other side is the empty tuple, unbuilt.
        # Built by tuple.__new__: a NamedTuple's own constructor is a Python frame per splice.
        return _new_effect(SpliceEffect, (
            target, start, removed_count, outcome, length,
            tuple(lane.items[at : at + removed]) if removed else (), tuple(inserted) if inserted else (), removed,
        ))

    # The fold applies the effect itself (a SpliceEffect is a Placement): no frame in between on the hot path.
    commit = PendingLists.apply_splice


