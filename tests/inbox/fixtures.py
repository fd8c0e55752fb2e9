"""Shared helpers of the inbox tests: an independent statement of the projection fold, as an oracle.

The model folds every splice through :class:`loopspec.inbox.pending.PendingLists` (a list with a
moving head and a set of pending ids), whether one event at a time (:func:`fold.apply`) or a whole
log (:func:`fold.replay`).  :func:`reference_apply` states the same fold the plainest way — tuple
slices and a walk for duplicate ids — so the tests compare the one fold against something that
shares none of its code.  And the coordinate arithmetic the normalization is held to: ECMA-262's
``Array.prototype.splice`` bounds and a transcription of the real ``mutate``'s own
(``ecma_splice_bounds``, ``dsh_mutate_bounds``), with the JavaScript number operations they use.
"""

from __future__ import annotations

import math

from loopspec.data.errors import InvalidEvent
from loopspec.data.messages import InboxState, InboxTarget
from loopspec.inbox.normalize import JsNumber
from loopspec.inbox.operations import first_duplicate
from loopspec.log.events import InboxSpliced, SessionEvent
from loopspec.log.kinds import SPLICED


def reference_apply(state: InboxState, event: SessionEvent) -> InboxState:
    """FOLD-1 … FOLD-4 on tuples: what :func:`loopspec.inbox.fold.apply` must give, or raise."""
    if event.type != SPLICED:
        return state
    splice = InboxSpliced.from_data(event.data, event.seq)
    lane = state.lane(splice.target)
    start, removed = splice.start, splice.removed
    if not (0 <= start <= len(lane) and removed >= 0 and start + removed <= len(lane)):
        raise InvalidEvent(
            "FOLD-2",
            f"invalid inbox splice: start {start}, removedCount {removed} "
            f"do not fit {splice.target.value} of length {len(lane)}",
            event.seq,
        )
    candidate = lane[:start] + splice.inserted + lane[start + removed :]
    walk = candidate + state.next_step if splice.target is InboxTarget.NEXT_TURN else state.next_turn + candidate
    dup = first_duplicate(walk)
    if dup is not None:
        raise InvalidEvent("FOLD-3", f'message "{dup}" is already pending after this splice', event.seq)
    return state.with_lane(splice.target, candidate)


NAN = math.nan


INF = math.inf


def to_integer_or_infinity(x: JsNumber) -> int | float:
    """ECMA-262 §7.1.5 ToIntegerOrInfinity; the result is an int or ±inf, never -0."""
    if isinstance(x, int):
        return x  # step 5 on an exact integer
    if math.isnan(x) or x == 0:  # step 2: NaN, +0, -0 → 0
        return 0
    if math.isinf(x):  # steps 3-4
        return x
    return math.trunc(x)  # step 5: truncate(ℝ(number)), exact for a finite double


def ecma_splice_bounds(start: JsNumber, delete_count: JsNumber, length: int) -> tuple[int, int]:
    """ECMA-262 §23.1.3.31 Array.prototype.splice, steps 3-10 with start and deleteCount present."""
    relative_start = to_integer_or_infinity(start)  # step 3
    if relative_start == -INF:  # step 4
        actual_start: int | float = 0
    elif relative_start < 0:  # step 5
        actual_start = max(length + relative_start, 0)
    else:  # step 6
        actual_start = min(relative_start, length)
    dc = to_integer_or_infinity(delete_count)  # step 10.a
    actual_delete_count = min(max(dc, 0), length - actual_start)  # step 10.b: clamp to [0, len - start]
    return int(actual_start), int(actual_delete_count)


def js_to_number(x: JsNumber) -> float:
    """ToNumber of a Python number: the nearest double; ints past the double range become ±Infinity."""
    if isinstance(x, int):
        try:
            return float(x)
        except OverflowError:
            return INF if x > 0 else -INF
    return x


def js_math_trunc(x: float) -> float:
    """``Math.trunc``: NaN, ±Infinity and ±0 pass through; otherwise toward zero keeping the sign."""
    if math.isnan(x) or math.isinf(x) or x == 0:
        return x
    return math.copysign(float(math.trunc(x)), x)


def is_minus_zero(x: float) -> bool:
    return x == 0 and math.copysign(1.0, x) < 0


def js_math_max(a: float, b: float) -> float:
    """``Math.max(a, b)``: NaN wins, and +0 is larger than -0."""
    if math.isnan(a) or math.isnan(b):
        return NAN
    if a == 0 and b == 0:
        return -0.0 if is_minus_zero(a) and is_minus_zero(b) else 0.0
    return a if a > b else b


def js_math_min(a: float, b: float) -> float:
    """``Math.min(a, b)``: NaN wins, and -0 is smaller than +0."""
    if math.isnan(a) or math.isnan(b):
        return NAN
    if a == 0 and b == 0:
        return -0.0 if is_minus_zero(a) or is_minus_zero(b) else 0.0
    return a if a < b else b


def dsh_mutate_bounds(start: JsNumber, delete_count: JsNumber, length: int) -> tuple[float, float]:
    """Lines 207-216 of ``ReactLoopInbox.mutate`` in double arithmetic (seed002 §2)."""
    truncated_start = js_math_trunc(js_to_number(start))
    offset = 0.0 if math.isnan(truncated_start) else truncated_start
    actual_start = js_math_max(length + offset, 0.0) if offset < 0 else js_math_min(offset, float(length))
    truncated_delete_count = js_math_trunc(js_to_number(delete_count))
    actual_delete_count = js_math_min(
        js_math_max(0.0 if math.isnan(truncated_delete_count) else truncated_delete_count, 0.0),
        length - actual_start,
    )
    return actual_start, actual_delete_count


def dsh_start_is_minus_zero(start: JsNumber, delete_count: JsNumber, length: int) -> bool:
    return is_minus_zero(dsh_mutate_bounds(start, delete_count, length)[0])
