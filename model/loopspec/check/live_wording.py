"""How the live checker names a live record in its reports: the record's reference and its differences."""

from __future__ import annotations

from loopspec.check.verdict import EventRef
from loopspec.log.kinds import AGENT_ERROR, AGENT_STATUS, CLAIMED, DISCARDED, INSERTED
from loopspec.log.wire import end_kind, record_data


def live_ref(rec: object, line: int) -> EventRef:
    if not isinstance(rec, dict):
        return EventRef(line, None, f"<{type(rec).__name__}>", "")
    kind, rtype = rec.get("kind"), rec.get("type")
    if kind == "durable":
        seq = rec.get("seq")
        return EventRef(line, seq if isinstance(seq, int) else None, f"durable {rtype}", "")
    message = rec.get("message")
    mid = message.get("id") if isinstance(message, dict) else None
    detail = {CLAIMED: f"{mid} turn {rec.get('turn')}", AGENT_STATUS: str(rec.get("status")),
              AGENT_ERROR: f"turn {rec.get('turn')} step {rec.get('step')}"}.get(str(rtype), str(mid or ""))
    return EventRef(line, None, str(rtype or kind), detail if rtype != INSERTED and rtype != DISCARDED else str(mid))


def differing_fields(etype: str, message: object, turn: object, rec: dict[str, object]) -> str:
    """When type and id agree, which fields do not (else the report would read ``X, expected X``)."""
    if rec.get("type") != etype or message_id(rec.get("message")) != message_id(message):
        return ""
    got = rec.get("message")
    fields = [f"turn {rec.get('turn')!r} not {turn!r}"] if etype == CLAIMED and rec.get("turn") != turn else []
    if isinstance(got, dict) and isinstance(message, dict):
        fields += [f"message.{k}" for k in sorted(set(got) | set(message), key=str) if got.get(k) != message.get(k)]
    elif got != message:
        fields.append("message")
    return f" (differs in {', '.join(fields)})" if fields else ""


def form_name(rec: dict[str, object]) -> str:
    """``live agent/status``, ``op-end``: the record's kind, and its type for a live record."""
    kind = rec.get("kind")
    return f"{kind} {rec.get('type')}" if kind == "live" else str(kind)


def message_id(message: object) -> str:
    return str(message.get("id")) if isinstance(message, dict) else repr(message)


def reason_kind(obj: object) -> object:
    """A parsed ``turn/end``'s reason kind, as written."""
    return end_kind(record_data(obj))
