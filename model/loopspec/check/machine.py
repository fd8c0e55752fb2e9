"""The log checker's state machine: envelope (LOG-1, LOG-2), dispatch by phase and event kind, a hot path.

:class:`LogChecker` is fed one parsed line at a time by :meth:`LogChecker.feed_event`, which
checks the envelope exactly as :meth:`loopspec.log.events.SessionEvent.from_json` does and runs
the event's row of the phase table (:mod:`loopspec.check.phase_table`): its checks, then the next
phase.  Most lines of a real log are streamed ``assistant/chunk`` events that only have to name
the open step (LOG-3); :func:`loopspec.check.runner.scan` decides those itself with a handful of
comparisons and no allocation.  Event types the table owns no row of pass through untouched
(LOG-6).
"""

from __future__ import annotations

from loopspec.check.inbox_track import InboxTracker, LeanInbox
from loopspec.check.phase_table import Check, Chooser, dispatch
from loopspec.check.reader import LineProblem
from loopspec.check.state import CheckState
from loopspec.check.surface import SurfaceFold
from loopspec.check.verdict import CheckOptions, Violation
from loopspec.data.message_shape import shown
from loopspec.log.envelope import (
    ENVELOPE_KEYS,
    INT_ONLY,
    MAX_SAFE_INTEGER,
    MIN_SAFE_INTEGER,
    is_safe_integer,
    is_surface_op,
)
from loopspec.log.kinds import (
    ASSISTANT_ATTEMPT,
    ASSISTANT_CHUNK,
    END_SEED,
    REQUEST_CONTEXT,
    REQUEST_HEADER,
    SURFACE,
)

# Streamed model output: too frequent and too local to be worth showing as a violation's set-up.
NOT_CONTEXT = frozenset({ASSISTANT_CHUNK, ASSISTANT_ATTEMPT, REQUEST_HEADER, REQUEST_CONTEXT})
Dispatched = tuple[Check, "str | None", "Chooser | None", bool, bool]
# The phase table compiled once at import: phase -> kind -> (check, fixed next phase, chooser,
# whether the kind is a conversation-surface event (LOG-12), whether it is kept as context).  The
# two facts of the kind ride in the row: the per-event path tests no set for them.
DISPATCH: dict[str, dict[str, Dispatched]] = {
    phase: {kind: (*row, kind in SURFACE, kind not in NOT_CONTEXT) for kind, row in rows.items()}
    for phase, rows in dispatch().items()
}


def envelope_key_problem(etype: str, raw: dict[str, object]) -> str | None:
    """LOG-9 for an event of a type the checker owns (foreign types pass through, LOG-6)."""
    if "ignorable" in raw:
        return f"{etype} carries ignorable"
    if etype not in SURFACE:
        extra = [k for k in ("surfaceOp", "sourceEventSeqs") if k in raw]
        if extra:
            return f"{etype} carries {' and '.join(extra)}, which only conversation-surface events carry"
    elif "surfaceOp" in raw and raw["surfaceOp"] != "append" and not isinstance(raw["surfaceOp"], dict):
        return f"{etype} has surfaceOp {shown(raw['surfaceOp'])}; it is 'append' or a replacement object"
    return None


def _well_formed(raw: dict[str, object]) -> bool:
    """The common case of :func:`envelope_problem` returning None, decided fast."""
    seq, time = raw.get("seq"), raw.get("time")
    if not (
        type(raw.get("type")) is str
        and type(seq) is int
        and 0 <= seq <= MAX_SAFE_INTEGER
        and type(time) is int
        and MIN_SAFE_INTEGER <= time <= MAX_SAFE_INTEGER
        and "data" in raw
    ):
        return False
    if len(raw) == 4:
        return True
    if not raw.keys() <= ENVELOPE_KEYS or raw.get("ignorable", True) is not True:
        return False
    surface = raw.get("surfaceOp", "append")
    if surface != "append" and type(surface) is not dict:
        return False
    if "sourceEventSeqs" not in raw:
        return True
    seqs = raw["sourceEventSeqs"]
    # C-level passes over the list: it is as long as the message's streamed chunks.
    return type(seqs) is list and (
        not seqs or (set(map(type, seqs)) == INT_ONLY and min(seqs) >= 0 and max(seqs) <= MAX_SAFE_INTEGER)
    )


def envelope_problem(raw: object) -> str | None:
    """What :meth:`SessionEvent.from_json` would refuse in ``raw``, in its order (LOG-1); None if fine."""
    if type(raw) is dict and _well_formed(raw):
        return None
    if not isinstance(raw, dict):
        return f"an event must be a JSON object, got {type(raw).__name__}"
    extra = set(raw) - ENVELOPE_KEYS
    if extra:
        return f"unknown envelope key(s) {sorted(extra)}"
    etype, seq, time = raw.get("type"), raw.get("seq"), raw.get("time")
    if not isinstance(etype, str):
        return f"'type' must be a string, got {shown(etype)}"
    if not (is_safe_integer(seq) and isinstance(seq, int) and seq >= 0):
        return f"'seq' must be a non-negative safe integer, got {shown(seq)}"
    if not (is_safe_integer(time) and isinstance(time, int)):
        return f"'time' must be a safe integer, got {shown(time)}"
    if "data" not in raw:
        return "'data' is missing"
    if "ignorable" in raw and raw["ignorable"] is not True:
        return f"'ignorable' may only be true, got {shown(raw['ignorable'])}"
    if "surfaceOp" in raw and not is_surface_op(raw["surfaceOp"]):
        return f"'surfaceOp' must be 'append' or an object, got {shown(raw['surfaceOp'])}"
    seqs = raw.get("sourceEventSeqs")
    if "sourceEventSeqs" in raw and not (
        isinstance(seqs, list) and all(is_safe_integer(s) and isinstance(s, int) and s >= 0 for s in seqs)
    ):
        return "'sourceEventSeqs' must be an array of seqs (non-negative integers)"
    return None


class LogChecker(CheckState):
    """Checks one log fed line by line; :attr:`violations` holds what it found."""

    __slots__ = ("surface", "torn_tail")

    def __init__(self, file: str, options: CheckOptions | None = None, inbox: InboxTracker | None = None) -> None:
        super().__init__(file, options or CheckOptions(), inbox if inbox is not None else LeanInbox())
        self.torn_tail = False
        self.surface = SurfaceFold()  # LOG-12

    def feed_event(self, obj: object, line: int) -> None:
        """The general path: envelope (LOG-1), seq (LOG-2), then the event's handler."""
        self.line = line
        self.event = obj
        if type(obj) is dict:
            try:  # a missing key is for the irregular path to diagnose (try costs nothing otherwise)
                seq, time, etype, data = obj["seq"], obj["time"], obj["type"], obj["data"]
            except KeyError:
                self._feed_irregular(obj, line)
                return
            if (
                type(seq) is int
                and seq == self.next_seq  # so seq is a non-negative safe integer
                and type(time) is int
                and MIN_SAFE_INTEGER <= time <= MAX_SAFE_INTEGER
                and type(etype) is str
                and (len(obj) == 4 or _well_formed(obj))
            ):
                self.seq = seq
                self.next_seq = seq + 1
                if self.expect_end_seed:
                    self._after_repair(etype)
                row = DISPATCH[self.phase].get(etype)
                if row is not None:
                    check, phase, choose, surface, context = row
                    if len(obj) > 4:
                        self._envelope_keys(etype, obj)
                    if surface and (problem := self.surface.feed(etype, obj, seq)) is not None:
                        self._surface_problem(problem, seq)
                    check(self, obj, data, seq)
                    self.phase = phase if choose is None else choose(self)  # type: ignore[assignment]
                    if context:
                        self.context.append((line, obj))
                self.after_end_seed = etype == END_SEED
                self.prev_time = time
                return
        self._feed_irregular(obj, line)

    def _feed_irregular(self, obj: object, line: int) -> None:
        raw_seq = obj.get("seq") if isinstance(obj, dict) else None
        seq_ok = type(raw_seq) is int and 0 <= raw_seq <= MAX_SAFE_INTEGER
        self.seq = raw_seq if seq_ok else None
        problem = envelope_problem(obj)
        if problem is not None:
            self.violate("LOG-1", problem)
            self.next_seq = raw_seq + 1 if seq_ok else self.next_seq + 1  # type: ignore[operator]
            return
        assert isinstance(obj, dict)
        seq: int = obj["seq"]
        if seq != self.next_seq:
            self.violate("LOG-2", f"seq {seq}, but this is event {self.next_seq} of the log")
        self.next_seq = seq + 1  # re-synchronise on the log's own numbering
        self._dispatch(obj, obj["type"], seq, obj["time"], line)

    def _after_repair(self, etype: str) -> None:
        self.expect_end_seed = False
        if etype != END_SEED:
            self.violate("REPAIR-2", f"{etype} right after a crash-repair turn/end")

    def _dispatch(self, obj: dict[str, object], etype: str, seq: int, time: object, line: int) -> None:
        if self.expect_end_seed:
            self._after_repair(etype)
        row = DISPATCH[self.phase].get(etype)
        if row is not None:
            check, phase, choose, surface, context = row
            self._envelope_keys(etype, obj)
            if surface and (problem := self.surface.feed(etype, obj, seq)) is not None:
                self._surface_problem(problem, seq)
            check(self, obj, obj["data"], seq)
            self.phase = phase if choose is None else choose(self)  # type: ignore[assignment]
            if context:
                self.context.append((line, obj))
        self.after_end_seed = etype == END_SEED
        self.prev_time = time  # type: ignore[assignment]

    def _envelope_keys(self, etype: str, obj: dict[str, object]) -> None:
        problem = envelope_key_problem(etype, obj)
        if problem is not None:
            self.violate("LOG-9", problem)

    def _surface_problem(self, problem: str, seq: int) -> None:
        """LOG-12: the session would refuse this surface event (the fold is fed in feed_event)."""
        self.violate("LOG-12", problem, f"the surface's current events before seq {seq}: "
                     f"{self.surface.nodes[-8:]}{' (the last 8)' if len(self.surface.nodes) > 8 else ''}")

    def bad_line(self, problem: LineProblem, line: int) -> None:
        """A line that is no JSON value: LOG-1, or a torn tail (LOG-5) unless it is allowed."""
        self.line = line
        self.event = None
        self.seq = None
        if problem.torn and self.options.allow_torn_tail:
            self.torn_tail = True
            return
        # A torn tail is a crash's cut append; the tool accepts one only when told to (LOG-5).
        because = f"line {line} is the last and has no newline: --allow-torn-tail accepts it" if problem.torn else ""
        self.violate(problem.rule, problem.message, because)
        self.next_seq += 1  # the line held one event's slot

    def found(self) -> tuple[Violation, ...]:
        """The violations, each with the count of identical complaints folded into it."""
        return tuple(
            v._replace(repeats=r) if r else v for v, r in zip(self.violations, self.repeats, strict=True)
        )
