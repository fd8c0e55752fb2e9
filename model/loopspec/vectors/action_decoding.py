"""Decoding the command language's edits and inputs, which are also the listeners' actions.

``spec/command-language.md``: the six inbox edits and the sends and cancel, each with its decoder
in a registry.  Strict like every decoder here: closed objects, exact types, a :class:`CodecError`
naming where the defect is.  Listener actions are exactly these ops (CLAIM-7: never the claim),
so :func:`decode_actions` lives here and the listener language (:mod:`.listener_decoding`) and the
commands (:mod:`.command_decoding`) both build on it without importing each other in a cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from loopspec.data.json_value import freeze
from loopspec.data.messages import InboxTarget, MessageId, UserMessage
from loopspec.loop import commands as cmd
from loopspec.vectors.json_reading import (
    CodecError,
    decode_message,
    decode_messages,
    decode_number,
    read_bool,
    read_list,
    read_object,
    read_str,
    read_target,
)

Decoder = Callable[[object, str], cmd.Command]


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


def decode_bare(command: Callable[[], cmd.Command]) -> Decoder:
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


# The edit and input ops of the command language and their decoders (spec/command-language.md).
EDITS: Mapping[str, Decoder] = MappingProxyType({
    "append": _decode_insertion(cmd.Append),
    "prepend": _decode_insertion(cmd.Prepend),
    "splice": _decode_splice,
    "replace": _decode_replace,
    "remove": _decode_remove,
    "clear": decode_bare(cmd.Clear),
})


INPUTS: Mapping[str, Decoder] = MappingProxyType({
    "send": _decode_send,
    **{alias: _decode_alias(target, wake) for alias, (target, wake) in ALIASES.items()},
    "cancel": _decode_cancel,
})


# A listener's or turn-stopping action is an edit, a send or a cancel, never the loop's claim (CLAIM-7).
ACTIONS: Mapping[str, Decoder] = MappingProxyType({**EDITS, **INPUTS})
ACTION_OPS = tuple(ACTIONS)


def decode_actions(raw: object, where: str) -> tuple[cmd.ListenerActionT, ...]:
    """Listener actions: edits, sends and cancels only (spec/command-language.md, Actions)."""
    out: list[cmd.ListenerActionT] = []
    for i, item in enumerate(read_list(raw, where)):
        op = item.get("op") if isinstance(item, dict) else None
        decoder = ACTIONS.get(op) if isinstance(op, str) else None
        if decoder is None:
            raise CodecError(f"{where}[{i}].op: {op!r} is not an action")
        try:
            action = decoder(item, f"{where}[{i}]")
        except ValueError as err:  # a command class's own validator
            raise CodecError(f"{where}[{i}]: {err}") from None
        assert not isinstance(action, cmd.Decide | cmd.StepResult | cmd.TurnStopping | cmd.Restart)
        out.append(action)
    return tuple(out)
