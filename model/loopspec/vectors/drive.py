"""``loopspec drive -- COMMAND...``: differential testing of an adapter against the model.

Hypothesis draws command sequences from the model's own state (:mod:`.command_gen`, restricted to
the adapter's capability profile by :mod:`.profile_gen`, drawn by :mod:`.drive_draws`: valid
answers for the current await point, edits and sends at any time, occasionally an invalid
command).  Each command is written to the adapter as soon as it is drawn (pipelined: the adapter
answers while the model draws the next), and at the end of the example the answers are compared
with the model command by command, observation and state, and audited (:mod:`.drive_check`).  On the
first disagreement Hypothesis shrinks the sequence; the minimal one is returned as a
ready-to-commit vector case (the model's expectations).  Every run reports the commands sent
per second.

The test function is built and called programmatically with a fixed seed, no example database
and quiet output, so a run is reproducible and prints nothing but our report.  A dead or hung
adapter is not a "failure" to shrink: it escapes Hypothesis as :class:`Stop` and is reported
with the sequence that led to it.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Callable
from typing import TextIO

import attrs
import hypothesis
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st
from hypothesis.errors import StopTest

from loopspec.vectors.adapter.client import Adapter, AdapterFailure, Batch
from loopspec.vectors.capabilities import LACKED_REDRAWS, expressible_answer, needs_lacked
from loopspec.vectors.case import CaseSpec, build_case, rules_of_last_step
from loopspec.vectors.codec import encode_command
from loopspec.vectors.command_gen import STOP_CHOICES
from loopspec.vectors.drive_check import Checker, Expected, replay
from loopspec.vectors.drive_draws import IntegerStrategies, command_for, draw_command, draw_swarm
from loopspec.vectors.drive_session import Session, Stop, no_harness_constants, scratch_storage
from loopspec.vectors.json_reading import Json
from loopspec.vectors.observation import observe, state_of
from loopspec.vectors.profiles import PROFILES
from loopspec.vectors.reference_model import VectorCommand, initial

__all__ = ["Disagreement", "DriveReport", "ProfileMismatch", "choose_profile", "command_for", "drive", "replay"]

class Disagreement(AssertionError):
    """The adapter and the model observed a command differently (or the adapter's log breaks a rule)."""


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
                    f"disagreement in those {against}, but a search cut short is not a pass; "
                    f"{self.throughput()}")
        return f"no disagreement in {self.examples} of {self.requested} examples {against}; {self.throughput()}"

    def case(self, seed: int) -> Json:
        """The minimal failing sequence as a vector case (kind ``regression``)."""
        digest = hashlib.sha256(repr([encode_command(c) for c in self.commands]).encode()).hexdigest()[:10]
        spec = CaseSpec(f"regression/drive/seed-{seed}-{digest}", "regression", (),
                        f"Found by loopspec drive (seed {seed}): {self.disagreement or self.adapter_failure}",
                        self.commands)
        case = build_case(spec)
        # Its file names the rules it shows broken, as a suite's cases do (vectors run prints them).
        rules = rules_of_last_step(case)
        return build_case(attrs.evolve(spec, rules=rules)) if rules else case


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


def drive(adapter: Adapter, *, examples: int = 300, steps: int = 30, seed: int = 0,
          time_budget: float | None = None, shrink_budget: float = 20.0, profile: str | None = None,
          progress: TextIO | None = None, lockstep: bool = False,
          restart: Callable[[], Adapter] | None = None, shrink: bool = True) -> DriveReport:
    """Run up to ``examples`` sequences of up to ``steps`` commands, stopping after ``time_budget`` s.

    ``profile`` (default: the adapter's) limits the commands generated (:class:`ProfileMismatch`
    when the adapter lacks some).  Hypothesis' shrink gets at most ``shrink_budget`` s (within the
    overall budget); the final greedy deletion pass is bounded by its own replay count.
    Each example is pipelined, every command written as it is drawn (``lockstep``: one request at a time, as protocol
    v1 did; for benchmarks); ``restart`` starts a fresh adapter if one dies after a disagreement.
    Without ``shrink`` the first failing sequence is reported as found, and ``examples`` is how
    many examples it took to find it.  Each example draws its command mix first (:mod:`.swarm`).
    """
    name = choose_profile(adapter, profile)
    chosen = PROFILES[name]
    session = Session(time_budget, shrink_budget, progress)
    checker = Checker(adapter, chosen, lockstep, restart)
    try:
        return _drive(checker, session, examples, steps, seed, name, shrink)
    finally:
        checker.close()


def _drive(checker: Checker, session: Session, examples: int, steps: int, seed: int, name: str,
           shrink: bool) -> DriveReport:
    chosen = checker.profile
    strategies = IntegerStrategies()
    phases = (Phase.explicit, Phase.generate, Phase.shrink) if shrink else (Phase.explicit, Phase.generate)

    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              phases=phases, suppress_health_check=list(HealthCheck),
              verbosity=Verbosity.quiet, report_multiple_bugs=False, print_blob=False)
    @hypothesis.seed(seed)
    @given(st.data())
    def sequences(data: st.DataObject) -> None:
        session.check_clock()
        session.tick(examples, checker.sent)
        model = initial(name)
        planned: list[Expected] = []
        swarm = draw_swarm(data, strategies)  # this example's command mix, drawn first (shrinks toward plain)
        # Commands stop at the hops they pass now and then, unless the adapter cannot hold its loop there.
        stops = () if "hop-stops" in checker.adapter.lacks else STOP_CHOICES

        def plan() -> Expected:
            nonlocal model
            command = draw_command(data, model, 10 * len(planned), name, strategies, swarm, stops)
            for _ in range(LACKED_REDRAWS):  # the adapter cannot be driven to this command here: draw again
                if not needs_lacked(checker.adapter.lacks, model, command):
                    break
                command = draw_command(data, model, 10 * len(planned), name, strategies, swarm, stops)
            else:
                command = expressible_answer(checker.adapter.lacks, model, command)
            model, observation = observe(model, command)
            planned.append(Expected(command, encode_command(command), observation, chosen.state(state_of(model))))
            return planned[-1]

        try:
            if checker.careful:
                # Shrinking: draw, send and compare one command at a time and stop at the first
                # difference, so a run that fails early costs only what it needs.
                checker.begin()
                found = next((f for f in (checker.one(i, plan()) for i in range(steps)) if f is not None), None)
                found = found if found is not None else checker.end(steps)
            else:
                # The model alone decides what comes next: each command is written as soon as it is
                # drawn (the adapter answers while the next is drawn) and the answers are read at the end.
                batch = checker.start()
                try:
                    for _ in range(steps):
                        checker.send(batch, plan())
                except StopTest:
                    _salvage(checker, session, batch, planned)
                    raise
                except BaseException:
                    _drain(batch)
                    raise
                found = checker.finish(batch, planned)
        except AdapterFailure as failure:
            session.examples += not session.failing
            session.lost, session.stopped = (failure, tuple(p.command for p in planned)), True
            raise Stop from None
        session.examples += not session.failing  # a whole example (Hypothesis drops overruns)
        if found is not None:
            message, needed = found
            session.record_failure(tuple(p.command for p in planned[:needed]), message)
            raise Disagreement(message)

    try:
        with scratch_storage(), no_harness_constants():
            sequences()
    except (Stop, Exception):
        # Disagreement, Stop, or whatever Hypothesis makes of a run we cut short (it may report
        # a cut-short run as flaky): the session knows what really happened.
        if session.lost is None and not session.failing and not session.stopped:
            raise
    finally:
        session.close_progress()
    session.commands = checker.sent

    if session.lost is not None and not session.failing:
        failure, commands = session.lost
        return _report(session, examples, name, commands=commands, adapter_failure=failure.report())
    if not session.failing:
        return _report(session, examples, name, stopped_by_budget=session.budget_hit)
    if not shrink:  # as found: how many examples it took is the point
        first = session.failing[0]
        return _report(session, examples, name, commands=first, disagreement=session.messages[0])
    try:
        if session.lost is not None:
            raise session.lost[0]
        commands = checker.minimize(session.failing[-1])
        message = checker.replay(commands)
    except AdapterFailure as failure:
        # The disagreement came first and is the finding; the failure only stopped the shrinking.
        session.commands = checker.sent
        return _report(session, examples, name, commands=session.failing[-1],
                       disagreement=f"{session.messages[-1]}\n(not fully shrunk: the adapter failed while "
                                    f"shrinking)\n{failure.report()}")
    session.commands = checker.sent
    if message is None:  # the adapter does not repeat its own disagreement
        commands, message = session.failing[-1], "disagreement not reproducible on replay (nondeterministic adapter?)"
    return _report(session, examples, name, disagreement=message, commands=commands)


def _drain(batch: Batch) -> None:
    """Read the answers to what was written, so the next example's answers are its own."""
    with contextlib.suppress(AdapterFailure):
        batch.answers()


def _salvage(checker: Checker, session: Session, batch: Batch, planned: list[Expected]) -> None:
    """Compare the commands of an example Hypothesis cut short (already sent), instead of dropping them.

    Hypothesis replays mutations of earlier examples with a fixed number of choices; when the model
    asks for more (a copied command span changes what later choices mean), the example overruns,
    usually in its last few commands, and Hypothesis drops it.  The commands drawn until then are
    a sequence from a reset like any other, so they are tested all the same (measured: 88 such
    examples in a run of 200, about 40% more commands compared for the same drawing;
    docs/performance.md).  Hypothesis never saw this example fail, so a disagreement found here
    ends the search and goes to the greedy minimization.
    """
    found = checker.finish(batch, planned)
    if found is not None:
        message, needed = found
        session.record_failure(tuple(p.command for p in planned[:needed]), message)
        session.stopped = True
        raise Stop


def _report(session: Session, requested: int, profile: str, *, commands: tuple[VectorCommand, ...] = (),
            disagreement: str | None = None, adapter_failure: str | None = None,
            stopped_by_budget: bool = False) -> DriveReport:
    return DriveReport(session.examples, disagreement, commands, adapter_failure, requested, session.commands,
                       time.monotonic() - session.started, stopped_by_budget, profile)
