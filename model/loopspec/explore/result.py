"""What an exploration found: its counts, coverage and shortest counterexample, as values.

Kept apart from :mod:`loopspec.explore.run` so that the parallel search can build the same
result without importing the module that starts it.
"""

from __future__ import annotations

import attrs

from loopspec.explore.invariants import Problem
from loopspec.loop import commands as cmd
from loopspec.loop.lifecycle import TABLE
from loopspec.statespace.pairs import Commands, Pair
from loopspec.statespace.scope import Scope


@attrs.frozen
class Counterexample:
    """A broken invariant and the shortest command sequence that breaks it."""

    commands: tuple[cmd.LoopCommand, ...]
    problem: Problem


@attrs.frozen
class Exploration:
    """What one exploration found.  ``complete``: every execution up to the depth was searched."""

    scope: Scope
    states: int
    transitions: int
    commands: int
    depth: int
    levels: tuple[int, ...]
    complete: bool
    closed: bool
    seconds: float
    cpu_seconds: float
    workers: int
    rows: dict[str, Commands] = attrs.field(eq=False)
    pairs: dict[Pair, Commands] = attrs.field(eq=False)
    counterexample: Counterexample | None = None

    @property
    def rates(self) -> tuple[float, float]:
        """Distinct states per second of wall-clock time and per second of CPU time (summed over workers)."""
        return self.states / max(self.seconds, 1e-9), self.states / max(self.cpu_seconds, 1e-9)

    def missing_rows(self) -> list[str]:
        """The rows no execution fired, but those only a call landing at a hop fires: no command of
        the alphabet stops the loop at a hop yet (decisions.md G17)."""
        return [row.key for row in TABLE if row.key not in self.rows]


@attrs.frozen
class TourResult:
    """What a tour did: the map's size, the classes sent and skipped, the cases and commands sent."""

    scope: Scope
    states: int
    expanded: int
    classes: int
    sent_classes: int
    skipped: int
    cases: int
    commands: int
    seconds: float
    cpu_seconds: float
    workers: int
    complete: bool
    counterexample: Counterexample | None = None
