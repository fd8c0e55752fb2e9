"""Disagreements between the fast checker and the search judge that are known and not yet settled.

Each family is a kind of log the checker accepts and no run of the model writes.  The families of
issue 12, and the two that waited for a source (the order of a step's tool calls, tool work after
a latching send; settled by the real tool phase, decisions.md H1), are settled: both judges agree
on them and ``tests/explore/test_judge.py`` pins each.  None is open now; a family listed here is a
choice of the model that no source settles (``PENDING-DECISION``).  Anything else the comparison
finds is a bug in one of the two.

The families are recognised from the judge's verdict: the event at which every run of the model
must write something else, and what precedes it.
"""

from __future__ import annotations

from collections.abc import Callable

Event = dict[str, object]
PENDING_DECISION = "PENDING-DECISION"


# Empty: the two PENDING-DECISION families (tool results out of call order, tool work after a
# latching send) were settled by the real tool phase (decisions.md H1: LOG-11, CANCEL-5) and are
# pinned with the others in test_judge.py.  A family found later goes here until it is settled.
FAMILIES: dict[str, tuple[str, Callable[[list[Event], int], bool]]] = {}


def family_of(log: list[Event], seq: int | None) -> str | None:
    """The known family a checker-valid, judge-invalid log belongs to (by where the judge stopped)."""
    if seq is None:
        return None
    return next((name for name, (_, test) in FAMILIES.items() if test(log, seq)), None)
