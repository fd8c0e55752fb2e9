"""Exhaustive conformance (``loopspec explore -- ADAPTER``) catches wrong implementations with a shortest case.

Every mutant of ``tests/vectors/mutants`` is an implementation that answers one behaviour wrongly,
served in-process (its bug is installed only while it answers, so the model it is compared with
runs unpatched).  Exploring its scope (:data:`SCOPE`, or the one :data:`OWN_SCOPE` names) against
it must stop at a disagreement after a shortest sequence (breadth first: no shorter explored
sequence disagrees), and the counterexample's vector case, whose expectations are the model's,
passes ``vectors run`` against the model and fails it against the mutant.  Every mutant is in one
of the two lists: each is caught.
This catches the mutants whose bug breaks no invariant of one model (a refusal's wording, a
notification's order), which ``test_mutants_explored.py`` cannot.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from explore.conformance_fixtures import CAUGHT, OWN_SCOPE, QUICK, ROOT, SCOPE, SLOWER, explore_cli, passes
from loopspec.explore.conformance import CONFORMS
from loopspec.explore.report import counterexample_case
from loopspec.explore.run import explore
from loopspec.statespace.scope import Scope
from loopspec.vectors.adapter.client import InProcessAdapter
from loopspec.vectors.adapter.reference import ModelHandler
from loopspec.vectors.drive_check import Checker
from loopspec.vectors.profiles import PROFILES
from vectors.mutants.catalogue import BY_NAME, MUTANTS, handler
from vectors.mutants.handler import Mutant


def test_every_mutant_is_in_exactly_one_list() -> None:
    assert set(QUICK + SLOWER) == set(BY_NAME)
    assert len(set(QUICK + SLOWER)) == len(QUICK + SLOWER)
    assert set(OWN_SCOPE) <= set(BY_NAME)


def test_the_model_conforms_to_itself_over_a_whole_scope() -> None:
    checker = Checker(InProcessAdapter(ModelHandler().handle), PROFILES["full"])
    result = explore(Scope(1, 2), against=checker)
    assert result.counterexample is None
    assert result.complete
    assert checker.sent > result.transitions  # every transition was sent, with the commands before it


@pytest.mark.parametrize("mutant", [pytest.param(m, id=m.name, marks=pytest.mark.rule(m.rule))
                                    for m in MUTANTS if m.name in CAUGHT])
def test_exhaustive_conformance_catches_the_mutant_with_a_shortest_case(mutant: Mutant) -> None:
    name = mutant.name
    adapter = InProcessAdapter(handler(name).handle, name=name)
    scope = OWN_SCOPE.get(name, SCOPE)
    result = explore(scope, against=Checker(adapter, PROFILES["full"]))
    found = result.counterexample
    assert found is not None, f"{name}: {scope.describe()} explored with no disagreement"
    assert found.problem.invariant == CONFORMS or found.problem.rule, found.problem.render()
    assert len(found.commands) == result.depth  # breadth first: no shorter explored sequence disagrees
    case = counterexample_case(result)
    assert passes(case, InProcessAdapter(ModelHandler().handle))
    assert not passes(case, InProcessAdapter(handler(name).handle, name=name))


def test_the_cli_compares_an_adapter_and_writes_the_shortest_case(tmp_path: Path) -> None:
    out = tmp_path / "case.json"
    mutant = [sys.executable, str(ROOT / "tests" / "vectors" / "mutants" / "run.py"), "seq-from-one"]
    failed = explore_cli("--ids", "1", "--depth", "2", "--counterexample", str(out), "--", *mutant)
    assert failed.returncode == 1, failed.stderr
    assert "DISAGREEMENT: " in failed.stdout  # the broken invariant is that answers agree (CONFORMS)
    assert "shortest counterexample (1 command(s))" in failed.stdout
    assert out.is_file()
    passed = explore_cli("--ids", "1", "--depth", "1", "--", sys.executable, "-m", "loopspec", "adapter")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "each answered as the model answers it" in passed.stdout


@pytest.mark.parametrize("extra", [["--scope", "dev", "--write-doc"], ["--witnesses", "w"]])
def test_the_cli_refuses_options_an_adapter_run_cannot_honour(extra: list[str]) -> None:
    result = explore_cli(*extra, "--", sys.executable, "-m", "loopspec", "adapter")
    assert result.returncode == 2
    assert "an adapter is explored without --witnesses or the document options" in result.stderr
    assert "Traceback" not in result.stderr
