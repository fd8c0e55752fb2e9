"""``loopspec drive -- COMMAND...``: differential testing of an adapter against the model.

Hypothesis draws command sequences from the model's own state (:mod:`.command_gen`: valid answers
for the current await point, edits and sends at any time, occasionally an invalid command) and
sends each command to the adapter and to the model side by side, comparing the observation and
then the state after every command.  On the first disagreement Hypothesis shrinks the sequence;
the minimal one is returned as a ready-to-commit vector case (the model's expectations).

The test function is built and called programmatically with a fixed seed, no example database
and quiet output, so a run is reproducible and prints nothing but our report.  A dead or hung
adapter is not a "failure" to shrink: it escapes Hypothesis as :class:`_AdapterLost` and is
reported with the sequence that led to it.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

import attrs
import hypothesis
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st

from loopspec.loop import commands as cmd
from loopspec.loop.state import Agent
from loopspec.vectors.adapter.client import Adapter, AdapterError, AdapterFailure
from loopspec.vectors.case import CaseSpec, build_case
from loopspec.vectors.codec import encode_command
from loopspec.vectors.command_gen import Generator
from loopspec.vectors.json_reading import Json
from loopspec.vectors.observation import first_difference, observation_difference, observe, state_of
from loopspec.vectors.swarm import Swarm

T = TypeVar("T")


class DrawChooser:
    """Choices drawn through a Hypothesis ``draw``, so failing sequences shrink toward earlier options."""

    def __init__(self, draw: Callable[[st.SearchStrategy[int]], int]) -> None:
        self.draw = draw

    def pick(self, options: Sequence[T]) -> T:
        # An index, not sampled_from: building a strategy per choice costs more than the model step.
        return options[self.draw(st.integers(0, len(options) - 1))]

    def integer(self, low: int, high: int) -> int:
        return self.draw(st.integers(low, high))


@st.composite
def command_for(draw: st.DrawFn, agent: Agent, serial: int, swarm: Swarm | None = None) -> cmd.Command:
    """One command as one Hypothesis draw, so the shrinker can delete or simplify it as a unit."""
    return Generator(DrawChooser(draw), serial, swarm).next_command(agent)


@st.composite
def swarms(draw: st.DrawFn) -> Swarm:
    """An example's command mix, drawn first so it shrinks toward the plain generator's."""
    return Swarm.draw(DrawChooser(draw))


class Disagreement(AssertionError):
    """The adapter and the model observed a command differently."""


class _Stop(BaseException):
    """Ends the Hypothesis run at once (budget spent, adapter lost); not an Exception, so never shrunk."""


class _Session:
    """What one :func:`drive` call has seen so far; lives only for that call."""

    def __init__(self, time_budget: float | None, shrink_budget: float) -> None:
        start = time.monotonic()
        self.deadline = None if time_budget is None else start + time_budget
        self.shrink_budget = shrink_budget
        self.failing: list[tuple[cmd.Command, ...]] = []  # every failing run; the last is the smallest so far
        self.lost: tuple[AdapterFailure, tuple[cmd.Command, ...]] | None = None
        self.stopped = False
        self.ran = 0

    def check_clock(self) -> None:
        if self.stopped:
            raise _Stop
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.stopped = True
            raise _Stop

    def record_failure(self, commands: tuple[cmd.Command, ...]) -> None:
        if not self.failing:  # shrinking gets its own allowance, within the overall budget
            end = time.monotonic() + self.shrink_budget
            self.deadline = end if self.deadline is None else min(self.deadline, end)
        self.failing.append(commands)


@attrs.frozen
class DriveReport:
    examples: int
    disagreement: str | None = None
    commands: tuple[cmd.Command, ...] = ()
    adapter_failure: str | None = None

    @property
    def ok(self) -> bool:
        return self.disagreement is None and self.adapter_failure is None

    def case(self, seed: int) -> Json:
        """The minimal failing sequence as a vector case (kind ``regression``)."""
        digest = hashlib.sha256(repr([encode_command(c) for c in self.commands]).encode()).hexdigest()[:10]
        spec = CaseSpec(f"regression/drive/seed-{seed}-{digest}", "regression", (),
                        f"Found by loopspec drive (seed {seed}): {self.disagreement or self.adapter_failure}",
                        self.commands)
        return build_case(spec)


def _compare(adapter: Adapter, agent: Agent, command: cmd.Command, expected: Json) -> str | None:
    try:
        diff = observation_difference(expected, adapter.command(encode_command(command)))
        if diff is not None:
            return f"observation: {diff}"
        diff = first_difference(state_of(agent), adapter.state())
        return None if diff is None else f"state afterwards: {diff}"
    except AdapterError as err:
        return str(err)


def replay(adapter: Adapter, commands: Sequence[cmd.Command]) -> str | None:
    """Reset the adapter, send ``commands``; the first disagreement with the model, or None."""
    adapter.reset()
    agent = Agent()
    for index, command in enumerate(commands):
        agent, expected = observe(agent, command)
        diff = _compare(adapter, agent, command, expected)
        if diff is not None:
            return f"command {index} ({encode_command(command)['op']}): {diff}"
    return None


def minimize(adapter: Adapter, commands: tuple[cmd.Command, ...], budget: int = 400) -> tuple[cmd.Command, ...]:
    """Greedy deletion after Hypothesis' shrink: drop any command the disagreement does not need.

    Hypothesis shrinks draws, whose meaning depends on the phase they were drawn in; deleting
    concrete commands keeps each one's meaning, so the printed case gets much shorter.
    """
    changed = True
    while changed and budget > 0:
        changed = False
        for index in range(len(commands)):
            if budget <= 0:
                break
            budget -= 1
            candidate = commands[:index] + commands[index + 1 :]
            if candidate and replay(adapter, candidate) is not None:
                commands, changed = candidate, True
                break
    return commands


def drive(adapter: Adapter, *, examples: int = 200, steps: int = 30, seed: int = 0,
          time_budget: float | None = None, shrink_budget: float = 20.0, shrink: bool = True) -> DriveReport:
    """Run up to ``examples`` sequences of up to ``steps`` commands, stopping after ``time_budget`` s.

    Hypothesis' shrink gets at most ``shrink_budget`` s (within the overall budget); the final
    greedy deletion pass is bounded by its own replay count.  Without ``shrink`` the first failing
    sequence is reported as found, and ``examples`` is how many examples it took to find it.
    """
    session = _Session(time_budget, shrink_budget)

    phases = (Phase.explicit, Phase.generate, Phase.shrink) if shrink else (Phase.explicit, Phase.generate)

    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              phases=phases, suppress_health_check=list(HealthCheck),
              verbosity=Verbosity.quiet, report_multiple_bugs=False, print_blob=False)
    @hypothesis.seed(seed)
    @given(st.data())
    def sequences(data: st.DataObject) -> None:
        session.check_clock()
        session.ran += 1
        agent = Agent()
        swarm = data.draw(swarms())  # this example's command mix (command_gen.Swarm)
        sent: list[cmd.Command] = []
        try:
            adapter.reset()
            for _ in range(steps):
                command = data.draw(command_for(agent, 10 * len(sent), swarm))
                sent.append(command)
                agent, expected = observe(agent, command)
                diff = _compare(adapter, agent, command, expected)
                if diff is not None:
                    session.record_failure(tuple(sent))
                    raise Disagreement(diff)
        except AdapterFailure as failure:
            session.lost, session.stopped = (failure, tuple(sent)), True
            raise _Stop from None

    try:
        sequences()
    except (_Stop, Exception):
        # Disagreement, _Stop, or whatever Hypothesis makes of a run we cut short (it may report
        # a cut-short run as flaky): the session knows what really happened.
        if session.lost is None and not session.failing and not session.stopped:
            raise
    if session.lost is not None:
        failure, commands = session.lost
        return DriveReport(session.ran, None, commands, failure.report())
    if not session.failing:
        return DriveReport(session.ran)
    if not shrink:
        first = session.failing[0]
        return DriveReport(session.ran, replay(adapter, first) or "not reproducible on replay", first)
    try:
        commands = minimize(adapter, session.failing[-1])
        message = replay(adapter, commands)
    except AdapterFailure as failure:
        return DriveReport(session.ran, None, session.failing[-1], failure.report())
    if message is None:  # the adapter does not repeat its own disagreement
        commands, message = session.failing[-1], "disagreement not reproducible on replay (nondeterministic adapter?)"
    return DriveReport(session.ran, message, commands)
