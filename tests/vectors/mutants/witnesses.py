"""Recognising the observation a bug changes (the ``differs`` predicates of the catalogue).

Each predicate receives the first differing command's expected (model) and actual (mutant)
observations and says whether the difference is the bug's hallmark, so a test can insist that the
oracle caught the *right* thing and not some unrelated accident.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from loopspec.vectors.json_reading import Json

SPLICED = "agent/inbox/spliced"
Witness = Callable[[Json, Json], bool]


def events(observation: Json) -> list[Json]:
    found = observation.get("events")
    return [e for e in found if isinstance(e, dict)] if isinstance(found, list) else []


def notes(observation: Json) -> list[str]:
    found = observation.get("notifications")
    return [str(n.get("type")) for n in found if isinstance(n, dict)] if isinstance(found, list) else []


def data(event: Json) -> Json:
    found = event.get("data")
    return found if isinstance(found, dict) else {}


def splices(observation: Json) -> list[Json]:
    return [data(e) for e in events(observation) if e.get("type") == SPLICED]


def is_claim(splice: Json) -> bool:
    """A pure deletion without outcome: the shape only the loop's claim writes (CLAIM-2)."""
    return "removedCount" in splice and splice.get("inserted") == [] and "outcome" not in splice


def types(observation: Json) -> list[str]:
    return [str(e.get("type")) for e in events(observation)]


def ends(observation: Json) -> list[str]:
    """The reason kinds of the observation's ``turn/end`` events."""
    reasons = [data(e).get("reason") for e in events(observation) if e.get("type") == "turn/end"]
    return [str(r.get("kind")) for r in reasons if isinstance(r, dict)]


def claim_too_big(expected: Json, actual: Json) -> bool:
    """A next-turn claim removing more than one message (CLAIM-1)."""
    return any(is_claim(s) and s.get("target") == "next-turn" and s.get("removedCount") != 1 for s in splices(actual))


def extra_next_turn_claim(expected: Json, actual: Json) -> bool:
    """More next-turn claims than the model makes: a later boundary took a follow-up (CLAIM-1)."""
    def count(o: Json) -> int:
        return sum(1 for s in splices(o) if is_claim(s) and s.get("target") == "next-turn")

    return count(actual) > count(expected)


def claim_canceled(expected: Json, actual: Json) -> bool:
    """Where the model writes a claim, the mutant writes a canceled removal (SPLICE-6)."""
    pairs = zip(splices(expected), splices(actual), strict=False)
    return any(is_claim(e) and a.get("outcome") == "canceled" for e, a in pairs)


def claim_discarded(expected: Json, actual: Json) -> bool:
    """More ``discarded`` notifications than the model, next to ``claimed`` ones (CLAIM-4)."""
    return "agent/inbox/claimed" in notes(actual) and notes(actual).count("agent/inbox/discarded") > notes(
        expected
    ).count("agent/inbox/discarded")


def noop_written(expected: Json, actual: Json) -> bool:
    """A splice record that removes nothing and inserts nothing (SPLICE-2).

    A no-op whose start is ``-0`` cannot even be written (NORM-5), so there the mutant refuses an
    edit the model silently elides.
    """
    written = any(s.get("removedCount", 0) == 0 and s.get("inserted") == [] for s in splices(actual))
    elided = expected.get("ok") is True and not events(expected)
    return written or (elided and actual.get("code") == "NORM-5")


def duplicate_accepted(expected: Json, actual: Json) -> bool:
    """The model refuses a repeated id (directly, or inside a listener that then fails); the mutant doesn't.

    Inside an aborted turn a listener's refused action leaves no error text (the turn ends
    ``aborted`` either way), so the hallmark there is the extra insertion the mutant wrote.
    """
    def refused_dup(o: Json) -> bool:
        return o.get("code") == "SPLICE-3" or "is already pending" in str(o)

    # Inside a listener the refusal may show only as an insertion the model did not write (an aborted
    # turn ends aborted, not error), or the mutant accepts one duplicate and fails on a later one.
    inserted = [sum(1 for s in splices(o) if "removedCount" not in s) for o in (expected, actual)]
    return (refused_dup(expected) and not refused_dup(actual)) or inserted[1] > inserted[0]


def zero_count_written(expected: Json, actual: Json) -> bool:
    """``removedCount: 0`` on a record (SPLICE-4)."""
    return any(s.get("removedCount") == 0 for s in splices(actual))


def inserted_before_discarded(expected: Json, actual: Json) -> bool:
    """Same notifications, but an ``inserted`` now precedes a ``discarded`` (NOTIFY-2, NOTIFY-3)."""
    got = notes(actual)
    return sorted(got) == sorted(notes(expected)) and any(
        a == "agent/inbox/inserted" and b == "agent/inbox/discarded" for a, b in itertools.pairwise(got)
    )


def different_start(expected: Json, actual: Json) -> bool:
    """The same splice lands elsewhere, or the edit's result changes (NORM-2)."""
    pairs = list(zip(splices(expected), splices(actual), strict=False))
    moved = any(e.get("start") != a.get("start") for e, a in pairs)
    return moved or expected.get("value") != actual.get("value") or expected.get("ok") != actual.get("ok")


def clear_order_swapped(expected: Json, actual: Json) -> bool:
    """Canceled next-turn removal written before the next-step one (SPLICE-8)."""
    def order(o: Json) -> list[object]:
        return [s.get("target") for s in splices(o) if s.get("outcome") == "canceled" and s.get("inserted") == []]

    return sorted(map(str, order(actual))) == sorted(map(str, order(expected))) and order(actual) != order(expected)


def requeued_on_reject(expected: Json, actual: Json) -> bool:
    """A pure insertion right before a blocked ``turn/end`` (CLAIM-5)."""
    got = events(actual)
    return any(
        a.get("type") == SPLICED and "removedCount" not in data(a) and b.get("type") == "turn/end"
        and data(b).get("reason") == {"kind": "blocked"}
        for a, b in itertools.pairwise(got)
    )


def step_on_reject(expected: Json, actual: Json) -> bool:
    """``step/start`` … ``turn/end {blocked}`` in one observation (DECIDE-5)."""
    return "blocked" in ends(actual) and "step/start" in types(actual) and "step/start" not in types(expected)


def blocked_then_turn(expected: Json, actual: Json) -> bool:
    """A ``turn/start`` right after a blocked ``turn/end`` (CHAIN-2)."""
    got = events(actual)
    return any(
        a.get("type") == "turn/end" and data(a).get("reason") == {"kind": "blocked"} and b.get("type") == "turn/start"
        for a, b in itertools.pairwise(got)
    )


def claim_before_turn_start(expected: Json, actual: Json) -> bool:
    """A claim record precedes its ``turn/start`` (TURN-4)."""
    got = events(actual)
    return any(
        a.get("type") == SPLICED and is_claim(data(a)) and b.get("type") == "turn/start"
        for a, b in itertools.pairwise(got)
    )
