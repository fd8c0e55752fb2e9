"""Checking a live notification stream against its durable log (spec areas NOTIFY, STATUS, CLAIM-4, END-2).

The stream (``live.jsonl``, see examples/recordings/README.md) interleaves durable markers
``{kind: durable, seq, type}`` with the notifications the agent emitted.  The log is read in step
with the markers and fed to the log checker, which says what each record did; from that the
expected notifications follow:

* after a public edit's record: one ``discarded`` per removed message, then one ``inserted`` per
  inserted message, all before the next durable record (NOTIFY-2, NOTIFY-4), carrying only
  ``message`` (NOTIFY-1);
* after the last record of a claim: one ``claimed {message, turn}`` per claimed message in batch
  order with the enclosing turn, and no ``discarded`` (CLAIM-4);
* ``agent/status`` never repeats (STATUS-1); an ``agent/error`` for the turn and its last opened
  step precedes every error ``turn/end`` (END-2);
* the markers name the log's events in order, and the stream covers the whole log (LOG-5).

A process boundary splits the stream (:mod:`loopspec.check.live_process`): in
``resume_crash_mid_turn`` the dead process still reports the cancel splices of its disposal,
markers seq 11 and 12, which never reached the persisted log; the new process starts idle.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import BinaryIO

import attrs

from loopspec.check.live_nesting import NESTING, Nesting
from loopspec.check.live_notifications import NOTIFICATION_HANDLERS
from loopspec.check.live_process import CRASHED, REPLACED, RESTARTED, SAME, ProcessBoundary
from loopspec.check.live_shape import FORM, NOTIFYING, live_record_problem
from loopspec.check.live_wording import form_name, live_ref, message_id, reason_kind
from loopspec.check.machine import LogChecker
from loopspec.check.reader import LineProblem, parsed_lines
from loopspec.check.state import StopCheck
from loopspec.check.verdict import CheckOptions, Violation
from loopspec.log.kinds import (
    CLAIMED,
    DISCARDED,
    INSERTED,
    SPLICED,
    TURN_END,
    TURN_START,
)


@attrs.frozen
class LiveOutcome:
    lines: int
    truncated: bool
    violations: tuple[Violation, ...]


class LiveChecker:
    """Walks one live stream, pulling the log forward as its durable markers go."""

    def __init__(self, log: Iterator[tuple[int, object | LineProblem]], checker: LogChecker, file: str,
                 options: CheckOptions) -> None:
        self.log = log
        self.checker = checker
        self.file = file
        self.options = options
        self.peeked: tuple[int, object] | None = None
        self.log_line = 0
        self.line = 0
        self.seq: int | None = None
        self.record: object = None
        self.recent: deque[tuple[int, object]] = deque(maxlen=5)
        self.queue: deque[tuple[str, object, int | None]] = deque()  # expected (type, message, turn)
        self.replacing = False  # the queue holds a replacement's discarded then inserted (NOTIFY-3)
        self.claim_open = False
        self.status = "idle"  # a new agent is idle; STATUS-1 counts changes from there
        self.errors: set[tuple[object, object]] = set()
        self.chaining = False  # a turn end that chains, until its turn/start or a cancel (CHAIN-1)
        self.process = ProcessBoundary()  # LOG-5 across crashes and disposals
        self.violations: list[Violation] = []
        self.nesting = Nesting()  # calls and listener windows (decisions.md E5)
        # What a cause still owes while a notification's listener calls (decisions.md E5), innermost last.
        self.set_aside: list[tuple[deque[tuple[str, object, int | None]], bool, bool]] = []

    # ---- bookkeeping ----

    def violate(self, rule: str, message: str, because: str = "") -> None:  # because: the facts only
        self.violations.append(Violation(
            self.file, self.line, self.seq, rule, message, because, self.checker.snapshot(),
            live_ref(self.record, self.line), tuple(live_ref(r, n) for n, r in self.recent),
        ))
        if not self.options.all or len(self.violations) >= self.options.max_violations:
            raise StopCheck

    def pull(self) -> tuple[int, object] | None:
        if self.peeked is not None:
            item, self.peeked = self.peeked, None
            return item
        for line_no, value in self.log:
            self.log_line = line_no
            if isinstance(value, LineProblem):
                self.checker.bad_line(value, line_no)
                continue
            return line_no, value
        return None

    def feed(self, line: int, obj: object) -> None:
        self.checker.claim.unread()
        self.checker.last_effect = None
        self.checker.feed_event(obj, line)

    # ---- records ----

    def walk(self, stream: BinaryIO) -> None:
        for line_no, rec in parsed_lines(stream):
            self.line, self.record, self.seq = line_no, rec, None
            if isinstance(rec, LineProblem) or not isinstance(rec, dict):
                what = rec.message if isinstance(rec, LineProblem) else f"a {type(rec).__name__}, not an object"
                self.violate("LOG-1", f"live record is unreadable: {what}")
                continue
            problem = live_record_problem(rec)
            if problem is not None and problem.rule == FORM:  # other rules are judged below, with context
                self.violate(FORM, f"malformed {form_name(rec)} record: {problem.message}")
                continue
            misplaced = self.nesting.feed(line_no, rec)
            if misplaced is not None:
                self.misnested(misplaced)
            handler = RECORD_HANDLERS.get(str(rec["kind"]))
            if handler is not None:
                if handler is LiveChecker.note or not self.process.dead:  # a dead process's writes never persisted
                    handler(self, rec)
                self.recent.append((line_no, rec))
        self.finish()

    def misnested(self, problem: str) -> None:
        self.violate(NESTING, f"misplaced record: {problem}")

    def notified_call(self, rec: dict[str, object]) -> None:
        """A notification's listener calls while its cause may still owe notifications (a claim of
        several messages: the later ``claimed``); those wait until the call returns, and the call's
        own notifications must all come before its ``op-end`` (NOTIFY-4).  A cancel, from anyone, may
        stop a chaining turn end's next turn before it starts (CHAIN-1)."""
        if rec["kind"] == "op-begin" and rec.get("op") == "cancel":
            self.chaining = False
        if rec.get("within") not in NOTIFYING:
            return
        if rec["kind"] == "op-begin":
            self.set_aside.append((self.queue, self.replacing, self.claim_open))
            self.queue, self.replacing, self.claim_open = deque(), False, False
            return
        if not self.set_aside:
            return  # an op-end with no op-begin: misplaced, reported by the nesting walk
        if self.queue:
            self.missing(f"before the op-end of {rec.get('op')!r} within {rec.get('within')}")
        self.queue, self.replacing, self.claim_open = self.set_aside.pop()

    def note(self, rec: dict[str, object]) -> None:
        self.catch_up(rec.get("nextSeq"))
        self.process_changed(self.process.noted(rec.get("crash")))

    def catch_up(self, next_seq: object) -> None:
        """LOG-5: a note says how long the log was when it was taken; what the stream left unmarked
        before it belongs to the process as it stood then, not to the boundary the note may start
        (a crash's successor writes its end-seed unmarked, and a graceful shutdown may follow at
        once).  A dead process's own writes name seqs of its own log, which never persisted."""
        if type(next_seq) is not int or self.process.dead:
            return
        while True:
            item = self.pull()
            if item is None:
                return
            obj = item[1]
            oseq = obj.get("seq") if isinstance(obj, dict) else None
            if not isinstance(oseq, int) or oseq >= next_seq:
                self.peeked = item
                return
            self.unmarked(item)

    def unmarked(self, item: tuple[int, object]) -> None:
        """A log event the stream did not mark: judged by LOG-5, then fed to the log checker."""
        obj = item[1]
        oseq, otype = (obj.get("seq"), obj.get("type")) if isinstance(obj, dict) else (None, None)
        if not self.unmarked_ok(otype, obj):
            self.violate("LOG-5", f"the live stream skips log seq {oseq} ({otype})")
        self.feed(*item)

    def process_changed(self, change: str) -> None:
        """A crashed process owes nothing; a new one starts idle (after a crash, owing nothing)."""
        if change in (CRASHED, RESTARTED):
            self.queue.clear()
        if change in (RESTARTED, REPLACED):
            self.status, self.claim_open = "idle", False
        if change != SAME or self.process.ended:  # a shutdown's cancel, or a crash, stops the chain
            self.chaining = False

    def unmarked_ok(self, otype: object, obj: object = None) -> bool:
        """LOG-5: only crash repair's closers and the restart marker are written while nothing records.

        A graceful disposal detaches the stream's observer, the session and the store in an order
        the real loop (dsh-agent-loop 0.1.0-rc.8) does not fix: the aborted turn's closing records
        may be persisted unheard, or never reach the log, and then the next process repairs the turn
        while loading (decisions G2).  So the ending process's writes after its note may go
        unmarked, but only as a tail: once one went unheard, none is marked again.
        """
        allowed, change = self.process.unmarked(otype, obj)
        self.process_changed(change)
        return allowed

    def missing(self, where: str) -> None:
        expected = ", ".join(f"{t.rsplit('/', 1)[1]} {message_id(m)}" for t, m, _ in self.queue)
        rule = "CLAIM-4" if self.queue[0][0] == CLAIMED else "NOTIFY-4"
        self.violate(rule, f"notifications missing {where}: {expected}")
        self.queue.clear()

    def durable(self, rec: dict[str, object]) -> None:
        seq, etype = rec.get("seq"), rec.get("type")
        self.seq = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
        if self.seq is None or not isinstance(etype, str):
            self.violate("LOG-1", "durable marker needs an integer seq and a string type")
            return
        if self.queue:
            self.missing(f"before durable seq {seq}")
        item = self.take(self.seq, etype)
        if item is None:
            return
        turn, steps = self.checker.turn, self.checker.steps_in_turn
        self.feed(*item)
        self.expect(etype, turn, steps, item[1])

    def take(self, seq: int, etype: str) -> tuple[int, object] | None:
        while True:
            item = self.pull()
            if item is None:
                self.violate("LOG-5", f"durable marker seq {seq}, but the log ends before it")
                return None
            obj = item[1]
            oseq = obj.get("seq") if isinstance(obj, dict) else None
            otype = obj.get("type") if isinstance(obj, dict) else None
            if oseq == seq:
                if otype != etype:
                    self.violate("LOG-5", f"durable marker seq {seq} says {etype}, the log has {otype}")
                if not self.process.marked():
                    self.violate("LOG-5", f"durable marker seq {seq} of the shut-down process comes after "
                                 "its writes went unmarked: the teardown detached the stream's observer")
                return item
            if isinstance(oseq, int) and oseq > seq:
                self.peeked = item
                self.violate("LOG-5", f"durable marker seq {seq} is out of order (the log is at seq {oseq})")
                return None
            self.unmarked(item)

    def expect(self, etype: str, turn: int | None, steps: int, obj: object) -> None:
        # A chain, not a registry: its three cases read different context (the record's effect
        # on the inbox, the turn and step counts from before the record, the record itself).
        checker = self.checker
        effect = checker.last_effect
        if etype != SPLICED:
            self.claim_open = False
        if etype == SPLICED and effect is not None:
            if effect.removed_n > 0 and effect.outcome is None and not effect.inserted:
                self.claim_open = checker.claim.done is None
                for message in checker.claim.done or ():
                    self.queue.append((CLAIMED, message, checker.turn))
            else:
                self.queue.extend((DISCARDED, m, None) for m in effect.removed)
                self.queue.extend((INSERTED, m, None) for m in effect.inserted)
                self.replacing = bool(effect.removed and effect.inserted)
        elif etype == TURN_START:
            self.errors.clear()
            self.chaining = False
        elif etype == TURN_END and reason_kind(obj) == "error" and (turn, steps) not in self.errors:
            self.violate("END-2", f"error turn/end of turn {turn} without agent/error {{turn: {turn}, step: {steps}}}")
        if etype == TURN_END:
            self.chaining = checker.wake.chain

    def notification(self, rec: dict[str, object]) -> None:
        handler = NOTIFICATION_HANDLERS.get(str(rec["type"]))  # agent/pre-step: an observation, owed nothing
        if handler is not None:
            handler(self, rec)  # loopspec.check.live_notifications

    def finish(self) -> None:
        self.record, self.seq = None, None
        unclosed = self.nesting.finish()
        if unclosed is not None:
            self.misnested(unclosed)
        if self.queue and not self.process.dead:
            self.missing("at the end of the stream")
        reported = False
        while (item := self.pull()) is not None:
            otype = item[1].get("type") if isinstance(item[1], dict) else None
            if not self.unmarked_ok(otype, item[1]) and not reported:
                reported = True
                self.violate("LOG-5", f"the live stream ends before log line {item[0]} ({otype})")
            self.feed(*item)


Handler = Callable[[LiveChecker, dict[str, object]], None]
RECORD_HANDLERS: Mapping[str, Handler] = MappingProxyType({
    "note": LiveChecker.note, "durable": LiveChecker.durable, "live": LiveChecker.notification,
    "op-begin": LiveChecker.notified_call, "op-end": LiveChecker.notified_call,
})
"""What each record kind sets up; of the calls, only a notification listener's sets anything up."""


def check_live(log: BinaryIO, live: BinaryIO, checker: LogChecker, file: str, options: CheckOptions) -> LiveOutcome:
    """Check ``log`` with ``checker`` and ``live`` against it; the live stream's own violations."""
    walker = LiveChecker(parsed_lines(log), checker, file, options)
    with contextlib.suppress(StopCheck):  # the first violation (or the cap) ends both walks
        walker.walk(live)
    capped = len(walker.violations) >= options.max_violations or len(checker.violations) >= options.max_violations
    return LiveOutcome(walker.log_line, options.all and capped, tuple(walker.violations))

