"""A pending list for long folds: a Python list with a moving head.

The projection fold (:class:`loopspec.inbox.pending.PendingLists`, over model values for the
model and over parsed JSON for the checker) keeps each inbox list in a :class:`Lane`, so the
splices the loop writes cost O(removed + inserted), not O(pending): a claim or cancel at the
front moves the head, a send at the end appends.  Only edits in the middle pay for a list copy.
Never part of the model's (frozen) state.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")

COMPACT_AFTER = 64  # dead head slots tolerated before they are dropped (amortized O(1) per removal)


class Lane(Generic[T]):
    __slots__ = ("head", "items")

    def __init__(self, items: Iterable[T] = ()) -> None:
        self.items: list[T] = list(items)
        self.head = 0

    def __len__(self) -> int:
        return len(self.items) - self.head

    def view(self) -> list[T]:
        return self.items[self.head :]

    def splice(self, start: int, removed: int, inserted: Sequence[T]) -> list[T]:
        """Replace ``removed`` items at ``start`` (already validated) by ``inserted``; the removed items."""
        at = self.head + start
        taken = self.items[at : at + removed]
        if start == 0 and not inserted:
            self.head += removed
            if self.head > COMPACT_AFTER and self.head * 2 > len(self.items):
                del self.items[: self.head]
                self.head = 0
        elif removed == 0 and at == len(self.items):
            self.items.extend(inserted)
        else:
            self.items[at : at + removed] = inserted
        return taken
