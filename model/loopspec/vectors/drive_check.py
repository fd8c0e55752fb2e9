"""One ``drive`` example against the adapter: what the model expects, sent in one pipelined batch.

An example's commands are drawn from the model alone (the adapter is never asked what to do
next), so the whole example is known before anything is sent: ``reset``, then each command and a
``state`` request after it, written back to back (spec/adapter-protocol.md, Pipelining) and
compared answer by answer; when everything matched, the audit (:mod:`.audit`) runs over what the
adapter wrote.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from loopspec.vectors.adapter.client import Adapter, AdapterError
from loopspec.vectors.audit import audit
from loopspec.vectors.codec import encode_command
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
    """Sends examples to the adapter and compares; every command sent is counted."""

    def __init__(self, adapter: Adapter, profile: Profile, lockstep: bool = False) -> None:
        self.adapter, self.profile, self.lockstep = adapter, profile, lockstep
        self.sent = 0

    def check(self, steps: Sequence[Expected]) -> tuple[str, int] | None:
        """Reset, send every command (each followed by ``state``) in one pipelined batch, compare.

        The first disagreement and how many commands it needs, or None; the audit (time policy,
        log and live checkers) runs when every answer matched.
        """
        requests: list[tuple[str, object]] = [("reset", {})]
        for step in steps:
            requests += [("command", step.encoded), ("state", {})]
        answers = self.adapter.pipeline(requests, lockstep=self.lockstep)
        self.sent += len(steps)
        if isinstance(answers[0], AdapterError):
            return f"reset: {answers[0]}", 0
        seen: list[tuple[str, Json]] = []
        for index, step in enumerate(steps):
            actual, state = answers[1 + 2 * index], answers[2 + 2 * index]
            diff = self._difference(step, actual, state)
            if diff is not None:
                return f"command {index} ({step.encoded['op']}): {diff}", index + 1
            assert isinstance(actual, dict)
            seen.append((str(step.encoded["op"]), actual))
        findings = audit(seen, self.profile)
        if findings:
            return ("what the adapter wrote breaks rules the observations do not compare: "
                    + "; ".join(f.render() for f in findings)), len(steps)
        return None

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

    def minimize(self, commands: tuple[VectorCommand, ...], budget: int = 400) -> tuple[VectorCommand, ...]:
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
                if candidate and self.replay(candidate) is not None:
                    commands, changed = candidate, True
                    break
        return commands


def replay(adapter: Adapter, commands: Sequence[VectorCommand], profile: str = "full") -> str | None:
    """Reset the adapter, send ``commands``; the first disagreement with the model (or the audit's), or None."""
    return Checker(adapter, PROFILES[profile]).replay(commands)
