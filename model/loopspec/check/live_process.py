"""Which process of the agent a live stream is in (LOG-5 across process boundaries): one tracker owning its fields.

A ``note`` record splits the stream.  ``crash: true`` ends a process whose later writes (say, the
cancel splices of its disposal) may still be reported but never reached the persisted log: the
records up to the next note are skipped, and that note starts the next process.  ``crash: false``
is a graceful disposal, whose writes are persisted; they are marked as usual until the teardown
detaches the stream's observer, and from the first that goes unmarked none of the ending
process's writes is marked any more (decisions G2).  The next note, or the successor's
``session/end-seed``, starts the next process.  A successor appends crash repair's closers and
its end-seed while nothing records, so those may go unmarked too (LOG-5), until the first marked
record.  :class:`loopspec.check.live.LiveChecker` asks
this class and reads ``dead``; only this class writes the fields.
"""

from __future__ import annotations

from loopspec.check.tracker import Tracker
from loopspec.log.kinds import END_SEED
from loopspec.log.repair_closers import CLOSER_KINDS, is_repair_closer

# What a record means for the process: nothing; it crashed (what it owed is void); a new one starts
# after a crash (idle, owing nothing); a new one starts after a graceful disposal (idle; what the
# disposal owed is still owed).
SAME, CRASHED, RESTARTED, REPLACED = "same", "crashed", "restarted", "replaced"


class ProcessBoundary(Tracker):
    """Where the stream is among the agent's processes."""

    __slots__ = ("dead", "ended", "gap_ok", "seed_gap", "unheard")

    def __init__(self) -> None:
        self.dead = False  # after a crash note: the dead process's records never persisted
        self.gap_ok = False  # after a crash: the closers and end-seed of the next process go unmarked
        self.ended = False  # a graceful disposal ended the process; its successor has not begun yet
        self.seed_gap = False  # the successor began: its end-seed may still go unmarked
        self.unheard = False  # the ending process's observer was detached: nothing of it is marked now

    def noted(self, crash: object) -> str:
        """A ``note`` record with this ``crash`` field: what it means for the process."""
        if self.dead:  # the next note after a crash is the new process
            self.dead, self.gap_ok = False, True
            return RESTARTED
        if crash is True:
            self.dead = True
            return CRASHED
        if crash is False:
            self.ended = True
            return SAME
        return self._successor()

    def _successor(self) -> str:
        if not self.ended:
            return SAME
        self.ended, self.seed_gap, self.unheard = False, True, False
        return REPLACED

    def unmarked(self, otype: object, obj: object) -> tuple[bool, str]:
        """A log record the stream did not mark: whether LOG-5 allows it, and what it means for the
        process (its end-seed starts the successor of a graceful disposal: :data:`REPLACED`)."""
        if (self.ended or self.seed_gap) and otype == END_SEED:
            change = self._successor()
            self.seed_gap = False  # the successor's own writes are marked from here on
            return True, change
        if self.dead or self.gap_ok:
            return otype in CLOSER_KINDS, SAME  # REPAIR-1, REPAIR-2
        if self.ended:  # the ending process's writes its detached observer did not hear (a tail)
            self.unheard = True
            return True, SAME
        return self.seed_gap and is_repair_closer(obj), SAME  # the successor's closers (REPAIR-1)

    def marked(self) -> bool:
        """A marked record: the successor's unmarked gap is over.  False when the ending process was
        no longer heard: an observer the teardown detached hears nothing more of it."""
        self.gap_ok = self.seed_gap = False
        return not (self.ended and self.unheard)
