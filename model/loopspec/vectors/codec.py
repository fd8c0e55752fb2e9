"""JSON encoding of the model's commands (``spec/command-language.md``).

:func:`encode_command` and :func:`decode_command` are inverse on every command value: decoding an
encoding gives an equal command, with JavaScript numbers identical down to the sign of zero
(NORM-5 depends on ``-0``, which JSON cannot write, hence the four special strings).  Decoding
is strict — closed objects, exact types — and raises :class:`CodecError` naming the defect, so a
typo in a vector never silently becomes a default.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from loopspec.data.json_value import freeze, thaw
from loopspec.data.messages import InboxTarget, MessageId
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.vectors.json_reading import (
    CodecError,
    Json,
    decode_message,
    decode_messages,
    decode_number,
    encode_messages,
    encode_number,
    read_bool,
    read_list,
    read_object,
    read_str,
    read_target,
)
from loopspec.vectors.reference_model import Claim, VectorCommand

__all__ = ["CodecError", "decode_command", "encode_command"]


# ---- commands ----

_ALIASES: Mapping[str, tuple[InboxTarget, bool]] = MappingProxyType({
    "followup": (InboxTarget.NEXT_TURN, True),
    "steer": (InboxTarget.NEXT_STEP, True),
    "inject": (InboxTarget.NEXT_STEP, False),
})


def encode_command(c: VectorCommand) -> Json:
    """The JSON form of one command (aliases for sends that have one)."""
    if isinstance(c, Claim):
        return {"op": "claim", "target": c.target.value, "turn": c.turn}
    if isinstance(c, cmd.Append | cmd.Prepend):
        return {"op": "append" if isinstance(c, cmd.Append) else "prepend", "target": c.target.value,
                "message": c.message.to_json()}
    if isinstance(c, cmd.Splice):
        return {"op": "splice", "target": c.target.value, "start": encode_number(c.start),
                "deleteCount": encode_number(c.delete_count), "inserted": encode_messages(c.inserted)}
    if isinstance(c, cmd.Replace):
        return {"op": "replace", "id": c.message_id.value, "message": c.message.to_json()}
    if isinstance(c, cmd.Remove):
        return {"op": "remove", "id": c.message_id.value}
    if isinstance(c, cmd.Clear):
        return {"op": "clear"}
    if isinstance(c, cmd.Send):
        for alias, (target, wake) in _ALIASES.items():
            if (c.target, c.wake) == (target, wake):
                return {"op": alias, "message": c.message.to_json()}
        return {"op": "send", "message": c.message.to_json(), "target": c.target.value, "wake": c.wake}
    if isinstance(c, cmd.Cancel):
        return {"op": "cancel", "cause": thaw(c.cause), "keepInbox": c.keep_inbox}
    if isinstance(c, cmd.Decide):
        return {"op": "decide", "listeners": [encode_listener(x) for x in c.listeners]}
    if isinstance(c, cmd.StepResult):
        return {"op": "step-result", "kind": c.kind, "context": encode_messages(c.context), "conclude": c.conclude,
                "retry": c.retry, "error": c.error, "code": c.code}
    if isinstance(c, cmd.TurnStopping):
        return {"op": "turn-stopping", "actions": [encode_command(a) for a in c.actions], "raises": c.raises}
    assert isinstance(c, cmd.Restart)
    return {"op": "restart"}


def _decode_edit(op: str, raw: object, where: str) -> cmd.Command:
    if op in ("append", "prepend"):
        o = read_object(raw, where, ("op", "target", "message"))
        kind = cmd.Append if op == "append" else cmd.Prepend
        return kind(read_target(o["target"], f"{where}.target"), decode_message(o["message"], f"{where}.message"))
    if op == "splice":
        o = read_object(raw, where, ("op", "target", "start", "deleteCount"), ("inserted",))
        return cmd.Splice(
            read_target(o["target"], f"{where}.target"),
            decode_number(o["start"], f"{where}.start"),
            decode_number(o["deleteCount"], f"{where}.deleteCount"),
            decode_messages(o.get("inserted", []), f"{where}.inserted"),
        )
    if op == "replace":
        o = read_object(raw, where, ("op", "id", "message"))
        message = decode_message(o["message"], f"{where}.message")
        return cmd.Replace(MessageId(read_str(o["id"], f"{where}.id")), message)
    if op == "remove":
        o = read_object(raw, where, ("op", "id"))
        return cmd.Remove(MessageId(read_str(o["id"], f"{where}.id")))
    read_object(raw, where, ("op",))
    return cmd.Clear()


def _decode_input(op: str, raw: object, where: str) -> cmd.Command:
    if op in _ALIASES:
        o = read_object(raw, where, ("op", "message"))
        target, wake = _ALIASES[op]
        return cmd.Send(decode_message(o["message"], f"{where}.message"), target, wake)
    if op == "send":
        o = read_object(raw, where, ("op", "message", "target", "wake"))
        return cmd.Send(decode_message(o["message"], f"{where}.message"), read_target(o["target"], f"{where}.target"),
                        read_bool(o["wake"], f"{where}.wake"))
    o = read_object(raw, where, ("op",), ("cause", "keepInbox"))
    cause = freeze(o["cause"]) if "cause" in o else cmd.USER_CAUSE
    return cmd.Cancel(cause, read_bool(o.get("keepInbox", False), f"{where}.keepInbox"))


def _decode_answer(op: str, raw: object, where: str) -> cmd.Command:
    if op == "decide":
        o = read_object(raw, where, ("op",), ("listeners",))
        items = read_list(o.get("listeners", []), f"{where}.listeners")
        return cmd.Decide(tuple(decode_listener(x, f"{where}.listeners[{i}]") for i, x in enumerate(items)))
    if op == "step-result":
        o = read_object(raw, where, ("op", "kind"), ("context", "conclude", "retry", "error", "code"))
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
        )
    if op == "turn-stopping":
        o = read_object(raw, where, ("op",), ("actions", "raises"))
        raises = o.get("raises")
        return cmd.TurnStopping(
            decode_actions(o.get("actions", []), f"{where}.actions"),
            None if raises is None else read_str(raises, f"{where}.raises"),
        )
    read_object(raw, where, ("op",))
    return cmd.Restart()


def _decode_claim(op: str, raw: object, where: str) -> Claim:
    """The inbox profile's claim (CLAIM-1): a target and the claiming turn, a positive safe integer."""
    o = read_object(raw, where, ("op", "target", "turn"))
    turn = o["turn"]
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= 2**53 - 1:
        raise CodecError(f"{where}.turn: a positive safe integer, got {turn!r}")
    return Claim(read_target(o["target"], f"{where}.target"), turn)


_EDIT_OPS = ("append", "prepend", "splice", "replace", "remove", "clear")
_INPUT_OPS = ("send", *_ALIASES, "cancel")
_ANSWER_OPS = ("decide", "step-result", "turn-stopping", "restart")
_DECODERS: Mapping[str, Callable[[str, object, str], VectorCommand]] = MappingProxyType({
    "claim": _decode_claim,
    **dict.fromkeys(_EDIT_OPS, _decode_edit),
    **dict.fromkeys(_INPUT_OPS, _decode_input),
    **dict.fromkeys(_ANSWER_OPS, _decode_answer),
})
ACTION_OPS = (*_EDIT_OPS, *_INPUT_OPS)


def decode_command(raw: object, where: str = "command") -> VectorCommand:
    """Parse one command; :class:`CodecError` naming the defect when it is not one."""
    if not isinstance(raw, dict):
        raise CodecError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    op = raw.get("op")
    if not isinstance(op, str) or op not in _DECODERS:
        raise CodecError(f"{where}.op: unknown op {op!r}")
    try:
        return _DECODERS[op](op, raw, where)
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


# ---- the listener language ----


def encode_decision(d: ls.PreStepDecision) -> Json:
    if isinstance(d, ls.Reject):
        return {"kind": "reject"}
    return {"kind": "enter", "messages": encode_messages(d.messages)}


def decode_decision(raw: object, where: str) -> ls.PreStepDecision:
    kind = raw.get("kind") if isinstance(raw, dict) else None
    if kind == "reject":
        read_object(raw, where, ("kind",))
        return ls.Reject()
    o = read_object(raw, where, ("kind", "messages"))
    if kind != "enter":
        raise CodecError(f"{where}.kind: 'reject' or 'enter', got {kind!r}")
    return ls.Enter(decode_messages(o["messages"], f"{where}.messages"))


def encode_transform(t: ls.Transform) -> Json:
    if isinstance(t, ls.Keep):
        return {"kind": "keep"}
    if isinstance(t, ls.Replace):
        return {"kind": "replace", "decision": encode_decision(t.decision)}
    if isinstance(t, ls.Drop):
        return {"kind": "drop", "ids": [i.value for i in t.ids]}
    return {"kind": "add", "messages": encode_messages(t.messages)}


def decode_transform(raw: object, where: str) -> ls.Transform:
    kind = raw.get("kind") if isinstance(raw, dict) else None
    if kind == "keep":
        read_object(raw, where, ("kind",))
        return ls.Keep()
    if kind == "replace":
        decision = read_object(raw, where, ("kind", "decision"))["decision"]
        return ls.Replace(decode_decision(decision, f"{where}.decision"))
    if kind == "drop":
        ids = read_list(read_object(raw, where, ("kind", "ids"))["ids"], f"{where}.ids")
        return ls.Drop(tuple(MessageId(read_str(i, f"{where}.ids")) for i in ids))
    if kind == "add":
        return ls.Add(decode_messages(read_object(raw, where, ("kind", "messages"))["messages"], f"{where}.messages"))
    raise CodecError(f"{where}.kind: unknown transform {kind!r}")


def encode_listener(x: ls.Listener) -> Json:
    before = [encode_command(a) for a in x.before]
    if isinstance(x, ls.Wrap):
        return {"kind": "wrap", "transform": encode_transform(x.transform), "before": before,
                "after": [encode_command(a) for a in x.after]}
    if isinstance(x, ls.Veto):
        return {"kind": "veto", "decision": encode_decision(x.decision), "before": before}
    return {"kind": "throw", "message": x.message, "before": before}


def decode_listener(raw: object, where: str) -> ls.Listener:
    kind = raw.get("kind") if isinstance(raw, dict) else None
    if kind == "wrap":
        o = read_object(raw, where, ("kind",), ("transform", "before", "after"))
        transform = decode_transform(o["transform"], f"{where}.transform") if "transform" in o else ls.Keep()
        return ls.Wrap(transform, decode_actions(o.get("before", []), f"{where}.before"),
                       decode_actions(o.get("after", []), f"{where}.after"))
    if kind == "veto":
        o = read_object(raw, where, ("kind", "decision"), ("before",))
        return ls.Veto(decode_decision(o["decision"], f"{where}.decision"),
                       decode_actions(o.get("before", []), f"{where}.before"))
    if kind == "throw":
        o = read_object(raw, where, ("kind", "message"), ("before",))
        before = decode_actions(o.get("before", []), f"{where}.before")
        return ls.Throw(read_str(o["message"], f"{where}.message"), before)
    raise CodecError(f"{where}.kind: unknown listener {kind!r}")
