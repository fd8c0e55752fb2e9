"""Where a log leaves what the search judge can decide (see :mod:`.judge`): real behaviours the model
does not express, reported as "unsupported" rather than "invalid".
"""

from __future__ import annotations

from loopspec.data.errors import InvalidEvent
from loopspec.data.messages import EMPTY_INBOX
from loopspec.explore.judge_compare import MODEL_TYPES, STEP_SCOPED, TURN_SCOPED, UNSUPPORTED
from loopspec.inbox.fold import apply as fold_apply
from loopspec.log.end_reasons import ABORTED, COMPLETED, ERROR, INTERRUPTED, MAX_TOKENS
from loopspec.log.events import InboxSpliced, SessionEvent
from loopspec.log.kinds import (
    ASSISTANT_MESSAGE,
    SPLICED,
    STEP_END,
    STEP_START,
    TOOL_RESULT,
    TURN_END,
    TURN_START,
    USER_MESSAGE,
)
from loopspec.log.step_summary import StepSummary
from loopspec.log.wire import is_claim, record_data, tool_call_blocks


def scope_limit(events: list[dict[str, object]]) -> tuple[int, str] | None:
    """The first event from which the log leaves the judge's scope, and why (see the module docstring)."""
    found: list[tuple[int, str]] = []
    for index, event in enumerate(events):
        if event.get("type") in UNSUPPORTED:
            found.append((index, f"{event['type']} is v0.1.5's placement of a step's entry (VARIANT-1), which the "
                                 "model does not write"))
            break
        if event.get("type") in (TOOL_RESULT, ASSISTANT_MESSAGE) and isinstance(event.get("surfaceOp"), dict):
            found.append((index, f"a replacing {event['type']}, which the model does not write"))
            break
        if event.get("type") == ASSISTANT_MESSAGE and len(tool_call_blocks(record_data(event))) > 1:
            found.append((index, "an assistant/message announcing several tool calls; the model announces one call "
                                 "per message (loopspec.loop.commands.ToolCall)"))
            break
    placement = _later_placement(events)
    if placement is not None:
        found.append((placement, "a step's entry placed as v0.1.5 places it (VARIANT-1); the model writes v0.1.1's "
                                 "placement only"))
    chain = _chain_window(events)
    if chain is not None:
        found.append((chain, "a call between a turn end that chains and the next turn/start, which the model writes "
                             "in one command (spec/loop-grain.md row 19)"))
    window = _observer_window(events)
    if window is not None:
        found.append((window, "a listener or observer acting inside what the model does as one command (the "
                              "running-status listener before turn/start, or a cancel from an observer of "
                              "turn/start before the claim)"))
    return min(found) if found else None


def after_an_empty_step(events: list[dict[str, object]], seq: int) -> int:
    """The verdict's place when no run the search tries writes the event at ``seq``.

    A ``step/end`` right after its ``step/start`` closes a step that entered nothing.  The model
    (v0.1.1) writes a step's entry with its start, so it never writes that ``step/end`` where the
    step had to enter something; v0.1.5 does, when the step's request preparation is cut short
    (VARIANT-1), and then its turn ends aborted or in error (outside the search's scope, see
    :func:`scope_limit`).  Some run of the real system writes that ``step/end``, so the first
    event none writes is the one after it, where the checker places it too (STEP-4, DECIDE-6).
    """
    if not 0 < seq < len(events) - 1 or events[seq].get("type") != STEP_END:
        return seq
    return seq + 1 if events[seq - 1].get("type") == STEP_START else seq


ANSWER_WINDOW = ("a call landing between a step's last tool/result and its step/end, which the model writes in one "
                 "command (a listener's call during the result's emission)")


def answer_window(events: list[dict[str, object]], seq: int) -> bool:
    """Whether the record at ``seq``, where no run the search tries writes on, is an inbox record right
    after a ``tool/result`` whose step's next record is ``step/end``.

    The model writes a step's last result and the step's end in one command; the real loop emits
    the result's notifications in between, and a listener's call lands there.  ``reproduce``
    follows such a call inside that command; the search does not express it, so a log the search
    cannot write there is unsupported, never invalid.  (A deferred context the loop writes there
    itself is a run the search does find.)
    """
    if not 0 < seq < len(events) or events[seq].get("type") != SPLICED:
        return False
    before = seq - 1
    while before > 0 and events[before].get("type") == SPLICED:
        before -= 1
    if events[before].get("type") != TOOL_RESULT:
        return False
    after = seq
    while after < len(events) and (events[after].get("type") == SPLICED
                                   or events[after].get("type") not in MODEL_TYPES):
        after += 1
    return after < len(events) and events[after].get("type") == STEP_END


def _later_placement(events: list[dict[str, object]]) -> int | None:
    """The first event after a ``step/start`` whose entry a log places as only v0.1.5+ does (VARIANT-1).

    v0.1.1 (the model) writes a step's ``user/message`` events right after ``step/start``; v0.1.5+
    writes them after an asynchronous request preparation, so inbox records may land in between,
    and a step that had to enter something, cut short during preparation (an abort, a failure, a
    crash), closes with no entry and no model call.  A step has to enter something when it is its
    turn's first, or when the step before it set the turn's end (DECIDE-6): a text answer, or a
    claim after its ``step/end`` that an edit preceded (only turn-stopping awaits there).  (Other
    events in between — the model side — and an empty such step that goes on normally are invalid
    in every version; the search says so.)
    """
    in_step = needs = False
    after_start = 0
    cut: int | None = None  # an empty step's step/end, until its turn's end says how it ended
    previous: object = None
    text = False  # the last closed step of the open turn answered with text
    since_end: list[str] = []  # the splices since that step/end: "claim" or "edit"
    step = StepSummary()  # the records since the open step's step/start (or the log's start)
    for index, event in enumerate(events):
        kind = event.get("type")
        data = event.get("data")
        data = data if isinstance(data, dict) else {}
        step.feed(event)
        if kind in STEP_SCOPED | TURN_SCOPED:
            continue
        if kind not in MODEL_TYPES:
            continue
        if kind == STEP_START:
            settled = text or (since_end[:1] == ["edit"] and "claim" in since_end)
            in_step, needs = True, data.get("step") == 1 or settled
            step, after_start = StepSummary(), index + 1
        elif kind == USER_MESSAGE:
            if in_step and not step.model_side and previous == SPLICED:
                return after_start
        elif kind == STEP_END:
            if in_step and needs and step.silent:
                cut = after_start
            in_step, text, since_end = False, step.text_answer, []
        elif kind == SPLICED:
            claim = is_claim(data)
            since_end.append("claim" if claim else "edit")
        elif kind == TURN_END:
            reason = data.get("reason")
            if cut is not None and isinstance(reason, dict) and reason.get("kind") in (ABORTED, ERROR,
                                                                                        INTERRUPTED):
                return cut
            in_step, cut, text, since_end = False, None, False, []
        elif kind == TURN_START:
            in_step, cut, text, since_end = False, None, False, []
        previous = kind
    if in_step and needs and step.silent:
        return after_start  # the log ends while the step prepares its request
    return cut  # the log ends right after an empty step that had to enter something


def _chain_window(events: list[dict[str, object]]) -> int | None:
    """The first public edit between a turn end that chains (CHAIN-1: ``completed`` or ``max-tokens``
    after a step, with input pending) and the next ``turn/start``: the real loop hops between them
    and a call can land there (decisions G16); the model's end and next turn are one command."""
    inbox = EMPTY_INBOX
    steps = 0
    chaining = False
    for index, raw in enumerate(events):
        kind = raw.get("type")
        if kind == STEP_START:
            steps += 1
        elif kind == TURN_START:
            steps, chaining = 0, False
        elif kind == TURN_END:
            data = raw.get("data")
            reason = data.get("reason") if isinstance(data, dict) else None
            ends = reason.get("kind") if isinstance(reason, dict) else None
            chaining = ends in (COMPLETED, MAX_TOKENS) and steps > 0 and inbox.has_pending
        elif kind == SPLICED:
            try:
                event = SessionEvent.from_json(raw)
                record = InboxSpliced.from_data(event.data, event.seq)
                inbox = fold_apply(inbox, event)
            except InvalidEvent:
                return None  # the search will say why
            if chaining and not record.is_claim:
                return index
    return None


def _observer_window(events: list[dict[str, object]]) -> int | None:
    """The first event a listener or observer acting inside a command the model keeps whole put out of scope.

    Two windows of the real loop the model does not express (its listener actions run only at
    the pre-step and turn-stopping await points, its cancels between commands): a waking send
    emits ``agent/status running`` before writing ``turn/start``, so the status listener's edits
    land between the send's insertion and ``turn/start`` (scenario S8); and the loop checks for
    an abort after appending ``turn/start`` and before claiming, so a cancel from an observer of
    that append ends the turn unclaimed.  Such logs are real (the checker accepts them) but the
    model writes neither.
    """
    inbox = EMPTY_INBOX
    previous: object = None
    public_edit = False  # the previous model event was a public edit that is not send-shaped
    pending_at_start = False
    for index, raw in enumerate(events):
        kind = raw.get("type")
        if kind not in MODEL_TYPES:
            continue
        edit = False
        if kind == SPLICED:
            try:
                event = SessionEvent.from_json(raw)
                record = InboxSpliced.from_data(event.data, event.seq)
                length = len(inbox.lane(record.target))
                inbox = fold_apply(inbox, event)
            except InvalidEvent:
                return None  # the search will say why
            send_shaped = record.removed_count is None and len(record.inserted) == 1 and record.start == length
            edit = not record.is_claim and not send_shaped
        elif kind == TURN_START:
            if public_edit:
                return index
            pending_at_start = inbox.has_pending
        elif kind == TURN_END and previous == TURN_START and pending_at_start:
            data = raw.get("data")
            reason = data.get("reason") if isinstance(data, dict) else None
            if isinstance(reason, dict) and reason.get("kind") == ABORTED:
                return index
        previous, public_edit = kind, edit
    return None
