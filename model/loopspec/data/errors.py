"""The two error types of loopspec, one per side (as h11 has one per side of a connection).

* :class:`CommandRefused` — *our* side: a command given to the model is not allowed in the
  current state (a duplicate id, an input with no entry in the lifecycle table, ...).  The
  model raises it before changing anything, so state, log and notifications stay as they were.
* :class:`InvalidEvent` — *their* side: a durable event read from a log cannot be part of any
  history the real system writes (an out-of-range splice, a claim outside a turn, ...).

Both carry the spec rule ID they enforce (``rule``), which doubles as the stable error *code*
that conformance vectors compare, and a plain-words ``message``.
"""

from __future__ import annotations


class LoopspecError(Exception):
    """Base of both sides' errors; never raised directly."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"[{rule}] {message}")
        self.rule = rule
        self.message = message

    @property
    def code(self) -> str:
        """Stable machine-readable code: the spec rule ID that was broken."""
        return self.rule


class CommandRefused(LoopspecError):
    """A command the model refuses; nothing was changed."""


class InvalidEvent(LoopspecError):
    """A durable event that no run of the real system can write at this point of its log."""

    def __init__(self, rule: str, message: str, seq: int | None = None, *, line: int | None = None) -> None:
        where = f"session seq {seq}: " if seq is not None else ""
        super().__init__(rule, where + message)
        self.seq = seq
        self.detail = message
        self.line = line  # the log file's line, when a reader of the file says it (its message names it too)
