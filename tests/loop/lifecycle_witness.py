"""A reading of the model's log as a checker that sees only the log would (``test_agent_stateful``).

:class:`LogWitness` is fed the durable events one at a time and asserts the log-level rules of the
lifecycle (TURN, STEP, CLAIM, DECIDE-5, RESULT-5, REPAIR-2, TURN-5 …); from the events alone it
builds the exact emission trace the live side owes: inbox notifications after their records
(NOTIFY-2, NOTIFY-4), claimed ones after the claim's last record (CLAIM-4), ``running`` before
``turn/start`` (INPUT-2), ``agent/error`` before an error end (END-2), ``idle`` when the agent parks,
and only status changes (STATUS-1).  It is written from the spec, not from the model's code.
"""

from __future__ import annotations

import functools
import importlib
import json

import attrs

from loopspec.data.json_value import Frozen, JsonObject, Thawed, freeze, thaw
from loopspec.data.messages import EMPTY_INBOX, InboxState, InboxTarget, MessageId, UserMessage
from loopspec.data.notifications import AgentError, Claimed, Discarded, Inserted, Notification, StatusChanged
from loopspec.inbox.fold import apply as fold_apply
from loopspec.log.events import InboxSpliced, SessionEvent
from loopspec.log.kinds import END_SEED, SPLICED, STEP_END, STEP_START, TURN_END, TURN_START, USER_MESSAGE
from loopspec.log.tool_errors import ABORTED_CODE, RESULT_TEXTS, SKIPPED_CODE, tool_error
from loopspec.loop import commands as cmd
from loopspec.loop.phase_names import REPLAYING

NT, NS = InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP
NORMAL = ("completed", "max-tokens")
END_KINDS = (*NORMAL, "blocked", "aborted", "error", "interrupted")
DISPOSED = freeze({"kind": "disposed"})
Shape = tuple[str, Thawed]
Item = SessionEvent | Notification
Batch = tuple[UserMessage, ...]


@functools.lru_cache(maxsize=8192)
def _schema_check(kind: str, text: str) -> None:
    """Memo of a pure check (the same JSON validates the same way), so ``ci`` runs stay fast."""
    try:  # tests/schema_support.py belongs to another helper; without it only this check is skipped
        schemas = importlib.import_module("specdoc.schema_support")
    except ModuleNotFoundError:
        return
    obj = json.loads(text)
    schemas.validate_event(obj) if kind == "event" else schemas.validate_notification(obj)


def schema_valid(item: Item) -> None:
    if isinstance(item, SessionEvent):  # seq and time are the log's counters; keying on them defeats the memo
        _schema_check("event", json.dumps({**item.to_json(), "seq": 0, "time": 0}, sort_keys=True))
    else:
        _schema_check("notification", json.dumps(item.to_json(), sort_keys=True))


def holds(condition: object, rule: str) -> None:
    """A log-level rule check; the message names the rule (and the reason when not obvious)."""
    if not condition:
        raise AssertionError(rule)


def shape(events: tuple[SessionEvent, ...]) -> list[Shape]:
    return [(e.type, thaw(e.data)) for e in events]


def turn_end(turn: int, reason: dict[str, Thawed]) -> Shape:
    return (TURN_END, {"turn": turn, "reason": reason})


def error_end(turn: int, message: str, code: str = "UNKNOWN") -> Shape:
    return turn_end(turn, {"kind": "error", "error": {"message": message, "code": code}})


def announcement(turn: int, step: int, call: str) -> Shape:
    """The model's answer announcing one tool call (spec/command-language.md, ``tool-call``)."""
    block: Thawed = {"type": "tool-call", "id": call, "name": "tool", "arguments": "{}"}
    message: Thawed = {"id": f"assistant-{call}", "role": "assistant", "content": [block], "source": {"kind": "model"}}
    return ("assistant/message", {"turn": turn, "step": step, "message": message})


def tool_call(turn: int, step: int, call: str) -> Shape:
    return ("tool/call", {"turn": turn, "step": step, "callId": call, "name": "tool", "arguments": "{}"})


def _tool_message(mid: str, call: str, text: str, error: bool) -> dict[str, Thawed]:
    text_block: Thawed = {"type": "text", "text": text}
    block: Thawed = {"type": "tool-result", "toolCallId": call, "content": [text_block], "isError": error}
    return {"id": mid, "role": "user", "source": {"kind": "tool", "callId": call}, "content": [block]}


def tool_result(turn: int, step: int, call: str) -> Shape:
    return ("tool/result", {"turn": turn, "step": step, "message": _tool_message(f"tool-result-{call}", call, "done",
                                                                               False)})


def skipped_result(turn: int, step: int, call: str) -> Shape:
    """CANCEL-5: an aborted step's error result for a call whose tool never started."""
    message = _tool_message(f"tool-result-{call}", call, RESULT_TEXTS[SKIPPED_CODE], True)
    return ("tool/result", {"turn": turn, "step": step, "message": message, "error": tool_error(SKIPPED_CODE)})


def aborted_result(turn: int, step: int, call: str) -> Shape:
    """CANCEL-5: a started call drained after the abort: the tool runtime's aborted result, not the tool's."""
    message = _tool_message(f"tool-result-{call}", call, RESULT_TEXTS[ABORTED_CODE], True)
    return ("tool/result", {"turn": turn, "step": step, "message": message, "error": tool_error(ABORTED_CODE)})


def synthetic_result(turn: int, step: int | None, call: str, started: bool, seq: int) -> Shape:
    """REPAIR-1: crash repair's error result for a call nothing answered."""
    code = "TOOL_OUTCOME_UNKNOWN" if started else "TOOL_NOT_STARTED"
    message = _tool_message(f"interrupted-tool-result-{call}-{seq}", call, RESULT_TEXTS[code], True)
    return ("tool/result", {"turn": turn, "step": step, "message": message, "error": tool_error(code)})


def claim_record(target: InboxTarget, count: int) -> Shape:
    return (SPLICED, {"target": target.value, "start": 0, "removedCount": count, "inserted": []})


@attrs.define
class LogWitness:
    """Reads the model's log one event at a time and builds the emission trace the live side owes."""

    inbox: InboxState = EMPTY_INBOX
    last_turn: int = 0
    turn: int | None = None
    step: int | None = None
    steps: int = 0
    entered: int = 0
    nt_claimed: bool = False
    due: list[InboxTarget] = attrs.Factory(list)  # CLAIM-6: the claims that must come next
    batch: tuple[UserMessage, ...] = ()  # claimed at the current boundary (DECIDE-1)
    quiet: bool = True  # no step event since the boundary began (DECIDE-5)
    after_step_end: bool = False  # no claim since the last step/end (RESULT-5)
    permit: bool = False  # a send-shaped insertion since the last turn/end or end-seed (TURN-5)
    latch_send: bool = False  # a send-shaped next-turn insertion inside the open turn (CANCEL-4)
    ended: tuple[bool, bool] | None = None  # (may chain, may latch) of a turn/end awaiting its sequel
    hop_abort: object = None  # after a turn/end: the cause the driver is aborted with (its turn's, or a cancel's)
    turn_abort: object = None  # a cancel that landed at a hop of the open turn (the end may not say so)
    # The agent/error a command emitted before it stopped at the hop ahead of the error turn/end
    # (spec/loop-grain.md row 18): that end owes it no second time, and carries its error.
    announced_error: Frozen = None
    last_type: str | None = None
    need_seed: bool = False
    status: str = "idle"
    consumed: dict[MessageId, int] = attrs.Factory(dict)  # claimed and not inserted again (CLAIM-5)
    owed: list[Item] = attrs.Factory(list)
    claimed: list[Item] = attrs.Factory(list)  # CLAIM-4: claimed notes wait for the claim's last record

    def feed(self, e: SessionEvent) -> None:
        t, data = e.type, e.data
        assert isinstance(data, JsonObject)
        assert not self.need_seed or t == END_SEED, "REPAIR-2: turn/end interrupted is followed by end-seed"
        sp = InboxSpliced.from_data(data, e.seq) if t == SPLICED else None
        if not (sp and sp.is_claim):
            self.owed += self.claimed
            self.claimed = []
        if self.ended is not None and t == END_SEED:
            self.ended = None  # a restart landed at the hop after the end: that process is gone
        elif self.ended is not None and sp is not None and not sp.is_claim:
            pass  # a call landed at the hop after the end (spec/loop-grain.md rows 19-20)
        elif self.ended is not None:
            may_chain, may_latch = self.ended
            assert t == TURN_START, f"{t} follows a turn/end inside one command"
            if not may_chain:
                assert may_latch, "TURN-5: only a chain or a latched wake starts a turn right after turn/end"
                self._status("idle")  # CANCEL-4: the latched wake is replayed after going idle
            self.ended, self.permit = None, True
        if self.due and t != TURN_END:
            holds(sp is not None and sp.is_claim and sp.target is self.due.pop(0), "CLAIM-6: the claim comes first")
        if t == TURN_START:
            holds(self.turn is None and data["turn"] == self.last_turn + 1, "TURN-1, TURN-2")
            holds(self.permit and set(data) == {"turn"}, "TURN-5, LOG-8")
            self._status("running")  # INPUT-2: running before turn/start
            self.last_turn = self.turn = data["turn"]  # type: ignore[assignment]
            self.step, self.steps, self.nt_claimed, self.permit, self.latch_send = None, 0, False, False, False
            self.due = [NS] * bool(self.inbox.next_step) + [NT] * bool(self.inbox.next_turn)
            self.quiet, self.after_step_end, self.batch = True, False, ()
        elif t == STEP_START:
            holds(self.turn == data["turn"] and self.step is None and data["step"] == self.steps + 1, "STEP-1")
            self.step = self.steps = data["step"]  # type: ignore[assignment]
            self.entered, self.quiet, self.after_step_end = 0, False, False
        elif t == USER_MESSAGE:
            assert self.last_type in (STEP_START, USER_MESSAGE), "STEP-3: user/message outside a step's entry"
            holds(e.surface_op == "append" and e.source_event_seqs is None, "LOG-7")
            self.entered += 1
        elif t == STEP_END:
            assert (self.turn, self.step) == (data["turn"], data["step"]), "STEP-2"
            assert self.steps > 1 or self.entered > 0, "STEP-4: the first step enters something"
            self.step, self.quiet, self.after_step_end, self.batch = None, True, True, ()
            self.due = [NS] if self.inbox.next_step else []
        elif t == TURN_END:
            self._turn_end(data)
        elif t == END_SEED:
            holds(self.turn is None and self.last_type != END_SEED and data == freeze({}), "REPAIR-2")
            self.permit = self.need_seed = False
        self.owed.append(e)
        if sp is not None:
            self._splice(sp, e)
        self.last_type = t

    def _status(self, status: str) -> None:
        if self.status != status:  # STATUS-1: only changes are emitted
            self.owed.append(StatusChanged(status))  # type: ignore[arg-type]
            self.status = status

    def _splice(self, sp: InboxSpliced, e: SessionEvent) -> None:
        holds(sp.inserted or sp.removed, "SPLICE-2: a record that changes nothing is never written")
        holds(sp.removed_count != 0, "SPLICE-4: removedCount is written only when something is removed")
        lane = self.inbox.lane(sp.target)
        removed = lane[sp.start : sp.start + sp.removed]
        turn = self.turn
        if sp.is_claim:
            assert turn is not None, "CLAIM-3: a claim outside an open turn"
            holds(self.step is None and sp.start == 0, "CLAIM-3, CLAIM-2: at a boundary, from the front")
            if sp.target is NS:
                assert sp.removed == len(lane), "CLAIM-1: a claim takes all of next-step"
            else:
                holds(sp.removed == 1 and self.steps == 0 and not self.nt_claimed, "CLAIM-1: one next-turn, first")
                assert not self.inbox.next_step, "CLAIM-2: the next-step part comes first"
                self.nt_claimed = True
            for m in removed:
                assert m.id not in self.consumed, "CLAIM-5: claimed twice without a new insertion"
                self.consumed[m.id] = turn
            self.claimed += [Claimed(m, turn) for m in removed]  # CLAIM-4: the enclosing turn
            self.batch += removed
            self.after_step_end = False
        else:
            assert (sp.outcome == "canceled") == (sp.removed > 0), "SPLICE-6"
            self.owed += [Discarded(m) for m in removed] + [Inserted(m) for m in sp.inserted]  # NOTIFY-2, -4
            for m in sp.inserted:
                self.consumed.pop(m.id, None)
            if sp.removed == 0 and len(sp.inserted) == 1 and sp.start == len(lane):
                self.permit = True
                self.latch_send = self.latch_send or (turn is not None and sp.target is NT)
        self.inbox = fold_apply(self.inbox, e)

    def _turn_end(self, data: JsonObject) -> None:
        reason, turn = data["reason"], self.turn
        assert isinstance(reason, JsonObject), "LOG-8"
        assert turn is not None, "TURN-3: turn/end with no open turn"
        kind = reason["kind"]
        holds(set(data) == {"turn", "reason"} and kind in END_KINDS, "LOG-8, END-1")
        holds(turn == data["turn"] and self.step is None, "TURN-3")
        assert not self.due or kind in ("aborted", "error", "interrupted"), "CLAIM-6: only an abort closes first"
        assert kind != "blocked" or self.quiet, "DECIDE-5: a reject opens no step at its boundary"
        assert kind not in NORMAL or not self.after_step_end or not self.inbox.next_step, "RESULT-5"
        assert kind != "max-tokens" or self.steps > 0, "RESULT-1"
        if kind == "error" and self.announced_error is not None:
            assert reason["error"] == self.announced_error, "END-2: the end carries the error agent/error named"
        elif kind == "error":
            self.owed.append(AgentError(turn, self.steps, reason["error"]))  # END-2, DECIDE-7
        else:  # or a crash lands there, and repair closes the turn
            assert self.announced_error is None or kind == "interrupted", "END-3: after agent/error, an error end"
        self.announced_error = None
        cause = reason.get("reason")
        assert kind != "aborted" or (isinstance(cause, JsonObject) and isinstance(cause.get("kind"), str))
        self.need_seed = kind == "interrupted"
        if kind != "interrupted":
            chain = kind in NORMAL and self.steps > 0 and self.inbox.has_pending  # CHAIN-1
            # A cancel that landed after the pre-step returned a reject or an empty entry does not
            # make the end aborted, but a send after it latched a wake all the same (loop-grain row 6).
            abort = cause if kind == "aborted" else self.turn_abort
            self.ended = (chain, self.latch_send and abort not in (None, DISPOSED))
            # A chaining turn hops with a fresh signal; any other keeps its own (loop-grain rows 19-20).
            self.hop_abort = None if chain else abort
        self.turn_abort = None
        self.turn, self.step, self.due, self.permit, self.batch = None, None, [], False, ()

    def landed(self, command: cmd.Command, at: str) -> None:
        """A call landed at the hop ``at`` after a turn/end: a cancel stops a chain (and, clearing, drops
        the latch); a waking send after an abort not by disposal is redirected and latches (CANCEL-4).
        At ``replaying`` the driver has gone idle and read its latch already: a call changes neither."""
        if at == REPLAYING:
            return
        if self.ended is None:
            if isinstance(command, cmd.Cancel) and self.turn is not None and self.turn_abort is None:
                self.turn_abort = command.cause  # the first cause wins
            return
        may_chain, may_latch = self.ended
        if isinstance(command, cmd.Cancel):
            self.hop_abort = command.cause if self.hop_abort is None else self.hop_abort
            may_chain, may_latch = False, may_latch and command.keep_inbox
        elif isinstance(command, cmd.Send) and command.wake and self.hop_abort not in (None, DISPOSED):
            may_latch = True
        self.ended = (may_chain, may_latch)

    def failed(self, error: AgentError) -> None:
        """The command stopped at the hop after ``agent/error`` (the log cannot show it before the
        turn/end): the open turn failed, at its last opened step, with this error (END-2)."""
        assert self.turn is not None, "END-2: agent/error with no open turn"
        assert self.step is None, "STEP-2: a step closes before agent/error"
        assert (error.turn, error.step) == (self.turn, self.steps), "END-2: agent/error names the last opened step"
        assert self.announced_error is None
        self.owed.append(error)
        self.announced_error = error.error
        self.due = []  # CLAIM-6: a failed step claims nothing; its end comes next (END-3)

    def starting(self) -> None:
        """The command stopped at the hop after a driver started (its running status emitted, its
        turn/start not written: spec/loop-grain.md row 2); a latched wake's replay went idle first."""
        assert self.turn is None, "INPUT-2: a driver starts with no turn open"
        assert self.ended is None or (not self.ended[0] and self.ended[1]), "CANCEL-4: only a latch restarts"
        self._status("idle")  # STATUS-1: a replayed latch passes idle (no change from idle is emitted)
        self._status("running")  # INPUT-2: running before turn/start
        # A turn/start may follow unless a call there stops it (landed); nothing is latched yet.
        self.ended, self.hop_abort = (True, False), None

    def replaying(self) -> None:
        """The command stopped at the hop after a driver that latched a wake went idle, its idle
        status emitted, the replay to come (spec/loop-grain.md row 21)."""
        assert self.ended is not None, "CANCEL-4: a driver replays after its turn's end"
        assert self.ended == (False, True), "CANCEL-4: only a latched driver replays, one that does not chain"
        self._status("idle")  # STATUS-1

    def close(self, at_hop: bool = False) -> list[Item]:
        """End of one command: a turn/end with no sequel parked the agent, unless the command stopped
        at the hop after it, where the sequel is still to come.  Returns what was owed."""
        self.owed += self.claimed
        if self.ended is not None and at_hop:
            owed, self.owed, self.claimed = self.owed, [], []
            return owed
        if self.ended is not None:
            assert not self.ended[0], "CHAIN-1: a normal end with input pending chains the next turn"
            self._status("idle")  # CHAIN-2
        assert not self.need_seed, "REPAIR-2"
        owed, self.owed, self.claimed, self.ended = self.owed, [], [], None
        return owed
