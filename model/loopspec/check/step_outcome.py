"""What the last closed step of the open turn says about how the turn goes on (RESULT-6, RESULT-7,
STEP-4, DECIDE-6, CANCEL-5, END-3): one tracker owning its fields.

:mod:`loopspec.check.outcome` classifies a step at its ``step/end`` (from the step's summary and the
checker's CANCEL-5 and REPAIR-1 bookkeeping) and judges the records after it by that class;
:mod:`loopspec.check.lifecycle` and :mod:`loopspec.check.splices` say when a turn or a boundary
leaves it behind.  Only this class writes the fields.
"""

from __future__ import annotations

from loopspec.check.tracker import Tracker

# The classes of a closed step: nothing beyond the phase; a text answer settled the turn's end
# (RESULT-6); a tool call left unanswered (RESULT-7) means a failure, an entry that never happened
# (STEP-4, DECIDE-6) an abort or failure, and a call skipped before dispatch (CANCEL-5) an abort:
# in each of these three, the turn/end comes next.
ANY, TEXT_ANSWER, UNANSWERED, NO_ENTRY, SKIPPED = "", "text-answer", "unanswered", "no-entry", "skipped"
ENDS_AT_ONCE = (UNANSWERED, NO_ENTRY, SKIPPED)


class StepOutcome(Tracker):
    """The class of the last closed step, the calls it left open, and whether the turn's end is settled."""

    __slots__ = ("after", "after_calls", "ends_at_once", "listener_edit", "turn_ends")

    # ends_at_once is read for every splice and step/end, so it is a field set with ``after``
    # rather than a property; being ``after in ENDS_AT_ONCE``, it is not keyed apart.
    # listener_edit is keyed by its rule alone: a later verdict names its seq, but states equal but
    # for numbering are one state to the exploration.
    KEYED = ("after", "after_calls", "listener_edit_rule", "turn_ends")

    def __init__(self) -> None:
        self.after = ANY  # what the last closed step says may follow it
        self.ends_at_once = False  # the step was aborted or failed: its turn/end (or crash repair's) comes next
        self.after_calls: tuple[str, ...] = ()  # the calls the last UNANSWERED step left open
        self.turn_ends = False  # the open turn's last step set its end (a text answer, or turn-stopping ran)
        # END-3: the seq of the first public edit between the step/end and the turn's end that only an
        # agent/error listener can have made, with what to say if the turn does not end in error.
        self.listener_edit: tuple[int, str, str] | None = None

    def closed(self, after: str, calls: tuple[str, ...] = ()) -> None:
        """A ``step/end`` classed ``after``; ``calls``, the ones an UNANSWERED step left open."""
        self.after = after
        self.ends_at_once = after in ENDS_AT_ONCE
        if after == UNANSWERED:
            self.after_calls = calls
        self.turn_ends = after == TEXT_ANSWER

    @property
    def listener_edit_rule(self) -> str:
        """The rule an edit after the step/end breaks unless the turn ends ``error`` ("" when none came)."""
        return "" if self.listener_edit is None else self.listener_edit[1]

    def settled(self) -> None:
        """What the step said is judged (a new boundary, a new step, or ``--all`` re-synchronising)."""
        self.after, self.ends_at_once, self.listener_edit = ANY, False, None

    def edited_by_listener(self, seq: int, rule: str, detail: str) -> None:
        """A public edit at ``seq`` after the step/end that only a failure's ``agent/error`` listener makes
        (END-3): unless the turn ends ``error`` (or crash repair closes it), ``rule`` is broken as ``detail``."""
        if self.listener_edit is None:
            self.listener_edit = (seq, rule, detail)

    def stopping_ran(self) -> None:
        """Turn-stopping ran after the step (DECIDE-6): it set the turn's end, unless it ended its turn at once."""
        if not self.ends_at_once:
            self.turn_ends = True

    def turn_changed(self) -> None:
        """A turn opened or closed: no step of it has closed yet."""
        self.after, self.ends_at_once, self.turn_ends, self.listener_edit = ANY, False, False, None
