"""CrossHair plugin: how to build symbolic messages, events and listeners for the PEP 316 contracts.

CrossHair cannot derive a ``UserMessage`` from its type hints (its body is recursive frozen
JSON), so without this plugin it only ever explores empty inboxes.  Messages here get one of
three ids, chosen by symbolic branches, so duplicates, replacements and claims are explored.

Events come from a few symbolic branches: an ``agent/inbox/spliced`` record whose coordinates
(kept in -1..7), optional fields and inserted messages are all symbolic; ``turn/start`` and
``turn/end`` (with one of four reasons), ``step/start`` and ``step/end`` with turn and step numbers
in 0..3; a ``user/message``; and the tool events crash repair reads (an ``assistant/message``
announcing tool calls, ``tool/call``, ``tool/result``) with call ids ``t1``/``t2``.  A log is
CrossHair's own symbolic tuple of such events, so logs of any length are explored, short first.

Listeners (DECIDE-3) are a ``Wrap`` with a ``Keep``, ``Replace``, ``Drop`` or ``Add`` transform, a
``Veto`` or a ``Throw``; their actions are a subset of two fixed sends, so the order in which
the chain records them is observable.

CrossHair executes this file with ``exec`` and separate globals and locals: a top-level
function cannot see another top-level name, so each group of creators is built inside one
function whose closures share its imports and helpers.
"""

from __future__ import annotations

from collections.abc import Callable

from crosshair import SymbolicFactory, register_type

from loopspec.events import SessionEvent
from loopspec.listeners import Throw, Veto, Wrap
from loopspec.values import UserMessage


def _message(p: SymbolicFactory) -> UserMessage:
    from loopspec.json_value import JsonObject
    from loopspec.values import MessageId, UserMessage

    mid = "a" if p(bool, "_is_a") else ("b" if p(bool, "_is_b") else "c")
    body = JsonObject((("id", mid), ("role", "user"), ("content", ()), ("source", JsonObject((("kind", "user"),)))))
    return UserMessage(MessageId(mid), body)


def _event_creator() -> Callable[[SymbolicFactory], SessionEvent]:
    from loopspec.events import SPLICED, SessionEvent
    from loopspec.json_value import Frozen, JsonObject
    from loopspec.values import UserMessage

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

    def call_id(p: SymbolicFactory, name: str) -> str:
        return "t1" if p(bool, name) else "t2"

    def event(p: SymbolicFactory) -> SessionEvent:
        seq, time = p(int, "_seq"), p(int, "_time")
        if p(bool, "_is_splice"):
            return SessionEvent(SPLICED, seq, time, splice(p))
        if p(bool, "_is_turn"):
            turn = bits(p, "_turn", 2)
            if p(bool, "_is_start"):
                return SessionEvent("turn/start", seq, time, obj(("turn", turn)))
            kind = ("completed", "interrupted", "blocked", "error")[bits(p, "_reason", 2)]
            return SessionEvent("turn/end", seq, time, obj(("turn", turn), ("reason", obj(("kind", kind)))))
        if p(bool, "_is_step"):
            etype = "step/start" if p(bool, "_is_start") else "step/end"
            return SessionEvent(etype, seq, time, obj(("turn", bits(p, "_turn", 2)), ("step", bits(p, "_step", 2))))
        if p(bool, "_is_user"):
            return SessionEvent("user/message", seq, time, p(UserMessage, "_entered").body)
        if p(bool, "_is_announce"):
            calls = tuple(obj(("type", "tool-call"), ("id", c)) for c in ("t1", "t2") if p(bool, f"_calls_{c}"))
            return SessionEvent("assistant/message", seq, time, obj(("message", obj(("content", calls)))))
        if p(bool, "_is_call"):
            return SessionEvent("tool/call", seq, time, obj(("callId", call_id(p, "_call"))))
        answer = obj(("message", obj(("source", obj(("kind", "tool"), ("callId", call_id(p, "_answer")))))))
        return SessionEvent("tool/result", seq, time, answer)

    return event


def _listener_creators() -> tuple[
    Callable[[SymbolicFactory], Wrap], Callable[[SymbolicFactory], Veto], Callable[[SymbolicFactory], Throw]
]:
    from loopspec.commands import Send, ListenerActionT
    from loopspec.json_value import JsonObject
    from loopspec.listeners import Add, Drop, Enter, Keep, PreStepDecision, Reject, Replace, Throw, Transform, Veto, Wrap
    from loopspec.values import InboxTarget, MessageId, UserMessage

    def send(mid: str) -> Send:
        body = JsonObject((("id", mid), ("role", "user"), ("content", ()), ("source", JsonObject((("kind", "user"),)))))
        return Send(UserMessage(MessageId(mid), body), InboxTarget.NEXT_STEP, True)

    sends = (send("s1"), send("s2"))

    def actions(p: SymbolicFactory, name: str) -> tuple[ListenerActionT, ...]:
        return tuple(s for i, s in enumerate(sends) if p(bool, f"{name}_{i}"))

    def decision(p: SymbolicFactory, name: str) -> PreStepDecision:
        return Reject() if p(bool, name + "_reject") else Enter(p(tuple[UserMessage, ...], name + "_messages"))

    def transform(p: SymbolicFactory) -> Transform:
        if p(bool, "_keep"):
            return Keep()
        if p(bool, "_replace"):
            return Replace(decision(p, "_replaced"))
        if p(bool, "_drop"):
            return Drop(tuple(MessageId(i) for i in "abc" if p(bool, f"_drop_{i}")))
        return Add(p(tuple[UserMessage, ...], "_added"))

    def wrap(p: SymbolicFactory) -> Wrap:
        return Wrap(transform(p), actions(p, "_before"), actions(p, "_after"))

    def veto(p: SymbolicFactory) -> Veto:
        return Veto(decision(p, "_vetoed"), actions(p, "_before"))

    def throw(p: SymbolicFactory) -> Throw:
        return Throw("x" if p(bool, "_x") else "y", actions(p, "_before"))

    return wrap, veto, throw


_wrap, _veto, _throw = _listener_creators()
register_type(UserMessage, _message)
register_type(SessionEvent, _event_creator())
register_type(Wrap, _wrap)
register_type(Veto, _veto)
register_type(Throw, _throw)
