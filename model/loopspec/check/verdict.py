"""The checker's results as values: violations, the state they happened in, per-log verdicts.

Everything here is frozen and picklable, so parallel workers can hand results back and a
serial and a parallel run can be compared for equality (timings excluded).

These values are named tuples, not the frozen attrs classes the rest of the model uses: every
``loopspec check`` imports this module, and importing attrs costs more start-up time than the rest
of the checker together (about 1.5x ``python -c pass`` on top of orjson, which the checker needs
anyway; docs/performance.md), while a named tuple is as immutable, compares by value and pickles.
A field named ``count`` or ``index`` would shadow tuple's methods: none may be added.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from typing import Literal

    Status = Literal["valid", "invalid", "unusable"]


class CheckOptions(NamedTuple):
    """How to check: stop at the first violation unless ``all``; ``max_violations`` caps a log's list."""

    all: bool = False
    max_violations: int = 100
    allow_torn_tail: bool = False


class EventRef(NamedTuple):
    """One event as a report shows it: where it is and a one-line summary of what it says."""

    line: int
    seq: int | None
    type: str
    summary: str

    def render(self) -> str:
        where = f"line {self.line}" + (f" seq {self.seq}" if self.seq is not None else "")
        return f"{where}: {self.type}" + (f" {self.summary}" if self.summary else "")


class StateSnapshot(NamedTuple):
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


class Violation(NamedTuple):
    """One broken rule at one place of one file, Elle-style: what, the case's facts, state, and what led there.

    ``because`` holds only the facts of this case ("" when the message says all); why the rule
    holds is the catalogue's, which the reports print beside it (decisions.md G13).
    """

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


class LogResult(NamedTuple):
    """The verdict on one log (and its live stream, if one was given)."""

    file: str
    status: Status
    events: int
    lines: int
    violations: tuple[Violation, ...] = ()
    problem: str | None = None
    torn_tail: bool = False
    truncated: bool = False
    seconds: float = 0.0  # how long the check took: not part of the verdict, so not compared

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LogResult) and self[:-1] == other[:-1]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self[:-1])

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(v.rule for v in self.violations)
