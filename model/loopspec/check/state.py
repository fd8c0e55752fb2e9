"""The checker's mutable per-log state and how it records a violation.

This is a private accumulator of one check run (like :class:`loopspec.inbox.fold.InboxProjector`),
never part of the model's state: plain attributes with ``__slots__`` so the per-event path
allocates nothing.  Handlers in :mod:`loopspec.check.lifecycle`, :mod:`loopspec.check.splices`
and :mod:`loopspec.check.step_body` read and update it; four rules' bookkeeping is a tracker of its own
(:class:`~loopspec.check.wake_latch.WakeLatch` for TURN-5, :class:`~loopspec.check.claim_owed.ClaimOwed`
for what the boundary's claim owes, :class:`~loopspec.check.open_step.OpenStep` for the open step's
entries and calls, :class:`~loopspec.check.step_outcome.StepOutcome` for what the last closed step
says of its turn).  REPAIR-2's two flags and the time REPAIR-3 compares stay slots: the envelope path
(:meth:`loopspec.check.machine.LogChecker.feed_event`, the readers' scans) reads or writes them at
every record.  :meth:`CheckState.violate` turns a broken
rule into a :class:`~loopspec.check.verdict.Violation` with the state *before* the offending
event and the few events that set it up.
"""

from __future__ import annotations

from collections import deque

from loopspec.check.claim_owed import ClaimOwed
from loopspec.check.describe import event_ref
from loopspec.check.inbox_track import InboxTracker, SpliceEffect
from loopspec.check.open_step import OpenStep
from loopspec.check.step_outcome import StepOutcome
from loopspec.check.verdict import CheckOptions, StateSnapshot, Violation
from loopspec.check.wake_latch import WakeLatch
from loopspec.inbox.pending import NEXT_STEP, NEXT_TURN
from loopspec.loop.phase_names import DECIDING as DECIDING  # the checker's phases: see below
from loopspec.loop.phase_names import IDLE as IDLE
from loopspec.loop.phase_names import STEPPING as STEPPING

# Where the log is in the loop's lifecycle (the phase table, loopspec.check.phase_table): between
# turns; at a boundary whose claim is still due; after the claim, waiting for the decision; inside
# a step; after a step/end with next-step empty (turn-stopping or a tool continuation may follow).
# Three of them are the loop's own phases (loopspec.loop.phase_names); the other two split the loop's
# deciding and stopping where a log alone cannot tell them apart.
CLAIM_DUE, AFTER_STEP = "claim-due", "after-step"

CONTEXT = 5
SHOWN_IDS = 8


class StopCheck(Exception):
    """Raised by :meth:`CheckState.violate` when no more violations are wanted."""


def _shown(ids: list[str]) -> tuple[str, ...]:
    if len(ids) <= SHOWN_IDS:
        return tuple(ids)
    return (*ids[: SHOWN_IDS - 2], "…", *ids[-2:])


class CheckState:
    """Everything the checker knows about one log at one point of it."""

    __slots__ = (
        "after_end_seed",
        "claim",
        "context",
        "event",
        "events",
        "expect_end_seed",
        "file",
        "inbox",
        "keys",
        "last_effect",
        "last_end",
        "last_step",
        "last_turn",
        "line",
        "next_seq",
        "options",
        "phase",
        "prev_time",
        "repeats",
        "seq",
        "step",
        "steps_in_turn",
        "this_step",
        "turn",
        "violations",
        "wake",
    )

    def __init__(self, file: str, options: CheckOptions, inbox: InboxTracker) -> None:
        self.file = file
        self.options = options
        self.inbox = inbox
        self.next_seq = 0  # LOG-2: the seq the next event must carry
        self.line = 0
        self.seq: int | None = None
        self.event: object = None
        self.events = 0
        self.prev_time: int | None = None  # REPAIR-3 compares closers with the event before them
        self.last_turn = 0
        self.turn: int | None = None
        self.step: int | None = None
        self.steps_in_turn = 0
        self.phase = IDLE
        self.claim = ClaimOwed()  # TURN-4, CLAIM-1, CLAIM-2, CLAIM-6: what the boundary's claim still owes
        self.last_effect: SpliceEffect | None = None  # the last valid splice, for live checks
        self.this_step = OpenStep()  # the open step's entries, model side and calls
        self.last_step = StepOutcome()  # RESULT-6, RESULT-7, STEP-4, DECIDE-6, CANCEL-5: how the last step ended
        self.wake = WakeLatch()  # TURN-5, CHAIN-1, CANCEL-4, REPAIR-4: what may start the next turn
        self.last_end: str | None = None
        self.expect_end_seed = False  # REPAIR-2: the event after turn/end interrupted
        self.after_end_seed = False
        self.context: deque[tuple[int, object]] = deque(maxlen=CONTEXT)
        self.violations: list[Violation] = []
        self.repeats: list[int] = []
        self.keys: list[object] = []

    # ---- reading the inbox ----

    def nt_len(self) -> int:
        return self.inbox.length(NEXT_TURN)

    def ns_len(self) -> int:
        return self.inbox.length(NEXT_STEP)

    def pending_text(self) -> str:
        return f"next-turn {self._ids(NEXT_TURN)} and next-step {self._ids(NEXT_STEP)}"

    def _ids(self, target: str) -> str:
        ids = self.inbox.ids(target)
        return "[" + ", ".join(_shown(ids)) + "]"

    def snapshot(self) -> StateSnapshot:
        nt, ns = self.inbox.ids(NEXT_TURN), self.inbox.ids(NEXT_STEP)
        return StateSnapshot(
            self.phase, self.last_turn, self.turn, self.step, self.steps_in_turn,
            _shown(nt), _shown(ns), len(nt), len(ns),
        )

    # ---- recording ----

    def violate(self, rule: str, message: str, because: str = "", key: object = None) -> None:
        """Record a broken rule at the current event; raise :class:`StopCheck` when done.

        ``because`` holds the facts of this case only (what the log showed that breaks the rule);
        the rule's norm and its reason come from the catalogue when the report is written.

        ``key`` folds a run of identical complaints (e.g. every chunk of a misnumbered step,
        LOG-3) into one violation with a repeat count, so ``--all`` does not cascade.
        """
        if key is not None and self.keys and self.keys[-1] == key:
            self.repeats[-1] += 1
            return
        self.violations.append(
            Violation(
                file=self.file,
                line=self.line,
                seq=self.seq,
                rule=rule,
                message=message,
                because=because,
                state=self.snapshot(),
                event=event_ref(self.event, self.line) if self.event is not None else None,
                context=tuple(event_ref(obj, line) for line, obj in self.context),
            )
        )
        self.repeats.append(0)
        self.keys.append(key)
        if not self.options.all or len(self.violations) >= self.options.max_violations:
            raise StopCheck
