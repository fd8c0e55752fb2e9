"""Decoding the command language (``spec/command-language.md``): commands and the listener language.

Strict: closed objects, exact types; every defect raises :class:`CodecError` naming where it is,
so a typo in a vector never silently becomes a default.  Each op and each listener, transform and
decision kind has its decoder in a registry; commands and listeners nest (a ``decide`` holds
listeners, a listener holds actions, which are commands), so they decode in one module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from loopspec.data.json_value import freeze
from loopspec.data.messages import InboxTarget, MessageId, UserMessage
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.vectors.json_reading import (
    CodecError,
    Json,
    decode_message,
    decode_messages,
    decode_number,
    read_bool,
    read_list,
    read_object,
    read_str,
    read_target,
)
from loopspec.vectors.reference_model import Claim, VectorCommand

Decoder = Callable[[object, str], VectorCommand]


ALIASES: Mapping[str, tuple[InboxTarget, bool]] = MappingProxyType({
    "followup": (InboxTarget.NEXT_TURN, True),
    "steer": (InboxTarget.NEXT_STEP, True),
    "inject": (InboxTarget.NEXT_STEP, False),
})



def _decode_insertion(kind: Callable[[InboxTarget, UserMessage], cmd.Command]) -> Decoder:
    def decode(raw: object, where: str) -> cmd.Command:
        o = read_object(raw, where, ("op", "target", "message"))
        return kind(read_target(o["target"], f"{where}.target"), decode_message(o["message"], f"{where}.message"))

    return decode



def _decode_splice(raw: object, where: str) -> cmd.Command:
    o = read_object(raw, where, ("op", "target", "start", "deleteCount"), ("inserted",))
    return cmd.Splice(
        read_target(o["target"], f"{where}.target"),
        decode_number(o["start"], f"{where}.start"),
        decode_number(o["deleteCount"], f"{where}.deleteCount"),
        decode_messages(o.get("inserted", []), f"{where}.inserted"),
    )



def _decode_replace(raw: object, where: str) -> cmd.Command:
    o = read_object(raw, where, ("op", "id", "message"))
    message = decode_message(o["message"], f"{where}.message")
    return cmd.Replace(MessageId(read_str(o["id"], f"{where}.id")), message)



def _decode_remove(raw: object, where: str) -> cmd.Command:
    o = read_object(raw, where, ("op", "id"))
    return cmd.Remove(MessageId(read_str(o["id"], f"{where}.id")))



def _decode_bare(command: Callable[[], cmd.Command]) -> Decoder:
    """An op without arguments (``clear``, ``restart``)."""

    def decode(raw: object, where: str) -> cmd.Command:
        read_object(raw, where, ("op",))
        return command()

    return decode



def _decode_alias(target: InboxTarget, wake: bool) -> Decoder:
    def decode(raw: object, where: str) -> cmd.Command:
        o = read_object(raw, where, ("op", "message"))
        return cmd.Send(decode_message(o["message"], f"{where}.message"), target, wake)

    return decode



def _decode_send(raw: object, where: str) -> cmd.Command:
    o = read_object(raw, where, ("op", "message", "target", "wake"))
    return cmd.Send(decode_message(o["message"], f"{where}.message"), read_target(o["target"], f"{where}.target"),
                    read_bool(o["wake"], f"{where}.wake"))



def _decode_cancel(raw: object, where: str) -> cmd.Command:
    o = read_object(raw, where, ("op",), ("cause", "keepInbox"))
    cause = freeze(o["cause"]) if "cause" in o else cmd.USER_CAUSE
    return cmd.Cancel(cause, read_bool(o.get("keepInbox", False), f"{where}.keepInbox"))



def _decode_decide(raw: object, where: str) -> cmd.Command:
    o = read_object(raw, where, ("op",), ("listeners",))
    items = read_list(o.get("listeners", []), f"{where}.listeners")
    return cmd.Decide(tuple(decode_listener(x, f"{where}.listeners[{i}]") for i, x in enumerate(items)))



def _decode_step_result(raw: object, where: str) -> cmd.Command:
    o = read_object(raw, where, ("op", "kind"), ("context", "conclude", "retry", "error", "code", "started"))
    kind = read_str(o["kind"], f"{where}.kind")
    if kind not in cmd.STEP_KINDS:
        raise CodecError(f"{where}.kind: one of {list(cmd.STEP_KINDS)}, got {kind!r}")
    return cmd.StepResult(
        kind,
        decode_messages(o.get("context", []), f"{where}.context"),
        read_bool(o.get("conclude", False), f"{where}.conclude"),
        read_bool(o.get("retry", False), f"{where}.retry"),
        read_str(o.get("error", "step failed"), f"{where}.error"),
        read_str(o.get("code", "UNKNOWN"), f"{where}.code"),
        read_bool(o.get("started", True), f"{where}.started"),
    )



def _decode_turn_stopping(raw: object, where: str) -> cmd.Command:
    o = read_object(raw, where, ("op",), ("actions", "raises"))
    raises = o.get("raises")
    return cmd.TurnStopping(
        decode_actions(o.get("actions", []), f"{where}.actions"),
        None if raises is None else read_str(raises, f"{where}.raises"),
    )



# Each op of the command language and its decoder (spec/command-language.md, Commands).
_EDITS: Mapping[str, Decoder] = MappingProxyType({
    "append": _decode_insertion(cmd.Append),
    "prepend": _decode_insertion(cmd.Prepend),
    "splice": _decode_splice,
    "replace": _decode_replace,
    "remove": _decode_remove,
    "clear": _decode_bare(cmd.Clear),
})



_INPUTS: Mapping[str, Decoder] = MappingProxyType({
    "send": _decode_send,
    **{alias: _decode_alias(target, wake) for alias, (target, wake) in ALIASES.items()},
    "cancel": _decode_cancel,
})



_ANSWERS: Mapping[str, Decoder] = MappingProxyType({
    "decide": _decode_decide,
    "step-result": _decode_step_result,
    "turn-stopping": _decode_turn_stopping,
    "restart": _decode_bare(cmd.Restart),
})



def _decode_claim(raw: object, where: str) -> VectorCommand:
    """The inbox profile's claim (CLAIM-1): a target and the claiming turn, a positive safe integer."""
    o = read_object(raw, where, ("op", "target", "turn"))
    turn = o["turn"]
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= 2**53 - 1:
        raise CodecError(f"{where}.turn: a positive safe integer, got {turn!r}")
    return Claim(read_target(o["target"], f"{where}.target"), turn)


_DECODERS: Mapping[str, Decoder] = MappingProxyType({**_EDITS, **_INPUTS, **_ANSWERS, "claim": _decode_claim})



# A listener's or turn-stopping action is an edit, a send or a cancel, never the loop's claim (CLAIM-7).
ACTION_OPS = (*_EDITS, *_INPUTS)



def decode_command(raw: object, where: str = "command") -> VectorCommand:
    """Parse one command; :class:`CodecError` naming the defect when it is not one."""
    if not isinstance(raw, dict):
        raise CodecError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    op = raw.get("op")
    if not isinstance(op, str) or op not in _DECODERS:
        raise CodecError(f"{where}.op: unknown op {op!r}")
    try:
        return _DECODERS[op](raw, where)
    except ValueError as err:  # a command class's own validator (e.g. context on a non-tool result)
        raise CodecError(f"{where}: {err}") from None



def decode_actions(raw: object, where: str) -> tuple[cmd.ListenerActionT, ...]:
    """Listener actions: edits, sends and cancels only (spec/command-language.md, Actions)."""
    out: list[cmd.ListenerActionT] = []
    for i, item in enumerate(read_list(raw, where)):
        op = item.get("op") if isinstance(item, dict) else None
        if op not in ACTION_OPS:
            raise CodecError(f"{where}[{i}].op: {op!r} is not an action")
        action = decode_command(item, f"{where}[{i}]")
        assert not isinstance(action, cmd.Decide | cmd.StepResult | cmd.TurnStopping | cmd.Restart | Claim)
        out.append(action)
    return tuple(out)



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
    kind = _kind(raw)
    decoder = _TRANSFORMS.get(kind) if isinstance(kind, str) else None
    if decoder is None:
        raise CodecError(f"{where}.kind: unknown transform {kind!r}")
    return decoder(raw, where)


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
    kind = _kind(raw)
    decoder = _LISTENERS.get(kind) if isinstance(kind, str) else None
    if decoder is None:
        raise CodecError(f"{where}.kind: unknown listener {kind!r}")
    return decoder(raw, where)
