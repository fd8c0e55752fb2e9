"""What may start the next turn (TURN-5, CHAIN-1, CANCEL-4, REPAIR-4): one tracker owning its fields.

A turn starts only after a waking send (a send-shaped insertion, one message appended at the end
of a list, while no turn is open), by chaining after a normal end that left input pending
(CHAIN-1), or by a wake latched when a waking send came into a turn that then ended aborted
(CANCEL-4).  Whether a send in an aborted turn came before or after the abort is read from the
records around it: the loop checks for an abort right before every ``step/start`` and every claim,
an aborted stream announces no call and an aborted tool phase starts none, and an aborted step's
``step/end`` is followed directly by its ``turn/end``.  The checks of :mod:`loopspec.check.lifecycle`,
:mod:`loopspec.check.splices` and :mod:`loopspec.check.step_calls` call these methods; only this
class reads or writes the fields.

A plain class with ``__slots__`` (the checker's per-event path allocates nothing): the
exploration copies it with :meth:`copy` and keys it by :meth:`key` (:mod:`loopspec.explore.log_rules`).
"""

from __future__ import annotations

from loopspec.check.tracker import Tracker

# What allowed a turn/start (WakeLatch.turn_started): a waking send or a chain; only a latched wake.
WOKEN, LATCHED = "woken", "latched"


class WakeLatch(Tracker):
    """TURN-5's bookkeeping: what may start the next turn, and whether a send in this turn latched a wake."""

    __slots__ = ("chain", "latch", "latch_pending", "latch_stash", "nt_send_in_turn", "quiet_since_step_end",
                 "send_since_end")

    def __init__(self) -> None:
        self.send_since_end = False  # a send-shaped insertion since the last turn/end or end-seed
        self.chain = False  # CHAIN-1 allows the next turn/start
        self.latch = False  # CANCEL-4 allows the next turn/start
        # Input was pending at some point since the end that latched: the latch's replay reads the inbox
        # once, between the turn/end and the next turn/start, and an edit may land on either side of
        # it (spec/loop-grain.md rows 20-21 and 2: the hops ending and starting).
        self.latch_pending = False
        self.nt_send_in_turn = False  # a send into next-turn inside the open turn, not known to precede its abort
        self.latch_stash = False  # nt_send_in_turn before the last tool/call (a skipped one gives it back)
        self.quiet_since_step_end = False  # no record since the last step/end (its turn/end may come)

    # ---- the log's records ----

    def turn_started(self, pending: bool) -> str | None:
        """A ``turn/start`` with input ``pending`` or not: what allowed it (:data:`WOKEN` or
        :data:`LATCHED`: only a wake latched after an abort, replayed only when input was pending at
        the replay, CANCEL-4, which came at some point since the end), or None when nothing did."""
        latched = self.latch and (pending or self.latch_pending)
        cause = WOKEN if self.send_since_end or self.chain else LATCHED if latched else None
        self.send_since_end = self.chain = self.latch = self.nt_send_in_turn = self.quiet_since_step_end = False
        self.latch_pending = False
        return cause

    def latched_without_input(self) -> bool:
        """Whether a latch stands though no input was pending at any point since the end (TURN-5's wording)."""
        return self.latch and not self.latch_pending

    def turn_closed(self, chains: bool, may_latch: bool, pending: bool) -> None:
        """A ``turn/end`` leaving input ``pending`` or not: it chains (CHAIN-1), or its signal may have
        been aborted by a cause other than a disposal, so that a send into next-turn after the abort
        latched a wake (CANCEL-4)."""
        self.chain = chains
        self.latch = may_latch and self.nt_send_in_turn
        self.latch_pending = self.latch and pending
        self.send_since_end = False

    def restarted(self) -> None:
        """session/end-seed: after a restart nothing runs until a waking send (REPAIR-4)."""
        self.send_since_end = self.chain = self.latch = False

    def abort_checked(self) -> None:
        """A step/start or a claim: the loop checked for an abort right before it, so a send before latched nothing."""
        self.nt_send_in_turn = self.quiet_since_step_end = False

    def step_closed(self) -> None:
        self.quiet_since_step_end = True  # the next record says whether an abort came before this step/end

    def public_edit(self, step_open: bool, send_shaped: bool, turn_open: bool, into_next_turn: bool,
                    pending: bool = False) -> None:
        """A public edit, a send when ``send_shaped`` (one message appended at the end of a list).

        Outside a turn a send may wake the agent; into next-turn inside one it may latch a wake.  An
        edit between a chaining turn end and the next ``turn/start`` leaves the chain standing: the
        loop hops from the end to the next turn, and a call can land there (spec/loop-grain.md, row
        19; decisions G16)."""
        if self.quiet_since_step_end and not step_open:
            # An aborted step's step/end is followed directly by its turn/end, so the abort came
            # after this step/end, and a send inside the step came before it and latched nothing.
            self.nt_send_in_turn = self.quiet_since_step_end = False
        if self.latch and not turn_open and pending:
            self.latch_pending = True
        if send_shaped:
            if not turn_open:
                self.send_since_end = True
            elif into_next_turn:
                self.nt_send_in_turn = True

    def calls_announced(self) -> None:
        self.nt_send_in_turn = False  # an aborted stream announces no call, so a send before came earlier

    def call_started(self) -> None:
        # No call starts after an abort, so a send before this start latched nothing, unless this is
        # a skipped call's tool/call (its result, next, gives the send back: skipped_call).
        self.latch_stash, self.nt_send_in_turn = self.nt_send_in_turn, False

    def skipped_call(self) -> None:
        self.nt_send_in_turn = self.latch_stash  # the skipped call's tool/call says nothing of the abort
