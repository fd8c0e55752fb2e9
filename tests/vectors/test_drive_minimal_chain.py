"""``loopspec drive`` prints a minimal case: no command, listener or listener action of it can go
and still disagree (issue 25: listener chains were left as Hypothesis drew them)."""

from __future__ import annotations

import json
import sys
from typing import cast

import pytest

from conftest import REPO, run_loopspec
from loopspec.loop import commands as cmd
from loopspec.vectors.adapter.client import InProcessAdapter
from loopspec.vectors.codec import decode_command
from loopspec.vectors.command_simplify import simpler_forms
from loopspec.vectors.drive_check import Checker
from loopspec.vectors.profiles import PROFILES
from loopspec.vectors.reference_model import VectorCommand
from vectors.mutants.catalogue import handler

MUTANT = "claimed-after-each-record"  # found in a second or so; its case needs a listener


@pytest.mark.rule("CLAIM-4")
def test_the_printed_case_has_no_listener_or_action_the_disagreement_does_not_need() -> None:
    done = run_loopspec("drive", "--seed", "1", "--time-budget", "60", "--", sys.executable,
                        REPO / "tests" / "vectors" / "mutants" / "run.py", MUTANT, timeout=300)
    assert done.returncode == 1, done.stderr
    commands = tuple(decode_command(step["command"]) for step in json.loads(done.stdout)["steps"])
    assert any(isinstance(c, cmd.Decide) and c.listeners for c in commands), "the case needs no listener?"
    checker = Checker(InProcessAdapter(handler(MUTANT).handle, name=MUTANT), PROFILES["full"])
    assert checker.replay(commands) is not None
    for index, command in enumerate(commands):
        for form in simpler_forms(command):
            simpler = (*commands[:index], cast(VectorCommand, form), *commands[index + 1 :])
            assert checker.replay(simpler) is None, f"command {index + 1} could be simpler: {form}"
