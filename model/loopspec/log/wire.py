"""Readers of the log's records over parsed JSON (spec areas LOG, REPAIR): what a record says.

Every reader takes a record's ``data`` as a JSON parser returns it (dicts, lists, strings,
numbers) and never raises: a field of the wrong shape reads as absent, so each caller decides what
an absent field means (the checker reports it, the judge and the renderer pass over it).  The
model's own frozen records are read through :func:`loopspec.data.json_value.thaw`.  No imports
beyond the log package's plain constants: ``loopspec check`` imports this on every run.

**Which calls a tool/result answers** has one meaning here, :func:`answered_calls`: the
``toolCallId`` of its message's ``tool-result`` blocks, and only where it has none, its source's
``callId``.  The real session refuses to load a ``tool/result`` whose one block names another call
than its source (dsh-session's message validation), so on every log the system writes the two
agree; on a log where they differ, the blocks decide (decisions.md G11).
"""

from __future__ import annotations

from loopspec.log.tool_errors import SYNTHETIC_RESULT


def field(value: object, key: str) -> object:
    """``value[key]`` when ``value`` is a JSON object, else None."""
    return value.get(key) if isinstance(value, dict) else None


def position(data: object) -> tuple[object, object]:
    """The ``turn`` and ``step`` a record's data names, as written (any JSON value; None when
    absent or when the data is not an object): LOG-3 compares them with the open step."""
    if isinstance(data, dict):
        return data.get("turn"), data.get("step")
    return None, None


def record_data(event: object) -> dict[str, object]:
    """A parsed record's ``data`` object; an empty one when the record or its data is not an object."""
    data = event.get("data") if isinstance(event, dict) else None
    return data if isinstance(data, dict) else {}


def message_of(data: object) -> dict[str, object]:
    """``data.message`` (an ``assistant/message``'s or a ``tool/result``'s); empty when not an object."""
    message = field(data, "message")
    return message if isinstance(message, dict) else {}


def content_blocks(data: object) -> list[dict[str, object]]:
    """The object blocks of ``data.message.content``, in order (none when it is not an array)."""
    content = message_of(data).get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def tool_call_blocks(data: object) -> list[dict[str, object]]:
    """An ``assistant/message``'s ``tool-call`` blocks: the calls its answer announces (LOG-10)."""
    return [b for b in content_blocks(data) if b.get("type") == "tool-call"]


def announces(data: object) -> bool:
    """Whether an ``assistant/message`` announces a tool call: a tool-call point of its step."""
    return bool(tool_call_blocks(data))


def announced_calls(data: object) -> tuple[str, ...]:
    """The call ids an ``assistant/message``'s tool-call blocks announce, in order, repeats kept;
    a block whose ``id`` is not a string announces none."""
    return tuple(i for i in (b.get("id") for b in tool_call_blocks(data)) if isinstance(i, str))


def source_call(data: object) -> str | None:
    """The ``callId`` of a ``tool/result`` message's source, when it is a string."""
    call = field(message_of(data).get("source"), "callId")
    return call if isinstance(call, str) else None


def answered_calls(data: object) -> list[str]:
    """The call ids a ``tool/result`` answers (LOG-4): its ``tool-result`` blocks' string
    ``toolCallId`` values, else its source's ``callId`` (the module docstring says why)."""
    ids = [i for b in content_blocks(data) if b.get("type") == "tool-result"
           and isinstance(i := b.get("toolCallId"), str)]
    if ids:
        return ids
    call = source_call(data)
    return [call] if call is not None else []


def started_call(data: object) -> str | None:
    """The call a ``tool/call`` starts: its ``callId``, when it is a string."""
    call = field(data, "callId")
    return call if isinstance(call, str) else None


def is_synthetic_result(data: object) -> bool:
    """Whether a ``tool/result`` is one of crash repair's: its message id has repair's prefix (REPAIR-1)."""
    mid = message_of(data).get("id")
    return isinstance(mid, str) and mid.startswith(SYNTHETIC_RESULT)


def end_reason(data: object) -> dict[str, object] | None:
    """A ``turn/end``'s ``reason`` object, None when it is not one."""
    reason = field(data, "reason")
    return reason if isinstance(reason, dict) else None


def end_kind(data: object) -> object:
    """A ``turn/end``'s ``reason.kind`` as written (any JSON value; None when absent)."""
    return field(field(data, "reason"), "kind")


def is_claim(data: object) -> bool:
    """Whether an ``agent/inbox/spliced`` record's data has a claim's shape: a ``removedCount``, no
    insertion and no outcome (CLAIM-3: only the loop's claim writes such a record)."""
    return isinstance(data, dict) and "removedCount" in data and "outcome" not in data and data.get("inserted") == []
