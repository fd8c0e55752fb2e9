"""The checker's fold of a step is the step summary's (STEP-4, DECIDE-6, RESULT-6, RESULT-7, LOG-10).

The checker records each record of the open step into a :class:`loopspec.log.step_summary.StepSummary`
through its recording methods, after judging the record; the judge and reproduce feed the parsed
records to :meth:`StepSummary.feed`.  On a log the checker accepts, every record counts, so at every
``step/end`` the two ways into the fold must hold the same summary: the example logs, the recordings,
the synthetic generator's logs and the model's own logs are checked here.  Only the finish reason
is the feed's alone: the checker reads none, and its fast path passes streamed chunks by.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from check.fixtures import SLOW, log_records, random_model_run
from check.log_mutations import valid_logs
from conftest import REAL_TRACES, REPO
from loopspec.check import CheckOptions
from loopspec.check.machine import LogChecker
from loopspec.log.kinds import STEP_END, STEP_START
from loopspec.log.step_summary import StepSummary, summarize

FIELDS = ("entered", "model_side", "announced", "answer_calls", "started", "answered", "open_calls")
VALID = [*sorted((REPO / "examples" / "logs" / "valid").glob("*.events.jsonl")),
         *sorted(REAL_TRACES.glob("*.events.jsonl"))]


def _view(summary: StepSummary) -> tuple[object, ...]:
    return (*(getattr(summary, name) for name in FIELDS), summary.text_answer, summary.pending, summary.silent)


def _steps_agree(records: list[dict[str, object]]) -> int:
    """Feed ``records`` to a checker; at each ``step/end``, its summary against :func:`summarize`.
    The number of steps compared."""
    checker = LogChecker("agreement", CheckOptions(all=True))
    begin, compared = 0, 0
    for line, record in enumerate(records, 1):
        if record.get("type") == STEP_START:
            begin = line
        elif record.get("type") == STEP_END:
            fed = summarize(records[begin:line - 1])
            assert _view(checker.this_step.summary) == _view(fed), f"step/end at line {line}"
            compared += 1
        checker.feed_event(record, line)
    assert not checker.violations, checker.violations[0].message
    return compared


@pytest.mark.rule("RESULT-6", "RESULT-7", "LOG-10")
@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_on_a_valid_log_the_checker_folds_each_step_as_the_summary_does(path: Path) -> None:
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    _steps_agree(records)


@pytest.mark.rule("STEP-4", "DECIDE-6", "RESULT-6")
@SLOW
@given(log=valid_logs())
def test_on_synthetic_logs_the_checker_folds_each_step_as_the_summary_does(log: list[dict[str, object]]) -> None:
    _steps_agree(log)


@pytest.mark.rule("STEP-4", "RESULT-7")
@SLOW
@given(data=st.data())
def test_on_the_models_logs_the_checker_folds_each_step_as_the_summary_does(data: st.DataObject) -> None:
    agent, _ = random_model_run(data)
    _steps_agree(log_records(agent))


def test_the_comparison_can_fail() -> None:
    """A step whose answer the checker missed would not agree: the test compares what it says."""
    records = [json.loads(line) for line in VALID[0].read_text(encoding="utf-8").splitlines() if line.strip()]
    assert _steps_agree(records) > 0
    one, other = summarize([]), summarize([{"type": "user/message", "data": {}}])
    assert _view(one) != _view(other)
