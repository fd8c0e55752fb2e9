"""The checker's results as values: violations, the state they happened in, per-log verdicts.

Everything here is frozen and picklable, so parallel workers can hand results back and a
serial and a parallel run can be compared for equality (timings excluded).
"""

from __future__ import annotations

from typing import Literal

import attrs

Status = Literal["valid", "invalid", "unusable"]


@attrs.frozen
class CheckOptions:
    """How to check: stop at the first violation unless ``all``; ``max_violations`` caps a log's list."""

    all: bool = False
    max_violations: int = 100
    allow_torn_tail: bool = False


@attrs.frozen
class EventRef:
    """One event as a report shows it: where it is and a one-line summary of what it says."""

    line: int
    seq: int | None
    type: str
    summary: str

    def render(self) -> str:
        where = f"line {self.line}" + (f" seq {self.seq}" if self.seq is not None else "")
        return f"{where}: {self.type}" + (f" {self.summary}" if self.summary else "")


@attrs.frozen
class StateSnapshot:
    """The checker's model state just before an event: lifecycle position and pending ids."""

    phase: str
    last_turn: int
    open_turn: int | None
    open_step: int | None
    steps_in_turn: int
    next_turn: tuple[str, ...]
    next_step: tuple[str, ...]
    next_turn_count: int
    next_step_count: int

    def render(self) -> str:
        turn = f"turn {self.open_turn} open" if self.open_turn is not None else "no open turn"
        step = f"step {self.open_step} open" if self.open_step is not None else "no open step"
        return (
            f"phase {self.phase}; last turn {self.last_turn}; {turn}; {step}; steps in turn {self.steps_in_turn}; "
            f"next-turn {_ids(self.next_turn, self.next_turn_count)}; "
            f"next-step {_ids(self.next_step, self.next_step_count)}"
        )


def _ids(ids: tuple[str, ...], count: int) -> str:
    shown = ", ".join(ids)
    return f"[{shown}]" if len(ids) == count else f"[{shown}] ({count} pending)"


@attrs.frozen
class Violation:
    """One broken rule at one place of one file, Elle-style: what, why, state, and what led there."""

    file: str
    line: int
    seq: int | None
    rule: str
    message: str
    because: str
    state: StateSnapshot | None = None
    event: EventRef | None = None
    context: tuple[EventRef, ...] = ()
    repeats: int = 0


@attrs.frozen
class LogResult:
    """The verdict on one log (and its live stream, if one was given)."""

    file: str
    status: Status
    events: int
    lines: int
    violations: tuple[Violation, ...] = ()
    problem: str | None = None
    torn_tail: bool = False
    truncated: bool = False
    seconds: float = attrs.field(default=0.0, eq=False)

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(v.rule for v in self.violations)
