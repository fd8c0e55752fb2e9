"""The checker's hot loop over typed decoding: streamed chunks are decided without building a dict.

:func:`scan` reads a log line by line.  A streamed ``assistant/chunk`` inside a step whose model
side has begun only has to carry the next seq and name the open step (LOG-2, LOG-3, STEP-3); such
a line is decoded by :func:`loopspec.check.decode.decode_chunk` and decided with local variables
and a few comparisons.  Every other line, and any chunk the fast path declines (a payload shape it
does not know, a number out of range, a chunk where none is expected), goes to the general path:
:func:`loopspec.check.reader.parse_line`'s two steps, which hold the input policy, and
:meth:`LogChecker.feed_event`.  Declining is always safe; taking a line is allowed only when the
general path would reach the same state and verdict, which tests/check/test_check_fast_path.py
checks event by event.
"""

from __future__ import annotations

from typing import BinaryIO

from loopspec.check.decode import CHUNK_PREFIX, ENVELOPE_AND_SCOPE, REFUSE_REPEATED_KEYS, DecodeError, decode_chunk
from loopspec.check.machine import LogChecker
from loopspec.check.reader import LineProblem, confirmed, lenient_loads, parse_slowly
from loopspec.log.envelope import MAX_SAFE_INTEGER, MIN_SAFE_INTEGER

LO, HI = MIN_SAFE_INTEGER, MAX_SAFE_INTEGER


def scan(stream: BinaryIO, checker: LogChecker) -> int:
    """Feed every line of ``stream`` to ``checker``; the number of lines read.

    The checker's position (next seq, last time, open turn and step, whether the model side has
    begun, and no call skipped by an abort: CANCEL-5 refuses a chunk there) is copied into local
    variables and back around every call to the general path.
    """
    # The reader's fast_loads, its two steps called here: one frame less per general line.
    loads, confirm, general = lenient_loads, confirmed, checker.feed_event
    proof = REFUSE_REPEATED_KEYS
    next_seq, last_time = checker.next_seq, checker.prev_time
    open_step = checker.this_step
    turn, step, hot = checker.turn, checker.step, open_step.streaming
    line_no = 0
    for line in stream:
        line_no += 1
        if hot and line.startswith(CHUNK_PREFIX):
            try:
                chunk = decode_chunk(line)
            except DecodeError:
                pass
            else:
                time, scope = chunk.time, chunk.data
                if (
                    chunk.seq == next_seq
                    and scope.turn == turn
                    and scope.step == step
                    and LO <= time <= HI
                    # decode.repeats_no_key spelled out: the call cost 2% of a chunk-heavy check
                    # (test_repeats_no_key_is_exact holds the two the same).
                    and (not proof or (
                        (92 not in line or line.find(b"\\u") < 0)
                        and line.count(58) == ENVELOPE_AND_SCOPE + scope.chunk.colon_bytes()
                    ))
                ):
                    next_seq += 1
                    last_time = time
                    continue
        checker.next_seq, checker.prev_time = next_seq, last_time
        try:  # the reader's parse (fast_loads, then parse_slowly) holds the input policy
            obj = confirm(line, loads(line))
        except (ValueError, RecursionError):
            try:
                obj = parse_slowly(line)
            except LineProblem as problem:
                if problem.torn:
                    stream.read(1)  # a torn tail is the last line, unless a compressed stream broke off here
                checker.bad_line(problem, line_no)
                next_seq = checker.next_seq
                continue
        general(obj, line_no)
        next_seq, last_time = checker.next_seq, checker.prev_time
        turn, step, hot = checker.turn, checker.step, open_step.streaming
    checker.next_seq, checker.prev_time = next_seq, last_time
    return line_no
