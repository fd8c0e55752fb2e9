"""Logs the lifecycle model writes are logs the checker accepts, and synthetic logs too.

The model (:func:`loopspec.loop.lifecycle.step`) is driven by random commands — sends of every kind,
public edits, cancels, restarts, and the environment's answers at each await point (pre-step
listener chains, step results, turn-stopping listeners) — and its durable log is checked.  Two
independent descriptions of the real loop, the model's table and the checker's log state
machine, must agree that every such history is legal.  The model's interleaved emission trace
also gives a live stream (a restart becomes a crash note and a resume note, or while idle a
graceful disposal: cancel with cause disposed, a note with crash false and the next process's
note), which must pass ``check --live`` against the log.  The synthetic generator used by the other checker tests is
held to the same standard.

Rules: TURN-1 … TURN-5, STEP-1 … STEP-4, CLAIM-1 … CLAIM-3, CLAIM-6, DECIDE-5 … DECIDE-8,
RESULT-5, CHAIN-1, CHAIN-2, CANCEL-3, CANCEL-4, REPAIR-1 … REPAIR-4, LOG-2, LOG-7, LOG-8.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from check.fixtures import SLOW, log_records, random_model_run
from check.log_mutations import Log, check_log, dumps, valid_logs
from loopspec.check import CheckOptions, check_file


@pytest.mark.rule("TURN-5", "CLAIM-6", "RESULT-5", "CANCEL-4", "REPAIR-2", "REPAIR-3", "LOG-7")
@SLOW
@given(data=st.data())
def test_the_model_writes_logs_the_checker_accepts(tmp_path: Path, data: st.DataObject) -> None:
    agent, _ = random_model_run(data)
    result = check_log(log_records(agent), tmp_path)
    assert result.status == "valid", (result.violations[0].rule, result.violations[0].message)


@pytest.mark.rule("NOTIFY-1", "NOTIFY-2", "NOTIFY-4", "CLAIM-4", "STATUS-1", "END-2", "LOG-5")
@SLOW
@given(data=st.data())
def test_the_models_live_stream_matches_its_log(tmp_path: Path, data: st.DataObject) -> None:
    """The model's notifications, in emission order, pass ``check --live`` against its log."""
    agent, live = random_model_run(data)
    log = tmp_path / "m.events.jsonl"
    log.write_bytes(dumps(log_records(agent)))
    stream = tmp_path / "m.live.jsonl"
    stream.write_text("".join(json.dumps(r) + "\n" for r in live), encoding="utf-8")
    result = check_file(log, CheckOptions(all=True), live=stream)
    assert result.status == "valid", [(v.rule, v.message) for v in result.violations]


@pytest.mark.rule("TURN-1", "STEP-1", "STEP-4", "CLAIM-1", "CLAIM-2", "LOG-3", "LOG-4")
@SLOW
@given(valid_logs(max_events=400))
def test_synthetic_logs_are_valid(tmp_path: Path, log: Log) -> None:
    result = check_log(log, tmp_path)
    assert result.status == "valid", (result.violations[0].rule, result.violations[0].message)
