"""The lifecycle's guards are mutually exclusive, so the table's row order decides nothing (issue 24).

Wherever the driver chooses a row — a command's own ``(phase, input)`` and each choice point it
passes — exactly one row's guard holds; where no row exists the model refuses (INPUT-4) without
reading any guard.  This is checked on every state and command of the ``dev`` exploration scope
and on the stateful machine's Hypothesis runs (which reach the rows the scope misses: a drain, a
wake latched while turn-stopping is pending).  Then the table with every ``(phase, input)``'s
rows reversed makes the very same transitions on the scope's states.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Mapping

import pytest
from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test

from loop.agent_machine import AgentMachine
from loopspec.data.errors import CommandRefused
from loopspec.loop import commands as cmd
from loopspec.loop import guards, lifecycle
from loopspec.loop.phases import Row
from loopspec.loop.state import Agent
from loopspec.loop.work import Work
from loopspec.statespace.model_space import ModelSpace
from loopspec.statespace.scope import SCOPES
from loopspec.statespace.search import breadth_first

DEV = SCOPES["dev"]
Chooser = Callable[[Work, str, str], Row]


class ExclusionCheck:
    """Wraps the driver's row choice: every choice must find exactly one holding guard."""

    def __init__(self, registry: Mapping[str, guards.Guard]) -> None:
        self.registry = registry
        self.choices: Counter[str] = Counter()
        self.overlaps: list[str] = []
        self.original: Chooser = lifecycle.choose_row

    def __call__(self, work: Work, phase: str, input_name: str) -> Row:
        candidates = lifecycle.rows_for(phase, input_name)
        holding = [row.key for row in candidates if self.registry[row.guard](work)]
        if candidates and len(holding) != 1:
            self.overlaps.append(f"{phase}/{input_name}: {holding or 'no guard'} hold(s)")
        row = self.original(work, phase, input_name)
        assert len(holding) != 1 or holding == [row.key], "the driver chose another row than the one holding"
        self.choices[row.key] += 1
        return row


def _explore_dev() -> list[Agent]:
    states: list[Agent] = [Agent()]
    breadth_first(ModelSpace(DEV), DEV.depth,
                  arrive=lambda _p, _e, child, new: states.append(child.state) if new else None)
    return states


def test_one_guard_holds_at_every_choice_of_the_dev_scope(monkeypatch: pytest.MonkeyPatch) -> None:
    check = ExclusionCheck(guards.GUARDS)
    monkeypatch.setattr(lifecycle, "choose_row", check)
    _explore_dev()
    assert not check.overlaps, "\n".join(check.overlaps[:20])
    # Every row the scope reaches was chosen under the check (explore --scope dev: 44 of 46).
    assert len(check.choices) >= 44, sorted(check.choices)


def test_one_guard_holds_at_every_choice_of_the_stateful_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    check = ExclusionCheck(guards.GUARDS)
    monkeypatch.setattr(lifecycle, "choose_row", check)

    class Unchecked(AgentMachine):
        CHECKS = False  # test_agent_stateful proves the machine's checks; here only the guards matter

    run_state_machine_as_test(Unchecked, settings=settings(database=None))
    assert not check.overlaps, "\n".join(check.overlaps[:20])
    assert check.choices, "the machine chose no row: the check saw nothing"


def test_the_check_finds_overlapping_guards(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: a guard written only to separate its row from the rows after it (a
    next boundary that is taken 'always', as it was before guards were exclusive) is found."""
    check = ExclusionCheck({**guards.GUARDS, "next-boundary": guards.always})
    monkeypatch.setattr(lifecycle, "choose_row", check)
    _explore_dev()
    assert any(overlap.startswith("boundary/auto") for overlap in check.overlaps)


def _transitions(states: list[Agent]) -> list[tuple[Hashable, ...]]:
    space = ModelSpace(DEV)
    out: list[tuple[Hashable, ...]] = []
    for state in states:
        for edge in space.expand(state):
            out.append((repr(edge.command), edge.key, edge.fired, edge.state))
    return out


def test_the_reversed_table_makes_the_same_transitions(monkeypatch: pytest.MonkeyPatch) -> None:
    states = _explore_dev()
    forward = _transitions(states)
    model_rows_for = lifecycle.rows_for
    monkeypatch.setattr(lifecycle, "rows_for", lambda phase, input_name: model_rows_for(phase, input_name)[::-1])
    assert lifecycle.rows_for("decision-returned", "auto")[0].guard == "enter"  # the patch is in place
    assert _transitions(states) == forward
    assert len(forward) > len(states)


@pytest.mark.rule("INPUT-4")
def test_an_input_without_rows_is_refused_before_any_guard_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []

    def reading(name: str) -> guards.Guard:
        def guard(_: Work) -> bool:
            read.append(name)
            return True

        return guard

    monkeypatch.setattr(lifecycle, "GUARDS", {name: reading(name) for name in guards.GUARDS})
    with pytest.raises(CommandRefused) as refused:
        lifecycle.step(Agent(), cmd.Decide())
    assert refused.value.rule == "INPUT-4"
    assert read == []
