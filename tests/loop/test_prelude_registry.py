"""The answers' preludes are table data with one entry per await point's answer (issue 9, issue 24)."""

from __future__ import annotations

from loopspec.loop import commands as cmd
from loopspec.loop import preludes
from loopspec.loop.lifecycle import PRELUDE_TABLE, TABLE, classify
from loopspec.vectors.command_builders import ANSWERS


def test_one_prelude_per_await_point_answer_and_no_other() -> None:
    """The inputs the answer commands are classified as, the await points' answers and the
    prelude table's inputs are the same three; each is an input the table has rows for."""
    answers = {classify(cmd.Decide()), classify(cmd.Stop()), classify(cmd.TurnStopping())}
    inputs = [prelude.input for prelude in PRELUDE_TABLE]
    assert len(inputs) == len(set(inputs))
    assert set(inputs) == answers == set(ANSWERS.values())
    assert set(inputs) <= {row.input for row in TABLE}


def test_the_prelude_table_and_registry_agree() -> None:
    """Every prelude the table names has a function, and every function is named by the table."""
    named = {prelude.name for prelude in PRELUDE_TABLE} | {p.aborted for p in PRELUDE_TABLE if p.aborted is not None}
    assert named == set(preludes.PRELUDES)
    written = {name for name, value in vars(preludes).items()
               if callable(value) and getattr(value, "__module__", None) == preludes.__name__
               and not name.startswith("_") and not isinstance(value, type)}
    assert written == {function.__name__ for function in preludes.PRELUDES.values()}
