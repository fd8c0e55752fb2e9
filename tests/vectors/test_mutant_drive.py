"""``drive`` alone finds every mutant, at its default budget, without luck.

Without the suite, each mutant of ``tests/vectors/mutants`` must be found by
``loopspec drive`` within its default budget (300 examples of up to 30 commands) at each of three
seeds (under the ``thorough`` profile; see below); the disagreement found must be the mutant's
hallmark (``Mutant.recognises`` the first differing observation or state of the sequence found), or,
for a mutant only protocol v2 shows (``needs="v2"``), the audit's finding of the rule it breaks.
The generator's swarm (``vectors/swarm.py``) and hints (``vectors/command_hints.py``) are what make
this hold for paths that need several rare inputs in a row.  ``benchmarks/mutant_catch_bench.py``
prints examples-to-first-catch per mutant and seed, with and without them.

What each profile proves (they differ only in the seeds, the budget is always drive's default):

* ``thorough`` drives every mutant at all three seeds: drive finds each bug without luck;
* ``ci`` drives each mutant at one seed, rotating over the catalogue so that every seed is used:
  drive alone finds every bug of the catalogue, and no seed is skipped;
* ``dev`` drives each at one seed too, the rotation shifted by one from ci's, so that dev and ci
  together cover two of the three seeds of every mutant.

All three seeds of every mutant took about 2.5 times the time of one (measured when ci went to one
seed; the commit says how much), for a claim, robustness over seeds, that the ci run only samples:
a change to the generator, the model or a mutant can break it at a seed ci skips, which
``thorough`` (run before a release) or a dev run catches.
"""

from __future__ import annotations

import pytest
from hypothesis import settings

from loopspec.vectors.codec import encode_command
from loopspec.vectors.drive import drive
from vectors.fixtures import AUDIT, adapter_for, first_differing, span_differing
from vectors.mutants.catalogue import MUTANTS
from vectors.mutants.handler import Mutant

SEEDS = (0, 1, 2)
DEFAULT_EXAMPLES, DEFAULT_STEPS = 300, 30  # loopspec drive's defaults (cli/vectors.py)
# The profiles' max_examples (tests/conftest.py) tell them apart: ci's and thorough's.
CI_EXAMPLES, THOROUGH_EXAMPLES = 500, 5000


def seeds_for(rotation: int) -> tuple[int, ...]:
    """The seeds this profile drives a mutant at (see the module docstring)."""
    examples = settings().max_examples
    if examples >= THOROUGH_EXAMPLES:
        return SEEDS
    shift = 0 if examples >= CI_EXAMPLES else 1
    return (SEEDS[(rotation + shift) % len(SEEDS)],)


ROTATION = [pytest.param(m, i % len(SEEDS), id=m.name, marks=pytest.mark.rule(m.rule)) for i, m in enumerate(MUTANTS)]


@pytest.mark.parametrize(("mutant", "rotation"), ROTATION)
def test_drive_finds_the_mutant_without_the_suite(mutant: Mutant, rotation: int) -> None:
    for seed in seeds_for(rotation):
        report = drive(adapter_for(mutant), examples=DEFAULT_EXAMPLES, steps=DEFAULT_STEPS, seed=seed, shrink=False)
        assert report.adapter_failure is None, report.adapter_failure
        assert report.disagreement is not None, f"{mutant.name} survived {report.examples} examples at seed {seed}"
        if report.disagreement.startswith(AUDIT):  # every observation matched; the audit found the rule broken
            assert mutant.needs == "v2", report.disagreement
            assert mutant.rule in report.disagreement or "time-policy" in report.disagreement, report.disagreement
            continue
        commands = [encode_command(c) for c in report.commands]
        found = first_differing(mutant, commands)
        assert found is not None, report.disagreement
        # At a command that stops at a hop the bug may show split over the hop's span (fixtures).
        span = span_differing(mutant, commands)
        assert mutant.recognises(*found) or (span is not None and mutant.recognises(*span)), (
            f"seed {seed}: {report.disagreement}\nexpected {found[1]}\nactual   {found[2]}")
