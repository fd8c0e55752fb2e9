"""Words and classes the picture uses for events: end reasons, event categories, splice kinds.

Total over any JSON (never raises): a picture of an invalid log must still be drawn.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType

from loopspec.log.end_reasons import ABORTED
from loopspec.log.kinds import END_SEED, SPLICED, STEP_END, STEP_START, TURN_END, TURN_START, USER_MESSAGE
from loopspec.render.timeline import Category, SpliceKind

CATEGORY_OF_TYPE: Mapping[str, Category] = MappingProxyType({
    SPLICED: "inbox",
    TURN_START: "lifecycle",
    TURN_END: "lifecycle",
    STEP_START: "lifecycle",
    STEP_END: "lifecycle",
    USER_MESSAGE: "entry",
    END_SEED: "restart",
})
CATEGORY_OF_PREFIX: tuple[tuple[str, Category], ...] = (("assistant/", "model"), ("request/", "model"),
                                                         ("tool/", "tool"))
MAX_JSON = 4000


def category(etype: str) -> Category:
    """How an event type is coloured; a type the model does not read is ``other`` (LOG-6)."""
    found = CATEGORY_OF_TYPE.get(etype)
    if found is not None:
        return found
    for prefix, name in CATEGORY_OF_PREFIX:
        if etype.startswith(prefix):
            return name
    return "other"


def _kind(value: object) -> str | None:
    kind = value.get("kind") if isinstance(value, dict) else None
    return kind if isinstance(kind, str) else None


def reason_label(reason: object) -> str:
    """A ``turn/end`` reason in a few words: ``completed``, ``aborted {user}``, ``error CODE`` (END-1)."""
    kind = _kind(reason)
    if kind is None:
        return "unreadable reason"
    if kind == ABORTED and isinstance(reason, dict):
        cause = _kind(reason.get("reason"))
        return f"aborted {{{cause}}}" if cause else "aborted"
    if kind == "error" and isinstance(reason, dict):
        error = reason.get("error")
        code = error.get("code") if isinstance(error, dict) else None
        return f"error {code}" if isinstance(code, str) else "error"
    return kind


def message_ids(messages: object) -> tuple[str, ...]:
    if not isinstance(messages, list):
        return ()
    return tuple(str(m.get("id")) if isinstance(m, dict) else "?" for m in messages)


def splice_kind(data: object) -> SpliceKind:
    """What a splice record did, as its shape says (SPLICE-6, CLAIM-2)."""
    if not isinstance(data, dict):
        return "edit"
    removes = bool(data.get("removedCount"))
    inserts = bool(data.get("inserted"))
    canceled = data.get("outcome") == "canceled"
    if removes and not inserts and not canceled:
        return "claim"
    if canceled and removes and inserts:
        return "replace"
    if canceled and removes:
        return "cancel"
    if inserts and not removes:
        return "insert"
    return "edit"


def event_json(line: str) -> str:
    """An event's JSON for a tooltip: the line as written, cut when very long."""
    text = line.strip()
    if len(text) > MAX_JSON:
        return f"{text[:MAX_JSON]}… ({len(text) - MAX_JSON:,} more characters)"
    return text


def value_json(value: object) -> str:
    return event_json(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
