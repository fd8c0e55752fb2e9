"""What one step's own records say, folded once (spec rules RESULT-1 … RESULT-3, RESULT-6, LOG-10).

:func:`summarize` reads the records of one step, as parsed JSON, in log order: the messages it
entered, the calls its model answers announced, its tools started and its results answered, the
finish reason its stream reported, and whether it answered with text.  The search judge and the
reproduction engine read a step through this fold; a reader that needs more of a step adds a
field here rather than a loop of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from loopspec.log.kinds import (
    ASSISTANT_CHUNK,
    ASSISTANT_MESSAGE,
    STEP_END,
    STEP_START,
    TOOL_CALL,
    TOOL_RESULT,
    USER_MESSAGE,
)
from loopspec.log.wire import announced_calls, announces, answered_calls, field, record_data

if TYPE_CHECKING:
    from collections.abc import Iterable


class StepSummary:
    """The fold of one step's records; built by :func:`summarize` only."""

    __slots__ = ("announced", "answered", "answers_with_calls", "entered", "finish", "open_calls", "started")

    def __init__(self) -> None:
        self.entered = 0  # user/message records
        self.announced: list[str] = []  # call ids, in announcement order, repeats kept
        self.started: list[str] = []  # the callId of each tool/call, as text (str(None) for none)
        self.answered: list[str] = []  # the calls each tool/result answers
        self.answers_with_calls: bool | None = None  # the last assistant/message announces a call
        self.finish: str | None = None  # the last finish chunk's reason kind ("?" when not a string)
        # The started calls no later result answered, in log order (a result before its call
        # answers nothing).
        self.open_calls: set[str] = set()

    @property
    def text_answer(self) -> bool:
        """RESULT-6: the step's last ``assistant/message`` announces no call and every started call
        is answered; its answer is the model's text, which set the turn's end."""
        return self.answers_with_calls is False and not self.open_calls

    @property
    def calls_tools(self) -> bool:
        """The step started a tool (a ``tool/call``)."""
        return bool(self.started)


def summarize(records: Iterable[object]) -> StepSummary:
    """Fold one step's records (any parsed JSON; what is not a record is passed over)."""
    out = StepSummary()
    for record in records:
        kind = record.get("type") if isinstance(record, dict) else None
        if kind == USER_MESSAGE:
            out.entered += 1
        elif kind == ASSISTANT_MESSAGE:
            data = record_data(record)
            out.answers_with_calls = announces(data)
            out.announced += announced_calls(data)
        elif kind == TOOL_CALL:
            call = str(record_data(record).get("callId"))
            out.started.append(call)
            out.open_calls.add(call)
        elif kind == TOOL_RESULT and field(record, "surfaceOp") in (None, "append"):  # a rewrite answers nothing
            answered = answered_calls(record_data(record))
            out.answered += answered
            out.open_calls.difference_update(answered)
        elif kind == ASSISTANT_CHUNK:
            chunk = field(record_data(record), "chunk")
            if field(chunk, "type") == "finish":
                reason = field(field(chunk, "reason"), "kind")
                out.finish = reason if isinstance(reason, str) else "?"
    return out


def text_answers(events: list[dict[str, object]]) -> list[bool]:
    """For each point of a log, whether the step it is in answered with text up to its ``step/end``
    (:attr:`StepSummary.text_answer`); a step runs from its ``step/start`` (or the log's start) to
    its ``step/end``, both included."""
    out = [False] * len(events)
    begin = 0
    for index, event in enumerate(events):
        kind = event.get("type")
        if kind == STEP_START:
            begin = index
        elif kind == STEP_END and summarize(events[begin:index]).text_answer:
            out[begin:index + 1] = [True] * (index + 1 - begin)
    return out
