"""The session log and the durable inbox (spec/02-normalization.md, 03-inbox-operations.md, 04, 05, 06).

The log is append-only with seq = index and a counter clock (the protocol's time policy).  The
inbox is two lists with one write path, `mutate`, whose only durable fact is the
`agent/inbox/spliced` record; notifications go to an emit callback after the record.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

NEXT_TURN, NEXT_STEP = "next-turn", "next-step"
SPLICED = "agent/inbox/spliced"
CLOCK_START = 1_700_000_000_000
NEGATIVE_ZERO = 'session event "agent/inbox/spliced" carries non-JSON-serializable data'  # NORM-5's text


class Refused(Exception):
    """A command the implementation refuses, with the rule it enforces; nothing changed."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule, self.message = rule, message


class Session:
    """The durable log.  `emit(("event", event))` sees every append, in order."""

    def __init__(self, emit: Callable[[tuple[str, dict]], None]) -> None:
        self.events: list[dict] = []
        self.clock = CLOCK_START
        self.emit = emit

    def append(self, etype: str, data: object, surface_op: str | None = None, time: int | None = None,
               source_event_seqs: list[int] | None = None) -> dict:
        """Append one event; `time` given only for crash repair's closers (REPAIR-3), else the clock ticks."""
        if time is None:
            self.clock += 1
            time = self.clock
        event = {"type": etype, "seq": len(self.events), "time": time, "data": data}
        if surface_op is not None:
            event["surfaceOp"] = surface_op
        if source_event_seqs is not None:
            event["sourceEventSeqs"] = source_event_seqs
        self.events.append(event)
        self.emit(("event", event))
        return event


def _trunc(x: float | int) -> float | int:
    """JavaScript's Math.trunc for finite and infinite numbers (NaN is handled by the caller)."""
    return x if isinstance(x, float) and math.isinf(x) else math.trunc(x)


def normalize(start: float | int, delete_count: float | int, length: int) -> tuple[int, int, bool]:
    """(start, deleteCount, start was -0): NORM-1, NORM-2, NORM-3, and the flag NORM-5 needs."""
    if isinstance(start, float) and math.isnan(start):
        t, negative_zero = 0, False
    else:
        t = _trunc(start)
        negative_zero = t == 0 and math.copysign(1.0, start) < 0  # -0 itself, or a start in (-1, 0)
    at = int(max(length + t, 0)) if t < 0 else int(min(t, length))
    d = 0 if isinstance(delete_count, float) and math.isnan(delete_count) else _trunc(delete_count)
    count = int(min(max(d, 0), length - at))
    return at, count, negative_zero


class Inbox:
    """next-turn and next-step, written only through `mutate`."""

    def __init__(self, session: Session, emit: Callable[[tuple[str, dict]], None]) -> None:
        self.session = session
        self.emit = emit
        self.lists: dict[str, list[dict]] = {NEXT_TURN: [], NEXT_STEP: []}

    def pending(self) -> bool:
        return bool(self.lists[NEXT_TURN] or self.lists[NEXT_STEP])

    def mutate(self, target: str, start: float | int, delete_count: float | int, inserted: list[dict],
               public: bool) -> list[dict]:
        """The one write path; `public` is false only for the loop's claim.  Returns the removed messages."""
        lane = self.lists[target]
        at, count, negative_zero = normalize(start, delete_count, len(lane))
        if count == 0 and not inserted:
            return []  # SPLICE-2: a no-op writes and notifies nothing
        candidate = lane[:at] + inserted + lane[at + count:]
        walk = candidate + self.lists[NEXT_STEP] if target == NEXT_TURN else self.lists[NEXT_TURN] + candidate
        seen: set[str] = set()
        for m in walk:  # SPLICE-3: next-turn first, before anything is written
            if m["id"] in seen:
                raise Refused("SPLICE-3", f'message "{m["id"]}" is already pending')
            seen.add(m["id"])
        if negative_zero:
            raise Refused("NORM-5", NEGATIVE_ZERO)  # after the duplicate walk, before the write
        removed = lane[at:at + count]
        data: dict = {"target": target, "start": at}
        if count:
            data["removedCount"] = count  # SPLICE-4
        data["inserted"] = inserted  # SPLICE-5
        if public and count:
            data["outcome"] = "canceled"  # SPLICE-6
        self.session.append(SPLICED, data)
        self.lists[target] = candidate
        if public:  # NOTIFY-2: discarded per removed message, then inserted per inserted one
            for m in removed:
                self.emit(("note", {"type": "agent/inbox/discarded", "message": m}))
            for m in inserted:
                self.emit(("note", {"type": "agent/inbox/inserted", "message": m}))
        return removed

    def splice(self, target: str, start: float | int, delete_count: float | int, inserted: list[dict]) -> list[dict]:
        return self.mutate(target, start, delete_count, inserted, True)

    def append(self, target: str, message: dict) -> None:
        self.splice(target, len(self.lists[target]), 0, [message])  # SPLICE-1

    def prepend(self, target: str, message: dict) -> None:
        self.splice(target, 0, 0, [message])

    def locate(self, message_id: str) -> tuple[str, int] | None:
        for target in (NEXT_TURN, NEXT_STEP):  # SPLICE-7: next-turn first
            for index, m in enumerate(self.lists[target]):
                if m["id"] == message_id:
                    return target, index
        return None

    def replace(self, message_id: str, message: dict) -> bool:
        where = self.locate(message_id)
        if where is None:
            return False
        self.splice(where[0], where[1], 1, [message])
        return True

    def remove(self, message_id: str) -> bool:
        where = self.locate(message_id)
        if where is None:
            return False
        self.splice(where[0], where[1], 1, [])
        return True

    def clearing(self) -> Iterator[str]:
        """SPLICE-8: next-step, then next-turn, each a public splice notifying before the next (NOTIFY-4).

        A generator, because the clear is not one indivisible act: right after a list's discarded
        notifications (whose listeners act at once) it yields that list's name, and only when
        resumed does it read the next list as it stands then (loop-grain row 22, decisions G23).
        A list with nothing to discard is a no-op (SPLICE-2) and yields nothing.  The caller says
        which of these are points where a call can land (agent.py).
        """
        for lane in (NEXT_STEP, NEXT_TURN):
            if self.splice(lane, 0, len(self.lists[lane]), []):
                yield lane

    def clear(self) -> None:
        """The whole clear, with nothing landing inside it (the inbox profile, which has no points)."""
        for _ in self.clearing():
            pass

    def claim(self, target: str, turn: int) -> list[dict]:
        """CLAIM-1/2/4: all of next-step, then one next-turn message only for a first boundary."""
        batch = self.mutate(NEXT_STEP, 0, len(self.lists[NEXT_STEP]), [], False)
        if target == NEXT_TURN:
            batch += self.mutate(NEXT_TURN, 0, 1, [], False)
        for m in batch:  # after every record of the claim
            self.emit(("note", {"type": "agent/inbox/claimed", "message": m, "turn": turn}))
        return batch

    def fold(self, events: list[dict]) -> None:
        """FOLD-5: the lists are the fold of the log's spliced records."""
        lists: dict[str, list[dict]] = {NEXT_TURN: [], NEXT_STEP: []}
        for e in events:
            if e["type"] == SPLICED:
                d = e["data"]
                lane = lists[d["target"]]
                lists[d["target"]] = lane[:d["start"]] + d["inserted"] + lane[d["start"] + d.get("removedCount", 0):]
        self.lists = lists
