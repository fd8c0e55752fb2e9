"""What the boundary's claim still owes (TURN-4, CLAIM-1, CLAIM-2, CLAIM-6): one tracker owning its fields.

A turn's first boundary owes all of next-step, then one next-turn message (TURN-4, CLAIM-1); a
later boundary owes next-step only, and after a ``step/end`` that left next-step non-empty it owes
it at once (CLAIM-6).  One synchronous call writes a claim's records (CLAIM-2), so the messages a
claim has taken so far are kept until it completes, when the live checker reads them as the
boundary's ``agent/inbox/claimed`` notifications.  :mod:`loopspec.check.lifecycle` says when a
boundary opens and when it is left, :mod:`loopspec.check.splices` records each claim record, the
phase table's choosers (:mod:`loopspec.check.phase_table`) read what is owed.  Only this class
writes the fields.
"""

from __future__ import annotations

from loopspec.check.tracker import Tracker


class ClaimOwed(Tracker):
    """The parts of the boundary's claim still due, and the messages the claim took so far."""

    __slots__ = ("batch", "completed", "done", "due_ns", "due_nt")

    # The claimed messages are read only by the live checks and the reports, never by a verdict.
    KEYED = ("completed", "due_ns", "due_nt")

    def __init__(self) -> None:
        self.due_ns = False  # CLAIM-1, CLAIM-6: the boundary still owes next-step's claim
        self.due_nt = False  # TURN-4, CLAIM-1: the turn's first boundary still owes one next-turn message
        self.batch: list[dict[str, object]] = []  # CLAIM-2: the messages this claim took so far
        self.done: tuple[dict[str, object], ...] | None = None  # the messages of a claim that just completed
        self.completed = False  # only between a claim record's checks and the table's chooser

    def copy(self) -> ClaimOwed:
        new = ClaimOwed.__new__(ClaimOwed)
        new.due_ns, new.due_nt, new.batch = self.due_ns, self.due_nt, self.batch.copy()
        new.done, new.completed = self.done, self.completed
        return new

    @property
    def owed(self) -> bool:
        """The boundary still owes a claim record."""
        return self.due_ns or self.due_nt

    # ---- boundaries ----

    def turn_opened(self, next_step: bool, next_turn: bool) -> None:
        """``turn/start`` with next-step / next-turn holding input: its first boundary owes both parts."""
        self.due_ns, self.due_nt = next_step, next_turn
        if self.batch:  # (a fresh list only when the last one holds something: a list per boundary adds up)
            self.batch = []
        self.done = None if next_step or next_turn else ()

    def step_closed(self, next_step: bool) -> None:
        """``step/end``: the next boundary owes next-step's claim at once when ``next_step`` (CLAIM-6)."""
        self.due_ns, self.due_nt = next_step, False
        if self.batch:
            self.batch = []

    def left(self) -> None:
        """A step opened: whatever this boundary's claim took is behind it."""
        if self.batch:
            self.batch = []

    def turn_closed(self) -> None:
        """The turn ended: no boundary is open."""
        self.due_ns = self.due_nt = False
        if self.batch:
            self.batch = []

    def resynchronised(self, next_step: bool, next_turn: bool) -> None:
        """``--all`` after a broken boundary: it owes what the inbox holds now."""
        self.due_ns, self.due_nt = next_step, next_turn

    # ---- claim records ----

    def took(
        self, removed: tuple[dict[str, object], ...], next_step: bool | None = None, completes: bool = False
    ) -> bool:
        """A claim record took ``removed``: of next-step (``next_step`` True), of next-turn (False), or
        at a boundary that owed nothing in particular (None).  It completes the boundary's claim
        (:meth:`complete`) when nothing is owed any more, or when ``completes`` (a later boundary's
        one record); whether it did, returned (the checker asks at every claim record)."""
        if next_step is True:
            self.due_ns = False
        elif next_step is False:
            self.due_ns = self.due_nt = False
        self.batch.extend(removed)
        if completes or not (self.due_ns or self.due_nt):
            self.complete()
            return True
        return False

    def complete(self) -> None:
        """The boundary's claim is complete: the table's chooser moves to deciding."""
        self.completed = True
        self.done = tuple(self.batch)
        self.batch = []

    def chosen(self) -> bool:
        """The table's chooser asks whether the claim just completed (and forgets it)."""
        if self.completed:
            self.completed = False
            return True
        return False

    def unread(self) -> None:
        """The live checker is about to feed the next record: no claim has completed at it yet."""
        self.done = None
