"""What the checker knows of the open step (STEP-3, STEP-4, DECIDE-6, LOG-4, LOG-10, LOG-11, RESULT-6,
RESULT-7, REPAIR-1, CANCEL-5): one tracker owning its fields.

The handlers of :mod:`loopspec.check.step_body` and :mod:`loopspec.check.step_calls` judge each record
of a step as it comes and record what it did through these methods; :mod:`loopspec.check.outcome`
reads the step's :class:`~loopspec.log.step_summary.StepSummary` at ``step/end`` to say how the turn
may go on, and :mod:`loopspec.check.lifecycle` opens and closes the step.  Only this class writes
the fields.  What a step's records say (entries, model side, calls started and answered, the last
answer) is the summary's, the one fold of a step the judge and reproduce read too; what only the
checker needs (LOG-10's announced calls still open, LOG-11's queues, the seqs results cite,
CANCEL-5's skip, REPAIR-1's repair) is this tracker's own.

Closing a step forgets its calls but keeps its summary (``entered``, ``answered``,
``answer_calls``) and ``needs_entry`` and ``repairing`` until the next step opens: a record
between steps is judged by the phase and by :attr:`CheckState.after`, never by these, but the
exploration keys the checker by every field it names in ``KEYED`` (:mod:`loopspec.explore.log_rules`),
so what is kept between steps is part of a state as it always was.
"""

from __future__ import annotations

from loopspec.check.tracker import Tracker
from loopspec.log.step_summary import StepSummary


class OpenStep(Tracker):
    """The open step's entries, model side and tool calls, as the checker has read them so far."""

    __slots__ = (
        "abort_reached",
        "announced",
        "call_seqs",
        "in_step",
        "landed",
        "needs_entry",
        "repairing",
        "skipping",
        "started_at",
        "streaming",
        "summary",
        "unanswered",
        "unstarted",
    )

    # The exploration keys what a later verdict reads, by name: the summary through the five views
    # below.  The seqs of the step's tool/calls are read only against the seq a result cites, and
    # the model's results cite them from the same log, so states equal but for numbering cite alike.
    KEYED = ("abort_reached", "announced", "answer_calls", "answered", "calls", "entered", "landed", "model_started",
             "needs_entry", "repairing", "skipping", "started_at", "unanswered", "unstarted")

    def __init__(self) -> None:
        self.summary = StepSummary()  # the step's records, folded (log.step_summary)
        self.in_step = False  # a step is open: its model side and calls are the summary's
        self.needs_entry = False  # STEP-4, DECIDE-6: the step must enter a message
        self.call_seqs: dict[str, int] = {}  # LOG-4, REPAIR-1: the seq of each call's first tool/call
        self.announced: set[str] = set()  # LOG-10: calls announced and not answered yet
        self.unstarted: list[str] = []  # LOG-11: announced calls not started, in call order
        self.unanswered: list[str] = []  # LOG-11: announced or started calls not answered, in call order
        self.started_at: tuple[int, str] | None = None  # CANCEL-5: the seq and call of the last tool/call
        self.skipping = False  # CANCEL-5: the step answered a call skipped by its abort
        self.abort_reached = False  # CANCEL-5: a result with the skipped code: the step was aborted
        self.landed: int | None = None  # CANCEL-5: the seq of an inbox record after the skipped calls
        self.repairing = False  # REPAIR-1: crash repair's synthetic tool/result closes the step
        # The step's next chunk, if in order, is judged by its seq, step and time alone (the readers'
        # fast paths read this after every other record): in a step, its model side begun, and no
        # abort skipped a call.  A field kept by the methods below, not a property: a call per record.
        self.streaming = False

    def copy(self) -> OpenStep:
        """An independent copy, containers copied (the exploration forks the checker at every state)."""
        new = OpenStep.__new__(OpenStep)
        new.summary, new.in_step, new.needs_entry = self.summary.copy(), self.in_step, self.needs_entry
        new.call_seqs, new.announced = self.call_seqs.copy(), self.announced.copy()
        new.unstarted, new.unanswered, new.started_at = self.unstarted.copy(), self.unanswered.copy(), self.started_at
        new.skipping, new.abort_reached, new.repairing = self.skipping, self.abort_reached, self.repairing
        new.streaming, new.landed = self.streaming, self.landed
        return new

    # ---- the summary, as the checker reads it ----

    @property
    def entered(self) -> int:
        """STEP-3, STEP-4: the step's ``user/message`` records (the last step's, between steps)."""
        return self.summary.entered

    @property
    def model_started(self) -> bool:
        """STEP-3: the open step's model side began (no more entries)."""
        return self.in_step and self.summary.model_side

    @property
    def calls(self) -> set[str]:
        """LOG-4, LOG-10: the open step's calls started and not answered yet."""
        return self.summary.open_calls if self.in_step else set()

    @property
    def answered(self) -> set[str]:
        """RESULT-7: the calls the step's tool/results answer (the last step's, between steps)."""
        return self.summary.answered

    @property
    def answer_calls(self) -> tuple[str, ...] | None:
        """RESULT-6: the calls of the step's last ``assistant/message`` (the last step's, between steps)."""
        return self.summary.answer_calls

    # ---- opening and closing ----

    def opened(self, needs_entry: bool) -> None:
        """A new step, at its entry block: it must enter a message when ``needs_entry``."""
        self.summary.restart()
        self.needs_entry = needs_entry
        self.repairing = False
        self.closed()
        self.in_step = True

    def closed(self) -> None:
        """The step closed (or a new one opens): none of its calls is pending any more."""
        self.in_step = self.streaming = self.skipping = self.abort_reached = False
        self.started_at = self.landed = None
        # Most steps call no tool, and each step is closed twice (at its step/end and as the next
        # opens): a container is replaced only when it holds something.
        if self.announced:
            self.announced = set()
        if self.unstarted:
            self.unstarted = []
        if self.unanswered:
            self.unanswered = []
        if self.call_seqs:
            self.call_seqs = {}

    # ---- recording the step's records ----

    def entry(self) -> None:
        """A ``user/message``."""
        self.summary.entry()

    def model_side(self) -> None:
        """The first model-side record closes the entry block (STEP-3)."""
        self.summary.model_record()
        self.streaming = self.in_step and not self.skipping

    def turn_closed(self) -> None:
        """The turn opened or closed: no step, so no model side, is open."""
        self.in_step = self.streaming = False

    def announced_again(self, call: str) -> bool:
        """An ``assistant/message`` announces ``call``: whether it was announced already (LOG-10)."""
        again = call in self.announced
        self.announced.add(call)
        return again

    def answer_announced(self, calls: tuple[str, ...], queued: tuple[str, ...]) -> None:
        """An ``assistant/message`` announced ``calls``; ``queued`` are the ones not pending yet (LOG-11)."""
        self.unstarted += queued
        self.unanswered += queued
        self.summary.answer(calls)  # RESULT-6, RESULT-7: the step's answer is its last assistant/message
        self.streaming = self.in_step and not self.skipping

    def call_started(self, call: str, seq: int) -> None:
        """A ``tool/call`` starting ``call`` at ``seq`` (its order is judged before, LOG-11)."""
        if call in self.unstarted:
            self.unstarted.remove(call)
        elif call not in self.unanswered:
            self.unanswered.append(call)  # LOG-10 reports a start of a call never announced
        self.started_at = (seq, call)
        self.call_seqs.setdefault(call, seq)  # what its result cites (a second start is LOG-10's)
        self.summary.start(call)
        self.streaming = self.in_step and not self.skipping

    def results_came(self, ids: list[str], synthetic: bool) -> None:
        """A ``tool/result`` answering ``ids`` arrived (before it is judged): crash repair's, when ``synthetic``."""
        self.repairing = self.repairing or synthetic  # only crash repair writes these, right before its step/end

    def call_answered(self, call: str, synthetic: bool) -> None:
        """One call of a ``tool/result`` is answered (its order is judged before, LOG-11)."""
        if call in self.unanswered:
            self.unanswered.remove(call)
        if synthetic and call in self.unstarted:
            self.unstarted.remove(call)

    def results_done(self, ids: list[str]) -> None:
        """A ``tool/result``'s calls are answered, after it was judged; a second result answers nothing (LOG-10)."""
        self.summary.results(ids)
        self.announced.difference_update(ids)
        self.streaming = self.in_step and not self.skipping

    def skipped(self) -> None:
        """The step answered a call its abort skipped (CANCEL-5)."""
        self.skipping = True
        self.streaming = False

    def aborted(self) -> None:
        """A result with the skipped code: the abort reached the step (CANCEL-5)."""
        self.abort_reached = True

    def resynchronised(self) -> None:
        """``--all`` goes on after a record the skipped call should have ended (CANCEL-5)."""
        self.skipping = False
        self.streaming = self.in_step and self.summary.model_side
