"""What the checker knows of the open step (STEP-3, STEP-4, DECIDE-6, LOG-4, LOG-10, LOG-11, RESULT-6,
RESULT-7, REPAIR-1, CANCEL-5): one tracker owning its fields.

The handlers of :mod:`loopspec.check.step_body` and :mod:`loopspec.check.step_calls` judge each record
of a step as it comes and record what it did through these methods; :mod:`loopspec.check.outcome`
reads the fields at ``step/end`` to say how the turn may go on, and :mod:`loopspec.check.lifecycle`
opens and closes the step.  Only this class writes the fields.

Closing a step forgets its calls but keeps what its entry and answer were (``entered``,
``answered``, ``answer_calls``, ``needs_entry``, ``repairing``) until the next step opens: a record
between steps is judged by the phase and by :attr:`CheckState.after`, never by these, but the
exploration keys the checker by every field (:mod:`loopspec.explore.log_rules`), so what is kept
between steps is part of a state as it always was.
"""

from __future__ import annotations

from loopspec.check.wake_latch import Tracker


class OpenStep(Tracker):
    """The open step's entries, model side and tool calls, as the checker has read them so far."""

    __slots__ = (
        "abort_reached",
        "announced",
        "answer_calls",
        "answered",
        "call_seqs",
        "calls",
        "entered",
        "model_started",
        "needs_entry",
        "repairing",
        "skipping",
        "started_at",
        "unanswered",
        "unstarted",
    )

    # The seqs of the step's tool/calls are read only against the seq a result cites, and the
    # model's results cite them from the same log, so states equal but for numbering cite alike.
    KEYED = tuple(name for name in __slots__ if name != "call_seqs")

    def __init__(self) -> None:
        self.entered = 0  # STEP-3/STEP-4: user/message events of the step
        self.model_started = False  # STEP-3: its model side began (no more entries)
        self.needs_entry = False  # STEP-4, DECIDE-6: the step must enter a message
        self.calls: set[str] = set()  # LOG-4, LOG-10: calls started and not answered yet
        self.call_seqs: dict[str, int] = {}  # LOG-4, REPAIR-1: the seq of each call's first tool/call
        self.announced: set[str] = set()  # LOG-10: calls announced and not answered yet
        self.answered: set[str] = set()  # RESULT-7: calls the step's tool/results answer
        self.answer_calls: tuple[str, ...] | None = None  # RESULT-6: calls of the last assistant/message
        self.unstarted: list[str] = []  # LOG-11: announced calls not started, in call order
        self.unanswered: list[str] = []  # LOG-11: announced or started calls not answered, in call order
        self.started_at: tuple[int, str] | None = None  # CANCEL-5: the seq and call of the last tool/call
        self.skipping = False  # CANCEL-5: the step answered a call skipped by its abort
        self.abort_reached = False  # CANCEL-5: a result with the skipped code: the step was aborted
        self.repairing = False  # REPAIR-1: crash repair's synthetic tool/result closes the step

    def copy(self) -> OpenStep:
        """An independent copy, containers copied (the exploration forks the checker at every state)."""
        new = OpenStep.__new__(OpenStep)
        new.entered, new.model_started, new.needs_entry = self.entered, self.model_started, self.needs_entry
        new.calls, new.call_seqs, new.announced = self.calls.copy(), self.call_seqs.copy(), self.announced.copy()
        new.answered, new.answer_calls = self.answered.copy(), self.answer_calls
        new.unstarted, new.unanswered, new.started_at = self.unstarted.copy(), self.unanswered.copy(), self.started_at
        new.skipping, new.abort_reached, new.repairing = self.skipping, self.abort_reached, self.repairing
        return new

    @property
    def streaming(self) -> bool:
        """The model side is open and no abort skipped a call: the step's next chunk, if in order, is
        judged by its seq, step and time alone (the readers' fast path, :mod:`loopspec.check.fastpath`)."""
        return self.model_started and not self.skipping

    # ---- opening and closing ----

    def opened(self, needs_entry: bool) -> None:
        """A new step, at its entry block: it must enter a message when ``needs_entry``."""
        self.entered = 0
        self.model_started = False
        self.needs_entry = needs_entry
        self.answered = set()
        self.answer_calls = None
        self.repairing = False
        self.closed()

    def closed(self) -> None:
        """The step closed (or a new one opens): none of its calls is pending any more."""
        self.model_started = False
        self.calls = set()
        self.announced = set()
        self.unstarted = []
        self.unanswered = []
        self.started_at = None
        self.call_seqs = {}
        self.skipping = False
        self.abort_reached = False

    # ---- recording the step's records ----

    def entry(self) -> None:
        """A ``user/message``."""
        self.entered += 1

    def model_side(self) -> None:
        """The first model-side record closes the entry block (STEP-3)."""
        self.model_started = True

    def turn_closed(self) -> None:
        """The turn opened or closed: no model side is open."""
        self.model_started = False

    def announced_again(self, call: str) -> bool:
        """An ``assistant/message`` announces ``call``: whether it was announced already (LOG-10)."""
        again = call in self.announced
        self.announced.add(call)
        return again

    def answer_announced(self, calls: tuple[str, ...], queued: tuple[str, ...]) -> None:
        """An ``assistant/message`` announced ``calls``; ``queued`` are the ones not pending yet (LOG-11)."""
        self.unstarted += queued
        self.unanswered += queued
        self.answer_calls = calls  # RESULT-6, RESULT-7: the step's answer is its last assistant/message

    def call_started(self, call: str, seq: int) -> None:
        """A ``tool/call`` starting ``call`` at ``seq`` (its order is judged before, LOG-11)."""
        if call in self.unstarted:
            self.unstarted.remove(call)
        elif call not in self.unanswered:
            self.unanswered.append(call)  # LOG-10 reports a start of a call never announced
        self.started_at = (seq, call)
        self.call_seqs.setdefault(call, seq)  # what its result cites (a second start is LOG-10's)
        self.calls.add(call)

    def results_came(self, ids: list[str], synthetic: bool) -> None:
        """A ``tool/result`` answering ``ids`` arrived (before it is judged): crash repair's, when ``synthetic``."""
        self.answered.update(ids)
        self.repairing = self.repairing or synthetic  # only crash repair writes these, right before its step/end

    def call_answered(self, call: str, synthetic: bool) -> None:
        """One call of a ``tool/result`` is answered (its order is judged before, LOG-11)."""
        if call in self.unanswered:
            self.unanswered.remove(call)
        if synthetic and call in self.unstarted:
            self.unstarted.remove(call)

    def results_done(self, ids: list[str]) -> None:
        """A ``tool/result``'s calls are answered once; a second result answers nothing (LOG-10)."""
        self.calls.difference_update(ids)
        self.announced.difference_update(ids)

    def skipped(self) -> None:
        """The step answered a call its abort skipped (CANCEL-5)."""
        self.skipping = True

    def aborted(self) -> None:
        """A result with the skipped code: the abort reached the step (CANCEL-5)."""
        self.abort_reached = True

    def resynchronised(self) -> None:
        """``--all`` goes on after a record the skipped call should have ended (CANCEL-5)."""
        self.skipping = False
