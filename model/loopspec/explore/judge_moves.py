"""The commands a log allows at each point of the judge's search (:mod:`.judge`).

Every run of the model that writes a log can be rewritten into a run of these candidates that
writes the same log, which is why searching only them decides validity:

* **edits** — ``append``, ``prepend``, ``replace``, ``remove``, ``clear`` and ``splice`` all write
  through ``mutate``; a ``splice`` with the record's own (normalized) coordinates and messages
  writes that record and leaves the same inbox;
* **sends** — the record shows the message and the list; whether the send woke the loop is
  searched (both);
* **listener and tool actions** — the agent performs a pre-step chain's, a turn-stopping
  listener's and a tool's actions through the same ``step`` as top-level commands, in the same
  phase, before the answer is applied; so a chain with actions is those actions as commands then
  the action-free answer, and an action the model refuses (the listener throwing) is the answer
  throwing that refusal's message;
* **pre-step decisions** — what the log shows next fixes them: a ``step/start`` enters exactly
  the ``user/message`` events after it, a ``turn/end`` says reject (``blocked``), empty entry
  (``completed``/``max-tokens``), a throw (``error``, its message) or the abort;
* **step results and turn stopping** — every kind is tried where the next event can start it (a
  ``step/end``, a tool event, a claim); errors take the message and code of the next ``turn/end``;
  a step whose own events show a text answer (its last ``assistant/message`` calls no tool and no
  started call is open: the model's answer, which the model does not write) settled the turn's
  end, so it never asks to continue (RESULT-6: only ``stop``, ``max-tokens`` or a failure); where
  crash repair's ``interrupted`` ends the turn, a failure is tried too, whose ``turn/end`` a crash
  cut off after its ``step/end`` (an abort with no call to answer cut there writes the same);
* **cancels** — a cancel is visible only through the turn it aborts: it is tried, with and without
  ``keepInbox``, with the cause of the running turn's next ``turn/end`` when that end is
  ``aborted``, and with the user's cause where the log shows no end of that turn or crash repair's
  ``interrupted`` (an aborted step's skipped calls show the abort there, CANCEL-5); anywhere else a
  cancel's records are a ``clear``'s, and its abort is never seen;
* **restarts** — tried wherever crash repair's closers or ``session/end-seed`` come next; the
  judge adds crash points inside commands (a process can die between any two appends);
* **hops** — the judge (:mod:`.judge`) also tries every candidate stopping at each hop its run
  passes, and at a hop the loop going on and a cancel no record shows (decisions G22); a pre-step
  decision is fixed by the first record after the inbox records that follow it, since calls may
  land after the decision is returned and before the loop acts on it.
"""

from __future__ import annotations

from loopspec.data.json_value import freeze
from loopspec.data.messages import InboxTarget, Messages, UserMessage
from loopspec.log.end_reasons import ABORTED, BLOCKED, INTERRUPTED, NORMAL_ENDS
from loopspec.log.kinds import (
    ASSISTANT_MESSAGE,
    END_SEED,
    SPLICED,
    STEP_END,
    STEP_START,
    TOOL_CALL,
    TOOL_RESULT,
    TURN_END,
    TURN_START,
    USER_MESSAGE,
)
from loopspec.log.repair_closers import CLOSER_KINDS, is_repair_closer
from loopspec.log.step_summary import text_answers
from loopspec.log.wire import announces, end_reason, record_data
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.loop.phases import DECIDING, STEPPING, STOPPING
from loopspec.loop.state import Agent


class Moves:
    """Candidate commands over a fixed sequence of the events the model must write."""

    def __init__(self, events: list[dict[str, object]]) -> None:
        self.events = events
        self.ends: list[dict[str, object] | None] = []  # the reason of the next turn/end at or after each point
        reason: dict[str, object] | None = None
        for event in reversed(events):
            if event.get("type") == TURN_END:
                reason = end_reason(record_data(event)) or {}
            self.ends.append(reason)
        self.ends.reverse()
        self.ends.append(None)
        self.text_answer = text_answers(events)  # RESULT-6, as the checker reads a closed step

    def candidates(self, agent: Agent, pos: int) -> list[cmd.Command]:
        if pos >= len(self.events):
            return []
        event = self.events[pos]
        kind = event.get("type")
        data = event.get("data")
        data = data if isinstance(data, dict) else {}
        out: list[cmd.Command] = self._cancels(agent, pos)
        if kind == SPLICED:
            out += self._edits(agent, data, pos)
        if kind in CLOSER_KINDS and _may_close(kind, event):
            out.append(cmd.Restart())
        phase, run = agent.phase, agent.running
        if phase == DECIDING and run is not None:
            # Calls may land after the decision is returned and before the loop acts on it (the
            # hops decided and decision-returned): the record that fixes it may come after theirs.
            fixed = self._past_splices(pos)
            out += self._decisions(run.aborted is not None, *self._kind_and_data(fixed), fixed)
        elif phase == STEPPING:
            if kind == ASSISTANT_MESSAGE and announces(data):
                out += [cmd.ToolCall(), cmd.ToolCall(started=False)]
            elif kind in (STEP_END, TOOL_CALL, TOOL_RESULT):
                if kind != STEP_END:
                    out += [cmd.ToolStart(), cmd.ToolResult()]
                out += [cmd.Stop(), cmd.MaxTokens()]
                if not self.text_answer[pos]:  # RESULT-6: a text answer never asks to continue
                    out += [cmd.ToolCalls(), cmd.ToolCalls(conclude=True)]
                # A failing step writes its step/end whatever the log's turn/end says, so it is a
                # candidate even where that end is not the error's: a run then writes the step/end,
                # and the verdict's place is the end no run can write (RESULT-7), as the checker's.
                # The log may also end inside a failing step's closing, or a crash cut it after
                # step/end (the message is never written; an abort with no call open writes the same).
                error = self._error(pos)
                out.append(cmd.Fail() if error is None else cmd.Fail(error=error[0], code=error[1]))
        elif phase == STOPPING and kind in (TURN_END, SPLICED):
            out.append(cmd.TurnStopping())
            error = self._error(pos)
            if error is not None:
                out.append(cmd.TurnStopping(raises=error[0]))
        return out

    def _past_splices(self, pos: int) -> int:
        """The first point at or after ``pos`` that is no inbox record."""
        while pos < len(self.events) and self.events[pos].get("type") == SPLICED:
            pos += 1
        return pos

    def _kind_and_data(self, pos: int) -> tuple[object, dict[str, object]]:
        if pos >= len(self.events):
            return None, {}
        data = self.events[pos].get("data")
        return self.events[pos].get("type"), data if isinstance(data, dict) else {}

    def _decisions(self, aborted: bool, kind: object, data: dict[str, object], pos: int) -> list[cmd.Command]:
        """The one answer the next event allows (an aborted turn ignores the answer: any will do)."""
        if aborted:
            return [cmd.Decide()] if kind == TURN_END else []
        if kind == STEP_START:
            # The entry the log shows; the claimed batch too, for a log cut off inside the entry.
            return [cmd.Decide((ls.Veto(ls.Enter(self._entered(pos + 1))),)), cmd.Decide()]
        if kind != TURN_END:
            return []
        reason = data.get("reason")
        end = reason.get("kind") if isinstance(reason, dict) else None
        if end == BLOCKED:
            return [cmd.Decide((ls.Veto(ls.Reject()),))]
        if end in NORMAL_ENDS:
            return [cmd.Decide((ls.Veto(ls.Enter()),))]
        error = self._error(pos)
        return [cmd.Decide((ls.Throw(error[0]),))] if end == "error" and error is not None else []

    def _edits(self, agent: Agent, data: dict[str, object], pos: int) -> list[cmd.Command]:
        """A splice with the record's own coordinates, or the send that explains what follows it."""
        try:
            target = InboxTarget.parse(data.get("target"))
            inserted = data.get("inserted")
            messages = tuple(UserMessage.from_json(m) for m in inserted) if isinstance(inserted, list) else None
        except ValueError:
            return []
        start, removed = data.get("start"), data.get("removedCount", 0)
        if messages is None or not _number(start) or not _number(removed):
            return []
        assert isinstance(start, int | float)
        assert isinstance(removed, int | float)
        splice = cmd.Splice(target, start, removed, messages)
        if "removedCount" in data or len(messages) != 1:
            return [splice]
        # A send writes exactly this record; it differs from the splice only where it wakes the
        # loop (from idle: turn/start follows at once) or latches a wake (after an abort).
        run = agent.running
        if run is None:
            follows = self.events[pos + 1].get("type") if pos + 1 < len(self.events) else None
            return [cmd.Send(messages[0], target, True)] if follows == TURN_START else [splice]
        if run.aborted is not None and target is InboxTarget.NEXT_TURN:
            return [splice, cmd.Send(messages[0], target, True)]
        return [splice]

    def _cancels(self, agent: Agent, pos: int) -> list[cmd.Command]:
        run, end = agent.running, self.ends[pos]
        if run is None or run.aborted is not None:
            return []
        if end is None or end.get("kind") == INTERRUPTED:
            # The log ends inside the turn, or a crash cut its end off: an abort shows only in what
            # the aborted step writes (CANCEL-5's skipped calls), and its cause nowhere.
            return [cmd.Cancel(cmd.USER_CAUSE, False), cmd.Cancel(cmd.USER_CAUSE, True)]
        if end.get("kind") != ABORTED:
            # A turn that ends otherwise was not aborted; but a run may still write what an abort's
            # step writes (CANCEL-5's skipped calls) up to that end, which is where the verdict's
            # place then is, as the checker's (the end no run writes after an aborted step).
            return [cmd.Cancel(cmd.USER_CAUSE, True)]
        cause = end.get("reason")
        if not (isinstance(cause, dict) and isinstance(cause.get("kind"), str)):
            return []
        frozen = freeze(cause)
        return [cmd.Cancel(frozen, False), cmd.Cancel(frozen, True)]

    def _error(self, pos: int) -> tuple[str, str] | None:
        end = self.ends[pos]
        failure = end.get("error") if end is not None and end.get("kind") == "error" else None
        if isinstance(failure, dict) and isinstance(failure.get("message"), str) and isinstance(
                failure.get("code"), str):
            return str(failure["message"]), str(failure["code"])
        return None

    def _entered(self, pos: int) -> Messages:
        out: list[UserMessage] = []
        while pos < len(self.events) and self.events[pos].get("type") == USER_MESSAGE:
            try:
                out.append(UserMessage.from_json(self.events[pos].get("data")))
            except ValueError:
                break
            pos += 1
        return tuple(out)


def _may_close(kind: object, event: dict[str, object]) -> bool:
    """Whether an event can be one of crash repair's closers (or the marker that follows them)."""
    return kind == END_SEED or is_repair_closer(event)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


__all__ = ["Moves"]
