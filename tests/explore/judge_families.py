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


def results_out_of_call_order(log: list[Event], seq: int) -> bool:
    """A step's tool results in another order than its calls: the model answers in call order (D7)."""
    return log[seq].get("type") == "tool/result"


FAMILIES: dict[str, tuple[str, Callable[[list[Event], int], bool]]] = {
    "tool results out of call order": (PENDING_DECISION, results_out_of_call_order),
}


def family_of(log: list[Event], seq: int | None) -> str | None:
    """The known family a checker-valid, judge-invalid log belongs to (by where the judge stopped)."""
    if seq is None:
        return None
    return next((name for name, (_, test) in FAMILIES.items() if test(log, seq)), None)
