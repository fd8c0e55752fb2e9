"""CrossHair plugin: how to build symbolic messages, events, logs and listeners for the PEP 316 contracts.

CrossHair cannot build these values from their type hints (a message body is recursive frozen
JSON, a listener's actions are commands), and the logs it would build are tuples of independent
events, in which a claim inside a turn almost never occurs.  Messages get one of three ids; a
single event is a symbolic splice, a turn/step boundary or a foreign type; a log is written by a
small agent that follows the real loop's protocol; listeners are small symbolic chains.  What
this explores, how far, and the two CrossHair internals it relies on: docs/contracts.md.

CrossHair runs this file with ``exec`` and separate globals and locals: a top-level function
cannot see another top-level name, so each group of creators is built inside one function whose
closures share its imports and helpers.
"""

from __future__ import annotations

from collections.abc import Callable

from crosshair import SymbolicFactory, register_type

from loopspec.data.messages import UserMessage
from loopspec.log.events import SessionEvent
from loopspec.loop.pre_step import Throw, Veto, Wrap


def _message(p: SymbolicFactory) -> UserMessage:
    from loopspec.data.json_value import JsonObject
    from loopspec.data.messages import MessageId, UserMessage

    mid = "a" if p(bool, "_is_a") else ("b" if p(bool, "_is_b") else "c")
    body = JsonObject((("id", mid), ("role", "user"), ("content", ()), ("source", JsonObject((("kind", "user"),)))))
    return UserMessage(MessageId(mid), body)


def _event_creator() -> Callable[[SymbolicFactory], SessionEvent]:
    from loopspec.data.json_value import Frozen, JsonObject
    from loopspec.data.messages import UserMessage
    from loopspec.log.events import SPLICED, SessionEvent

    def bits(p: SymbolicFactory, name: str, width: int) -> int:
        # Built from symbolic branches: numeric operations on symbolic values are not allowed
        # while the plugin builds an argument, branching on a symbolic bool is.
        return sum(1 << bit for bit in range(width) if p(bool, f"{name}_bit{bit}"))

    def small(p: SymbolicFactory, name: str) -> int:
        # -1 or 0..7: coordinates near the lists' lengths are where the fold decides, and an
        # unbounded int sends CrossHair into printing huge numbers for the error message of an
        # unsafe integer.
        return -1 if p(bool, name + "_negative") else bits(p, name, 3)

    def obj(*fields: tuple[str, Frozen]) -> JsonObject:
        return JsonObject(fields)

    def splice(p: SymbolicFactory) -> JsonObject:
        target = "next-turn" if p(bool, "_next_turn") else "next-step"
        fields: list[tuple[str, Frozen]] = [("target", target), ("start", small(p, "_start"))]
        if p(bool, "_has_removed"):
            fields.append(("removedCount", small(p, "_removed")))
        inserted = p(tuple[UserMessage, ...], "_inserted")
        fields.append(("inserted", tuple(m.body for m in inserted)))
        if p(bool, "_canceled"):
            fields.append(("outcome", "canceled"))
        return JsonObject(tuple(fields))

    def event(p: SymbolicFactory) -> SessionEvent:
        seq, time = p(int, "_seq"), p(int, "_time")
        if p(bool, "_is_splice"):
            return SessionEvent(SPLICED, seq, time, splice(p))
        if p(bool, "_is_foreign"):  # a type neither fold reads
            return SessionEvent("assistant/message", seq, time, obj())
        etype = ("turn/start", "turn/end", "step/start", "step/end")[bits(p, "_type", 2)]
        fields: list[tuple[str, Frozen]] = [("turn", bits(p, "_turn", 2))]
        if etype.startswith("step/"):
            fields.append(("step", bits(p, "_step", 2)))
        elif etype == "turn/end":
            kind = ("completed", "interrupted", "blocked", "error")[bits(p, "_reason", 2)]
            fields.append(("reason", obj(("kind", kind))))
        return SessionEvent(etype, seq, time, JsonObject(tuple(fields)))

    return event


Log = tuple[SessionEvent, ...]


def _log_creator() -> Callable[[SymbolicFactory], Log]:
    from loopspec.data.json_value import Frozen, JsonObject
    from loopspec.data.messages import MessageId, Messages, UserMessage
    from loopspec.log.events import SPLICED, SessionEvent

    def obj(*fields: tuple[str, Frozen]) -> JsonObject:
        return JsonObject(fields)

    def message(mid: str) -> UserMessage:
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
                self.splice(target, len(self.lanes[target]), 0, (message(mid),), False)

        def cancel(self, replace: bool) -> None:
            """Remove (or replace) the oldest pending message, as a public edit."""
            target = "next-step" if self.lanes["next-step"] else "next-turn"
            mid = self.free_id() if replace else None
            if self.lanes[target]:
                self.splice(target, 0, 1, (message(mid),) if mid is not None else (), True)

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
            if kind == "turn-number":  # TURN-1: a turn number reused (or, inside a turn, TURN-2)
                self.emit("turn/start", obj(("turn", self.turn)))
            elif kind == "turn-end":  # TURN-3: turn/end of a turn that is not the open one
                self.emit("turn/end", obj(("turn", self.turn + 1), ("reason", obj(("kind", "completed")))))
            elif kind == "step":  # STEP-1: a step of the next turn, open or not
                self.emit("step/start", obj(("turn", self.turn + 1), ("step", 1)))
            elif kind == "claim":  # a pure deletion outside the loop's boundaries (FOLD-2 if empty)
                self.emit(SPLICED, obj(("target", "next-turn"), ("start", 0), ("removedCount", 1), ("inserted", ())))
            elif kind == "user":  # a user/message of a message no claim took
                self.emit("user/message", message("c").body)
            else:  # an event type no fold reads
                self.emit("session/end-seed", obj())

        def tool(self, kind: str, calls: tuple[str, ...]) -> None:
            if kind == "announce":
                blocks = tuple(obj(("type", "tool-call"), ("id", c)) for c in calls)
                self.emit("assistant/message", obj(("message", obj(("content", blocks)))))
            elif kind == "call":
                self.emit("tool/call", obj(("callId", calls[0])))
            else:
                source = obj(("kind", "tool"), ("callId", calls[0]))
                self.emit("tool/result", obj(("message", obj(("source", source)))))

    def pick(p: SymbolicFactory, name: str, options: tuple[str, ...]) -> str:
        for k, option in enumerate(options[:-1]):
            if p(bool, f"{name}_{k}"):
                return option
        return options[-1]

    def log(p: SymbolicFactory) -> Log:
        # Move by move, each move what happens between two awaits of the real loop: a send, the
        # next boundary, a public remove or replace, a tool event, or a glitch (an event breaking
        # one rule of the log).  Every choice is bounded: an unbounded one draws CrossHair's
        # search into it.  Half of the logs start from a scripted prefix, so states after or
        # deep inside a whole turn are a few moves away.
        w = Writer(p)
        if p(bool, "_scripted"):
            w.send("next-turn")
            w.boundary(enter=False, reason="")  # turn/start 1 and the claim of that message
            prefix = pick(p, "_prefix", ("claimed", "dropped", "stepped", "in-step", "continued"))
            if prefix in ("claimed", "dropped"):  # rejected: accounts by its claim
                w.boundary(enter=False, reason="blocked")
                if prefix == "dropped":  # then work sent and canceled unrun
                    w.send("next-turn")
                    w.cancel(replace=False)
            elif prefix == "in-step":  # two calls announced, one started, none answered
                w.boundary(enter=True, reason="")  # step/start 1 and the entered message
                w.tool("announce", ("t1", "t2"))
                w.tool("call", ("t1",))
            else:  # one call announced, started and answered
                w.boundary(enter=True, reason="")
                w.tool("announce", ("t1",))
                w.tool("call", ("t1",))
                w.tool("result", ("t1",))
                w.boundary(enter=False, reason="")  # step/end
                if prefix == "stepped":  # and the turn completed
                    w.boundary(enter=False, reason="completed")
                else:  # a tool continuation: step 2 open, its call started
                    w.boundary(enter=True, reason="")
                    w.tool("announce", ("t2",))
                    w.tool("call", ("t2",))
        for i in range(5):
            n = f"_m{i}"
            if not p(bool, n + "_more"):
                break
            if p(bool, n + "_send"):
                w.send("next-turn" if p(bool, n + "_next_turn") else "next-step")
            elif p(bool, n + "_boundary"):
                decides = w.open_turn and not w.open_step
                enter = decides and p(bool, n + "_enter")
                reasons = ("completed", "blocked", "interrupted", "error")
                w.boundary(enter, pick(p, n + "_reason", reasons) if decides and not enter else "")
            elif p(bool, n + "_cancel"):
                w.cancel(replace=p(bool, n + "_replace"))
            elif p(bool, n + "_tool"):
                kind = pick(p, n + "_what", ("announce", "call", "result"))
                both = kind == "announce" and p(bool, n + "_both")
                w.tool(kind, ("t1", "t2") if both else (("t1",) if p(bool, n + "_t1") else ("t2",)))
            else:
                w.glitch(pick(p, n + "_glitch", ("turn-number", "turn-end", "step", "claim", "user", "foreign")))
        return tuple(w.events)

    return log


def _install_log_creator(log: Callable[[SymbolicFactory], Log]) -> None:
    """Build ``Iterable[SessionEvent]`` and ``Sequence[SessionEvent]`` (the logs the folds take) with ``log``.

    ``register_type`` refuses a second creator, so this swaps two entries of CrossHair's internal
    registry, keeping CrossHair's creator for other element types; if the name changes, it fails.
    """
    import collections.abc
    from typing import Any

    from crosshair import core

    from loopspec.log.events import SessionEvent

    registry = core._SIMPLE_PROXIES
    for abc in (collections.abc.Iterable, collections.abc.Sequence):
        default = registry[abc]

        def creator(p: SymbolicFactory, t: Any = Any, default: Callable[..., Any] = default) -> Any:
            return log(p) if t is SessionEvent else default(p, t)

        registry[abc] = creator


def _listener_creators() -> tuple[
    Callable[[SymbolicFactory], Wrap], Callable[[SymbolicFactory], Veto], Callable[[SymbolicFactory], Throw]
]:
    from loopspec.data.json_value import JsonObject
    from loopspec.data.messages import InboxTarget, MessageId, UserMessage
    from loopspec.loop import pre_step as lsn
    from loopspec.loop.commands import ListenerActionT, Send

    def send(mid: str) -> Send:
        body = JsonObject((("id", mid), ("role", "user"), ("content", ()), ("source", JsonObject((("kind", "user"),)))))
        return Send(UserMessage(MessageId(mid), body), InboxTarget.NEXT_STEP, True)

    sends = (send("s1"), send("s2"))

    def actions(p: SymbolicFactory, name: str) -> tuple[ListenerActionT, ...]:
        return tuple(s for i, s in enumerate(sends) if p(bool, f"{name}_{i}"))

    def messages(p: SymbolicFactory, name: str) -> tuple[UserMessage, ...]:
        # None, one or two messages: bounded, so the search does not sink into long symbolic
        # tuples (the claimed batch, CrossHair's own tuple, still has any length).
        return tuple(p(UserMessage, f"{name}_{i}") for i in range(2) if p(bool, f"{name}_has{i}"))

    def decision(p: SymbolicFactory, name: str) -> lsn.PreStepDecision:
        return lsn.Reject() if p(bool, name + "_reject") else lsn.Enter(messages(p, name + "_messages"))

    def transform(p: SymbolicFactory) -> lsn.Transform:
        if p(bool, "_keep"):
            return lsn.Keep()
        if p(bool, "_replace"):
            return lsn.Replace(decision(p, "_replaced"))
        if p(bool, "_drop"):
            return lsn.Drop(tuple(MessageId(i) for i in "abc" if p(bool, f"_drop_{i}")))
        return lsn.Add(messages(p, "_added"))

    def wrap(p: SymbolicFactory) -> lsn.Wrap:
        return lsn.Wrap(transform(p), actions(p, "_before"), actions(p, "_after"))

    def veto(p: SymbolicFactory) -> lsn.Veto:
        return lsn.Veto(decision(p, "_vetoed"), actions(p, "_before"))

    def throw(p: SymbolicFactory) -> lsn.Throw:
        return lsn.Throw("x" if p(bool, "_x") else "y", actions(p, "_before"))

    return wrap, veto, throw


def _never_short_circuit_hash() -> None:
    """Make CrossHair always run ``hash`` rather than replace it by a symbolic int (its issue #190).

    Inside an attrs ``__hash__`` a symbolic int makes CPython's dict raise and CrossHair drop the
    path, about once in three hashed ids.  ``consider_shortcircuit`` is internal; if renamed, this fails.
    """
    from crosshair import core
    from crosshair.libimpl.builtinslib import _hash

    consider = core.consider_shortcircuit

    def consider_shortcircuit(fn: object, *args: object, **kwargs: object) -> object:
        return None if fn is _hash else consider(fn, *args, **kwargs)

    core.consider_shortcircuit = consider_shortcircuit


_never_short_circuit_hash()
_wrap, _veto, _throw = _listener_creators()
_event = _event_creator()
register_type(UserMessage, _message)
register_type(SessionEvent, _event)
_install_log_creator(_log_creator())
register_type(Wrap, _wrap)
register_type(Veto, _veto)
register_type(Throw, _throw)
