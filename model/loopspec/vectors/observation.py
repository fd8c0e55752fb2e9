"""Observations and state in JSON, and how two of them are compared (``spec/command-language.md``).

An observation is what one command did: the durable events it appended, the notifications it
emitted and its return value — or, for a refused command, the refusal's rule ID.  Comparison is
JSON equality with two deliberate blind spots: each event's ``time`` (the writer's clock) and a
refusal's ``message`` (prose); an ``agent/error`` notification's ``error`` compares by its message
alone (the live notification carries the thrown error, whose other fields are the
implementation's; the durable ``turn/end`` keeps ``{message, code}``, compared whole).  Everything
else, down to the difference between ``true`` and ``1`` that Python's ``==`` would hide, must match.
"""

from __future__ import annotations

import math

from loopspec.data.errors import CommandRefused
from loopspec.data.messages import Messages
from loopspec.loop import commands as cmd
from loopspec.loop.agent import step
from loopspec.loop.state import Agent
from loopspec.vectors.json_reading import Json

IGNORED_EVENT_KEYS = frozenset({"time"})


def encode_value(value: Messages | bool | None) -> object:
    if isinstance(value, tuple):
        return [m.to_json() for m in value]
    return value


def observe(agent: Agent, command: cmd.Command) -> tuple[Agent, Json]:
    """Apply ``command`` to the model; the next agent (unchanged if refused) and the observation."""
    agent, observation, _ = observe_rows(agent, command)
    return agent, observation


def observe_rows(agent: Agent, command: cmd.Command) -> tuple[Agent, Json, tuple[str, ...]]:
    """:func:`observe` plus the lifecycle-table rows the command fired (none when refused)."""
    try:
        transition = step(agent, command)
    except CommandRefused as err:
        return agent, refused(err.code, err.message), ()
    return transition.agent, {
        "ok": True,
        "events": [e.to_json() for e in transition.events],
        "notifications": [n.to_json() for n in transition.notifications],
        "value": encode_value(transition.value),
    }, transition.fired


def refused(code: str, message: str) -> Json:
    return {"ok": False, "code": code, "message": message}


def state_of(agent: Agent) -> Json:
    """The STATE object an adapter reports."""
    return {
        "inbox": dict(agent.inbox.to_json()),
        "phase": agent.phase,
        "status": agent.status,
        "lastTurn": agent.last_turn,
    }


def comparable(observation: object) -> object:
    """The part of an observation that is compared: no event ``time``, no refusal ``message``."""
    if not isinstance(observation, dict):
        return observation
    if observation.get("ok") is False:
        return {"ok": False, "code": observation.get("code")}
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
    if not (isinstance(note, dict) and note.get("type") == "agent/error"):
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
    text = repr(value)
    return text if len(text) <= 160 else text[:157] + "..."


def first_difference(expected: object, actual: object, path: str = "$") -> str | None:
    """Where two JSON values first differ (``$.events[2].data.start: expected 0, got 1``), or None."""
    if _kind(expected) != _kind(actual):
        return f"{path}: expected {_short(expected)}, got {_short(actual)}"
    if isinstance(expected, dict):
        assert isinstance(actual, dict)
        for key in expected:
            if key not in actual:
                return f"{path}: key {key!r} missing (expected {_short(expected[key])})"
            found = first_difference(expected[key], actual[key], f"{path}.{key}")
            if found:
                return found
        extra = sorted(set(actual) - set(expected))
        return f"{path}: unexpected key(s) {extra}" if extra else None
    if isinstance(expected, list):
        assert isinstance(actual, list)
        for index, (e, a) in enumerate(zip(expected, actual, strict=False)):
            found = first_difference(e, a, f"{path}[{index}]")
            if found:
                return found
        if len(expected) != len(actual):
            return f"{path}: expected {len(expected)} item(s), got {len(actual)}"
        return None
    if isinstance(expected, float) or isinstance(actual, float):
        assert isinstance(expected, int | float)
        assert isinstance(actual, int | float)
        same = float(expected) == float(actual) or (math.isnan(expected) and math.isnan(actual))
        return None if same else f"{path}: expected {_short(expected)}, got {_short(actual)}"
    return None if expected == actual else f"{path}: expected {_short(expected)}, got {_short(actual)}"


def observation_difference(expected: object, actual: object) -> str | None:
    """The first difference between two observations as the protocol compares them."""
    return first_difference(comparable(expected), comparable(actual))
