"""Decoding the command language (``spec/command-language.md``): one command from its JSON.

Strict: closed objects, exact types; every defect raises :class:`CodecError` naming where it is,
so a typo in a vector never silently becomes a default.  Each op has its decoder in a registry:
the edits and inputs (:mod:`.action_decoding`, shared with the listeners' actions), the
environment's answers here (``decide`` holds listeners, :mod:`.listener_decoding`), and the inbox
profile's ``claim``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import attrs

from loopspec.loop import commands as cmd
from loopspec.loop.commands import Advance, Stopping
from loopspec.loop.phase_names import HOPS
from loopspec.vectors.action_decoding import ACTION_OPS, ALIASES, EDITS, INPUTS, decode_actions, decode_bare
from loopspec.vectors.json_reading import (
    CodecError,
    decode_messages,
    read_bool,
    read_list,
    read_object,
    read_str,
    read_target,
)
from loopspec.vectors.listener_decoding import decode_listener
from loopspec.vectors.reference_model import Claim, VectorCommand

__all__ = ("ACTION_OPS", "ALIASES", "decode_command")

Decoder = Callable[[object, str], VectorCommand]


def _decode_decide(raw: object, where: str) -> cmd.Command:
    o = read_object(raw, where, ("op",), ("listeners",))
    items = read_list(o.get("listeners", []), f"{where}.listeners")
    return cmd.Decide(tuple(decode_listener(x, f"{where}.listeners[{i}]") for i, x in enumerate(items)))


STEP_FIELDS: Mapping[str, object] = MappingProxyType({
    "context": (), "conclude": False, "retry": False, "error": "step failed", "code": "UNKNOWN", "started": True,
})
"""A ``step-result``'s optional fields in their wire order, each with the value it has when absent;
a field belongs to the kinds whose class in :data:`loopspec.loop.commands.STEP_RESULTS` has it."""


def _decode_step_result(raw: object, where: str) -> cmd.Command:
    o = read_object(raw, where, ("op", "kind"), tuple(STEP_FIELDS))
    kind = read_str(o["kind"], f"{where}.kind")
    result = cmd.STEP_RESULTS.get(kind)
    if result is None:
        raise CodecError(f"{where}.kind: one of {list(cmd.STEP_KINDS)}, got {kind!r}")
    values: dict[str, Any] = {
        "context": decode_messages(o.get("context", []), f"{where}.context"),
        "conclude": read_bool(o.get("conclude", False), f"{where}.conclude"),
        "retry": read_bool(o.get("retry", False), f"{where}.retry"),
        "error": read_str(o.get("error", "step failed"), f"{where}.error"),
        "code": read_str(o.get("code", "UNKNOWN"), f"{where}.code"),
        "started": read_bool(o.get("started", True), f"{where}.started"),
    }
    own = attrs.fields_dict(result)
    for name, value in values.items():
        # command-language.md: a non-default context, conclude, retry or started on another kind is
        # a bad request; error and code are allowed on any kind and mean something only where the
        # class has them (fail, request-error), so elsewhere they are read and left out.
        if name not in own and name not in ("error", "code") and value != STEP_FIELDS[name]:
            raise CodecError(f"{where}.{name}: belongs to no {kind!r} result (only its default may be written)")
    return result(**{name: value for name, value in values.items() if name in own})


def _decode_turn_stopping(raw: object, where: str) -> cmd.Command:
    o = read_object(raw, where, ("op",), ("actions", "raises"))
    raises = o.get("raises")
    return cmd.TurnStopping(
        decode_actions(o.get("actions", []), f"{where}.actions"),
        None if raises is None else read_str(raises, f"{where}.raises"),
    )


_ANSWERS: Mapping[str, Decoder] = MappingProxyType({
    "decide": _decode_decide,
    "step-result": _decode_step_result,
    "turn-stopping": _decode_turn_stopping,
    "restart": decode_bare(cmd.Restart),
})


def _decode_claim(raw: object, where: str) -> VectorCommand:
    """The inbox profile's claim (CLAIM-1): a target and the claiming turn, a positive safe integer."""
    o = read_object(raw, where, ("op", "target", "turn"))
    turn = o["turn"]
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= 2**53 - 1:
        raise CodecError(f"{where}.turn: a positive safe integer, got {turn!r}")
    return Claim(read_target(o["target"], f"{where}.target"), turn)


def read_hop(raw: object, where: str) -> str:
    """A hop's name (spec/loop-grain.md): the value of ``stop``."""
    hop = read_str(raw, where)
    if hop not in HOPS:
        raise CodecError(f"{where}: one of the hops {list(HOPS)}, got {hop!r}")
    return hop


def _decode_advance(raw: object, where: str) -> VectorCommand:
    o = read_object(raw, where, ("op",), ("stop",))
    return Advance(None if "stop" not in o else read_hop(o["stop"], f"{where}.stop"))


_DECODERS: Mapping[str, Decoder] = MappingProxyType(
    {**EDITS, **INPUTS, **_ANSWERS, "claim": _decode_claim, "advance": _decode_advance})


def decode_command(raw: object, where: str = "command") -> VectorCommand:
    """Parse one command; :class:`CodecError` naming the defect when it is not one."""
    if not isinstance(raw, dict):
        raise CodecError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    op = raw.get("op")
    if not isinstance(op, str) or op not in _DECODERS:
        raise CodecError(f"{where}.op: unknown op {op!r}")
    try:
        if "stop" in raw and op != "advance":
            # A loop command that stops at a hop: the field is the command's, its value a hop.
            hop = read_hop(raw["stop"], f"{where}.stop")
            inner = _DECODERS[op]({k: v for k, v in raw.items() if k != "stop"}, where)
            if isinstance(inner, Claim):
                raise CodecError(f"{where}.stop: claim is the inbox profile's, which has no loop to stop")
            assert not isinstance(inner, Stopping | Advance)
            return Stopping(inner, hop)
        return _DECODERS[op](raw, where)
    except ValueError as err:  # a command class's own validator (e.g. context on a non-tool result)
        raise CodecError(f"{where}: {err}") from None


