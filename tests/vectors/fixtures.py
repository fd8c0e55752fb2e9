"""Shared helpers of the vector tests."""

from __future__ import annotations

import math

from loopspec.inbox.normalize import JsNumber, is_negative_zero


def same_number(a: JsNumber, b: JsNumber) -> bool:
    """Identity of JavaScript numbers: NaN is itself, -0 is not 0."""
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b and is_negative_zero(a) == is_negative_zero(b)
