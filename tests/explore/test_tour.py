"""The conformance tour (``loopspec explore --tour -- ADAPTER``) sends every class at every state, and catches.

A tour must send every class of command of the scope at every state of the model's map (or
count it skipped when the adapter's profile or capabilities rule it out), send nothing an adapter
lacks, compare every answer, and stop at a disagreement with a case that passes against the model
and fails against the implementation that disagreed.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from explore.conformance_fixtures import CAUGHT, OWN_SCOPE, ROOT, SCOPE, explore_cli, passes
from loopspec.explore.adapter_pool import Finding, InlineChecks
from loopspec.explore.conformance import CONFORMS
from loopspec.explore.report import counterexample_case
from loopspec.explore.tour import tour
from loopspec.statespace.scope import Scope
from loopspec.vectors.adapter.client import InProcessAdapter
from loopspec.vectors.adapter.reference import ModelHandler
from loopspec.vectors.capabilities import LACKABLE, needs_lacked
from loopspec.vectors.drive_check import Checker, Expected
from loopspec.vectors.observation import observe
from loopspec.vectors.profiles import PROFILES
from loopspec.vectors.reference_model import Model, initial
from vectors.mutants.catalogue import MUTANTS, handler
from vectors.mutants.handler import Mutant


class Recorded:
    """Checks that agree with everything and keep what they were sent, as a real adapter's would be."""

    def __init__(self, lacks: tuple[str, ...] = ()) -> None:
        self.profile, self.lacks, self.workers, self.cpu_seconds = PROFILES["full"], lacks, 1, 0.0
        self.sequences: list[Sequence[Expected]] = []

    @property
    def sent(self) -> int:
        return sum(len(s) for s in self.sequences)

    def run(self, sequences: Sequence[Sequence[Expected]]) -> list[Finding]:
        self.sequences += sequences
        return [None] * len(sequences)


def test_the_model_passes_its_own_tour_with_every_class_sent() -> None:
    checker = Checker(InProcessAdapter(ModelHandler().handle), PROFILES["full"])
    result = tour(Scope(2, 3), InlineChecks(checker))
    assert result.counterexample is None
    assert result.complete
    assert result.skipped == 0
    assert result.sent_classes == result.classes > 2_000
    assert checker.sent == result.commands >= result.classes
    # Walks, not a fresh case per class; the hops put many states a command or two from a fresh agent,
    # where a fresh case is often the nearer way on (FRESH_CASE).
    assert result.cases < result.classes / 5


def test_a_tour_sends_nothing_the_adapter_lacks_and_counts_what_it_skips() -> None:
    lacks = tuple(LACKABLE)
    checks = Recorded(lacks)
    result = tour(Scope(2, 3), checks)
    assert result.complete
    assert result.skipped > 0
    assert result.sent_classes + result.skipped == result.classes
    for steps in checks.sequences:
        model: Model = initial("full")
        for step in steps:
            assert not needs_lacked(lacks, model, step.command), step.command
            model, observation = observe(model, step.command)
            assert observation == step.observation  # every expectation is the model's, along the walk


@pytest.mark.parametrize("mutant", [pytest.param(m, id=m.name, marks=pytest.mark.rule(m.rule))
                                    for m in MUTANTS if m.name in CAUGHT])
def test_a_tour_catches_the_mutant_with_a_case_that_tells_them_apart(mutant: Mutant) -> None:
    # The scope breadth-first conformance catches it in: a tour sends every class at each of its states.
    name = mutant.name
    scope = OWN_SCOPE.get(name, SCOPE)
    result = tour(scope, InlineChecks(Checker(InProcessAdapter(handler(name).handle, name=name), PROFILES["full"])))
    found = result.counterexample
    assert found is not None, f"{name}: a tour of {scope.describe()} found no disagreement"
    assert found.problem.invariant == CONFORMS, found.problem.render()
    case = counterexample_case(result)
    assert passes(case, InProcessAdapter(ModelHandler().handle))
    assert not passes(case, InProcessAdapter(handler(name).handle, name=name))


def test_the_cli_tours_an_adapter_and_writes_the_case(tmp_path: Path) -> None:
    out = tmp_path / "case.json"
    mutant = [sys.executable, str(ROOT / "tests" / "vectors" / "mutants" / "run.py"), "seq-from-one"]
    failed = explore_cli("--tour", "--ids", "1", "--depth", "2", "--counterexample", str(out), "--", *mutant)
    assert failed.returncode == 1, failed.stderr
    assert "DISAGREEMENT: " in failed.stdout  # the broken invariant is that answers agree (CONFORMS)
    assert "counterexample (1 command(s))" in failed.stdout
    assert out.is_file()
    passed = explore_cli("--tour", "--ids", "1", "--depth", "2", "--", sys.executable, "-m", "loopspec", "adapter")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "toured: every class of command at every state" in passed.stdout
    assert "each answered as the model answers it" in passed.stdout


@pytest.mark.parametrize(("args", "says"), [
    (["--tour", "--ids", "1", "--depth", "1"], "give its adapter after --"),
    (["--tour", "--max-states", "3", "--", sys.executable, "-m", "loopspec", "adapter"], "not --max-states"),
])
def test_the_cli_refuses_a_tour_it_cannot_take(args: list[str], says: str) -> None:
    done = explore_cli(*args)
    assert done.returncode == 2
    assert says in done.stderr
    assert "Traceback" not in done.stderr
