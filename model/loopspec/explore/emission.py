"""Two more contracts per transition: notifications follow their records, edits do what the spec says.

**Emission order** (NOTIFY-2, NOTIFY-3, NOTIFY-4, CLAIM-4, STATUS-1): in the interleaved trace, a
public splice record is followed, before the next record, by exactly ``discarded`` for what it
removed and then ``inserted`` for what it inserted, in list order; a boundary's claim records are
followed, before the next record, by one ``claimed`` per message in batch order; no other inbox
notification is emitted; status notifications only ever change the status.

**Edit semantics** (NORM-1 … NORM-5, SPLICE-1, SPLICE-8, INPUT-1): a public edit or a send given
directly as the command writes the record the spec's coordinate rules give, restated here from
``spec/02-normalization.md`` independently of :mod:`loopspec.inbox.normalize`: ``Math.trunc`` with
NaN as 0, negative starts from the end, clamping, a ``-0`` start refused; ``clear`` cancels
next-step first; a send appends at the end of its list (next-turn when it wakes an aborted turn).
"""

from __future__ import annotations

import math

from loopspec.data.errors import CommandRefused
from loopspec.data.json_value import JsonObject
from loopspec.data.messages import InboxState, InboxTarget, UserMessage
from loopspec.data.notifications import Claimed, Discarded, Inserted, Notification, StatusChanged
from loopspec.explore.invariants import Problem, Reading
from loopspec.inbox.operations import locate
from loopspec.log.events import InboxSpliced, SessionEvent
from loopspec.log.kinds import TURN_START
from loopspec.loop import commands as cmd
from loopspec.loop.state import Agent, AgentTransition

EMISSION = "notifications follow their records"
EDITS = "edits follow the coordinate rules"
InboxNote = Inserted | Discarded | Claimed


def emission(before: Agent, tr: AgentTransition, reading: Reading) -> Problem | None:
    records = {e.seq: (r, i) for e, r, i in zip(tr.events, reading.records, reading.inboxes, strict=False)}
    owed: list[Notification] = []  # what must come before the next record, in order
    claim_open = False  # the previous record was a claim: its batch's notes may still be owed
    status = before.status  # idle at the hop after a waking send too (IDLE_PHASES)
    for item in tr.trace:
        if isinstance(item, SessionEvent):
            record, inbox = records[item.seq]
            if owed and not (claim_open and record is not None and record.is_claim):
                return Problem(EMISSION, "NOTIFY-4", f"{_names(owed)} not emitted before seq {item.seq}")
            claim_open = record is not None and record.is_claim
            if record is not None:
                taken = inbox.lane(record.target)[record.start : record.start + record.removed]
                if record.is_claim:
                    turn = _turn(before, tr, item.seq)
                    owed += [Claimed(m, turn if turn is not None else -1) for m in taken]
                else:
                    owed = [*(Discarded(m) for m in taken), *(Inserted(m) for m in record.inserted)]
        elif isinstance(item, StatusChanged):
            if item.status == status:
                return Problem(EMISSION, "STATUS-1", f"status {item.status} notified while already {status}")
            status = item.status
        elif isinstance(item, InboxNote):
            if not owed or owed[0] != item:
                rule = "CLAIM-4" if isinstance(item, Claimed) or (owed and isinstance(owed[0], Claimed)) else "NOTIFY-2"
                return Problem(EMISSION, rule, f"{_names([item])} emitted where {_names(owed[:1]) or 'nothing'} "
                               "was owed")
            owed.pop(0)
            claim_open = claim_open and bool(owed)
    if owed:
        return Problem(EMISSION, "NOTIFY-4", f"{_names(owed)} never emitted")
    return None


def _turn(before: Agent, tr: AgentTransition, seq: int) -> int | None:
    turn = before.running.turn if before.running is not None else None
    for e in tr.events:
        if e.seq > seq:
            break
        if e.type == TURN_START and isinstance(e.data, JsonObject):
            turn = e.data.get("turn")  # type: ignore[assignment]
    return turn


def _names(notes: list[Notification]) -> str:
    return ", ".join(f"{n.type} {getattr(getattr(n, 'message', None), 'id', '')}".strip() for n in notes)


# ---- edit semantics ----


def _trunc(x: float) -> float:
    """``Math.trunc`` with NaN as 0 (NORM-1); keeps the sign of a zero, as JavaScript does."""
    if math.isnan(x):
        return 0.0
    if math.isinf(x):
        return x
    t = float(math.trunc(x))
    return math.copysign(t, x) if t == 0 else t


def coordinates(start: float, count: float, length: int) -> tuple[int, int, bool]:
    """(start, count, start is -0) by NORM-1 … NORM-3 for a list of ``length``."""
    t = _trunc(float(start))
    s = (0.0 if t == -math.inf else max(length + t, 0.0)) if t < 0 else min(t, float(length))
    negative_zero = s == 0 and math.copysign(1.0, s) < 0
    d = _trunc(float(count))
    c = length - s if d == math.inf else min(max(d, 0.0), length - s)
    return int(s), int(c), negative_zero


def edit_semantics(before: Agent, command: cmd.Command | None, reading: Reading | None,
                   refusal: CommandRefused | None = None, *, inside: bool = False) -> Problem | None:
    """The command's first record (or its refusal) against the spec's coordinate rules; ``inside``:
    the command stopped at a point inside itself (a clear between its lists, loop-grain row 22)."""
    inbox = before.inbox
    expected = _expected(inbox, before, command)
    if inside and isinstance(command, cmd.Clear) and isinstance(expected, list):
        expected = expected[:1]  # next-step's record; next-turn's is the clear's rest, when the loop goes on
    if expected is None:
        return None
    if expected == "-0":
        if refusal is None or refusal.rule not in ("NORM-5", "SPLICE-3"):
            return Problem(EDITS, "NORM-5", f"{command} normalizes its start to -0 but was not refused")
        return None
    if refusal is not None or reading is None:
        return None  # duplicates (SPLICE-3) are the ids' business, checked by the fold
    got: list[InboxSpliced | None]
    if isinstance(command, cmd.Clear):
        got = [r for r in reading.records if r is not None]
    else:
        got = reading.records[:1] or [None]
    shapes = [(r.target, r.start, r.removed, r.inserted) if r is not None else None for r in got]
    if shapes != expected:
        return Problem(EDITS, "NORM-2" if isinstance(command, cmd.Splice) else "SPLICE-1",
                       f"{type(command).__name__} wrote {_shown(shapes)}, the rules give {_shown(expected)}")
    return None


Shape = tuple[InboxTarget, int, int, tuple[UserMessage, ...]]


def _expected(inbox: InboxState, before: Agent, command: cmd.Command | None) -> object:
    def at(target: InboxTarget, start: float, count: float, inserted: tuple[UserMessage, ...]) -> object:
        s, c, negative_zero = coordinates(start, count, len(inbox.lane(target)))
        if c == 0 and not inserted:
            return [None]  # SPLICE-2: nothing written
        if negative_zero:
            return "-0"
        shape: Shape = (target, s, c, inserted)
        return [shape]

    if isinstance(command, cmd.Splice):
        return at(command.target, command.start, command.delete_count, command.inserted)
    if isinstance(command, cmd.Append):
        return at(command.target, math.inf, 0, (command.message,))
    if isinstance(command, cmd.Prepend):
        return at(command.target, 0, 0, (command.message,))
    if isinstance(command, cmd.Replace | cmd.Remove):
        where = locate(inbox, command.message_id)
        if where is None:
            return [None]
        return at(where[0], where[1], 1, (command.message,) if isinstance(command, cmd.Replace) else ())
    if isinstance(command, cmd.Clear):  # SPLICE-8: next-step first
        lanes = (InboxTarget.NEXT_STEP, InboxTarget.NEXT_TURN)
        return [(t, 0, len(inbox.lane(t)), ()) for t in lanes if inbox.lane(t)]
    if isinstance(command, cmd.Send):
        run = before.running
        target = InboxTarget.NEXT_TURN if command.wake and run is not None and run.aborted is not None else (
            command.target)
        return at(target, math.inf, 0, (command.message,))
    return None


def _shown(shapes: object) -> str:
    """Records as ``target start+removed [ids]`` for messages."""
    if not isinstance(shapes, list):
        return repr(shapes)
    out = []
    for shape in shapes:
        if shape is None:
            out.append("nothing")
        else:
            target, start, count, inserted = shape
            out.append(f"{target.value} start {start} removing {count} inserting {[m.id.value for m in inserted]}")
    return "; ".join(out) or "nothing"
