"""The oracle catches bugs: every mutant in ``tests/vectors/mutants`` is found by ``drive`` and by the vectors.

A mutant is the reference model with one realistic bug (see ``tests/vectors/mutants/catalogue.py``); each
test case names the rule its mutant breaks.  For each one:

* ``drive`` (Hypothesis, the loaded profile's example and step counts) finds a disagreement, shrinks
  it to at most :data:`MAX_SHRUNK` commands, and the first differing observation of the shrunk
  sequence is the bug's hallmark (the mutant's witness predicate);
* ``vectors run`` over a freshly generated suite fails, every failing case first differs in the
  bug's hallmark, and when the suite has cases written for the broken rule, one of them fails.

Mutants run in-process (``InProcessAdapter``) for speed; one test launches a mutant by file path as
a real adapter program, the way the README documents it.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import settings

from conftest import REPO
from loopspec.data.messages import UserMessage
from loopspec.loop import commands as cmd
from loopspec.rules.catalogue import load_spec
from loopspec.vectors.adapter.client import InProcessAdapter, SubprocessAdapter
from loopspec.vectors.adapter.reference import ModelHandler
from loopspec.vectors.codec import encode_command
from loopspec.vectors.drive import drive
from loopspec.vectors.json_reading import Json
from loopspec.vectors.observation import observation_difference
from loopspec.vectors.runner import run_suite
from loopspec.vectors.suite import generate
from vectors.mutants.catalogue import MUTANTS, handler
from vectors.mutants.handler import Mutant

MAX_SHRUNK = 8
FIND_BUDGET = 60.0  # seconds to find a disagreement; every mutant needs well under 5 s
SHRINK_BUDGET = 10.0  # seconds of Hypothesis shrinking (room for a loaded machine); a greedy deletion pass follows
LAUNCHER = REPO / "tests" / "vectors" / "mutants" / "run.py"

MUTANT_CASES = [pytest.param(m, id=m.name, marks=pytest.mark.rule(m.rule)) for m in MUTANTS]


def adapter_for(mutant: Mutant) -> InProcessAdapter:
    return InProcessAdapter(handler(mutant.name).handle, name=mutant.name)


def first_differing(mutant: Mutant, commands: Sequence[Json]) -> tuple[Json, Json] | None:
    """Replay encoded commands on the model (reference handler) and the mutant; the first pair that differs."""
    reference = InProcessAdapter(ModelHandler().handle)
    bugged = adapter_for(mutant)
    for command in commands:
        expected, actual = reference.command(command), bugged.command(command)
        assert isinstance(expected, dict)
        assert isinstance(actual, dict)
        if observation_difference(expected, actual) is not None:
            return expected, actual
    return None


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Json]:
    out = tmp_path_factory.mktemp("suite")
    return out, generate(out, seed=0, count=20)


@pytest.mark.rule(*sorted({m.rule for m in MUTANTS}))
def test_catalogue_is_sound() -> None:
    """At least twelve mutants, distinct names and patches, each naming a rule of the spec."""
    known = {r.id for r in load_spec().rules}
    assert len(MUTANTS) >= 12
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)
    assert all(len(m.patches) == 1 for m in MUTANTS)  # one behaviour changed (one module attribute)
    for mutant in MUTANTS:
        assert mutant.rule in known, mutant.name


@pytest.mark.parametrize("mutant", MUTANT_CASES)
def test_patches_never_leak_into_the_model(mutant: Mutant) -> None:
    """After a mutant served a command the model's functions are its own again (the oracle stays sound)."""
    patched = [(p.module, p.name) for m in MUTANTS for p in m.patches]
    before = [getattr(module, name) for module, name in patched]
    adapter = adapter_for(mutant)
    adapter.command(encode_command(cmd.followup(UserMessage.create("a"))))
    after = [getattr(module, name) for module, name in patched]
    assert all(b is a for b, a in zip(before, after, strict=True))


@pytest.mark.parametrize("mutant", MUTANT_CASES)
def test_drive_finds_and_shrinks_the_bug(mutant: Mutant) -> None:
    profile = settings()
    # The bar is the ci budget (500 examples of 50 steps); a lighter profile must not make a
    # mutant "survive" merely because it searched less, so the budget never drops below ci's.
    report = drive(adapter_for(mutant), examples=max(profile.max_examples, 500),
                   steps=max(profile.stateful_step_count, 50), seed=0, time_budget=FIND_BUDGET,
                   shrink_budget=SHRINK_BUDGET)
    assert report.adapter_failure is None
    assert report.disagreement is not None, f"{mutant.name} survived {report.examples} examples"
    assert 1 <= len(report.commands) <= MAX_SHRUNK, [encode_command(c)["op"] for c in report.commands]
    pair = first_differing(mutant, [encode_command(c) for c in report.commands])
    assert pair is not None, report.disagreement
    assert mutant.differs(*pair), f"{report.disagreement}\nexpected {pair[0]}\nactual   {pair[1]}"


@pytest.mark.parametrize("mutant", MUTANT_CASES)
def test_vectors_fail_the_mutant_on_its_hallmark(mutant: Mutant, suite: tuple[Path, Json]) -> None:
    directory, manifest = suite
    report = run_suite(directory, lambda: adapter_for(mutant), io.StringIO())
    failed = [r for r in report.results if r.status != "pass" and r.reason != "outside-profile"]
    assert failed, f"{mutant.name} passed the whole suite"
    assert all(r.status == "fail" for r in failed)  # run, not skipped: the adapter never died
    paths = {str(e["id"]): str(e["path"]) for e in manifest["cases"]}  # type: ignore[attr-defined]
    for result in failed:
        case = json.loads((directory / paths[result.id]).read_text(encoding="utf-8"))
        pair = first_differing(mutant, [step["command"] for step in case["steps"]])
        assert pair is not None, f"{result.id}: {result.detail}"
        assert mutant.differs(*pair), f"{result.id}: {result.detail}"
    # Cases written by hand for the broken rule (rules checkable from commands have them) must
    # catch it; table-row cases also list rules, but only the rules of their row.
    by_hand = {str(e["id"]) for e in manifest["cases"]  # type: ignore[attr-defined]
               if e["kind"] == "rule" and "full" in e["profiles"]}  # a mutant serves the full profile
    written_for_rule = set(manifest["rules"].get(mutant.rule, [])) & by_hand  # type: ignore[attr-defined]
    if written_for_rule:
        assert {r.id for r in failed} & written_for_rule, f"no case written for {mutant.rule} failed"


@pytest.mark.rule("CLAIM-4")
def test_mutant_launches_by_file_path(suite: tuple[Path, Json]) -> None:
    """``python tests/vectors/mutants/run.py NAME`` is a working adapter: vectors run fails it on its rule."""
    listing = subprocess.run([sys.executable, str(LAUNCHER), "--list"], capture_output=True, text=True, check=True)
    assert all(m.name in listing.stdout for m in MUTANTS)
    directory, _ = suite
    argv = [sys.executable, str(LAUNCHER), "claim-discards"]
    report = run_suite(directory, lambda: SubprocessAdapter(argv), io.StringIO())
    assert report.implementation.startswith("loopspec-mutant claim-discards")
    assert report.count("fail") > 0
    assert report.count("not-run") == report.count_reason("outside-profile")  # the adapter never died
    assert any("agent/inbox/discarded" in r.detail for r in report.results if r.status == "fail")
