"""One-line summaries of session events for reports; total over any JSON (never raises)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from loopspec.check.verdict import EventRef
from loopspec.log.kinds import END_SEED, SPLICED, TOOL_CALL, TOOL_RESULT, TURN_END, USER_MESSAGE
from loopspec.log.wire import field

LISTED_IDS = 6


def _short(value: object, limit: int = 40) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _message_ids(messages: object) -> str:
    if not isinstance(messages, list):
        return _short(messages)
    ids = [_short(field(m, "id"), 20) for m in messages[:LISTED_IDS]]
    more = f", … {len(messages) - LISTED_IDS} more" if len(messages) > LISTED_IDS else ""
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
    turn, step = field(data, "turn"), field(data, "step")
    if step is None:
        return f"turn {_short(turn)}" if turn is not None else ""
    return f"{_short(turn)}.{_short(step)}"


def _tool_result(data: object) -> str:
    message = field(data, "message")
    content = field(message, "content")
    block = content[0] if isinstance(content, list) and content else None
    return f"{_turn_step(data)} answers {_short(field(block, 'toolCallId'), 30)}"


# What each event type says, in a few words; other types show their turn and step, if any.
SUMMARIES: Mapping[str, Callable[[object], str]] = MappingProxyType({
    SPLICED: _splice,
    TURN_END: lambda data: f"turn {_short(field(data, 'turn'))} {_short(field(field(data, 'reason'), 'kind'))}",
    USER_MESSAGE: lambda data: f"{_short(field(data, 'id'), 30)}",
    END_SEED: _short,
    TOOL_CALL: lambda data: f"{_turn_step(data)} call {_short(field(data, 'callId'), 30)}",
    TOOL_RESULT: _tool_result,
})


def summarize(event: object) -> str:
    """What an event says, in a few words (the type is shown separately)."""
    etype, data = field(event, "type"), field(event, "data")
    summary = SUMMARIES.get(etype) if isinstance(etype, str) else None
    return _turn_step(data) if summary is None else summary(data)


def event_ref(event: object, line: int) -> EventRef:
    seq = field(event, "seq")
    etype = field(event, "type")
    return EventRef(
        line=line,
        seq=seq if isinstance(seq, int) and not isinstance(seq, bool) else None,
        type=etype if isinstance(etype, str) else f"<{type(event).__name__}>",
        summary=summarize(event),
    )
