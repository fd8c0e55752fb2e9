"""What one step's own records say, folded once (spec rules STEP-4, DECIDE-6, RESULT-1 … RESULT-3,
RESULT-6, RESULT-7, LOG-10).

A :class:`StepSummary` takes the records of one step in log order and knows: how many messages it
entered, whether its model side began, the calls its model answers announced, its tools started
and its results answered, the calls its last answer announced, the finish reason its stream
reported, and from these how the step answered (:attr:`~StepSummary.text_answer`,
:attr:`~StepSummary.pending`, :attr:`~StepSummary.silent`).

There are two ways in.  :meth:`StepSummary.feed` reads a parsed record by its kind; the search
judge and the reproduction engine fold a step that way (:func:`summarize`).  The log checker has
already judged each record and decided which of them belong to the open step, so it calls the
recording methods (:meth:`~StepSummary.entry`, :meth:`~StepSummary.answer`, …) itself with what it
decoded (:mod:`loopspec.check.open_step`).  Either way the fields move only here, and how a closed
step answered has one definition.

One reading for records the checker refuses: a ``tool/call`` whose ``callId`` is not a string
starts no call (LOG-10 reports it), and a tool-call block whose ``id`` is not a string announces
none, so an ``assistant/message`` whose blocks name no call answers as text does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from types import MappingProxyType

from loopspec.log.kinds import (
    ASSISTANT_ATTEMPT,
    ASSISTANT_CHUNK,
    ASSISTANT_MESSAGE,
    REQUEST_CONTEXT,
    REQUEST_HEADER,
    STEP_END,
    STEP_START,
    TOOL_CALL,
    TOOL_RESULT,
    USER_MESSAGE,
)
from loopspec.log.wire import announced_calls, answered_calls, field, record_data, started_call


class StepSummary:
    """The fold of one step's records, in log order."""

    __slots__ = ("announced", "answer_calls", "answered", "entered", "finish", "model_side", "open_calls", "started")

    def __init__(self) -> None:
        self.entered = 0  # STEP-4, DECIDE-6: user/message records
        self.model_side = False  # STEP-3: a request, answer or tool record came (no more entries)
        self.announced: set[str] = set()  # LOG-10: the calls any assistant/message announced
        self.answer_calls: tuple[str, ...] | None = None  # RESULT-6: the last assistant/message's calls
        self.started: set[str] = set()  # LOG-10: the calls a tool/call started
        self.answered: set[str] = set()  # RESULT-7: the calls a tool/result answered
        # The started calls no later result answered (a result before its call answers nothing).
        self.open_calls: set[str] = set()
        self.finish: str | None = None  # RESULT-1: the last finish chunk's reason kind ("?" when not a string)

    def restart(self) -> None:
        """Fold the next step from its start, as a new summary would (the checker keeps one summary
        and restarts it at every ``step/start``: most steps call no tool, so their sets stay empty)."""
        self.entered, self.model_side, self.answer_calls, self.finish = 0, False, None, None
        if self.announced:
            self.announced = set()
        if self.started:
            self.started = set()
        if self.answered:
            self.answered = set()
        if self.open_calls:
            self.open_calls = set()

    def copy(self) -> StepSummary:
        """An independent copy (the exploration forks the checker, and its open step, at every state)."""
        new = StepSummary.__new__(StepSummary)
        new.entered, new.model_side, new.finish = self.entered, self.model_side, self.finish
        new.announced, new.answer_calls, new.started = self.announced.copy(), self.answer_calls, self.started.copy()
        new.answered, new.open_calls = self.answered.copy(), self.open_calls.copy()
        return new

    # ---- how the step answered ----

    @property
    def text_answer(self) -> bool:
        """RESULT-6: the last ``assistant/message`` announces no call and every started call is
        answered after it started: the answer is the model's text, which sets the turn's end."""
        return self.answer_calls == () and not self.open_calls

    @property
    def pending(self) -> set[str]:
        """RESULT-7: the calls started or announced by the last answer that no result answered."""
        if not self.open_calls and not self.answer_calls:  # most steps: asked at every step/end
            return set()
        return (self.open_calls | set(self.answer_calls or ())) - self.answered

    @property
    def silent(self) -> bool:
        """STEP-4, DECIDE-6: the step entered nothing and made no model call (aborted or failed early)."""
        return self.entered == 0 and not self.model_side

    @property
    def calls_tools(self) -> bool:
        """The step started a tool (a ``tool/call``)."""
        return bool(self.started)

    # ---- recording, one method per kind of record ----

    def entry(self) -> None:
        """A ``user/message``."""
        self.entered += 1

    def model_record(self) -> None:
        """A model-side record: a request, an answer's chunk or attempt, a tool record."""
        self.model_side = True

    def answer(self, calls: tuple[str, ...]) -> None:
        """An ``assistant/message`` announcing ``calls`` (none for a text answer)."""
        self.model_side = True
        self.answer_calls = calls
        self.announced.update(calls)

    def start(self, call: str) -> None:
        """A ``tool/call`` starting ``call``."""
        self.model_side = True
        self.started.add(call)
        self.open_calls.add(call)

    def results(self, calls: list[str]) -> None:
        """A ``tool/result`` (an appended one: a rewrite answers nothing) answering ``calls``."""
        self.model_side = True
        self.answered.update(calls)
        self.open_calls.difference_update(calls)

    def finished(self, reason: object) -> None:
        """An ``assistant/chunk`` of type ``finish`` with ``reason.kind`` ``reason``."""
        self.model_side = True
        self.finish = reason if isinstance(reason, str) else "?"

    # ---- reading a parsed record ----

    def feed(self, record: object) -> None:
        """Fold one parsed record (what is not a record of a step is passed over)."""
        kind = record.get("type") if isinstance(record, dict) else None
        reader = _READERS.get(kind) if isinstance(kind, str) else None
        if reader is not None:
            reader(self, record)


def _feed_entry(summary: StepSummary, record: object) -> None:
    summary.entry()


def _feed_model_record(summary: StepSummary, record: object) -> None:
    summary.model_record()


def _feed_answer(summary: StepSummary, record: object) -> None:
    summary.answer(announced_calls(record_data(record)))


def _feed_start(summary: StepSummary, record: object) -> None:
    call = started_call(record_data(record))
    if call is None:
        summary.model_record()
    else:
        summary.start(call)


def _feed_result(summary: StepSummary, record: object) -> None:
    if field(record, "surfaceOp") in (None, "append"):
        summary.results(answered_calls(record_data(record)))
    else:
        summary.model_record()


def _feed_chunk(summary: StepSummary, record: object) -> None:
    chunk = field(record_data(record), "chunk")
    if field(chunk, "type") == "finish":
        summary.finished(field(field(chunk, "reason"), "kind"))
    else:
        summary.model_record()


# What each kind of record tells the fold.
_READERS: MappingProxyType[str, Callable[[StepSummary, object], None]] = MappingProxyType({
    USER_MESSAGE: _feed_entry,
    REQUEST_HEADER: _feed_model_record,
    REQUEST_CONTEXT: _feed_model_record,
    ASSISTANT_ATTEMPT: _feed_model_record,
    ASSISTANT_CHUNK: _feed_chunk,
    ASSISTANT_MESSAGE: _feed_answer,
    TOOL_CALL: _feed_start,
    TOOL_RESULT: _feed_result,
})


def summarize(records: Iterable[object]) -> StepSummary:
    """Fold one step's records (any parsed JSON)."""
    out = StepSummary()
    for record in records:
        out.feed(record)
    return out


def text_answers(events: list[dict[str, object]]) -> list[bool]:
    """For each point of a log, whether the step it is in answered with text up to its ``step/end``
    (:attr:`StepSummary.text_answer`); a step runs from its ``step/start`` (or the log's start) to
    its ``step/end``, both included."""
    out = [False] * len(events)
    begin = 0
    summary = StepSummary()
    for index, event in enumerate(events):
        kind = event.get("type")
        if kind == STEP_START:
            begin, summary = index, StepSummary()
        elif kind == STEP_END:
            if summary.text_answer:
                out[begin:index + 1] = [True] * (index + 1 - begin)
        else:
            summary.feed(event)
    return out
