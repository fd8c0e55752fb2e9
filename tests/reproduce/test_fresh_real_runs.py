"""Fresh random lifecycles of the published packages that ``reproduce`` or ``check`` once could not follow (issue 39).

Each recording is one seed of ``conformance/random_lifecycles.py`` (seeds 400000-407999), renamed for
what it shows and kept under ``tests/reproduce/recordings``:

* the hop ``prompting`` (decisions G25): ``cancel_returns_before_the_driver_it_saw_start_goes_on``;
* the hop ``replaying`` (G26): ``status_idle_listener_steers_before_the_replay``,
  ``status_idle_listener_cancels_the_replay``;
* what the log says (G27): ``tool_context_refused_as_already_pending``,
  ``concluding_tool_then_an_empty_entry``, ``rewrite_never_entered_after_a_cancel``;
* where a graceful teardown's cancel lands (G27): ``stream_writes_on_after_a_graceful_note``,
  ``step_ends_after_a_graceful_note``, ``teardown_writes_an_interrupted_message``,
  ``teardown_that_no_record_shows``, ``teardown_lands_after_the_decision_returned``;
* a drained call's deferred context (G28, finding F18; seed 404607):
  ``drained_tool_context_after_a_graceful_note``;
* a send after a started call answered before dispatch, which ``check`` once refused (G29; seeds
  406127 and 406517): ``send_lands_after_a_started_call_answered_before_dispatch``,
  ``send_after_an_answer_before_dispatch_latches_a_wake``;
* a waking send made inside a clear or a cancel, whose own listeners call in turn, two calls deep
  (G30, finding F19; seeds 404219 and 404612): ``inserted_listener_appends_inside_a_steer_made_inside_a_clear``,
  ``status_listener_cancels_inside_a_followup_made_inside_a_cancel``;
* readings of fresh seeds 408000-409999 (G31): ``pre_step_listener_throws_already_pending_after_a_tool_step``,
  ``teardown_lands_after_the_pre_step_was_invoked``, ``drained_tool_finishes_with_its_own_result_after_a_teardown``,
  ``tool_result_and_context_written_after_a_graceful_note``, ``teardown_waits_for_the_error_listeners_nested_calls``.

Each must reproduce and pass ``check --live``.  Where a reading could turn a real difference into a
pass, a changed copy must still be a difference.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from reproduce.recording_copies import (
    REAL_RUNS,
    Json,
    Rows,
    assert_different,
    assert_reproduces_and_checks,
    changed_copy,
    edit,
    first_line,
    row_index,
)

FRESH = (
    "cancel_returns_before_the_driver_it_saw_start_goes_on",
    "status_idle_listener_steers_before_the_replay",
    "status_idle_listener_cancels_the_replay",
    "tool_context_refused_as_already_pending",
    "concluding_tool_then_an_empty_entry",
    "rewrite_never_entered_after_a_cancel",
    "stream_writes_on_after_a_graceful_note",
    "step_ends_after_a_graceful_note",
    "teardown_writes_an_interrupted_message",
    "teardown_that_no_record_shows",
    "teardown_lands_after_the_decision_returned",
    "drained_tool_context_after_a_graceful_note",
    "send_lands_after_a_started_call_answered_before_dispatch",
    "send_after_an_answer_before_dispatch_latches_a_wake",
    "inserted_listener_appends_inside_a_steer_made_inside_a_clear",
    "status_listener_cancels_inside_a_followup_made_inside_a_cancel",
    "pre_step_listener_throws_already_pending_after_a_tool_step",
    "teardown_lands_after_the_pre_step_was_invoked",
    "drained_tool_finishes_with_its_own_result_after_a_teardown",
    "tool_result_and_context_written_after_a_graceful_note",
    "teardown_waits_for_the_error_listeners_nested_calls",
)


@pytest.mark.rule("CANCEL-1", "CANCEL-3", "CANCEL-4", "CANCEL-5", "RESULT-2", "DECIDE-6", "REPAIR-4", "INPUT-2",
                  "DECIDE-7", "END-3")
@pytest.mark.parametrize("name", FRESH)
def test_a_fresh_real_run_reproduces_and_checks(tmp_path: Path, name: str) -> None:
    assert_reproduces_and_checks(changed_copy(REAL_RUNS, name, tmp_path))


def _error_names_another_id(rows: Rows) -> Rows:
    """The agent/error names an id no pending message has: no deferred message explains it."""
    i = row_index(rows, kind="live", type="agent/error")
    rows[i] = {**rows[i], "error": 'Error: message "m99" is already pending'}
    return rows


@pytest.mark.rule("RESULT-2", "END-2")
def test_a_refused_context_is_found_by_the_model_not_by_the_error_text(tmp_path: Path) -> None:
    files = changed_copy(REAL_RUNS, "tool_context_refused_as_already_pending", tmp_path, _error_names_another_id)
    assert_different(files, "agent/error", "END-2")


def _status_listener_call(rows: Rows, change: Callable[[Json], Json]) -> Rows:
    """The idle status listener's call, its op-begin and op-end both rewritten by ``change``."""
    for kind in ("op-begin", "op-end"):
        i = row_index(rows, kind=kind, within="agent/status")
        rows[i] = change(rows[i])
    return rows


def _cancel_keeps_the_inbox(rows: Rows) -> Rows:
    """The idle status's listener cancels with keepInbox: the input stays pending, so the latched wake
    must be replayed, and the recording's discards are a difference."""
    return _status_listener_call(rows, lambda row: {
        **row, "args": {**row["args"], "keepInbox": True}})  # type: ignore[dict-item]


@pytest.mark.rule("CANCEL-4", "CANCEL-2")
def test_the_replay_reads_what_the_idle_status_listener_left_pending(tmp_path: Path) -> None:
    files = changed_copy(REAL_RUNS, "status_idle_listener_cancels_the_replay", tmp_path, _cancel_keeps_the_inbox)
    assert_different(files, "the next durable event", "NOTIFY-4")  # the model owes the replay's running status


def _cancel_not_by_a_listener(rows: Rows) -> Rows:
    """The cancel is the caller's, not the idle status listener's: the real loop replays the wake
    in the same segment as that emit, so a caller's call comes only after the replay."""
    return _status_listener_call(rows, lambda row: {key: value for key, value in row.items() if key != "within"})


@pytest.mark.rule("CANCEL-4", "STATUS-1")
def test_only_a_listener_calls_at_a_hop_inside_an_emit(tmp_path: Path) -> None:
    files = changed_copy(REAL_RUNS, "status_idle_listener_cancels_the_replay", tmp_path, _cancel_not_by_a_listener)
    assert_different(files, "before the call 'cancel' began", "STATUS-1")


def _repair_answered(row: Json) -> Json:
    """The drained call's result made crash repair's code: then the ending process never wrote it."""
    data = dict(row["data"])  # type: ignore[call-overload]
    data["error"] = {"name": "ToolOutcomeUnknownError", "code": "TOOL_OUTCOME_UNKNOWN"}
    return {**row, "data": data}


@pytest.mark.rule("CANCEL-5", "REPAIR-1")
def test_only_the_runtimes_aborted_result_is_the_ending_processs_drain(tmp_path: Path) -> None:
    files = changed_copy(REAL_RUNS, "drained_tool_context_after_a_graceful_note", tmp_path)
    line = first_line(files.events, lambda row: row.get("type") == "tool/result")
    edit(files.events, line, _repair_answered)
    assert_different(files, "the new process's tool/result", "REPAIR-1")


def _idle_before_the_outer_cancel_returns(rows: Rows) -> Rows:
    """The driver the follow-up started, aborted at its start, goes idle before the outer cancel
    returns: the real driver ends only a microtask after that return (the hop ``ending``)."""
    end = row_index(rows, kind="op-end", op="followup", within="agent/inbox/discarded") + 1
    idle = next(i for i in range(end, len(rows)) if rows[i].get("status") == "idle")
    rows.insert(end, rows.pop(idle))
    return rows


@pytest.mark.rule("CANCEL-3", "STATUS-1")
def test_a_driver_aborted_at_its_start_inside_a_call_ends_after_the_call(tmp_path: Path) -> None:
    files = changed_copy(REAL_RUNS, "status_listener_cancels_inside_a_followup_made_inside_a_cancel", tmp_path,
                         _idle_before_the_outer_cancel_returns)
    assert_different(files, "the model emitted nothing here; the recording shows agent/status", "STATUS-1")
