"""Small readers of observations for the witness predicates of the mutant modules.

A witness receives the first differing pair: two observations, or two ``{"state": ...}`` objects
when the observations agreed and the states after the command did not (see :mod:`.handler`).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from loopspec.vectors.json_reading import Json
from vectors.mutants.witnesses import data, events, is_claim, notes, splices, types

Witness = Callable[[Json, Json], bool]
TURN_END, TURN_START, STEP_START, STEP_END = "turn/end", "turn/start", "step/start", "step/end"
USER_MESSAGE, END_SEED = "user/message", "session/end-seed"


def state(o: Json) -> Json | None:
    found = o.get("state")
    return found if isinstance(found, dict) else None


def refused(o: Json, code: str | None = None) -> bool:
    return o.get("ok") is False and (code is None or o.get("code") == code)


def accepted(o: Json) -> bool:
    return o.get("ok") is True


def of_type(o: Json, etype: str) -> list[Json]:
    return [data(e) for e in events(o) if e.get("type") == etype]


def reasons(o: Json) -> list[object]:
    return [d.get("reason") for d in of_type(o, TURN_END)]


def end_kinds(o: Json) -> list[str]:
    return [str(r.get("kind")) for r in reasons(o) if isinstance(r, dict)]


def entered(o: Json) -> list[object]:
    return [d.get("id") for d in of_type(o, USER_MESSAGE)]


def claims(o: Json) -> list[Json]:
    return [s for s in splices(o) if is_claim(s)]


def before(o: Json, first: str, second: str) -> bool:
    """Some event of type ``first`` comes before every event of type ``second`` (which exists)."""
    got = types(o)
    return first in got and second in got and got.index(first) < got.index(second)


def claim_before(o: Json, etype: str) -> bool:
    """A claim record precedes the first event of ``etype`` (which exists)."""
    got = events(o)
    kinds = [("claim" if e.get("type") == "agent/inbox/spliced" and is_claim(data(e)) else e.get("type")) for e in got]
    return "claim" in kinds and etype in kinds and kinds.index("claim") < kinds.index(etype)


def note_objects(o: Json, ntype: str | None = None) -> list[Json]:
    found = o.get("notifications")
    items = [n for n in found if isinstance(n, dict)] if isinstance(found, list) else []
    return [n for n in items if ntype is None or n.get("type") == ntype]


def pending(o: Json) -> list[object]:
    """The ids pending in a state pair member (both lists, next-turn first)."""
    found = state(o)
    inbox = found.get("inbox") if found else None
    if not isinstance(inbox, dict):
        return []
    out: list[object] = []
    for lane in ("next-turn", "next-step"):
        ms = inbox.get(lane)
        out += [m.get("id") for m in ms if isinstance(m, dict)] if isinstance(ms, list) else []
    return out


def mentions(o: Json, text: str) -> bool:
    # The text as JSON writes it inside a string (quotes escaped), e.g. NORM-5's real refusal text.
    return json.dumps(text)[1:-1] in json.dumps(o)


def next_seqs(o: Json) -> list[object]:
    """Protocol v2: the ``nextSeq`` each notification carries."""
    return [n.get("nextSeq") for n in note_objects(o)]


def times(o: Json) -> list[object]:
    """Protocol v2 compares event times."""
    return [e.get("time") for e in events(o)]


REFUSAL_TEXTS = ("is already pending", "carries non-JSON-serializable data")  # SPLICE-3, NORM-5 (real texts)


def refused_in_listener(expected: Json, actual: Json) -> bool:
    """The model refuses an action inside a listener (its turn ends error with the refusal's text); the
    implementation does not fail the same way: it accepted the action."""
    def refusal_end(o: Json) -> list[object]:
        return [r for r in reasons(o) if any(json.dumps(t)[1:-1] in json.dumps(r) for t in REFUSAL_TEXTS)]

    return bool(refusal_end(expected)) and refusal_end(actual) != refusal_end(expected)


def insertions(o: Json) -> int:
    return sum(1 for s in splices(o) if "removedCount" not in s)


def accepted_instead(expected: Json, actual: Json) -> bool:
    """What the model refuses (a command, or an action inside a listener), the implementation accepts: it
    answers ok, its listener does not fail with the refusal, or it writes an insertion the model did not."""
    direct = refused(expected) and accepted(actual)
    return direct or refused_in_listener(expected, actual) or insertions(actual) > insertions(expected)


def order_moved(expected: Json, actual: Json) -> bool:
    """Protocol v2: the same notifications, emitted at another point among the durable records."""
    return sorted(notes(expected)) == sorted(notes(actual)) and next_seqs(expected) != next_seqs(actual)
