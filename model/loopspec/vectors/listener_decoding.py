"""Decoding the listener language of ``decide`` (spec/command-language.md, Listeners): decisions,
transforms, ``when`` and the three listener kinds, each kind with its decoder in a registry.

A listener's actions are edits, sends and cancels (:func:`.action_decoding.decode_actions`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TypeVar

from loopspec.data.messages import MessageId
from loopspec.loop import pre_step as ls
from loopspec.vectors.action_decoding import decode_actions
from loopspec.vectors.json_reading import CodecError, Json, decode_messages, read_list, read_object, read_str

T = TypeVar("T")


def _decode_reject(raw: object, where: str) -> ls.PreStepDecision:
    read_object(raw, where, ("kind",))
    return ls.Reject()


def _decode_enter(raw: object, where: str) -> ls.PreStepDecision:
    o = read_object(raw, where, ("kind", "messages"))
    return ls.Enter(decode_messages(o["messages"], f"{where}.messages"))


_DECISIONS: Mapping[str, Callable[[object, str], ls.PreStepDecision]] = MappingProxyType({
    "reject": _decode_reject,
    "enter": _decode_enter,
})


def _kind(raw: object) -> object:
    return raw.get("kind") if isinstance(raw, dict) else None


def decode_decision(raw: object, where: str) -> ls.PreStepDecision:
    kind = _kind(raw)
    decoder = _DECISIONS.get(kind) if isinstance(kind, str) else None
    if decoder is None:
        read_object(raw, where, ("kind", "messages"))
        raise CodecError(f"{where}.kind: 'reject' or 'enter', got {kind!r}")
    return decoder(raw, where)


def _decode_keep(raw: object, where: str) -> ls.Transform:
    read_object(raw, where, ("kind",))
    return ls.Keep()


def _decode_replaced(raw: object, where: str) -> ls.Transform:
    decision = read_object(raw, where, ("kind", "decision"))["decision"]
    return ls.Replace(decode_decision(decision, f"{where}.decision"))


def _decode_drop(raw: object, where: str) -> ls.Transform:
    ids = read_list(read_object(raw, where, ("kind", "ids"))["ids"], f"{where}.ids")
    return ls.Drop(tuple(MessageId(read_str(i, f"{where}.ids")) for i in ids))


def _decode_add(raw: object, where: str) -> ls.Transform:
    return ls.Add(decode_messages(read_object(raw, where, ("kind", "messages"))["messages"], f"{where}.messages"))


_TRANSFORMS: Mapping[str, Callable[[object, str], ls.Transform]] = MappingProxyType({
    "keep": _decode_keep,
    "replace": _decode_replaced,
    "drop": _decode_drop,
    "add": _decode_add,
})


def decode_transform(raw: object, where: str) -> ls.Transform:
    return _by_kind(_TRANSFORMS, raw, where, "transform")


def decode_when(raw: object, where: str) -> ls.When:
    """``when {turn?, step?}``: the pre-step payloads a listener acts on (DECIDE-1)."""
    o = read_object(raw, where, (), ("turn", "step"))
    turn, step = o.get("turn"), o.get("step")
    for name, value in (("turn", turn), ("step", step)):
        # Turn and step numbers are positive integers (TURN-1, STEP-1); a bool is not a number.
        if value is not None and (type(value) is not int or value < 1):
            raise CodecError(f"{where}.{name}: a positive integer, got {value!r}")
    return ls.When(turn if isinstance(turn, int) else None, step if isinstance(step, int) else None)


def _when(o: Json, where: str) -> ls.When:
    return decode_when(o["when"], f"{where}.when") if "when" in o else ls.ALWAYS


def _decode_wrap(raw: object, where: str) -> ls.Listener:
    o = read_object(raw, where, ("kind",), ("transform", "before", "after", "afterEnter", "afterReject", "when"))
    transform = decode_transform(o["transform"], f"{where}.transform") if "transform" in o else ls.Keep()
    return ls.Wrap(transform, decode_actions(o.get("before", []), f"{where}.before"),
                   decode_actions(o.get("after", []), f"{where}.after"),
                   decode_actions(o.get("afterEnter", []), f"{where}.afterEnter"),
                   decode_actions(o.get("afterReject", []), f"{where}.afterReject"), _when(o, where))


def _decode_veto(raw: object, where: str) -> ls.Listener:
    o = read_object(raw, where, ("kind", "decision"), ("before", "when"))
    return ls.Veto(decode_decision(o["decision"], f"{where}.decision"),
                   decode_actions(o.get("before", []), f"{where}.before"), _when(o, where))


def _decode_throw(raw: object, where: str) -> ls.Listener:
    o = read_object(raw, where, ("kind", "message"), ("before", "when"))
    before = decode_actions(o.get("before", []), f"{where}.before")
    return ls.Throw(read_str(o["message"], f"{where}.message"), before, _when(o, where))


_LISTENERS: Mapping[str, Callable[[object, str], ls.Listener]] = MappingProxyType({
    "wrap": _decode_wrap,
    "veto": _decode_veto,
    "throw": _decode_throw,
})


def decode_listener(raw: object, where: str) -> ls.Listener:
    return _by_kind(_LISTENERS, raw, where, "listener")


def _by_kind(registry: Mapping[str, Callable[[object, str], T]], raw: object, where: str, what: str) -> T:
    """The registry's decoder for the object's ``kind``, or a :class:`CodecError` naming the unknown kind."""
    kind = _kind(raw)
    decoder = registry.get(kind) if isinstance(kind, str) else None
    if decoder is None:
        raise CodecError(f"{where}.kind: unknown {what} {kind!r}")
    return decoder(raw, where)
