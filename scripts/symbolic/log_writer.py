"""The log of a small agent that follows the real loop's protocol, one move at a time.

:class:`Writer` keeps the two lists, the claimed batch and the open turn and step, and writes
exactly the records the real loop writes for each move; :data:`GLITCHES` are events the protocol
does not write where they land, each breaking one rule of the log.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from crosshair import SymbolicFactory

from loopspec.data.json_value import Frozen, JsonObject
from loopspec.data.messages import MessageId, Messages, UserMessage
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import SPLICED


def obj(*fields: tuple[str, Frozen]) -> JsonObject:
    return JsonObject(fields)


def concrete_message(mid: str) -> UserMessage:
    body = obj(("id", mid), ("role", "user"), ("content", ()), ("source", obj(("kind", "user"))))
    return UserMessage(MessageId(mid), body)


class Writer:
    """The log of a small agent that follows the real loop's protocol, one move at a time."""

    def __init__(self, p: SymbolicFactory) -> None:
        self.p = p
        self.events: list[SessionEvent] = []
        self.lanes: dict[str, list[UserMessage]] = {"next-turn": [], "next-step": []}
        self.batch: list[UserMessage] = []
        self.turn = self.step = 0
        self.open_turn = self.open_step = False

    def emit(self, etype: str, data: Frozen) -> None:
        # seq is the index (LOG-2); times are concrete and distinct, so a closer that copied
        # any time but the last event's would show (symbolic times made each path slower).
        seq = len(self.events)
        self.events.append(SessionEvent(etype, seq, 1000 + seq, data))

    def splice(self, target: str, start: int, removed: int, inserted: Messages, canceled: bool) -> None:
        lane = self.lanes[target]
        taken = lane[start : start + removed]
        lane[start : start + removed] = inserted
        if removed and not canceled:
            self.batch.extend(taken)
        fields: list[tuple[str, Frozen]] = [("target", target), ("start", start)]
        if removed:
            fields.append(("removedCount", removed))
        fields.append(("inserted", tuple(m.body for m in inserted)))
        if canceled:
            fields.append(("outcome", "canceled"))
        self.emit(SPLICED, JsonObject(tuple(fields)))

    def free_id(self) -> str | None:
        # The first id not pending: no branch spent on ids, and an id comes back after it left.
        pending = {m.id.value for ms in self.lanes.values() for m in ms}
        return next((mid for mid in "abc" if mid not in pending), None)

    def claim(self, first_boundary: bool) -> None:
        # CLAIM-1/2: all of next-step, then (at a turn's first boundary) the first of next-turn.
        if self.lanes["next-step"]:
            self.splice("next-step", 0, len(self.lanes["next-step"]), (), False)
        if first_boundary and self.lanes["next-turn"]:
            self.splice("next-turn", 0, 1, (), False)

    def send(self, target: str) -> None:
        mid = self.free_id()
        if mid is not None:
            self.splice(target, len(self.lanes[target]), 0, (concrete_message(mid),), False)

    def cancel(self, replace: bool) -> None:
        """Remove (or replace) the oldest pending message, as a public edit."""
        target = "next-step" if self.lanes["next-step"] else "next-turn"
        mid = self.free_id() if replace else None
        if self.lanes[target]:
            self.splice(target, 0, 1, (concrete_message(mid),) if mid is not None else (), True)

    def boundary(self, enter: bool, reason: str) -> None:
        """The loop's next boundary: turn/start and claim, step/end and claim, step/start, or turn/end."""
        if not self.open_turn:
            self.turn, self.step, self.open_turn, self.batch = self.turn + 1, 0, True, []
            self.emit("turn/start", obj(("turn", self.turn)))
            self.claim(first_boundary=True)
        elif self.open_step:
            self.open_step = False
            self.emit("step/end", obj(("turn", self.turn), ("step", self.step)))
            self.claim(first_boundary=False)
        elif enter:
            self.step, self.open_step = self.step + 1, True
            self.emit("step/start", obj(("turn", self.turn), ("step", self.step)))
            for m in self.batch:  # DECIDE-8: the entered batch, right after step/start
                self.emit("user/message", m.body)
            self.batch = []
        else:
            self.open_turn = False
            self.emit("turn/end", obj(("turn", self.turn), ("reason", obj(("kind", reason)))))

    def glitch(self, kind: str) -> None:
        """An event the protocol does not write here: each breaks one rule of the log."""
        GLITCHES[kind](self)

    def tool(self, kind: str, calls: tuple[str, ...]) -> None:
        """A tool event of the open step: calls announced by the model, a call started, a result."""
        TOOL_EVENTS[kind](self, calls)


GLITCHES: Mapping[str, Callable[[Writer], None]] = MappingProxyType({
    # TURN-1: a turn number reused (or, inside a turn, TURN-2)
    "turn-number": lambda w: w.emit("turn/start", obj(("turn", w.turn))),
    # TURN-3: turn/end of a turn that is not the open one
    "turn-end": lambda w: w.emit("turn/end", obj(("turn", w.turn + 1), ("reason", obj(("kind", "completed"))))),
    # STEP-1: a step of the next turn, open or not
    "step": lambda w: w.emit("step/start", obj(("turn", w.turn + 1), ("step", 1))),
    # a pure deletion outside the loop's boundaries (FOLD-2 if empty)
    "claim": lambda w: w.emit(SPLICED, obj(("target", "next-turn"), ("start", 0), ("removedCount", 1),
                                           ("inserted", ()))),
    # a user/message of a message no claim took
    "user": lambda w: w.emit("user/message", concrete_message("c").body),
    # an event type no fold reads
    "foreign": lambda w: w.emit("session/end-seed", obj()),
})


def _announce(w: Writer, calls: tuple[str, ...]) -> None:
    blocks = tuple(obj(("type", "tool-call"), ("id", c)) for c in calls)
    w.emit("assistant/message", obj(("message", obj(("content", blocks)))))


def _result(w: Writer, calls: tuple[str, ...]) -> None:
    source = obj(("kind", "tool"), ("callId", calls[0]))
    w.emit("tool/result", obj(("message", obj(("source", source)))))


TOOL_EVENTS: Mapping[str, Callable[[Writer, tuple[str, ...]], None]] = MappingProxyType({
    "announce": _announce,
    "call": lambda w, calls: w.emit("tool/call", obj(("callId", calls[0]))),
    "result": _result,
})
