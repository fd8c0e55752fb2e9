"""One-line summaries of session events for reports; total over any JSON (never raises)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from loopspec.check.verdict import EventRef

MAX_IDS = 6


def _get(value: object, key: str) -> object:
    return value.get(key) if isinstance(value, dict) else None


def _short(value: object, limit: int = 40) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _message_ids(messages: object) -> str:
    if not isinstance(messages, list):
        return _short(messages)
    ids = [_short(_get(m, "id"), 20) for m in messages[:MAX_IDS]]
    more = f", … {len(messages) - MAX_IDS} more" if len(messages) > MAX_IDS else ""
    return "[" + ", ".join(ids) + more + "]"


def _splice(data: object) -> str:
    if not isinstance(data, dict):
        return _short(data)
    parts = [f"{_short(data.get('target'))} start {_short(data.get('start'))}"]
    if "removedCount" in data:
        parts.append(f"removed {_short(data['removedCount'])}")
    parts.append(f"inserted {_message_ids(data.get('inserted'))}")
    if "outcome" in data:
        parts.append(f"outcome {_short(data['outcome'])}")
    return " ".join(parts)


def _turn_step(data: object) -> str:
    turn, step = _get(data, "turn"), _get(data, "step")
    if step is None:
        return f"turn {_short(turn)}" if turn is not None else ""
    return f"{_short(turn)}.{_short(step)}"


def _tool_result(data: object) -> str:
    message = _get(data, "message")
    content = _get(message, "content")
    block = content[0] if isinstance(content, list) and content else None
    return f"{_turn_step(data)} answers {_short(_get(block, 'toolCallId'), 30)}"


# What each event type says, in a few words; other types show their turn and step, if any.
SUMMARIES: Mapping[str, Callable[[object], str]] = MappingProxyType({
    "agent/inbox/spliced": _splice,
    "turn/end": lambda data: f"turn {_short(_get(data, 'turn'))} {_short(_get(_get(data, 'reason'), 'kind'))}",
    "user/message": lambda data: f"{_short(_get(data, 'id'), 30)}",
    "session/end-seed": _short,
    "tool/call": lambda data: f"{_turn_step(data)} call {_short(_get(data, 'callId'), 30)}",
    "tool/result": _tool_result,
})


def summarize(event: object) -> str:
    """What an event says, in a few words (the type is shown separately)."""
    etype, data = _get(event, "type"), _get(event, "data")
    summary = SUMMARIES.get(etype) if isinstance(etype, str) else None
    return _turn_step(data) if summary is None else summary(data)


def event_ref(event: object, line: int) -> EventRef:
    seq = _get(event, "seq")
    etype = _get(event, "type")
    return EventRef(
        line=line,
        seq=seq if isinstance(seq, int) and not isinstance(seq, bool) else None,
        type=etype if isinstance(etype, str) else f"<{type(event).__name__}>",
        summary=summarize(event),
    )
