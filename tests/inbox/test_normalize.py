"""Splice normalization against two literal transcriptions (NORM-1 … NORM-5).

* :func:`ecma_splice_bounds` transcribes ECMA-262 ``Array.prototype.splice`` steps 3-10 (both
  arguments present, as every inbox call passes them) over *mathematical* values:
  ``ToIntegerOrInfinity`` maps NaN and ±0 to 0 and truncates everything else to an integer, so
  no ``-0`` can come out of it.  A Python int is taken as the integer it denotes.
* :func:`dsh_mutate_bounds` transcribes lines 207-216 of the real ``mutate`` with JavaScript
  doubles: ``Math.trunc`` (which keeps the sign of zero), ``Number.isNaN ? 0``, ``Math.max`` /
  ``Math.min`` (which order ``-0`` below ``+0``).  A Python int is first rounded to the nearest
  double, as ``ToNumber`` would.

Both live in ``tests/inbox/fixtures.py``; ``test_inbox_stateful`` reuses them as the independent reference
for coordinates.

Why the real variant equals the ECMAScript steps (checked below over all doubles, huge ints and
an exhaustive grid of special values): for a finite non-zero double ``x`` both compute
``trunc(x)``; for NaN both give 0 (``Number.isNaN(trunc(NaN)) ? 0``); for ±Infinity both keep
±Infinity and both branches clamp it to 0 or ``L``.  The only divergence is the *sign* of a
zero start: ``Math.trunc`` of a value in (-1, 0] with a minus sign is ``-0``, ``-0 < 0`` is
false so the code takes ``Math.min(-0, L) = -0``, whereas ECMAScript has no ``-0`` integer.
Numerically ``-0 == 0``, so the two agree on every splice; the sign survives only as
:attr:`SpliceCoordinates.negative_zero_start`, which is exactly when NORM-5 applies.  The delete
count's sign of zero never matters: it is only compared with 0 and never written.
"""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from inbox.fixtures import (
    INF,
    NAN,
    dsh_mutate_bounds,
    dsh_start_is_minus_zero,
    ecma_splice_bounds,
    is_minus_zero,
    js_to_number,
)
from loopspec.data.errors import CommandRefused
from loopspec.data.messages import EMPTY_INBOX, InboxState, InboxTarget, UserMessage
from loopspec.inbox import operations as inbox
from loopspec.inbox.normalize import JsNumber, SpliceCoordinates, normalize

# ---------------------------------------------------------------- ECMA-262 transcription


# ---------------------------------------------------------------- real `mutate` transcription


# ---------------------------------------------------------------- strategies

SPECIAL: tuple[JsNumber, ...] = (
    NAN, INF, -INF, 0, 0.0, -0.0, 0.5, -0.5, -0.999, 1, -1, 1.5, -1.5, 2.7, -2.7, 3, -3, 7, -7,
    2**31, -(2**31), 2**53, 2**53 + 1, 2**60, -(2**60), 10**400, -(10**400), 1e308, -1e308, 5e-324, -5e-324,
)

js_numbers: st.SearchStrategy[JsNumber] = st.one_of(
    st.integers(-12, 12),
    st.sampled_from(SPECIAL),
    st.floats(-12, 12),  # fractional values around the list
    st.floats(allow_nan=True, allow_infinity=True),  # every double, subnormals and -0.0 included
    st.integers(),
    st.integers(min_value=2**53 - 5, max_value=2**64).flatmap(lambda n: st.sampled_from((n, -n))),
)
lengths = st.integers(0, 12)


def _expected(start: JsNumber, delete_count: JsNumber, length: int) -> SpliceCoordinates:
    s, d = ecma_splice_bounds(start, delete_count, length)
    return SpliceCoordinates(s, d, negative_zero_start=dsh_start_is_minus_zero(start, delete_count, length))


# ---------------------------------------------------------------- tests


@pytest.mark.rule("NORM-1", "NORM-2", "NORM-3")
@given(start=js_numbers, delete_count=js_numbers, length=lengths)
@example(start=NAN, delete_count=NAN, length=3)
@example(start=-INF, delete_count=INF, length=3)
@example(start=INF, delete_count=1, length=3)
@example(start=10**400, delete_count=-(10**400), length=0)
def test_normalize_equals_ecmascript_splice(start: JsNumber, delete_count: JsNumber, length: int) -> None:
    """``normalize`` gives ECMAScript's actualStart / actualDeleteCount, plus the real -0 flag."""
    got = normalize(start, delete_count, length)
    assert got == _expected(start, delete_count, length)
    assert type(got.start) is int
    assert type(got.delete_count) is int
    assert 0 <= got.start <= length
    assert 0 <= got.delete_count <= length - got.start


@pytest.mark.rule("NORM-1", "NORM-2", "NORM-3")
@given(start=js_numbers, delete_count=js_numbers, length=lengths)
def test_real_variant_equals_ecmascript_steps(start: JsNumber, delete_count: JsNumber, length: int) -> None:
    """``Math.trunc`` + ``NaN → 0`` computes the same numbers as ToIntegerOrInfinity; only a zero's sign differs."""
    real_start, real_count = dsh_mutate_bounds(start, delete_count, length)
    ecma_start, ecma_count = ecma_splice_bounds(start, delete_count, length)
    assert (real_start, real_count) == (ecma_start, ecma_count)  # -0 == 0 numerically
    assert not math.isnan(real_start)
    assert not math.isnan(real_count)
    if is_minus_zero(real_start):
        # The sign survives only from a start in (-1, 0] written with a minus sign.
        assert math.copysign(1.0, js_to_number(start)) < 0
        assert -1 < js_to_number(start) <= 0


@pytest.mark.rule("NORM-1", "NORM-2", "NORM-3", "NORM-5")
def test_real_variant_equals_ecmascript_on_the_special_grid() -> None:
    """Exhaustive over the special values × lengths 0..6: the same numbers, and -0 exactly as NORM-5 says."""
    for start, delete_count, length in itertools.product(SPECIAL, SPECIAL, range(7)):
        real_start, real_count = dsh_mutate_bounds(start, delete_count, length)
        assert (real_start, real_count) == ecma_splice_bounds(start, delete_count, length)
        minus_zero_input = isinstance(start, float) and math.copysign(1.0, start) < 0 and -1 < start <= 0
        assert is_minus_zero(real_start) == minus_zero_input
        assert normalize(start, delete_count, length) == _expected(start, delete_count, length)


@pytest.mark.rule("NORM-2", "NORM-3")
@pytest.mark.parametrize(
    ("start", "delete_count", "length", "want"),
    [
        (-1, 1, 3, (2, 1)),  # splice(t, -1, 1) removes the last (real trace splice_negative_start)
        (-1, 1, 0, (0, 0)),  # Math.max(0 + -1, 0) is +0: not the -0 edge
        (-INF, 2, 3, (0, 2)),
        (INF, 5, 3, (3, 0)),
        (NAN, NAN, 3, (0, 0)),
        (1.9, 1.9, 3, (1, 1)),
        (-1.5, INF, 3, (2, 1)),
        (2**60, 1, 3, (3, 0)),
        (-(10**400), 10**400, 3, (0, 3)),
        (1, -INF, 3, (1, 0)),
    ],
)
def test_normalize_known_values(
    start: JsNumber, delete_count: JsNumber, length: int, want: tuple[int, int]
) -> None:
    got = normalize(start, delete_count, length)
    assert (got.start, got.delete_count) == want
    assert not got.negative_zero_start


@pytest.mark.rule("NORM-5")
@pytest.mark.parametrize("start", [-0.0, -0.5, -0.999999, -5e-324])
@pytest.mark.parametrize("length", [0, 2])
def test_negative_zero_start_flag(start: float, length: int) -> None:
    """A start in (-1, 0] with a minus sign normalizes to 0 but is flagged as JavaScript's -0."""
    got = normalize(start, 1, length)
    assert got == SpliceCoordinates(0, min(1, length), negative_zero_start=True)
    assert not normalize(-1.0, 1, length).negative_zero_start
    assert not normalize(0.0, 1, length).negative_zero_start
    assert not normalize(NAN, 1, length).negative_zero_start


A = UserMessage.create("A")
B = UserMessage.create("B")


@pytest.mark.rule("NORM-5", "SPLICE-2")
@pytest.mark.parametrize("start", [-0.0, -0.5])
def test_non_noop_splice_at_minus_zero_is_refused(start: float) -> None:
    """Inserting or removing at a -0 start throws NORM-5; the refused call produces no outcome at all."""
    with pytest.raises(CommandRefused) as insert:
        inbox.splice(EMPTY_INBOX, InboxTarget.NEXT_TURN, start, 0, (A,))
    assert insert.value.rule == "NORM-5"
    with pytest.raises(CommandRefused) as delete:
        inbox.splice(InboxState(next_step=(A,)), InboxTarget.NEXT_STEP, start, 1)
    assert delete.value.rule == "NORM-5"


@pytest.mark.rule("NORM-5", "SPLICE-2")
@pytest.mark.parametrize("start", [-0.0, -0.5])
@pytest.mark.parametrize("delete_count", [0, -1, NAN, -INF])
def test_noop_splice_at_minus_zero_returns_nothing(start: float, delete_count: JsNumber) -> None:
    """A no-op is elided before -0 could reach the session, so it succeeds silently (SPLICE-2 first)."""
    state = InboxState(next_turn=(A,))
    out = inbox.splice(state, InboxTarget.NEXT_TURN, start, delete_count)
    assert out.state is state
    assert out.records == ()
    assert out.notifications == ()
    assert out.removed == ()


@pytest.mark.rule("NORM-5", "SPLICE-3")
def test_duplicate_walk_precedes_the_minus_zero_refusal() -> None:
    """The real mutate walks ids before ``session.append`` rejects -0: a -0 duplicate fails SPLICE-3."""
    state = InboxState(next_turn=(A,), next_step=(B,))
    with pytest.raises(CommandRefused) as err:
        inbox.splice(state, InboxTarget.NEXT_TURN, -0.0, 0, (B,))
    assert (err.value.rule, err.value.message) == ("SPLICE-3", 'message "B" is already pending')
