"""Disagreements between the fast checker and the search judge that are known and not yet settled.

Each family is a kind of log the checker accepts and no run of the model writes.  Five of them
are gaps of the checker that the ``checker`` branch is closing (issue 12); the marker
``PENDING-CHECKER-BRANCH`` says so, and the lead removes those entries when that branch lands (the
tests then require the checker to reject them).  One is a choice of the model that no source
settles (``PENDING-DECISION``).  Anything else the comparison finds is a bug in one of the two.

The families are recognised from the judge's verdict: the event at which every run of the model
must write something else, and what precedes it.
"""

from __future__ import annotations

from collections.abc import Callable

Event = dict[str, object]
PENDING_CHECKER_BRANCH = "PENDING-CHECKER-BRANCH"
PENDING_DECISION = "PENDING-DECISION"


def _data(event: Event) -> dict[str, object]:
    data = event.get("data")
    return data if isinstance(data, dict) else {}


def _before(log: list[Event], seq: int, kinds: tuple[str, ...]) -> Event | None:
    return next((e for e in reversed(log[:seq]) if e.get("type") in kinds), None)


def step_after_settled_end(log: list[Event], seq: int) -> bool:
    """A step (or claim) after a step that already settled the turn's end (issue 12, family 1)."""
    event = log[seq]
    return event.get("type") == "step/start" and _data(event).get("step") != 1


def new_turn_without_latch(log: list[Event], seq: int) -> bool:
    """A new turn right after an aborted one where no wake can have latched (family 3)."""
    end = _before(log, seq, ("turn/end", "turn/start"))
    reason = _data(end).get("reason") if end is not None else None
    return log[seq].get("type") == "turn/start" and isinstance(reason, dict) and reason.get("kind") == "aborted"


def repair_without_tool_results(log: list[Event], seq: int) -> bool:
    """Crash repair closes a step with tool calls unanswered and no synthetic results (family 4)."""
    event = log[seq]
    closer = event.get("type") == "step/end" or (
        event.get("type") == "turn/end" and _data(event).get("reason") == {"kind": "interrupted"})
    if not closer:
        return False
    following = [e.get("type") for e in log[seq:seq + 3]]
    step = _before(log, seq, ("step/start",))
    tools = [e for e in log[log.index(step) if step else 0:seq] if e.get("type") in ("assistant/message", "tool/call")]
    return bool(tools) and "session/end-seed" in following


def empty_first_step(log: list[Event], seq: int) -> bool:
    """A first step that entered nothing and went on to end the turn normally (family 5)."""
    event = log[seq]
    after = log[seq + 1]["type"] if seq + 1 < len(log) else None
    return event.get("type") == "step/start" and _data(event).get("step") == 1 and after != "user/message"


def results_out_of_call_order(log: list[Event], seq: int) -> bool:
    """A step's tool results in another order than its calls: the model answers in call order (D7)."""
    return log[seq].get("type") == "tool/result"


FAMILIES: dict[str, tuple[str, Callable[[list[Event], int], bool]]] = {
    "step after a turn-ending step": (PENDING_CHECKER_BRANCH, step_after_settled_end),
    "new turn after an abort with no possible latch": (PENDING_CHECKER_BRANCH, new_turn_without_latch),
    "repair without synthetic tool results": (PENDING_CHECKER_BRANCH, repair_without_tool_results),
    "first step entering nothing, ending normally": (PENDING_CHECKER_BRANCH, empty_first_step),
    "tool results out of call order": (PENDING_DECISION, results_out_of_call_order),
}


def family_of(log: list[Event], seq: int | None) -> str | None:
    """The known family a checker-valid, judge-invalid log belongs to (by where the judge stopped)."""
    if seq is None:
        return None
    return next((name for name, (_, test) in FAMILIES.items() if test(log, seq)), None)
