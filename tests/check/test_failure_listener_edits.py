"""Public edits between a step's end and its turn's end: only a failure's ``agent/error`` listeners make them (END-3).

A step that throws is closed by ``step/end``; the turn then emits ``agent/error``, whose listeners
run at once, and writes ``turn/end error``.  So an edit there is real exactly when the turn ends in
error, whatever the step owed: a claim at once (CLAIM-6), or its turn's end (RESULT-7, STEP-4).
The checker keeps the edit until the end says which; a claim, a step or another end shows the
step did not fail, and the edit breaks the rule it would have broken where it stands.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from check.log_mutations import Log, check_log, renumber, valid_logs
from loopspec.check.machine import LogChecker
from loopspec.check.state import CLAIM_DUE
from loopspec.check.verdict import CheckOptions

ROOT = Path(__file__).resolve().parents[2]
VALID = ROOT / "examples/logs/valid"
REAL = VALID / "real-random-lifecycle-100001-agent-error-listener-steers-before-the-error-end.events.jsonl"
FIRST = CheckOptions()
SLOW = settings(
    max_examples=max(30, settings().max_examples // 3),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)
ABORTED: dict[str, object] = {"kind": "aborted", "reason": {"kind": "user"}}


def _read(path: Path) -> Log:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _edits(time: object, mark: str) -> list[dict[str, object]]:
    """A listener's prepend into next-step and its removal of it (two public edits that leave the
    inbox as it was, so the rest of the log stays as valid as it was)."""
    message = {"id": f"listener-{mark}", "role": "user", "content": [{"type": "text", "text": mark}],
               "source": {"kind": "user"}}
    return [{"type": "agent/inbox/spliced", "seq": 0, "time": time,
             "data": {"target": "next-step", "start": 0, "inserted": [message]}},
            {"type": "agent/inbox/spliced", "seq": 0, "time": time,
             "data": {"target": "next-step", "start": 0, "removedCount": 1, "inserted": [], "outcome": "canceled"}}]


def _end_at(log: Log, i: int, reason: dict[str, object]) -> Log:
    out = copy.deepcopy(log)
    data = out[i]["data"]
    assert isinstance(data, dict)
    data["reason"] = reason
    return out


def _first(log: Log, tmp_path: Path) -> tuple[str, int | None] | None:
    result = check_log(log, tmp_path, FIRST)
    return (result.violations[0].rule, result.violations[0].seq) if result.violations else None


@pytest.mark.rule("END-3", "CLAIM-6")
def test_a_real_listener_edit_before_the_error_end_stands(tmp_path: Path) -> None:
    """Seed 100001: step 1.3 fails with next-step holding m8; the listener steers m7; the turn ends error."""
    log = _read(REAL)
    assert _first(log, tmp_path) is None
    end = next(i for i, e in enumerate(log) if e["type"] == "turn/end")
    assert log[end - 1]["type"] == "agent/inbox/spliced"
    assert log[end - 2]["type"] == "step/end"
    # The same edit before an aborted end: an abort emits nothing there.
    assert _first(_end_at(log, end, ABORTED), tmp_path) == ("END-3", end)
    # And before a claim: the step did not fail.
    claim = {"type": "agent/inbox/spliced", "seq": end, "time": log[end]["time"],
             "data": {"target": "next-step", "start": 0, "removedCount": 2, "inserted": []}}
    assert _first([*log[:end], claim], tmp_path) == ("CLAIM-6", end)
    # And before a step/start, which comes with nothing claimed.
    step = {"type": "step/start", "seq": end, "time": log[end]["time"], "data": {"turn": 1, "step": 4}}
    assert _first([*log[:end], step], tmp_path) == ("CLAIM-6", end)


def _owes_its_end_or_claim(log: Log, i: int) -> bool:
    """After event ``i`` (a step/end) the step owes its claim at once (CLAIM-6) or its turn's end
    (RESULT-7, STEP-4, DECIDE-6); otherwise the loop may run turn-stopping, whose listeners edit too."""
    checker = LogChecker("x")
    for line, event in enumerate(log[:i + 1], start=1):
        checker.feed_event(event, line)
    return checker.phase == CLAIM_DUE or checker.last_step.ends_at_once


def _ends_in_error(event: dict[str, object]) -> bool:
    data = event["data"]
    reason = data.get("reason") if isinstance(data, dict) else None
    return event["type"] == "turn/end" and isinstance(reason, dict) and reason.get("kind") == "error"


def _step_end_then_error(log: Log) -> list[int]:
    """The step/ends right before a ``turn/end error``."""
    return [i for i in range(len(log) - 1) if log[i]["type"] == "step/end" and _ends_in_error(log[i + 1])]


def _steer(time: object, mark: str) -> dict[str, object]:
    message = {"id": f"steered-{mark}", "role": "user", "content": [{"type": "text", "text": mark}],
               "source": {"kind": "user"}}
    return {"type": "agent/inbox/spliced", "seq": 0, "time": time,
            "data": {"target": "next-step", "start": 0, "inserted": [message]}}


def _cancel_first(time: object) -> dict[str, object]:
    return {"type": "agent/inbox/spliced", "seq": 0, "time": time,
            "data": {"target": "next-step", "start": 0, "removedCount": 1, "inserted": [], "outcome": "canceled"}}


@pytest.mark.rule("END-3", "CLAIM-6", "RESULT-7", "STEP-4", "DECIDE-6")
@SLOW
@given(data=st.data())
def test_an_edit_before_an_error_end_is_a_listener_s_and_before_any_other_end_is_not(
        tmp_path: Path, data: st.DataObject) -> None:
    log = data.draw(valid_logs())
    spots = _step_end_then_error(log)
    assume(spots)
    i = data.draw(st.sampled_from(spots))
    # With a message steered in right before the step/end, the boundary owes its claim at once
    # (CLAIM-6); it is canceled after the turn's end, so the rest of the log stays valid.
    steered = data.draw(st.booleans())
    time, end_time = log[i]["time"], log[i + 1]["time"]
    before = [_steer(time, str(i))] if steered else []
    after = [_cancel_first(end_time)] if steered else []
    listener = _edits(time, str(i))
    edited = renumber([*log[:i], *before, log[i], *listener, log[i + 1], *after, *log[i + 2:]])
    assert _first(edited, tmp_path) is None, "a listener's edit before the error end was refused"
    end = i + len(before) + 1 + len(listener)
    if not steered and not _owes_its_end_or_claim(log, i):
        return  # turn-stopping's listeners may have made the edits, and an abort may follow them
    found = _first(_end_at(edited, end, ABORTED), tmp_path)
    assert found is not None, "an edit before an aborted end was accepted"
    # The first violation is named at the end: END-3, or the end's own rule (an unanswered call
    # never ends aborted, RESULT-7), never anything before.
    assert found[0] in ("END-3", "RESULT-7"), found
    assert found[1] == end, found
