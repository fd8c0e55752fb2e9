"""``loopspec drive``: differential testing of an adapter against the model.

* Against the reference adapter (the model over the wire) no disagreement is found.
* Against a broken adapter (``remove`` of a missing id answers null instead of false, SPLICE-7)
  the disagreement is found and shrunk to the single command that shows it; the printed vector
  case validates, passes against the model and fails against the broken adapter; the same seed
  finds the same minimal sequence.
* A crashing adapter is reported with the sequence that led to it, not shrunk and not hung.

Budgets are small and fixed here (examples, steps, seconds) because each example is a
subprocess conversation; the point is the mechanism, not search depth.
"""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest

from loopspec.cli import main
from loopspec.loop import commands as cmd
from loopspec.vectors.adapter.client import InProcessAdapter
from loopspec.vectors.adapter.process import SubprocessAdapter
from loopspec.vectors.adapter.reference import ModelHandler
from loopspec.vectors.drive import drive
from loopspec.vectors.runner import run_suite
from vectors.fixtures import FAKE_ADAPTER, REFERENCE, WrongRemove, fake_argv, validator

VECTOR = validator("vector.schema.json")


@pytest.fixture(scope="module")
def fake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fake") / "fake_adapter.py"
    path.write_text(FAKE_ADAPTER)
    return path


def test_drive_finds_no_disagreement_with_the_reference_adapter() -> None:
    with SubprocessAdapter(REFERENCE) as adapter:
        report = drive(adapter, examples=25, steps=25, seed=1, time_budget=60)
    assert report.ok, report.disagreement or report.adapter_failure
    assert report.examples >= 25


@pytest.mark.rule("SPLICE-7")
def test_drive_shrinks_a_disagreement_to_a_committable_case(tmp_path: Path) -> None:
    report = drive(InProcessAdapter(WrongRemove().handle), examples=300, steps=25, seed=0, time_budget=90,
                   shrink_budget=60)
    assert not report.ok
    assert report.disagreement is not None
    assert "$.value: expected false, got null" in report.disagreement
    assert len(report.commands) == 1
    assert isinstance(report.commands[0], cmd.Remove)
    case = report.case(0)
    VECTOR.validate(case)
    path = tmp_path / "regression.json"
    path.write_text(json.dumps(case))
    assert run_suite(path, lambda: InProcessAdapter(ModelHandler().handle), io.StringIO()).ok
    assert not run_suite(path, lambda: InProcessAdapter(WrongRemove().handle), io.StringIO()).ok
    again = drive(InProcessAdapter(WrongRemove().handle), examples=300, steps=25, seed=0, time_budget=90,
                  shrink_budget=60)
    assert again.commands == report.commands


def test_drive_reports_an_adapter_crash_without_hanging(fake: Path) -> None:
    started = time.monotonic()
    with SubprocessAdapter(fake_argv(fake, "exit", 12), timeout=2.0) as adapter:
        report = drive(adapter, examples=50, steps=20, seed=0, time_budget=30)
    assert time.monotonic() - started < 30
    assert report.adapter_failure is not None
    assert "exited" in report.adapter_failure
    assert "exit code: 3" in report.adapter_failure
    assert report.commands, "the sequence that led to the crash is kept"


def test_drive_cli(fake: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["drive", "--examples", "5", "--steps", "10", "--", *REFERENCE]) == 0
    assert "no disagreement" in capsys.readouterr().err
    code = main(["drive", "--examples", "200", "--steps", "25", "--time-budget", "20", "--",
                 *fake_argv(fake, "wrong-remove")])
    captured = capsys.readouterr()
    assert code == 1
    assert "disagreement" in captured.err
    case = json.loads(captured.out)
    VECTOR.validate(case)
    assert case["kind"] == "regression"
    # An adapter that cannot be started (another protocol) is unusable input: nothing was tested.
    assert main(["drive", "--examples", "5", "--", *fake_argv(fake, "old-protocol")]) == 2
    assert "loopspec drive: cannot start the adapter: " in capsys.readouterr().err
