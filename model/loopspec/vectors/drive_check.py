"""One ``drive`` example against the adapter: what the model expects, pipelined to it.

An example's commands are drawn from the model alone (the adapter is never asked what to do
next), so nothing needs an answer before the example ends: ``reset``, then each command and a
``state`` request after it, written as the commands are drawn (spec/adapter-protocol.md,
Pipelining) and compared answer by answer at the end; when everything matched, the audit
(:mod:`.audit`) runs over what the adapter wrote.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from loopspec.vectors.adapter.client import Adapter, AdapterError, AdapterFailure, Batch
from loopspec.vectors.audit import audit
from loopspec.vectors.capabilities import expressible
from loopspec.vectors.codec import encode_command
from loopspec.vectors.command_simplify import simpler_forms
from loopspec.vectors.json_reading import Json
from loopspec.vectors.observation import first_difference, observation_difference, observe, state_of
from loopspec.vectors.profiles import PROFILES, Profile
from loopspec.vectors.reference_model import VectorCommand, initial


@attrs.frozen
class Expected:
    """One command and what the model says the adapter must answer to it and to ``state`` after it."""

    command: VectorCommand
    encoded: Json
    observation: Json
    state: object


def expectations(commands: Sequence[VectorCommand], profile: Profile) -> list[Expected]:
    """Run ``commands`` on a fresh model of ``profile``."""
    model, out = initial(profile.name), []
    for command in commands:
        model, observation = observe(model, command)
        out.append(Expected(command, encode_command(command), observation, profile.state(state_of(model))))
    return out


class Checker:
    """Sends examples to the adapter and compares; every command sent is counted.

    Examples are pipelined until the first disagreement; from then on (Hypothesis'
    shrinking, the greedy minimization) each command waits for its answer and a run stops at its
    first difference, so no request goes past a disagreement.  A batch may have gone past one: if
    the adapter died after it, ``restart`` (when given) starts a fresh one.
    """

    def __init__(self, adapter: Adapter, profile: Profile, lockstep: bool = False,
                 restart: Callable[[], Adapter] | None = None) -> None:
        self.adapter, self.profile, self.careful, self.restart = adapter, profile, lockstep, restart
        self.sent = 0
        self.started: list[Adapter] = []  # adapters this checker started (it closes them)

    def check(self, steps: Sequence[Expected]) -> tuple[str, int] | None:
        """Reset, send the commands (each followed by ``state``), compare; the audit when all matched.

        The first disagreement and how many commands it needs, or None.  :class:`AdapterFailure`
        when the adapter failed before any disagreement.
        """
        if self.careful:
            return self._one_by_one(steps)
        batch = self.start()
        for step in steps:
            self.send(batch, step)
        return self.finish(batch, steps)

    def start(self) -> Batch:
        """An example sent as its commands are drawn: ``reset`` now, each command by :meth:`send`, then
        :meth:`finish`, which reads and compares.  The adapter works while the model draws."""
        batch = self.adapter.batch()
        batch.add([("reset", {})])
        return batch

    def send(self, batch: Batch, step: Expected) -> None:
        batch.add([("command", step.encoded), ("state", {})])

    def finish(self, batch: Batch, steps: Sequence[Expected]) -> tuple[str, int] | None:
        """:meth:`check`'s result for the commands sent in ``batch`` (``steps``, in order)."""
        answers = batch.answers()
        self.sent += len(steps)
        failure = next((a for a in answers if isinstance(a, AdapterFailure)), None)
        found = self._compare(steps, answers)
        if found is None and failure is not None:
            raise failure
        if found is not None:
            self.careful = True
            if failure is not None or not self.adapter.alive:
                self._recover()
        return found

    def _compare(self, steps: Sequence[Expected], answers: Sequence[object]) -> tuple[str, int] | None:
        if not answers or isinstance(answers[0], AdapterFailure):
            return None
        if isinstance(answers[0], AdapterError):
            return f"reset: {answers[0]}", 0
        seen: list[tuple[str, Json]] = []
        for index, step in enumerate(steps):
            pair = answers[1 + 2 * index : 3 + 2 * index]
            if len(pair) < 2 or any(isinstance(a, AdapterFailure) for a in pair):
                return None  # the adapter failed here; nothing differed before
            found = self._step(index, step, pair[0], pair[1], seen)
            if found is not None:
                return found
        return self._audited(seen, len(steps))

    def _one_by_one(self, steps: Sequence[Expected]) -> tuple[str, int] | None:
        self.begin()
        for index, step in enumerate(steps):
            found = self.one(index, step)
            if found is not None:
                return found
        return self.end(len(steps))

    def begin(self) -> None:
        """Start an example sent one command at a time (:meth:`one`, then :meth:`end`)."""
        self.adapter.reset()
        self._seen: list[tuple[str, Json]] = []

    def one(self, index: int, step: Expected) -> tuple[str, int] | None:
        """Send one command and ``state``, wait, compare; the disagreement or None."""
        self.sent += 1
        answers = self.adapter.pipeline([("command", step.encoded), ("state", {})], lockstep=True)
        failure = next((a for a in answers if isinstance(a, AdapterFailure)), None)
        if failure is not None:
            raise failure
        return self._step(index, step, answers[0], answers[1], self._seen)

    def end(self, needed: int) -> tuple[str, int] | None:
        """The audit of an example sent one command at a time."""
        return self._audited(self._seen, needed)

    def _step(self, index: int, step: Expected, actual: object, state: object,
              seen: list[tuple[str, Json]]) -> tuple[str, int] | None:
        diff = self._difference(step, actual, state)
        if diff is not None:
            return f"command {index + 1} ({step.encoded['op']}): {diff}", index + 1  # counted from 1, as printed
        assert isinstance(actual, dict)
        seen.append((str(step.encoded["op"]), actual))
        return None

    def _audited(self, seen: list[tuple[str, Json]], needed: int) -> tuple[str, int] | None:
        findings = audit(seen, self.profile)
        if findings:
            return ("what the adapter wrote breaks rules the observations do not compare: "
                    + "; ".join(f.render() for f in findings)), needed
        return None

    def _recover(self) -> None:
        """The batch went past a disagreement and the adapter died there: start a fresh one if we can.

        If we cannot, the disagreement still stands; the next request reports the dead adapter.
        """
        if self.adapter.alive or self.restart is None:
            return
        fresh = self.restart()
        self.started.append(fresh)
        self.adapter = fresh

    def close(self) -> None:
        for adapter in self.started:
            adapter.close()

    def _difference(self, step: Expected, actual: object, state: object) -> str | None:
        for answer in (actual, state):
            if isinstance(answer, AdapterError):
                if answer.kind == "unsupported":
                    return (f"the adapter answered unsupported to a command of its profile {self.profile.name}: "
                            f"{answer.message}")
                return str(answer)
        diff = observation_difference(step.observation, actual)
        if diff is not None:
            return f"observation: {diff}"
        diff = first_difference(step.state, state)
        return None if diff is None else f"state afterwards: {diff}"

    def replay(self, commands: Sequence[VectorCommand]) -> str | None:
        """The first disagreement (or audit finding) of ``commands`` from a reset, or None."""
        found = self.check(expectations(commands, self.profile))
        return None if found is None else found[0]

    def expressible(self, commands: tuple[VectorCommand, ...]) -> bool:
        """Whether the adapter can be driven through ``commands`` (its hello's ``lacks``)."""
        return expressible(self.adapter.lacks, initial(self.profile.name), commands, lambda m, c: observe(m, c)[0])

    def minimize(self, commands: tuple[VectorCommand, ...], budget: int = 400) -> tuple[VectorCommand, ...]:
        """Greedy deletion after Hypothesis' shrink: drop any run of commands the disagreement does not need.

        Hypothesis shrinks draws, whose meaning depends on the phase they were drawn in; deleting
        concrete commands keeps each one's meaning, so the printed case gets much shorter.  Runs
        of several commands go first (halving their length), since a single command often cannot
        leave alone: a decision needs its turn, a step result its step.  At most ``budget``
        replays.
        """
        size = max(1, len(commands) // 2)
        while budget > 0:
            removed = False
            index = 0
            while index + size <= len(commands) and budget > 0:
                budget -= 1
                candidate = commands[:index] + commands[index + size :]
                if candidate and self.expressible(candidate) and self.replay(candidate) is not None:
                    commands, removed = candidate, True
                else:
                    index += 1
            if size > 1:
                size = max(1, min(size // 2, len(commands) // 2))
            elif not removed:
                break
        return self._simplified(commands, budget)

    def _simplified(self, commands: tuple[VectorCommand, ...], budget: int) -> tuple[VectorCommand, ...]:
        """Each command made as simple as the disagreement allows: listeners and actions it does not
        need are dropped (:mod:`.command_simplify`), one at a time, until none can go."""
        changed = True
        while changed and budget > 0:
            changed = False
            for index, command in enumerate(commands):
                for form in simpler_forms(command):
                    if budget <= 0:
                        return commands
                    budget -= 1
                    candidate = (*commands[:index], form, *commands[index + 1 :])
                    if self.replay(candidate) is not None:  # type: ignore[arg-type]
                        commands, changed = candidate, True  # type: ignore[assignment]
                        break
        return commands

def replay(adapter: Adapter, commands: Sequence[VectorCommand], profile: str = "full") -> str | None:
    """Reset the adapter, send ``commands``; the first disagreement with the model (or the audit's), or None."""
    return Checker(adapter, PROFILES[profile]).replay(commands)
