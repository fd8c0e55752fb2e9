"""The loop as a synchronous state machine (spec/07 … spec/12, the lifecycle table).

The real loop is asynchronous; its await points are where this machine rests until the
environment answers: `deciding` (the agent/pre-step decision), `stepping` (the model call and
tools), `stopping` (agent/turn-stopping).  Everything between two await points happens inside
one command, as the real driver runs synchronously up to its next await.
"""

from __future__ import annotations

from collections.abc import Callable

from inbox import NEXT_STEP, NEXT_TURN, Inbox, Refused, Session

IDLE, DECIDING, STEPPING, STOPPING = "idle", "deciding", "stepping", "stopping"
# REPAIR-1: crash repair's text per code, fixed sentences of the real writer (wire values).
REPAIR_TEXTS = {
    "TOOL_OUTCOME_UNKNOWN": (
        "The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome "
        "is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only "
        "or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry "
        "blindly."
    ),
    "TOOL_NOT_STARTED": "The tool call was interrupted before the Harness recorded it as started. Retry it if it is "
                        "still needed.",
}
ANSWERS = {"decide": DECIDING, "step-result": STEPPING, "turn-stopping": STOPPING}
Emit = Callable[[tuple[str, dict]], None]


class ListenerThrew(Exception):
    """A listener (or its action, refused) threw; the turn ends error (DECIDE-7)."""


class Turn:
    """The running turn's private state."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.step = 0  # the last step opened (STEP-1)
        self.abort: object = None  # the cancel cause, once aborted (the first cause wins)
        self.aborted = False
        self.wake_latched = False  # CANCEL-4
        self.ends: str | None = None  # the end reason the steps set so far (RESULT-1)
        self.batch: list[dict] = []  # the boundary's claimed batch
        self.calls: list[list] = []  # the open step's pending tool calls: [call id, started]
        self.announced = 0  # tool calls the open step announced, answered or not


class Agent:
    def __init__(self, emit: Emit) -> None:
        self.emit = emit
        self.session = Session(emit)
        self.inbox = Inbox(self.session, emit)
        self.phase = IDLE
        self.turn: Turn | None = None
        self.last_turn = 0

    @property
    def status(self) -> str:
        return IDLE if self.phase == IDLE else "running"  # STATUS-1

    def notify_status(self, status: str) -> None:
        self.emit(("note", {"type": "agent/status", "status": status}))

    # ---- input (INPUT-1 … INPUT-3, CANCEL-1 … CANCEL-4) ----

    def send(self, message: dict, target: str, wake: bool) -> None:
        turn = self.turn
        redirected = wake and turn is not None and turn.aborted  # CANCEL-4: decided before inserting
        self.inbox.splice(NEXT_TURN if redirected else target, float("inf"), 0, [message])  # INPUT-1, INPUT-3
        if not wake:
            return
        if self.phase == IDLE:  # INPUT-2: status, then turn/start and the claim, in this call
            self.notify_status("running")
            self.start_turn()
        elif redirected and turn is not None and not _disposed(turn.abort):
            turn.wake_latched = True

    def cancel(self, cause: object, keep_inbox: bool) -> None:
        if not keep_inbox:
            self.inbox.clear()  # CANCEL-1: clear first, next-step before next-turn
            if self.turn is not None:
                self.turn.wake_latched = False  # a clearing cancel disarms a latched wake
        if self.turn is not None and not self.turn.aborted:
            self.turn.aborted, self.turn.abort = True, cause

    # ---- the driver ----

    def start_turn(self) -> None:
        self.last_turn += 1  # TURN-1
        self.session.append("turn/start", {"turn": self.last_turn})
        self.turn = Turn(self.last_turn)
        self.boundary(NEXT_TURN)  # TURN-4: the first claim right after turn/start

    def boundary(self, target: str) -> None:
        assert self.turn is not None
        self.turn.batch = self.inbox.claim(target, self.turn.number)  # CLAIM-1, CLAIM-6
        self.phase = DECIDING

    def expect(self, op: str) -> Turn:
        if self.phase != ANSWERS[op]:
            raise Refused("INPUT-4", f"{op} is not expected while the agent is {self.phase}")
        assert self.turn is not None
        return self.turn

    def decide(self, decision_of: Callable[[list[dict]], dict]) -> None:
        turn = self.expect("decide")
        if turn.aborted:
            return self.end_turn({"kind": "aborted", "reason": turn.abort})  # CANCEL-3: no listener runs
        try:
            decision = decision_of(turn.batch)
        except ListenerThrew as threw:
            if turn.aborted:
                return self.end_turn({"kind": "aborted", "reason": turn.abort})
            return self.fail(str(threw), "UNKNOWN")  # DECIDE-7
        if turn.aborted:
            return self.end_turn({"kind": "aborted", "reason": turn.abort})
        if decision["kind"] == "reject":
            return self.end_turn({"kind": "blocked"})  # DECIDE-5
        entered = decision["messages"]
        if not entered and turn.ends is not None:
            return self.end_turn({"kind": turn.ends}, normal=True)  # DECIDE-6, later boundary
        if not entered and turn.step == 0:
            return self.end_turn({"kind": "completed"})  # DECIDE-6, first boundary
        turn.step += 1
        turn.batch, turn.calls, turn.announced = [], [], 0
        self.session.append("step/start", {"turn": turn.number, "step": turn.step})  # DECIDE-8
        for m in entered:
            self.session.append("user/message", m, surface_op="append")  # LOG-7
        self.phase = STEPPING
        return None

    def step_result(self, result: dict, tool_insert: Callable[[dict], None]) -> None:
        turn = self.expect("step-result")
        if turn.aborted:  # CANCEL-3, CANCEL-5: no tool starts; the started ones are answered, the rest skipped
            # A started tool finished while another started one still runs: the step stays open.
            # The last started tool's answer closes the step (finding F9).
            if result["kind"] == "tool-result" and len(turn.calls) > 1 and turn.calls[0][1] and turn.calls[1][1]:
                self.answer(turn, turn.calls[:1])
                turn.calls = turn.calls[1:]
                return None
            self.answer(turn, [c for c in turn.calls if c[1]], skipped=[c for c in turn.calls if not c[1]])
            turn.calls = []
            self.close_step()
            return self.end_turn({"kind": "aborted", "reason": turn.abort})
        kind = result["kind"]
        if kind == "request-error" and result["retry"]:
            return None  # RESULT-3: the same step goes on
        if kind in ("tool-call", "tool-start", "tool-result"):
            return self.tool_point(turn, kind, result["started"])  # points inside the open step
        if kind in ("fail", "request-error"):
            self.close_step()
            return self.fail(result["error"], result["code"])
        if kind == "tool-calls":
            self.answer(turn, turn.calls)  # RESULT-2: the results are committed before the tools' context
            turn.calls = []
            for m in result["context"]:  # RESULT-2: public insertions at the end of next-step, in order
                try:
                    tool_insert(m)
                except Refused as refused:  # the tool threw; what it inserted before stays written
                    self.close_step()
                    return self.fail(refused.message, "UNKNOWN")
        ends = {"stop": "completed", "max-tokens": "max-tokens"}.get(kind)
        if kind == "tool-calls" and result["conclude"]:
            ends = "completed"
        turn.ends = "max-tokens" if turn.ends == "max-tokens" else ends  # RESULT-1: sticky
        self.answer(turn, turn.calls)  # the step's tools have run: every pending call is answered (LOG-4)
        turn.calls = []
        self.close_step()
        if turn.ends is not None and not self.inbox.lists[NEXT_STEP]:
            self.phase = STOPPING  # RESULT-4
            return None
        return self.boundary(NEXT_STEP)

    def tool_point(self, turn: Turn, kind: str, started: bool) -> None:
        """tool-call / tool-start / tool-result: a point inside the step (RESULT-2); it stays open."""
        if kind == "tool-call":
            turn.announced += 1
            call = f"call-{turn.number}.{turn.step}.{turn.announced}"
            block = {"type": "tool-call", "id": call, "name": "tool", "arguments": "{}"}
            message = {"id": f"assistant-{call}", "role": "assistant", "content": [block], "source": {"kind": "model"}}
            self.session.append("assistant/message", {"turn": turn.number, "step": turn.step, "message": message},
                                surface_op="append")
            turn.calls.append([call, False, None])  # id, started, its tool/call's seq
        if kind == "tool-start" or (kind == "tool-call" and started):  # LOG-11: the oldest not started starts
            waiting = next((c for c in turn.calls if not c[1]), None)  # the oldest not started
            if waiting is not None:
                waiting[2] = self.session.append("tool/call", _tool_call(turn, waiting[0]))["seq"]
                waiting[1] = True
        elif kind == "tool-result" and turn.calls:  # the oldest pending call's tool finished
            self.answer(turn, turn.calls[:1])
            turn.calls = turn.calls[1:]

    def answer(self, turn: Turn, calls: list[list], skipped: list[list] | None = None) -> None:
        """Each call's tool/result, in call order (its tool/call first if it had not started); a
        ``skipped`` call (an aborted step's, never started) gets an error result (CANCEL-5)."""
        for (call, started, call_seq), skip in [(c, False) for c in calls] + [(c, True) for c in skipped or []]:
            if not started:
                call_seq = self.session.append("tool/call", _tool_call(turn, call))["seq"]
            # CANCEL-5: a skipped call's error, or (after the abort) the runtime's aborted result.
            code = "ABORTED_BEFORE_DISPATCH" if skip else "ABORTED" if turn.aborted else None
            text = {"ABORTED_BEFORE_DISPATCH": "Error: tool call aborted before dispatch",
                    "ABORTED": "Error: tool call aborted", None: "done"}[code]
            content = [{"type": "tool-result", "toolCallId": call, "content": [{"type": "text", "text": text}],
                        "isError": code is not None}]
            message = {"id": f"tool-result-{call}", "role": "user", "source": {"kind": "tool", "callId": call},
                       "content": content}
            data = {"turn": turn.number, "step": turn.step, "message": message}
            if code is not None:
                data["error"] = {"name": "AbortError", "code": code}
            # Every tool/result cites its call's tool/call (decisions H3).
            self.session.append("tool/result", data, surface_op="append", source_event_seqs=[call_seq])

    def turn_stopping(self, run_actions: Callable[[], str | None], raises: str | None) -> None:
        turn = self.expect("turn-stopping")
        if turn.aborted:
            return self.end_turn({"kind": "aborted", "reason": turn.abort})
        raised = run_actions()
        if raised is None:
            raised = raises
        if turn.aborted:
            return self.end_turn({"kind": "aborted", "reason": turn.abort})
        if raised is not None:
            return self.fail(raised, "UNKNOWN")
        if not self.inbox.lists[NEXT_STEP]:
            return self.end_turn({"kind": turn.ends}, normal=True)  # RESULT-5
        return self.boundary(NEXT_STEP)  # RESULT-4: steered or injected input extends the turn

    def close_step(self) -> None:
        assert self.turn is not None
        self.session.append("step/end", {"turn": self.turn.number, "step": self.turn.step})  # STEP-2

    def fail(self, message: str, code: str) -> None:
        assert self.turn is not None
        error = {"message": message, "code": code}
        # END-2: the live agent/error (turn, last opened step) before the durable error end.
        self.emit(("note", {"type": "agent/error", "turn": self.turn.number, "step": self.turn.step, "error": error}))
        self.end_turn({"kind": "error", "error": error})

    def end_turn(self, reason: dict, normal: bool = False) -> None:
        """turn/end, then chain (CHAIN-1), replay a latched wake (CANCEL-4) or park (CHAIN-2)."""
        turn = self.turn
        assert turn is not None
        self.session.append("turn/end", {"turn": turn.number, "reason": reason})
        if normal and self.inbox.pending():
            self.start_turn()  # same running interval: no status change
            return
        self.turn = None
        self.phase = IDLE
        self.notify_status(IDLE)
        if turn.wake_latched and self.inbox.pending():
            self.notify_status("running")
            self.start_turn()

    # ---- restart (REPAIR-1 … REPAIR-4) ----

    def restart(self) -> None:
        """A new process loads the log: close the open turn, mark the seed, fold the inbox."""
        events = self.session.events
        open_turn = open_step = None
        pending: dict[str, int | None] = {}  # call id -> its tool/call's seq, None if not started (REPAIR-1)
        for e in events:
            kind, data = e["type"], e["data"]
            if kind == "turn/start":
                open_turn, open_step, self.last_turn, pending = data["turn"], None, data["turn"], {}
            elif kind == "turn/end":
                open_turn, open_step, pending = None, None, {}
            elif kind == "step/start":
                open_step, pending = data["step"], {}
            elif kind == "step/end":
                open_step, pending = None, {}
            elif kind == "assistant/message":
                pending.update({b["id"]: None for b in data["message"]["content"] if b.get("type") == "tool-call"})
            elif kind == "tool/call":
                pending[data["callId"]] = e["seq"]
            elif kind == "tool/result":
                pending.pop(data["message"]["source"].get("callId"), None)
        if events:
            self.session.clock = max(self.session.clock, max(e["time"] for e in events))
        if open_turn is not None:
            time = events[-1]["time"]  # REPAIR-3: the closers carry the last event's time
            for call, call_seq in pending.items():  # REPAIR-1: a synthetic error result per pending call
                started = call_seq is not None
                code = "TOOL_OUTCOME_UNKNOWN" if started else "TOOL_NOT_STARTED"
                error = {"name": "ToolOutcomeUnknownError" if started else "ToolNotStartedError", "code": code}
                result = {"type": "tool-result", "toolCallId": call, "isError": True,
                          "content": [{"type": "text", "text": REPAIR_TEXTS[code]}]}
                message = {"id": f"interrupted-tool-result-{call}-{len(events)}", "role": "user",
                           "source": {"kind": "tool", "callId": call}, "content": [result]}
                # The real closer cites the call's tool/call only when it has one (decisions H3).
                self.session.append("tool/result", {"turn": open_turn, "step": open_step, "message": message,
                                                    "error": error}, surface_op="append", time=time,
                                    source_event_seqs=[call_seq] if started else None)
            if open_step is not None:
                self.session.append("step/end", {"turn": open_turn, "step": open_step}, time=time)
            self.session.append("turn/end", {"turn": open_turn, "reason": {"kind": "interrupted"}}, time=time)
        if not events or events[-1]["type"] != "session/end-seed":
            self.session.append("session/end-seed", {})  # REPAIR-2
        self.inbox.fold(self.session.events)  # REPAIR-4, FOLD-5
        self.phase, self.turn = IDLE, None  # a new process starts idle and notifies nothing


def _tool_call(turn: Turn, call: str) -> dict:
    return {"turn": turn.number, "step": turn.step, "callId": call, "name": "tool", "arguments": "{}"}


def _disposed(cause: object) -> bool:
    return isinstance(cause, dict) and cause.get("kind") == "disposed"  # CANCEL-4
