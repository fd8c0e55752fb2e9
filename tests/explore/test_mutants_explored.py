"""Exploration catches every deliberately wrong model with a shortest counterexample, written as a vector case.

Each mutant of ``tests/vectors/mutants`` (the reference model with one behaviour changed) is
installed in-process and a small scope is explored without command classes (a class is an
argument about the real model's code, which a mutant breaks).  The search must stop at a broken
invariant after at most :data:`MAX_LENGTH` commands; the counterexample's vector case, whose
expectations are the real model's, passes against the model and fails against the mutant.
"""

from __future__ import annotations

import pytest

from loopspec.explore.report import counterexample_case
from loopspec.explore.run import explore
from loopspec.statespace.scope import Scope
from loopspec.vectors.adapter.client import InProcessAdapter
from loopspec.vectors.adapter.reference import ModelHandler
from loopspec.vectors.observation import observation_difference
from vectors.mutants.catalogue import MUTANTS, handler
from vectors.mutants.handler import Mutant, installed

SCOPE = Scope(2, 4)
MAX_LENGTH = 4


def _replays(case: dict[str, object], adapter: InProcessAdapter) -> bool:
    steps = case["steps"]
    assert isinstance(steps, list)
    return all(observation_difference(s["expect"], adapter.command(s["command"])) is None for s in steps)


@pytest.mark.parametrize("mutant", [pytest.param(m, id=m.name, marks=pytest.mark.rule(m.rule)) for m in MUTANTS])
def test_exploration_catches_the_mutant(mutant: Mutant) -> None:
    with installed(mutant.patches):
        result = explore(SCOPE, classes=False)
    found = result.counterexample
    assert found is not None, f"{mutant.name}: {SCOPE.describe()} explored with no broken invariant"
    assert len(found.commands) <= MAX_LENGTH, (mutant.name, len(found.commands), found.problem.render())
    assert len(found.commands) == result.depth  # breadth first: no shorter sequence breaks an invariant
    case = counterexample_case(result)
    assert _replays(case, InProcessAdapter(ModelHandler().handle))
    assert not _replays(case, InProcessAdapter(handler(mutant.name).handle, name=mutant.name))
