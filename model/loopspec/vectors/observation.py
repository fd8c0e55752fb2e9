"""Observations and state in JSON, and how two of them are compared (``spec/command-language.md``).

An observation is what one command did: the durable events it appended, the notifications it
emitted — each with ``nextSeq``, the seq the next durable event was going to get when it was
emitted, so the interleaving of records and notifications is part of what is compared
(NOTIFY-4, CLAIM-4, INPUT-2) — and its return value; or, for a refused command, the refusal's
rule ID.  Comparison is JSON equality with deliberate blind spots: each event's ``time`` (checked
by the time policy and the log checker instead, see :mod:`.audit`), a refusal's ``message``
(prose, but required), and an ``agent/error`` notification's ``error``, compared by its message
alone (the live notification carries the thrown error, whose other fields are the
implementation's; the durable ``turn/end`` keeps ``{message, code}``, compared whole).  Everything
else, down to the difference between ``true`` and ``1`` that Python's ``==`` would hide, must match.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import overload

from loopspec.data.errors import CommandRefused
from loopspec.data.messages import Messages
from loopspec.data.notifications import Notification
from loopspec.inbox.session import InboxSession
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import AGENT_ERROR
from loopspec.loop.state import Agent
from loopspec.vectors.json_reading import Json
from loopspec.vectors.reference_model import Model, VectorCommand, apply

IGNORED_EVENT_KEYS = frozenset({"time"})

try:  # orjson is optional: without it every comparison takes the walk (same_json)
    import orjson

    def _write_sorted(value: object) -> bytes:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)

    write_sorted: Callable[[object], bytes] | None = _write_sorted
except ImportError:  # pragma: no cover - exercised in environments without orjson
    write_sorted = None


def encode_value(value: Messages | bool | None) -> object:
    if isinstance(value, tuple):
        return [m.to_json() for m in value]
    return value


def accepted(trace: tuple[SessionEvent | Notification, ...], next_seq: int, value: Messages | bool | None) -> Json:
    """The observation of an accepted command from its emission trace (``next_seq``: the log length before)."""
    events: list[object] = []
    notifications: list[object] = []
    for item in trace:
        if isinstance(item, SessionEvent):
            events.append(item.to_json())
            next_seq = item.seq + 1
        else:
            notifications.append({**item.to_json(), "nextSeq": next_seq})
    return {"ok": True, "events": events, "notifications": notifications, "value": encode_value(value)}


@overload
def observe(model: Agent, command: VectorCommand) -> tuple[Agent, Json]: ...
@overload
def observe(model: InboxSession, command: VectorCommand) -> tuple[InboxSession, Json]: ...
@overload
def observe(model: Model, command: VectorCommand) -> tuple[Model, Json]: ...
def observe(model: Model, command: VectorCommand) -> tuple[Model, Json]:
    """Apply ``command`` to the model; the next model (unchanged if refused) and the observation.

    Raises :class:`~loopspec.vectors.reference_model.Unsupported` for a command outside the model's profile.
    """
    after, observation, _ = observe_rows(model, command)
    return after, observation


def observe_rows(model: Model, command: VectorCommand) -> tuple[Model, Json, tuple[str, ...]]:
    """:func:`observe` plus the lifecycle-table rows the command fired (none when refused)."""
    try:
        done = apply(model, command)
    except CommandRefused as err:
        return model, refused(err.code, err.message), ()
    return done.model, accepted(done.trace, done.next_seq, done.value), done.fired


def refused(code: str, message: str) -> Json:
    return {"ok": False, "code": code, "message": message}


def state_of(model: Model) -> Json:
    """The STATE object an adapter reports (an inbox-only model reports its inbox alone)."""
    if isinstance(model, InboxSession):
        return {"inbox": dict(model.inbox.to_json())}
    return {
        "inbox": dict(model.inbox.to_json()),
        "phase": model.stop_name,  # a send held inside a call reports its hop (decisions G30)
        "status": model.status,
        "lastTurn": model.last_turn,
    }


def comparable(observation: object) -> object:
    """The part of an observation that is compared: no event ``time``, no refusal ``message`` text."""
    if not isinstance(observation, dict):
        return observation
    if observation.get("ok") is False:
        # The message is prose and not compared, but it is required: a refusal explains itself.
        message = observation.get("message")
        return {"ok": False, "code": observation.get("code"),
                "message": "(a string)" if isinstance(message, str) else message}
    out = dict(observation)
    notes = out.get("notifications")
    if isinstance(notes, list):
        out["notifications"] = [_by_message(n) for n in notes]
    events = out.get("events")
    if isinstance(events, list):
        out["events"] = [
            {k: v for k, v in e.items() if k not in IGNORED_EVENT_KEYS} if isinstance(e, dict) else e for e in events
        ]
    return out


def _by_message(note: object) -> object:
    """END-2: an ``agent/error``'s error compared by its message (an object's ``message``, or a text)."""
    if not (isinstance(note, dict) and note.get("type") == AGENT_ERROR):
        return note
    error = note.get("error")
    message = error.get("message") if isinstance(error, dict) else error
    return {**note, "error": message}


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if value is None:
        return "null"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _short(value: object) -> str:
    """A JSON value as JSON (``null``, ``false``, ``"text"``), cut to 160 characters."""
    try:
        text = json.dumps(value, ensure_ascii=True, default=repr)
    except (ValueError, TypeError, RecursionError):
        text = repr(value)
    return text if len(text) <= 160 else text[:157] + "..."


def same_json(a: object, b: object) -> bool:
    """JSON equality as :func:`first_difference` decides it, without building paths (the common case).

    Booleans are not numbers, numbers compare as doubles (NaN equal to itself), objects ignore key
    order and arrays do not.
    """
    if _written_alike(a, b):
        return True
    return _same_json(a, b)


def _written_alike(a: object, b: object) -> bool:
    """A sufficient test for :func:`same_json`, in C: Python's ``==`` holds and both are written as the
    same JSON text (keys sorted).  ``==`` alone would take ``true`` for ``1``, and the same text alone
    NaN for ``null``; together a leaf is only ever matched with the same token.  False says nothing
    (``1`` against ``1.0``, a value orjson does not write): the walk decides."""
    if write_sorted is None or a != b:
        return False
    try:
        return write_sorted(a) == write_sorted(b)
    except TypeError:
        return False


def _same_json(a: object, b: object) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same_json, a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        if type(a) is type(b):
            return a == b or (a != a and b != b)  # NaN is itself
        return float(a) == float(b)
    return type(a) is type(b) and a == b


def first_difference(expected: object, actual: object, path: str = "$",
                     words: tuple[str, str] = ("expected", "got")) -> str | None:
    """Where two JSON values first differ (``$.events[2].data.start: expected 0, got 1``), or None.

    ``words`` name the two sides (``reproduce`` says "the model" and "the recording")."""
    said, found_word = words
    if path == "$" and same_json(expected, actual):
        return None
    if _kind(expected) != _kind(actual):
        return f"{path}: {said} {_short(expected)}, {found_word} {_short(actual)}"
    if isinstance(expected, dict):
        assert isinstance(actual, dict)
        for key in expected:
            if key not in actual:
                return f"{path}: key {key!r} missing ({said} {_short(expected[key])})"
            found = first_difference(expected[key], actual[key], f"{path}.{key}", words)
            if found:
                return found
        extra = sorted(set(actual) - set(expected))
        return f"{path}: unexpected key(s) {extra}" if extra else None
    if isinstance(expected, list):
        assert isinstance(actual, list)
        for index, (e, a) in enumerate(zip(expected, actual, strict=False)):
            found = first_difference(e, a, f"{path}[{index}]", words)
            if found:
                return found
        if len(expected) != len(actual):
            return f"{path}: {said} {len(expected)} item(s), {found_word} {len(actual)}"
        return None
    if isinstance(expected, float) or isinstance(actual, float):
        assert isinstance(expected, int | float)
        assert isinstance(actual, int | float)
        same = float(expected) == float(actual) or (math.isnan(expected) and math.isnan(actual))
        return None if same else f"{path}: {said} {_short(expected)}, {found_word} {_short(actual)}"
    return None if expected == actual else f"{path}: {said} {_short(expected)}, {found_word} {_short(actual)}"


def observation_difference(expected: object, actual: object) -> str | None:
    """The first difference between two observations as the protocol compares them."""
    return first_difference(comparable(expected), comparable(actual))
