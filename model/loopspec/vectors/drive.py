"""``loopspec drive -- COMMAND...``: differential testing of an adapter against the model.

Hypothesis draws command sequences from the model's own state (:mod:`.command_gen`, restricted to
the adapter's capability profile by :mod:`.profile_gen`: valid answers for the current await
point, edits and sends at any time, occasionally an invalid command) and sends each command to
the adapter and to the model side by side, comparing the observation and then the state after
every command; at the end of each example what the adapter wrote is audited (:mod:`.audit`: the
time policy, the log checker, the live checker).  On the first disagreement Hypothesis shrinks
the sequence; the minimal one is returned as a ready-to-commit vector case (the model's
expectations).

The test function is built and called programmatically with a fixed seed, no example database
and quiet output, so a run is reproducible and prints nothing but our report.  A dead or hung
adapter is not a "failure" to shrink: it escapes Hypothesis as :class:`_Stop` and is reported
with the sequence that led to it.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from typing import TextIO, TypeVar

import attrs
import hypothesis
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st

from loopspec.vectors.adapter.client import Adapter, AdapterError, AdapterFailure
from loopspec.vectors.audit import audit
from loopspec.vectors.case import CaseSpec, build_case
from loopspec.vectors.codec import encode_command
from loopspec.vectors.json_reading import Json
from loopspec.vectors.observation import first_difference, observation_difference, observe, state_of
from loopspec.vectors.profile_gen import ProfileGenerator
from loopspec.vectors.profiles import PROFILES, Profile
from loopspec.vectors.reference_model import Model, VectorCommand, initial

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
def command_for(draw: st.DrawFn, model: Model, serial: int, profile: str = "full") -> VectorCommand:
    """One command as one Hypothesis draw, so the shrinker can delete or simplify it as a unit."""
    return ProfileGenerator(DrawChooser(draw), profile, serial).next_command(model)


class Disagreement(AssertionError):
    """The adapter and the model observed a command differently (or the adapter's log breaks a rule)."""


class _Stop(BaseException):
    """Ends the Hypothesis run at once (budget spent, adapter lost); not an Exception, so never shrunk."""


class _Session:
    """What one :func:`drive` call has seen so far; lives only for that call."""

    def __init__(self, time_budget: float | None, shrink_budget: float, progress: TextIO | None) -> None:
        self.started = time.monotonic()
        self.deadline = None if time_budget is None else self.started + time_budget
        self.shrink_budget = shrink_budget
        self.progress = progress
        self.shown = 0.0
        self.failing: list[tuple[VectorCommand, ...]] = []  # every failing run; the last is the smallest so far
        self.lost: tuple[AdapterFailure, tuple[VectorCommand, ...]] | None = None
        self.stopped = False
        self.budget_hit = False
        self.examples = 0  # examples run up to the first failure (shrink runs are not examples)
        self.commands = 0  # commands sent to the adapter, shrinking and replays included

    def check_clock(self) -> None:
        if self.stopped:
            raise _Stop
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.stopped = self.budget_hit = True
            raise _Stop

    def record_failure(self, commands: tuple[VectorCommand, ...]) -> None:
        if not self.failing:  # shrinking gets its own allowance, within the overall budget
            end = time.monotonic() + self.shrink_budget
            self.deadline = end if self.deadline is None else min(self.deadline, end)
        self.failing.append(commands)

    def tick(self, requested: int) -> None:
        """A self-overwriting progress line on a terminal, at most five times a second."""
        now = time.monotonic()
        if self.progress is None or now - self.shown < 0.2:
            return
        self.shown = now
        what = "shrinking" if self.failing else f"{self.examples}/{requested} examples"
        line = f"drive: {what}, {self.commands} commands, {now - self.started:.1f} s"
        self.progress.write("\r" + line.ljust(70))
        self.progress.flush()

    def close_progress(self) -> None:
        if self.progress is not None:
            self.progress.write("\r" + " " * 70 + "\r")
            self.progress.flush()


@attrs.frozen
class DriveReport:
    examples: int
    disagreement: str | None = None
    commands: tuple[VectorCommand, ...] = ()
    adapter_failure: str | None = None
    requested: int = 0
    sent: int = 0
    """Commands sent to the adapter (shrinking and replays included)."""
    seconds: float = 0.0
    stopped_by_budget: bool = False
    profile: str = "full"

    @property
    def ok(self) -> bool:
        return self.disagreement is None and self.adapter_failure is None

    @property
    def rate(self) -> float:
        return self.sent / self.seconds if self.seconds > 0 else 0.0

    def throughput(self) -> str:
        return f"{self.sent} commands sent, {self.rate:,.0f} commands/s, {self.seconds:.1f} s"

    def summary(self, implementation: str) -> str:
        """The final line: what ran, how fast, and whether the time budget cut the search short."""
        against = f"against {implementation} (profile {self.profile})"
        if not self.ok:
            return f"disagreement after {self.examples} example(s) {against}; {self.throughput()}"
        if self.stopped_by_budget:
            return (f"stopped by the time budget after {self.examples} of {self.requested} examples: no "
                    f"disagreement in those {against}; {self.throughput()}")
        return f"no disagreement in {self.examples} of {self.requested} examples {against}; {self.throughput()}"

    def case(self, seed: int) -> Json:
        """The minimal failing sequence as a vector case (kind ``regression``)."""
        digest = hashlib.sha256(repr([encode_command(c) for c in self.commands]).encode()).hexdigest()[:10]
        spec = CaseSpec(f"regression/drive/seed-{seed}-{digest}", "regression", (),
                        f"Found by loopspec drive (seed {seed}): {self.disagreement or self.adapter_failure}",
                        self.commands)
        return build_case(spec)


def _send(adapter: Adapter, model: Model, command: VectorCommand, expected: Json,
          seen: list[tuple[str, Json]]) -> str | None:
    """Send one command and compare the observation and the state after it; the difference or None."""
    encoded = encode_command(command)
    try:
        actual = adapter.command(encoded)
        diff = observation_difference(expected, actual)
        if diff is not None:
            return f"observation: {diff}"
        assert isinstance(actual, dict)
        seen.append((str(encoded["op"]), actual))
        profile = PROFILES[adapter.profile]
        diff = first_difference(profile.state(state_of(model)), adapter.state())
        return None if diff is None else f"state afterwards: {diff}"
    except AdapterError as err:
        if err.kind == "unsupported":
            return f"the adapter answered unsupported to a command of its profile {adapter.profile}: {err.message}"
        return str(err)


def _audited(seen: list[tuple[str, Json]], profile: Profile) -> str | None:
    findings = audit(seen, profile)
    if not findings:
        return None
    return "what the adapter wrote breaks rules the observations do not compare: " + "; ".join(
        f.render() for f in findings)


def replay(adapter: Adapter, commands: Sequence[VectorCommand], profile: str = "full") -> str | None:
    """Reset the adapter, send ``commands``; the first disagreement with the model (or the audit's), or None."""
    adapter.reset()
    model = initial(profile)
    seen: list[tuple[str, Json]] = []
    for index, command in enumerate(commands):
        model, expected = observe(model, command)
        diff = _send(adapter, model, command, expected, seen)
        if diff is not None:
            return f"command {index} ({encode_command(command)['op']}): {diff}"
    return _audited(seen, PROFILES[profile])


def minimize(adapter: Adapter, commands: tuple[VectorCommand, ...], budget: int = 400,
             profile: str = "full") -> tuple[VectorCommand, ...]:
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
            if candidate and replay(adapter, candidate, profile) is not None:
                commands, changed = candidate, True
                break
    return commands


class ProfileMismatch(ValueError):
    """``--profile`` asks for commands the adapter's profile does not have."""


def choose_profile(adapter: Adapter, wanted: str | None) -> str:
    """The profile to drive: ``wanted`` if the adapter's profile has all its commands, else the adapter's own."""
    if wanted is None or wanted == adapter.profile:
        return adapter.profile
    if not PROFILES[wanted].ops <= PROFILES[adapter.profile].ops:
        missing = ", ".join(sorted(PROFILES[wanted].ops - PROFILES[adapter.profile].ops))
        raise ProfileMismatch(f"the adapter implements profile {adapter.profile}, which lacks {missing} "
                              f"(needed by profile {wanted})")
    return wanted


def drive(adapter: Adapter, *, examples: int = 200, steps: int = 30, seed: int = 0,
          time_budget: float | None = None, shrink_budget: float = 20.0, profile: str | None = None,
          progress: TextIO | None = None) -> DriveReport:
    """Run up to ``examples`` sequences of up to ``steps`` commands, stopping after ``time_budget`` s.

    ``profile`` (default: the adapter's) limits the commands generated (:class:`ProfileMismatch`
    when the adapter lacks some).  Hypothesis' shrink gets at most ``shrink_budget`` s (within the
    overall budget); the final greedy deletion pass is bounded by its own replay count.
    """
    name = choose_profile(adapter, profile)
    chosen = PROFILES[name]
    session = _Session(time_budget, shrink_budget, progress)
    counting = _Counting(adapter, session)

    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              phases=(Phase.explicit, Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck),
              verbosity=Verbosity.quiet, report_multiple_bugs=False, print_blob=False)
    @hypothesis.seed(seed)
    @given(st.data())
    def sequences(data: st.DataObject) -> None:
        session.check_clock()
        session.tick(examples)
        model = initial(name)
        sent: list[VectorCommand] = []
        seen: list[tuple[str, Json]] = []
        try:
            counting.reset()
            for _ in range(steps):
                command = data.draw(command_for(model, 10 * len(sent), name))
                sent.append(command)
                model, expected = observe(model, command)
                diff = _send(counting, model, command, expected, seen) or (
                    _audited(seen, chosen) if len(sent) == steps else None)
                if diff is not None:
                    session.examples += not session.failing
                    session.record_failure(tuple(sent))
                    raise Disagreement(diff)
            session.examples += not session.failing  # a whole example (Hypothesis drops overruns)
        except AdapterFailure as failure:
            session.examples += not session.failing
            session.lost, session.stopped = (failure, tuple(sent)), True
            raise _Stop from None

    try:
        sequences()
    except (_Stop, Exception):
        # Disagreement, _Stop, or whatever Hypothesis makes of a run we cut short (it may report
        # a cut-short run as flaky): the session knows what really happened.
        if session.lost is None and not session.failing and not session.stopped:
            raise
    finally:
        session.close_progress()

    if session.lost is not None:
        failure, commands = session.lost
        return _report(session, examples, name, commands=commands, adapter_failure=failure.report())
    if not session.failing:
        return _report(session, examples, name, stopped_by_budget=session.budget_hit)
    try:
        commands = minimize(counting, session.failing[-1], profile=name)
        message = replay(counting, commands, name)
    except AdapterFailure as failure:
        return _report(session, examples, name, commands=session.failing[-1], adapter_failure=failure.report())
    if message is None:  # the adapter does not repeat its own disagreement
        commands, message = session.failing[-1], "disagreement not reproducible on replay (nondeterministic adapter?)"
    return _report(session, examples, name, disagreement=message, commands=commands)


def _report(session: _Session, requested: int, profile: str, *, commands: tuple[VectorCommand, ...] = (),
            disagreement: str | None = None, adapter_failure: str | None = None,
            stopped_by_budget: bool = False) -> DriveReport:
    return DriveReport(session.examples, disagreement, commands, adapter_failure, requested, session.commands,
                       time.monotonic() - session.started, stopped_by_budget, profile)


class _Counting(Adapter):
    """The adapter under test, counting the commands sent to it (for the commands/s figure)."""

    def __init__(self, inner: Adapter, session: _Session) -> None:
        super().__init__()
        self.inner, self.session = inner, session
        self.implementation, self.profile, self.name = inner.implementation, inner.profile, inner.name

    def exchange(self, request: Json) -> Json:
        return self.inner.exchange(request)

    def call(self, key: str, body: object, answer_key: str | None = None) -> object:
        if key == "command":
            self.session.commands += 1
        return self.inner.call(key, body, answer_key)

    def close(self) -> None:
        self.inner.close()
