"""The session log envelope's constants and its two smallest tests (spec area LOG).

Kept apart from :mod:`loopspec.log.events` (which re-exports them) so the log checker can name
the envelope's keys and the safe-integer range without importing the model's event and message
classes: ``loopspec check`` pays for every module it imports on every run (docs/performance.md).
"""

from __future__ import annotations

ENVELOPE_KEYS = frozenset({"type", "seq", "time", "data", "ignorable", "surfaceOp", "sourceEventSeqs"})
MAX_SAFE_INTEGER = 2**53 - 1
# Its negation, named once: the per-record range tests would otherwise build it on every record.
MIN_SAFE_INTEGER = -MAX_SAFE_INTEGER
# What a list of seqs holds in the writer's case, tested as set(map(type, seqs)) == INT_ONLY: one
# C-level pass over lists as long as a message's streamed chunks.
INT_ONLY = frozenset({int})
SPLICE_FIELDS = frozenset({"target", "start", "removedCount", "inserted", "outcome"})


def is_safe_integer(value: object) -> bool:
    """A safe integer as a session log writes one: an integer token (parsed to ``int``, not a bool)
    within JavaScript's safe range.

    An integral number written with a fraction or an exponent (``1.0``, ``1e0``) is refused: the
    real writer, ``JSON.stringify``, writes every safe integer as plain digits, so such a number
    comes from a foreign writer (decisions.md G3); every reader of logs uses this one test.
    """
    return type(value) is int and MIN_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER


def is_surface_op(value: object) -> bool:
    """LOG-1: a surface event's ``surfaceOp`` is ``"append"`` or an edit object."""
    return value == "append" or isinstance(value, dict)
