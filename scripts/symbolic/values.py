"""Symbolic messages and single session events."""

from __future__ import annotations

from crosshair import SymbolicFactory

from loopspec.data.json_value import Frozen, JsonObject
from loopspec.data.messages import MessageId, UserMessage
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import SPLICED


def message(p: SymbolicFactory) -> UserMessage:
    mid = "a" if p(bool, "_is_a") else ("b" if p(bool, "_is_b") else "c")
    body = JsonObject((("id", mid), ("role", "user"), ("content", ()), ("source", JsonObject((("kind", "user"),)))))
    return UserMessage(MessageId(mid), body)


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
