"""Splice coordinate normalization with JavaScript number semantics (spec area NORM).

The real ``mutate`` turns any ``(start, deleteCount)`` numbers into a legal splice of the
current list: ``Math.trunc``, NaN to 0, negative start counted from the end, clamping.  Python
numbers differ from JavaScript's in three places that matter here, handled explicitly:
``math.trunc(inf)`` raises, ``-0.0`` must stay distinguishable, and Python ints are unbounded
(an int beyond any list length clamps exactly like a huge double would).
"""

from __future__ import annotations

import math

import attrs

JsNumber = int | float


def is_negative_zero(x: JsNumber) -> bool:
    return isinstance(x, float) and x == 0.0 and math.copysign(1.0, x) < 0


def js_trunc(x: JsNumber) -> JsNumber:
    """``Math.trunc``: NaN and ±Infinity pass through; (-1, 0] with a minus sign gives ``-0.0``.

    post: (isinstance(x, float) and (math.isnan(x) or math.isinf(x))) or abs(x - __return__) < 1
    post: (isinstance(x, float) and math.isnan(x)) or abs(__return__) <= abs(x)
    post: (isinstance(x, float) and math.isnan(x)) or __return__ == 0 or (__return__ > 0) == (x > 0)
    """
    if isinstance(x, int):
        return x
    if math.isnan(x) or math.isinf(x):
        return x
    t = math.trunc(x)
    if t == 0 and math.copysign(1.0, x) < 0:
        return -0.0
    return t


@attrs.frozen
class SpliceCoordinates:
    """Where a splice lands in a list of ``length`` messages (NORM-1 … NORM-4).

    ``negative_zero_start`` is true when JavaScript would compute the start as ``-0``: the real
    session refuses to store ``-0`` as JSON, so a non-empty splice there throws (NORM-5).
    """

    start: int
    delete_count: int
    negative_zero_start: bool = False


def normalize(start: JsNumber, delete_count: JsNumber, length: int) -> SpliceCoordinates:
    """Normalize raw coordinates against a list of ``length`` messages.

    Contracts (checked by CrossHair, see docs/contracts.md): both results in range; integer
    inputs give exactly NORM-2's start and NORM-3's count (the two bounds on the count pin it
    to ``d`` clamped into ``[0, length - start]``); NaN starts at 0 (NORM-1); a ``-0`` start is
    0 (NORM-5).

    pre: length >= 0
    post: 0 <= __return__.start <= length
    post: 0 <= __return__.delete_count <= length - __return__.start
    post: not (isinstance(start, int) and start < 0) or __return__.start == max(length + start, 0)
    post: not (isinstance(start, int) and start >= 0) or __return__.start == min(start, length)
    post: isinstance(delete_count, float) or __return__.delete_count <= max(delete_count, 0)
    post: isinstance(delete_count, float) or __return__.delete_count >= min(delete_count, length - __return__.start)
    post: not (isinstance(start, float) and math.isnan(start)) or __return__.start == 0
    post: not __return__.negative_zero_start or __return__.start == 0
    """
    # NORM-1: start = trunc(start); NaN counts as 0.
    t = js_trunc(start)
    offset: JsNumber = 0 if (isinstance(t, float) and math.isnan(t)) else t
    # NORM-2: a negative start counts from the end, then both ends clamp into [0, length].
    negative_zero = is_negative_zero(offset)
    if offset < 0:
        actual_start = 0 if offset == -math.inf else max(length + int(offset), 0)
    else:
        actual_start = length if offset == math.inf else min(int(offset), length)
    # NORM-3: deleteCount = trunc, NaN → 0, clamped into [0, length - start].
    d = js_trunc(delete_count)
    count: JsNumber = 0 if (isinstance(d, float) and math.isnan(d)) else d
    if count == math.inf:
        actual_count = length - actual_start
    elif count <= 0:
        actual_count = 0
    else:
        actual_count = min(int(count), length - actual_start)
    # Math.min(-0, length) is -0 in JavaScript, so -0 survives only through the non-negative branch.
    return SpliceCoordinates(actual_start, actual_count, negative_zero_start=negative_zero)
