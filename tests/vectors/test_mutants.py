"""The oracle catches bugs: the generated suite alone kills every mutant in ``tests/vectors/mutants``.

A mutant is the reference model with one realistic bug (see ``tests/vectors/mutants/catalogue.py``); each
test case names the rule its mutant breaks, and every rule the protocol can show broken has one (rules it
cannot show are listed with the reason in ``loopspec.vectors.rule_cases.observability``).  For each one:

* ``vectors run`` over a freshly generated suite fails, every failing case first differs in the
  bug's hallmark (``Mutant.recognises``: the mutant's witness predicate over the first differing
  observation or state, or, for a bug whose effect no observation shows before it changes an outcome,
  the kind of command where that happens), and one of the cases written by hand for the broken rule
  is among the failures;
* mutants whose bug only moves notifications among the durable records or changes event times
  (``needs="v2"``) are invisible to protocol v1's observation (a test here shows that each of
  them changes only the emission order or the times of its rule's case) and are killed by v2's:
  ``nextSeq`` compared exactly, and the audit of the time policy, the log and the live checker;
* ``drive`` finds the first mutants and shrinks each to a short sequence that differs in its
  hallmark (``test_mutant_drive.py`` shows that ``drive`` finds every mutant without the suite).

Mutants run in-process (``InProcessAdapter``) for speed; one test launches a mutant by file path as
a real adapter program, the way the README documents it.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from conftest import REPO
from loopspec.data.messages import UserMessage
from loopspec.loop import commands as cmd
from loopspec.loop.state import Agent
from loopspec.rules.catalogue import load_spec
from loopspec.vectors.adapter.process import SubprocessAdapter
from loopspec.vectors.codec import encode_command
from loopspec.vectors.drive import drive
from loopspec.vectors.json_reading import Json
from loopspec.vectors.observation import observation_difference, observe
from loopspec.vectors.reference_model import Claim, VectorCommand, apply
from loopspec.vectors.rule_cases.observability import NOT_OBSERVABLE
from loopspec.vectors.runner import run_suite
from loopspec.vectors.suite import generate, rule_cases
from vectors.fixtures import AUDIT, adapter_for, first_differing, span_differing
from vectors.mutants.catalogue import FIRST, MUTANTS
from vectors.mutants.handler import Mutant, installed

MAX_SHRUNK = 8
FIND_BUDGET = 60.0  # seconds to find a disagreement; every mutant needs well under 5 s
SHRINK_BUDGET = 30.0  # seconds of Hypothesis shrinking (room for a loaded machine); a greedy deletion pass follows
LAUNCHER = REPO / "tests" / "vectors" / "mutants" / "run.py"


MUTANT_CASES = [pytest.param(m, id=m.name, marks=pytest.mark.rule(m.rule)) for m in MUTANTS]
V2_MUTANTS = [pytest.param(m, id=m.name, marks=pytest.mark.rule(m.rule)) for m in MUTANTS if m.needs == "v2"]


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Json]:
    out = tmp_path_factory.mktemp("suite")
    return out, generate(out, seed=0, count=20)


@pytest.mark.rule(*sorted({m.rule for m in MUTANTS}))
def test_catalogue_is_sound() -> None:
    """Sixty mutants or more, distinct names, one behaviour each, at least one per observable rule."""
    known = set(load_spec().ids())
    assert len(MUTANTS) >= 60
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)
    for mutant in MUTANTS:
        assert mutant.rule in known, mutant.name
        assert mutant.needs in (None, "v2"), mutant.name
        # One behaviour: one attribute, or two when it spans two places (a claim moved elsewhere).
        targets = [(id(p.module), p.name) for p in mutant.patches]
        assert 1 <= len(targets) <= 2, mutant.name
        assert len(set(targets)) == len(targets), mutant.name
    observable = known - set(NOT_OBSERVABLE)
    assert observable - {m.rule for m in MUTANTS} == set(), "observable rules without a mutant"
    assert not {m.rule for m in MUTANTS} & set(NOT_OBSERVABLE), "a mutant for a rule said to be unobservable"


@pytest.mark.parametrize("mutant", [pytest.param(m, id=m.name) for m in MUTANTS])
def test_patches_never_leak_into_the_model(mutant: Mutant) -> None:
    """After a mutant served a command the model's functions are its own again (the oracle stays sound)."""
    patched = [(p.module, p.name) for m in MUTANTS for p in m.patches]
    before = [getattr(module, name) for module, name in patched]
    adapter = adapter_for(mutant)
    adapter.command(encode_command(cmd.followup(UserMessage.create("a"))))
    adapter.state()
    after = [getattr(module, name) for module, name in patched]
    assert all(b is a for b, a in zip(before, after, strict=True))


@pytest.mark.parametrize("mutant", MUTANT_CASES)
def test_vectors_fail_the_mutant_on_its_hallmark(mutant: Mutant, suite: tuple[Path, Json]) -> None:
    directory, manifest = suite
    report = run_suite(directory, lambda: adapter_for(mutant), io.StringIO())
    failed = [r for r in report.results if r.status != "pass" and r.reason != "outside-profile"]
    assert failed, f"{mutant.name} passed the whole suite"
    assert all(r.status == "fail" for r in failed)  # run, not skipped: the adapter never died
    paths = {str(e["id"]): str(e["path"]) for e in manifest["cases"]}  # type: ignore[attr-defined]
    for result in failed:
        if result.detail.startswith(AUDIT):  # every observation matched; the audit names the rule
            assert mutant.needs == "v2", f"{result.id}: {result.detail}"
            continue
        case = json.loads((directory / paths[result.id]).read_text(encoding="utf-8"))
        commands = [s["command"] for s in case["steps"]]
        found = first_differing(mutant, commands)
        assert found is not None, f"{result.id}: {result.detail}"
        if mutant.recognises(*found):
            continue
        span = span_differing(mutant, commands)  # the same difference over a hop's span, if at one
        if span is not None and mutant.recognises(*span):
            continue
        # A hallmark is written for what a bug does between two await points; where calls land at
        # hops inside that stretch (a crash, a cancel), the bug may show only in a form its
        # recogniser does not describe.  Such a case still fails the mutant (above), and the case
        # written for the rule must fail it too (below); any other case must show the hallmark.
        assert any("stop" in c or c.get("op") == "advance" for c in commands if isinstance(c, dict)), (
            f"{result.id}: {result.detail}")
    # A case written by hand for the broken rule catches it: the rule's coverage is real.  (A mutant
    # serves the full profile; the claim cases of the inbox profile are not run for it.)
    full = {str(e["id"]) for e in manifest["cases"] if "full" in e["profiles"]}  # type: ignore[attr-defined]
    written_for_rule = {spec.path for spec in rule_cases() if mutant.rule in spec.rules} & full
    assert written_for_rule, f"no hand-written case names {mutant.rule}"
    assert {r.id for r in failed} & written_for_rule, f"no case written for {mutant.rule} failed"


def _v1(observation: Json) -> Json:
    """What protocol v1 observed: the notifications without ``nextSeq``."""
    notes = observation.get("notifications")
    if not isinstance(notes, list):
        return observation
    return {**observation, "notifications": [{k: v for k, v in n.items() if k != "nextSeq"} for n in notes]}


def _trace(agent: Agent, command: VectorCommand) -> tuple[Agent, list[tuple[str, object]]]:
    """The step's emission order (type and, for an event, its time): what protocol v2 adds to an observation."""
    applied = apply(agent, command)
    assert isinstance(applied.model, Agent)
    return applied.model, [(item.type, getattr(item, "time", None)) for item in applied.trace]


@pytest.mark.parametrize("mutant", V2_MUTANTS)
def test_v2_mutants_change_what_only_v2_observes(mutant: Mutant) -> None:
    """On a case written for its rule, a v2 mutant's v1 observations all agree with the model's while the
    emission order or the event times differ: a real bug that only v2's observation exposes."""
    moved = False
    # A case that stops at a hop splits a command's emissions over two observations, which shows v1
    # the order too: only the cases that run each command to its await point say what v2 adds.
    agent_cases = (s for s in rule_cases() if not any(isinstance(c, Claim | cmd.Stopping | cmd.Advance)
                                                       for c in s.commands))
    for spec in (s for s in agent_cases if mutant.rule in s.rules):
        model, bugged = Agent(), Agent()
        for command in spec.commands:
            assert not isinstance(command, Claim)
            _, expected = observe(model, command)
            with installed(mutant.patches):
                _, actual = observe(bugged, command)
            assert observation_difference(_v1(expected), _v1(actual)) is None, spec.path
            model, wanted = _trace(model, command)
            with installed(mutant.patches):
                bugged, got = _trace(bugged, command)
            moved = moved or wanted != got
    assert moved, f"{mutant.name} changes nothing on the cases written for {mutant.rule}"


@pytest.mark.parametrize("mutant", [pytest.param(m, id=m.name, marks=pytest.mark.rule(m.rule)) for m in FIRST])
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
    found = first_differing(mutant, [encode_command(c) for c in report.commands])
    assert found is not None, report.disagreement
    assert mutant.recognises(*found), f"{report.disagreement}\nexpected {found[1]}\nactual   {found[2]}"


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
