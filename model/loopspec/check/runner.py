"""Checking one log file end to end: open, stream, feed, verdict (spec rules LOG-1, LOG-5).

:func:`check_file` never raises on bad input: an unreadable or undecompressable file is an
``unusable`` verdict with a reason, and so is a file in which nothing looks like an event (random
bytes, another JSON format: not a session log at all); everything inside a session log is a rule
violation.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from loopspec.check.input_kind import LIVE_NOT_A_LOG, foreign_marker, is_live_recording, live_stream_problem
from loopspec.check.machine import LogChecker
from loopspec.check.reader import (
    UNREADABLE,
    LineProblem,
    confirmed,
    holds_an_event,
    lenient_loads,
    open_log,
    parse_slowly,
    write_back,
)
from loopspec.check.state import StopCheck
from loopspec.check.verdict import CheckOptions, LogResult, Violation
from loopspec.log.envelope import MAX_SAFE_INTEGER, MIN_SAFE_INTEGER
from loopspec.log.kinds import ASSISTANT_ATTEMPT, ASSISTANT_CHUNK

if TYPE_CHECKING:
    from typing import BinaryIO

    from loopspec.check.reader import LogPath

UNPARSED = object()  # the fast parser refused the line: the slow path says why
NOT_A_LOG = ("not a session log: no line of it is a JSON object, even forgiving a byte order mark, bad UTF-8 or "
             "NaN (a session log holds one event object per line)")


DECODER_VARIABLE = "LOOPSPEC_CHECK_DECODER"
# The typed path pays msgspec's import (about 9 ms of start-up here) and wins ~0.3 us per streamed
# chunk back: from about 4 MB of log on (docs/performance.md) it is the faster of the two.
TYPED_MIN_BYTES = 4_000_000


def _typed_scan(size: int) -> Callable[[BinaryIO, LogChecker], int] | None:
    """The fast path's scan (:mod:`loopspec.check.fastpath`) for a log of ``size`` bytes, or None.

    ``LOOPSPEC_CHECK_DECODER`` chooses: ``general`` never (the fallback, as without msgspec),
    ``typed`` always (the tests run both), anything else by size (:data:`TYPED_MIN_BYTES`).
    """
    choice = os.environ.get(DECODER_VARIABLE, "auto")
    if choice == "general" or (choice != "typed" and size < TYPED_MIN_BYTES):
        return None
    try:
        from loopspec.check.fastpath import scan as typed
    except ImportError:  # pragma: no cover - msgspec is a dependency; a broken install still checks
        return None
    return typed


def scan(stream: BinaryIO, checker: LogChecker, size: int = TYPED_MIN_BYTES) -> int:
    """Feed every line of ``stream`` (``size`` bytes, as far as known) to ``checker``; the number
    of lines read.

    The typed fast path (:func:`loopspec.check.fastpath.scan`) when it pays; otherwise this loop,
    the checker's hot path over dicts.  It decides the commonest event, a streamed chunk that
    names the open step of a step past its entry block and no call skipped by an abort (LOG-3,
    STEP-3, CANCEL-5: the phase table's streamed rows, check.phase_table.STREAMED), with local variables
    only, copying the checker's state in and out around every call to the general path,
    :meth:`LogChecker.feed_event`; the test suite checks both paths give the same verdicts.
    """
    typed = _typed_scan(size)
    if typed is not None:
        return typed(stream, checker)
    loads, confirm, canonical = lenient_loads, confirmed, write_back
    general = checker.feed_event
    lo, hi = MIN_SAFE_INTEGER, MAX_SAFE_INTEGER
    chunk, attempt = ASSISTANT_CHUNK, ASSISTANT_ATTEMPT  # locals: this loop reads no global
    next_seq, last_time = checker.next_seq, checker.prev_time
    open_step = checker.this_step
    turn, step, hot = checker.turn, checker.step, open_step.streaming
    line_no = 0
    for line in stream:
        line_no += 1
        try:
            obj = loads(line)
        except (ValueError, RecursionError):
            obj = UNPARSED
        if hot and type(obj) is dict and len(obj) == 4:
            try:  # a missing key is simply not the fast case (try costs nothing when nothing is raised)
                etype, seq, time, data = obj["type"], obj["seq"], obj["time"], obj["data"]
                if (
                    (etype == chunk or etype == attempt)  # noqa: SIM109 (two compares, no tuple built)
                    and seq == next_seq
                    and type(seq) is int
                    and type(time) is int
                    and lo <= time <= hi
                    and type(data) is dict
                ):
                    t, s = data["turn"], data["step"]
                    # Integer tokens (not true, not 1.0); the line written back byte for byte repeats no key.
                    if (t == turn and s == step and type(t) is int and type(s) is int
                            and (canonical is None or canonical(obj) == line[:-1])):
                        next_seq += 1
                        last_time = time
                        continue
            except KeyError:
                pass
        try:
            if obj is UNPARSED:
                raise ValueError
            obj = confirm(line, obj)  # LOG-1: no key twice in an object (decisions.md G3)
        except (ValueError, RecursionError):
            try:
                obj = parse_slowly(line)
            except LineProblem as problem:
                if problem.torn:
                    stream.read(1)  # a torn tail is the last line, unless a compressed stream broke off here
                checker.next_seq, checker.prev_time = next_seq, last_time
                checker.bad_line(problem, line_no)
                next_seq = checker.next_seq
                continue
        checker.next_seq, checker.prev_time = next_seq, last_time
        general(obj, line_no)
        next_seq, last_time = checker.next_seq, checker.prev_time
        turn, step, hot = checker.turn, checker.step, open_step.streaming
    return line_no


def _size(path: LogPath) -> int:
    """The log's size on disk (compressed, for a .gz: the typed path's threshold is conservative)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _unopenable(path: LogPath) -> str:
    """Why ``path`` cannot be opened for reading, or "" when it can."""
    try:
        with open(path, "rb"):
            return ""
    except OSError as err:
        return err.strerror or str(err)


def _live_problem(live: LogPath) -> str:
    """Why ``live`` cannot be read as the log's live stream, naming it; "" when it can."""
    if missing := _unopenable(live):
        return f"cannot read the live stream {os.fspath(live)}: {missing}"
    wrong = live_stream_problem(live)
    return f"--live {os.fspath(live)}: {wrong}" if wrong else ""


def _unusable(name: str, err: BaseException, started: float) -> LogResult:
    reason = getattr(err, "strerror", None) or str(err) or type(err).__name__
    return LogResult(name, "unusable", 0, 0, problem=f"cannot read: {reason}", seconds=time.perf_counter() - started)


def check_file(path: LogPath, options: CheckOptions | None = None, live: LogPath | None = None) -> LogResult:
    """The verdict on one log (and, with ``live``, on its live notification stream)."""
    options = options or CheckOptions()
    started = time.perf_counter()
    name = os.fspath(path)
    if live is not None and (wrong := _live_problem(live)):
        return LogResult(name, "unusable", 0, 0, problem=wrong, seconds=time.perf_counter() - started)
    collecting = gc.isenabled()
    gc.disable()  # parsed JSON and the checker's state hold no reference cycles; collections only cost time
    try:
        # The checker's state is released when _read returns, before the collector is back on: the
        # first collection after a long check would otherwise walk every message still pending in
        # it (tens of ms on a large log, every log of a batch).
        read = _read(path, name, options, live)
    except UNREADABLE as err:
        return _unusable(name, err, started)
    finally:
        if collecting:
            gc.enable()
    violations, found_in_log, lines, truncated, torn_tail = read
    if found_in_log and not holds_an_event(path):
        return LogResult(name, "unusable", 0, lines, problem=NOT_A_LOG, seconds=time.perf_counter() - started)
    if found_in_log and live is None and is_live_recording(path):
        return LogResult(name, "unusable", 0, lines, problem=LIVE_NOT_A_LOG, seconds=time.perf_counter() - started)
    if violations and live is not None and (foreign := foreign_marker(path, live)):
        # Only a refused pair is read again: a recording whose markers name the log's events costs nothing more.
        problem = f"--live {os.fspath(live)} is not the live recording of this log: {foreign[1]}"
        return LogResult(name, "unusable", 0, lines, problem=problem, seconds=time.perf_counter() - started)
    events = lines - (1 if torn_tail else 0)
    return LogResult(
        file=name,
        status="invalid" if violations else "valid",
        events=events,
        lines=lines,
        violations=violations,
        torn_tail=torn_tail,
        truncated=truncated,
        seconds=time.perf_counter() - started,
    )


def _read(
    path: LogPath, name: str, options: CheckOptions, live: LogPath | None
) -> tuple[tuple[Violation, ...], bool, int, bool, bool]:
    """Check the log (and its live stream): the violations, whether the log itself broke a rule (not
    only its live stream), the lines read, whether the violations were cut at the maximum, and
    whether the log ends in an accepted torn tail."""
    checker = LogChecker(name, options)
    extra: tuple[Violation, ...] = ()
    with open_log(path) as stream:
        if live is None:
            try:
                lines = scan(stream, checker, _size(path))
            except StopCheck:
                lines = checker.line
            truncated = options.all and len(checker.violations) >= options.max_violations
        else:
            # The live checker is imported only for --live: a plain check does not pay for it.
            from loopspec.check.live import check_live

            with open_log(live) as live_stream:
                outcome = check_live(stream, live_stream, checker, os.fspath(live), options)
            lines, truncated, extra = outcome.lines, outcome.truncated, outcome.violations
    return checker.found() + extra, bool(checker.violations), lines, truncated, checker.torn_tail
