"""Synthetic session logs in the real format, for the tests and the benchmarks (a fixtures module).

:func:`generate` plays the real loop (real-behaviour §6) driven by a ``choose(n) -> 0..n-1``
function: sends of every kind, public edits, cancels (with and without ``keepInbox``, with a
latched wake), pre-step rejections and failures, empty entries, tool steps with steering,
turn-stopping continuations, max-tokens, request errors, crashes with repair and restart, and
the model side of every step (``request/*``, streamed ``assistant/chunk``, ``tool/*``).  With
``random.Random(seed).randrange`` it writes a deterministic log of any length; with a Hypothesis
``data.draw`` it becomes a strategy.  Every log it writes is one the real system could write —
that is a claim the test suite checks, not an assumption.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator

from loopspec.log.kinds import (
    ASSISTANT_CHUNK,
    ASSISTANT_MESSAGE,
    END_SEED,
    REQUEST_HEADER,
    SPLICED,
    STEP_END,
    STEP_START,
    TOOL_CALL,
    TOOL_RESULT,
    TURN_END,
    TURN_START,
    USER_MESSAGE,
)
from loopspec.log.tool_errors import RESULT_TEXTS, SKIPPED_CODE, tool_error

Choose = Callable[[int], int]
Event = dict[str, object]
NT, NS = "next-turn", "next-step"
WORDS = ("the ", "inbox ", "claims ", "next-step ", "whole; ", "follow-ups ", "wait ", "their ", "turn. ")


class _Session:
    def __init__(self, choose: Choose, chunks: int, backlog: int) -> None:
        self.choose = choose
        self.chunks = chunks
        self.backlog = backlog
        self.out: deque[Event] = deque()
        self.seq = 0
        self.time = 1_700_000_000_000
        self.lanes: dict[str, deque[Event]] = {NT: deque(), NS: deque()}
        self.ids = 0
        self.last_turn = 0
        self.last_type = ""
        self.finished: str | None = None  # what the last step set: completed, max-tokens, or None (tools)

    # ---- writing ----

    def write(self, etype: str, data: object, *, same_time: bool = False, **envelope: object) -> int:
        if not same_time:
            self.time += 1
        # A fresh top-level copy: step/start and step/end must not share one data object.
        data = dict(data) if isinstance(data, dict) else data
        event: Event = {"type": etype, "seq": self.seq, "time": self.time, "data": data, **envelope}
        self.out.append(event)
        self.seq += 1
        self.last_type = etype
        return self.seq - 1

    def message(self) -> Event:
        self.ids += 1
        text = "".join(WORDS[(self.ids + i) % len(WORDS)] for i in range(1 + self.ids % 5))
        return {"id": f"m{self.ids}", "role": "user", "content": [{"type": "text", "text": text}],
                "source": {"kind": "user"}}

    def splice(self, target: str, start: int, removed: int, inserted: list[Event], canceled: bool) -> list[Event]:
        lane = self.lanes[target]
        data: Event = {"target": target, "start": start}
        if removed:
            data["removedCount"] = removed
        data["inserted"] = inserted
        if canceled and removed:
            data["outcome"] = "canceled"
        if removed == 0 and not inserted:
            return []  # SPLICE-2: a no-op edit writes nothing
        self.write(SPLICED, data)
        if start == 0 and not inserted:
            return [lane.popleft() for _ in range(removed)]
        items = list(lane)
        taken = items[start : start + removed]
        items[start : start + removed] = inserted
        self.lanes[target] = deque(items)
        return taken

    def send(self, target: str) -> None:
        self.splice(target, len(self.lanes[target]), 0, [self.message()], canceled=False)

    def public_edit(self) -> None:
        target = NT if self.choose(2) == 0 else NS
        lane = self.lanes[target]
        if not lane:
            self.send(target)
        elif self.choose(2) == 0:
            self.splice(target, self.choose(len(lane)), 1, [], canceled=True)  # remove
        else:
            self.splice(target, self.choose(len(lane)), 1, [self.message()], canceled=True)  # replace

    def clear(self) -> None:
        for target in (NS, NT):  # SPLICE-8: next-step first
            self.splice(target, 0, len(self.lanes[target]), [], canceled=True)

    def claim(self, first: bool) -> list[Event]:
        batch = self.splice(NS, 0, len(self.lanes[NS]), [], canceled=False)
        if first and self.lanes[NT]:
            batch += self.splice(NT, 0, 1, [], canceled=False)
        return batch

    # ---- the loop ----

    def idle(self) -> bool:
        """One idle-time action; True when it wakes the agent."""
        action = self.choose(8)
        if action <= 2:
            self.send(NT if action < 2 else NS)
            return True  # followup / steer wake
        if action == 3:
            self.send(NS if self.choose(2) else NT)  # inject / non-waking send parks
        elif action == 4:
            self.public_edit()
        elif action == 5 and not self.backlog:
            self.clear()  # cancel while idle
        elif action == 6 and self.last_type != END_SEED:
            self.write(END_SEED, {} if self.choose(2) else {"inherited": True})  # a restart
        return False

    def drive(self) -> None:
        """Turns while the driver continues: chaining (CHAIN-1) or a latched wake (CANCEL-4)."""
        while self.turn() and (self.lanes[NT] or self.lanes[NS]):
            pass

    def turn(self) -> bool:
        """One turn; whether the driver would go on to another one if input is pending."""
        self.last_turn += 1
        turn = self.last_turn
        self.write(TURN_START, {"turn": turn})
        batch = self.claim(first=True)
        step = 0
        ends: str | None = None
        if self.backlog:
            self.send(NT)  # keeps the queue as long as it was
        while True:
            if self.choose(4) == 0:
                self.send(NT if self.choose(2) else NS)  # input during the decision stays pending
            decision = self.choose(14)
            if decision == 0:
                return self.end(turn, {"kind": "blocked"})
            if decision == 1:
                return self.end(turn, {"kind": "error", "error": {"message": "hook broke", "code": "UNKNOWN"}})
            if decision == 2:
                return self.abort(turn, None)
            if decision == 3:
                return self.crash(turn, None, [])
            empty = decision == 4 or not batch
            if empty and step == 0:
                return self.end(turn, {"kind": "completed"})  # empty first entry: no chaining
            if empty and ends is not None:
                self.end(turn, {"kind": ends})
                return True  # the normal exit
            step += 1
            result = self.step(turn, step, [] if empty else batch)
            if result is not None:
                return result
            if self.finished is not None:  # RESULT-1: max-tokens is sticky within the turn
                ends = "max-tokens" if "max-tokens" in (ends, self.finished) else "completed"
            if ends is not None and not self.lanes[NS]:
                stopping = self.choose(12)  # agent/turn-stopping runs: an await point (RESULT-6)
                if stopping == 0:
                    return self.abort(turn, None)
                if stopping == 1:
                    return self.crash(turn, None, [])
                if stopping <= 4:
                    self.send(NS)  # turn-stopping steers a continuation (RESULT-4)
            if ends is not None and not self.lanes[NS]:
                self.end(turn, {"kind": ends})
                return True
            batch = self.claim(first=False)

    def end(self, turn: int, reason: Event) -> bool:
        self.write(TURN_END, {"turn": turn, "reason": reason})
        return False

    def abort(self, turn: int, step: int | None, drained: tuple[str, int] | None = None,
              skipped: str | None = None) -> bool:
        """cancel(): clear then abort, or keepInbox with maybe a waking send that latches (CANCEL-1, -4).

        A disposal (cause ``disposed``) is a cancel too, but a send into it latches nothing.  In a
        step's tool phase the abort starts nothing more: a started call (``drained``, its call id and
        tool/call seq) is answered after the abort, and an announced call never started
        (``skipped``) gets its tool/call and an error tool/result (CANCEL-5).
        """
        latched = False
        cause = "disposed" if self.choose(4) == 0 else "user"
        if self.choose(2) and not self.backlog:  # a backlog run cancels with keepInbox only
            self.clear()
        elif self.choose(2):
            self.send(NT)
            latched = cause != "disposed"
        if drained is not None:
            self.result(turn, step, *drained)
        if skipped is not None:
            call_seq = self.write(TOOL_CALL, {"turn": turn, "step": step, "callId": skipped, "name": "read",
                                                "arguments": "{}"})
            self.result(turn, step, skipped, call_seq, skipped=True)
        if step is not None:
            self.write(STEP_END, {"turn": turn, "step": step})
        self.write(TURN_END, {"turn": turn, "reason": {"kind": "aborted", "reason": {"kind": cause}}})
        return latched

    def crash(self, turn: int, step: int | None, announced: list[str]) -> bool:
        """The process dies; a new one repairs the log and restarts (REPAIR-1 … REPAIR-3)."""
        for call in announced:
            message = {"id": f"interrupted-tool-result-{call}-{self.seq}", "role": "user",
                       "source": {"kind": "tool", "callId": call},
                       "content": [{"type": "tool-result", "toolCallId": call, "isError": True,
                                    "content": [{"type": "text", "text": RESULT_TEXTS["TOOL_NOT_STARTED"]}]}]}
            self.write(TOOL_RESULT, {"turn": turn, "step": step, "message": message,
                                       "error": tool_error("TOOL_NOT_STARTED")},
                       same_time=True, surfaceOp="append")
        if step is not None:
            self.write(STEP_END, {"turn": turn, "step": step}, same_time=True)
        self.write(TURN_END, {"turn": turn, "reason": {"kind": "interrupted"}}, same_time=True)
        self.write(END_SEED, {})
        return False

    def result(self, turn: int, step: int | None, call: str, call_seq: int, skipped: bool = False) -> None:
        """A call's tool/result; a skipped one is the error an aborted step writes (CANCEL-5)."""
        content = [{"type": "text", "text": RESULT_TEXTS[SKIPPED_CODE]}] if skipped else []
        data: Event = {"turn": turn, "step": step, "message": {
            "id": f"r{self.seq}", "role": "user", "source": {"kind": "tool", "callId": call},
            "content": [{"type": "tool-result", "toolCallId": call, "content": content, "isError": skipped}]}}
        if skipped:
            data["error"] = tool_error(SKIPPED_CODE)
        self.write(TOOL_RESULT, data, surfaceOp="append", sourceEventSeqs=[call_seq])

    def step(self, turn: int, step: int, batch: list[Event]) -> bool | None:
        """One step; None when the turn goes on to another boundary, else what :meth:`turn` returns."""
        scope = {"turn": turn, "step": step}
        self.finished = None
        self.write(STEP_START, scope)
        if self.choose(20) == 0:  # v0.1.5: aborted during request preparation, before any entry
            return self.abort(turn, step)
        for message in batch:
            self.write(USER_MESSAGE, message, surfaceOp="append")
        self.write(REQUEST_HEADER, {"header": {"config": {"provider": "mock", "model": "mock"}}, "reason": "initial"})
        first = self.seq
        for i in range(self.chunks + self.choose(self.chunks + 1)):
            self.write(ASSISTANT_CHUNK, {**scope, "chunk": {"type": "text-delta", "index": 0,
                                                               "text": WORDS[i % len(WORDS)]}})
        outcome = self.choose(10)
        if outcome == 0:
            self.write(STEP_END, scope)
            return self.end(turn, {"kind": "error", "error": {"message": "boom", "code": "UNKNOWN"}})
        if outcome == 1:
            return self.abort(turn, step)
        if outcome == 2:
            return self.crash(turn, step, [])
        if outcome <= 5:
            call = f"c{self.seq}"
            block = {"type": "tool-call", "id": call, "name": "read", "arguments": "{}"}
            self.write(ASSISTANT_MESSAGE, {**scope, "message": {"role": "assistant", "content": [block]}},
                       surfaceOp="append", sourceEventSeqs=list(range(first, self.seq)))
            if self.choose(5) == 0:
                return self.crash(turn, step, [call])  # the model announced a call that never started
            if self.choose(8) == 0:
                return self.abort(turn, step, skipped=call)  # aborted before the call ran (CANCEL-5)
            call_seq = self.write(TOOL_CALL, {**scope, "callId": call, "name": "read", "arguments": "{}"})
            if self.choose(3) == 0:
                self.send(NS)  # steering while the tool runs
            if self.choose(8) == 0:
                return self.abort(turn, step, drained=(call, call_seq))  # aborted while it ran (CANCEL-5)
            self.result(turn, step, call, call_seq)
            self.write(STEP_END, scope)
            return None
        self.write(ASSISTANT_MESSAGE, {**scope, "message": {"role": "assistant", "content": []}},
                   surfaceOp="append", sourceEventSeqs=list(range(first, self.seq)))
        self.write(STEP_END, scope)
        self.finished = "max-tokens" if outcome == 6 else "completed"
        return None


def generate(choose: Choose, events: int, chunks: int = 3, backlog: int = 0) -> Iterator[Event]:
    """At least ``events`` events of one valid session (it stops at an idle point).

    ``backlog`` queues that many non-waking follow-ups first and keeps the queue that long by
    adding one per turn, for measuring cost per event against the number of pending messages.
    """
    session = _Session(choose, chunks, backlog)
    for _ in range(backlog):
        session.send(NT)
    while session.seq < events or session.out:
        while session.out:
            yield session.out.popleft()
        if session.seq >= events:
            break
        if session.idle():
            session.drive()
