"""The public calls a recording holds, as model commands: a registry keyed by call name.

Each :class:`Call` says which ``args`` the call takes, how to build the model command from them
and how the model's return value looks in the recording's ``result``.  The message bodies are
not in ``args``: the engine passes a ``bodies`` function that finds each inserted message in the
call's ``agent/inbox/inserted`` records.  A call that inserted nothing (it was refused, or it
replaced an id that is not pending) shows only the id; the model then gets a message with that
id and a one-block text body, because neither a refusal (by id, SPLICE-3, NORM-5) nor a replace
that finds nothing (SPLICE-7) reads the body.

``snapshot`` is a probe, not a call: it builds no command and its result is the pending inbox.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from types import MappingProxyType

import attrs

from loopspec.data.json_value import Frozen, JsonObject, Thawed, freeze
from loopspec.data.messages import InboxState, InboxTarget, MessageId, Messages, UserMessage, shown
from loopspec.inbox.normalize import JsNumber
from loopspec.loop import commands as cmd

Bodies = Callable[[str], UserMessage]
Builder = Callable[[JsonObject, Bodies], "cmd.Command | None"]
Returned = Callable[[InboxState, "Messages | bool | None"], Thawed]

# A JavaScript number's text (``String(n)``): what the recorder writes for splice coordinates.
_JS_NUMBER_TEXT = re.compile(r"-?(?:Infinity|\d+(?:\.\d+)?(?:e[+-]\d+)?)|NaN")


def js_number(raw: Frozen) -> JsNumber:
    """A splice coordinate: a JSON number, or a string holding the number's JavaScript text.

    ``"-0"`` is the one way to keep a negative zero; non-finite and fractional values are always
    strings; integers may be strings too (``"-1"``).
    """
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise ValueError(f"a splice coordinate must be a number or its JavaScript text, got {shown(raw)}")
    if isinstance(raw, str):
        if not _JS_NUMBER_TEXT.fullmatch(raw):
            raise ValueError(f"{raw!r} is not the JavaScript text of a number")
        value = float(raw.replace("Infinity", "inf"))
    else:
        value = raw
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and value != 0:
        return int(value)
    if isinstance(value, float) and value == 0 and math.copysign(1.0, value) > 0:
        return 0
    return value


def _text(args: JsonObject, key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str):
        raise ValueError(f"'{key}' must be a string, got {shown(value)}")
    return value


def _flag(args: JsonObject, key: str, default: bool | None = None) -> bool:
    """A boolean argument; ``default`` where it may be left out (None: it must be there)."""
    value = args.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f"'{key}' must be a boolean, got {shown(value)}")
    return value


def _target(args: JsonObject) -> InboxTarget:
    return InboxTarget.parse(args.get("target"))


def _send(make: Callable[[UserMessage], cmd.Send]) -> Builder:
    return lambda args, bodies: make(bodies(_text(args, "id")))


def _general_send(args: JsonObject, bodies: Bodies) -> cmd.Command:
    return cmd.Send(bodies(_text(args, "id")), _target(args), _flag(args, "wake"))


def _cancel(args: JsonObject, _: Bodies) -> cmd.Command:
    return cmd.Cancel(freeze(args.get("cause")), _flag(args, "keepInbox", False))


def _splice(args: JsonObject, bodies: Bodies) -> cmd.Command:
    inserted = args.get("inserted")
    if not (isinstance(inserted, tuple) and all(isinstance(i, str) for i in inserted)):
        raise ValueError(f"'inserted' must be an array of ids, got {shown(inserted)}")
    start, count = js_number(args.get("start")), js_number(args.get("deleteCount"))
    return cmd.Splice(_target(args), start, count, tuple(bodies(str(i)) for i in inserted))


def _null(_: InboxState, __: Messages | bool | None) -> Thawed:
    return None


def _found(_: InboxState, value: Messages | bool | None) -> Thawed:
    return value if isinstance(value, bool) else None


def _removed(_: InboxState, value: Messages | bool | None) -> Thawed:
    return [{"id": m.id.value} for m in value] if isinstance(value, tuple) else None


def _snapshot(inbox: InboxState, _: Messages | bool | None) -> Thawed:
    """The pending inbox as the recording shows it: the ids of each list, in order."""
    return {"nextTurn": [m.id.value for m in inbox.next_turn], "nextStep": [m.id.value for m in inbox.next_step]}


@attrs.frozen
class Call:
    """One call of the recording format: its ``args`` keys, its command, its result's shape."""

    keys: frozenset[str]
    build: Builder
    returns: Returned
    optional: frozenset[str] = frozenset()
    rule: str | None = None  # the rule its result follows, named when the result differs

    def check_keys(self, args: JsonObject) -> None:
        missing, extra = self.keys - set(args), set(args) - self.keys - self.optional
        if missing or extra:
            raise ValueError(f"args need {sorted(self.keys)}, missing {sorted(missing)}, unknown {sorted(extra)}")


def _keys(*names: str) -> frozenset[str]:
    return frozenset(names)


# The calls of the recording format (examples/recordings/README.md, "op-begin / op-end").
CALLS: Mapping[str, Call] = MappingProxyType({
    "followup": Call(_keys("id"), _send(cmd.followup), _null, rule="INPUT-1"),
    "steer": Call(_keys("id"), _send(cmd.steer), _null, rule="INPUT-1"),
    "inject": Call(_keys("id"), _send(cmd.inject), _null, rule="INPUT-1"),
    "cancel": Call(_keys("cause"), _cancel, _null, optional=_keys("keepInbox"), rule="CANCEL-1"),
    "inbox.append": Call(_keys("target", "id"),
                         lambda a, b: cmd.Append(_target(a), b(_text(a, "id"))), _null, rule="SPLICE-1"),
    "inbox.prepend": Call(_keys("target", "id"),
                          lambda a, b: cmd.Prepend(_target(a), b(_text(a, "id"))), _null, rule="SPLICE-1"),
    "inbox.replace": Call(_keys("messageId", "newId"),
                          lambda a, b: cmd.Replace(MessageId(_text(a, "messageId")), b(_text(a, "newId"))),
                          _found, rule="SPLICE-7"),
    "inbox.remove": Call(_keys("messageId"), lambda a, _: cmd.Remove(MessageId(_text(a, "messageId"))),
                         _found, rule="SPLICE-7"),
    "inbox.splice": Call(_keys("target", "start", "deleteCount", "inserted"), _splice, _removed, rule="SPLICE-1"),
    "send": Call(_keys("id", "target", "wake"), _general_send, _null, rule="INPUT-1"),
    "inbox.clear": Call(frozenset(), lambda a, b: cmd.Clear(), _null, rule="SPLICE-8"),
    "snapshot": Call(frozenset(), lambda a, b: None, _snapshot, rule="FOLD-5"),
})


def call_name(label: str) -> str:
    """The call a recorded ``op`` names: the text before the first ``(``, trimmed."""
    return label.split("(", 1)[0].strip()
