"""The answers' preludes are a registry with one entry per await point's answer (issue 9)."""

from __future__ import annotations

from loopspec.loop import commands as cmd
from loopspec.loop.agent import PRELUDES, classify
from loopspec.loop.table import TABLE
from loopspec.vectors.command_builders import ANSWERS


def test_one_prelude_per_await_point_answer_and_no_other() -> None:
    """The inputs the answer commands are classified as, the await points' answers and the
    registry's names are the same three; each is an input the table has rows for."""
    answers = {classify(cmd.Decide()), classify(cmd.StepResult("stop")), classify(cmd.TurnStopping())}
    assert set(PRELUDES) == answers == set(ANSWERS.values())
    assert set(PRELUDES) <= {row.input for row in TABLE}
