"""Disagreements between the fast checker and the search judge that are known and not yet settled.

Each family is a kind of log the checker accepts and no run of the model writes.  The families of
issue 12 are settled (both judges agree on them; ``tests/explore/test_judge.py`` pins each); what
is left is a choice of the model that no source settles (``PENDING-DECISION``).  Anything else the
comparison finds is a bug in one of the two.

The families are recognised from the judge's verdict: the event at which every run of the model
must write something else, and what precedes it.
"""

from __future__ import annotations

from collections.abc import Callable

Event = dict[str, object]
PENDING_DECISION = "PENDING-DECISION"


def _named(event: Event) -> list[object]:
    data = event.get("data")
    data = data if isinstance(data, dict) else {}
    if event.get("type") == "tool/call":
        return [data.get("callId")]
    message = data.get("message")
    message = message if isinstance(message, dict) else {}
    content = message.get("content")
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    if event.get("type") == "assistant/message":
        return [b.get("id") for b in blocks if b.get("type") == "tool-call"]
    source = message.get("source")
    return [b.get("toolCallId") for b in blocks] or [source.get("callId") if isinstance(source, dict) else None]


def results_out_of_call_order(log: list[Event], seq: int) -> bool:
    """A step's tools started or answered in another order than announced (crash repair's results
    included): the model runs a step's tools one after another, in call order (H1)."""
    event = log[seq]
    if event.get("type") not in ("tool/call", "tool/result"):
        return False
    announced: list[object] = []
    started: set[object] = set()
    answered: set[object] = set()
    begin = seq - next((i for i, e in enumerate(reversed(log[:seq]))
                        if e.get("type") in ("step/start", "step/end", "turn/start", "turn/end")), seq)
    for before in log[begin:seq]:
        kind, named = before.get("type"), _named(before)
        if kind == "assistant/message":
            announced += named
        elif kind == "tool/call":
            started.update(named)
        elif kind == "tool/result":
            answered.update(named)
    pool = [c for c in announced if c not in (started | answered if event["type"] == "tool/call" else answered)]
    named = _named(event)
    return bool(pool) and bool(named) and named[0] in pool and named[0] != pool[0]


def tool_work_after_a_latching_send(log: list[Event], seq: int) -> bool:
    """A new turn whose latch needs a send after the abort, but tool work of the aborted step follows
    that send: the model's abort ends the step at its next result (H1), the checker does not assume it."""
    if log[seq].get("type") != "turn/start":
        return False
    end = next((i for i in range(seq - 1, -1, -1) if log[i].get("type") == "turn/end"), None)
    if end is None:
        return False
    start = next((i for i in range(end - 1, -1, -1) if log[i].get("type") in ("step/start", "turn/start")
                  or _claim(log[i])), 0)
    sends = [i for i in range(start, end) if log[i].get("type") == "agent/inbox/spliced" and not _claim(log[i])
             and _data(log[i]).get("target") == "next-turn" and "removedCount" not in _data(log[i])]
    return bool(sends) and any(log[i].get("type") in ("tool/call", "tool/result") or (
        log[i].get("type") == "assistant/message" and _named(log[i])) for i in range(sends[-1], end))


def _data(event: Event) -> dict[str, object]:
    data = event.get("data")
    return data if isinstance(data, dict) else {}


def _claim(event: Event) -> bool:
    data = _data(event)
    return event.get("type") == "agent/inbox/spliced" and "removedCount" in data and "outcome" not in data and (
        data.get("inserted") == [])


FAMILIES: dict[str, tuple[str, Callable[[list[Event], int], bool]]] = {
    "tool results out of call order": (PENDING_DECISION, results_out_of_call_order),
    "tool work after a latching send": (PENDING_DECISION, tool_work_after_a_latching_send),
}


def family_of(log: list[Event], seq: int | None) -> str | None:
    """The known family a checker-valid, judge-invalid log belongs to (by where the judge stopped)."""
    if seq is None:
        return None
    return next((name for name, (_, test) in FAMILIES.items() if test(log, seq)), None)
